import { IMAGE_LIMITS, openAiImageTokens, openAiTakesImages, pdfTokens, type OpenAiImageDetail } from '../../src/core';
import { decodeBase64, parseDataUrl, readImageInfo, readPdfInfo, sniffImageType } from './media';
import { countTokens } from './tokens';
import type { ApiFailure } from './types';

// Image and file parts of Chat Completions, checked as "Images and vision" and "File inputs"
// document them (read 2026-11-25): images as `image_url` parts on user messages only, PNG,
// JPEG, WebP and non-animated GIF, up to 1500 per request; PDFs as `file` parts with
// `file_data` (a base64 data URL) or `file_id`, on models that see images.
//
// Texts found in public reports of the real API: the image-role error ("Invalid
// 'messages[2]'. Image URLs are only allowed for messages with role 'user', but this message
// with role 'assistant' contains an image URL."), the text-only model's ("Invalid content type.
// image_url is only supported by certain models.", param `messages.[0].content.[1].type`), an
// `image_url` given as a string, a URL without `data:`, "Invalid base64 image_url.", and the
// unsupported-image texts with code `invalid_image_format`. Ollama answers "this model does not
// support image input" (ollama/ollama#17301), vLLM "<model> is not a multimodal model None" in
// its own body shape (vllm-project/vllm#23402, studio-dots-ai/dots.ocr#61). The texts for bad
// `file` parts, the image count and the codes of the role and base64 errors could not be confirmed.

type Json = Record<string, unknown>;

/** Whose error a model that takes no images answers with. */
export type TextOnlyStyle = 'openai' | 'ollama' | 'vllm';

export interface OpenAIMediaContext {
  model: string;
  /** How the model refuses images, or null when it takes them. */
  textOnly: TextOnlyStyle | null;
  /** Token cost of each accepted part. */
  tokens: WeakMap<Json, number>;
  images: number;
}

const DETAILS = ['low', 'high', 'auto', 'original'];
const UNSUPPORTED_FORMAT = "You uploaded an unsupported image. Please make sure your image has of one the following formats: ['png', 'jpeg', 'gif', 'webp'].";
/** An image the fake cannot measure (an https URL) is priced as a 1024 × 1024 one. */
const UNMEASURED_SIDE = 1024;

function invalid(message: string, param: string | null = null, code: string | null = null): ApiFailure {
  return { status: 400, type: 'invalid_request_error', message, param, code };
}

function typeName(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  return typeof value === 'object' ? 'an object' : `a ${typeof value}`;
}

function isRecord(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** How `model` refuses images, from the server's settings and the core's list of text-only models. */
export function textOnlyStyle(model: string, configured: Readonly<Record<string, TextOnlyStyle>>): TextOnlyStyle | null {
  return configured[model] ?? (openAiTakesImages(model) ? null : 'openai');
}

/** The refusal of a model that takes no images, in the style of the server that answers. */
function refusal(style: TextOnlyStyle, model: string, partType: string, index: number, j: number, root: string): ApiFailure {
  if (style === 'ollama') return invalid('this model does not support image input');
  if (style === 'vllm') {
    const message = `${model} is not a multimodal model None`;
    return { status: 400, type: 'BadRequestError', message, body: { object: 'error', message, type: 'BadRequestError', param: null, code: 400 } };
  }
  return invalid(`Invalid content type. ${partType} is only supported by certain models.`, `${root}.[${index}].content.[${j}].type`);
}

/** The error for an image part on a message that is not the user's. */
export function imageRoleFailure(index: number, role: string): ApiFailure {
  return invalid(
    `Invalid 'messages[${index}]'. Image URLs are only allowed for messages with role 'user', but this message with role '${role}' contains an image URL.`,
    `messages[${index}]`,
  );
}

/**
 * `null` when a user message's `image_url` or `file` part is valid (and priced), else the failure.
 * `root` names the request's list in error paths: `messages` (Chat Completions) or `input` (Responses,
 * whose `input_image` / `input_file` parts responses.ts hands over in this shape).
 */
export function checkOpenAIMediaPart(part: Json, index: number, j: number, context: OpenAIMediaContext, root = 'messages'): ApiFailure | null {
  const path = `${root}[${index}].content[${j}]`;
  const type = part.type as 'image_url' | 'file';
  if (context.textOnly)
    return refusal(context.textOnly, context.model, root === 'messages' ? type : `input_${type === 'file' ? 'file' : 'image'}`, index, j, root);
  return type === 'image_url' ? checkImagePart(part, path, context) : checkFilePart(part, path, context);
}

function checkImagePart(part: Json, path: string, context: OpenAIMediaContext): ApiFailure | null {
  const image = part.image_url;
  if (!isRecord(image))
    return invalid(`Invalid type for '${path}.image_url': expected an object, but got ${typeName(image)} instead.`, `${path}.image_url`, 'invalid_type');
  if (typeof image.url !== 'string')
    return invalid(`Missing required parameter: '${path}.image_url.url'.`, `${path}.image_url.url`, 'missing_required_parameter');
  const detail = image.detail ?? 'auto';
  if (typeof detail !== 'string' || !DETAILS.includes(detail)) {
    return invalid(
      `Invalid value: '${String(detail)}'. Supported values are: 'auto', 'low', 'high', and 'original'.`,
      `${path}.image_url.detail`,
      'invalid_value',
    );
  }
  context.images += 1;
  if (/^https?:\/\//i.test(image.url)) {
    context.tokens.set(part, openAiImageTokens(UNMEASURED_SIDE, UNMEASURED_SIDE, detail as OpenAiImageDetail, context.model));
    return null;
  }
  const dataUrl = parseDataUrl(image.url);
  if (dataUrl === null) {
    return invalid(
      `Invalid image URL: '${path}.image_url.url'. Expected a base64-encoded data URL with an image MIME type (e.g. 'data:image/png;base64,aW1nIGJ5dGVzIGhlcmU='), but got a value without the 'data:' prefix.`,
      `${path}.image_url.url`,
      'invalid_value',
    );
  }
  const bytes = decodeBase64(dataUrl.data);
  if (bytes === null) return invalid('Invalid base64 image_url.', `${path}.image_url.url`);
  const info = readImageInfo(bytes);
  if (info === null) {
    return sniffImageType(bytes) === null
      ? invalid(UNSUPPORTED_FORMAT, null, 'invalid_image_format')
      : invalid('You uploaded an unsupported image. Please make sure your image is valid.', null, 'invalid_image');
  }
  if (info.animated) return invalid(UNSUPPORTED_FORMAT, null, 'invalid_image_format');
  context.tokens.set(part, openAiImageTokens(info.width, info.height, detail as OpenAiImageDetail, context.model));
  return null;
}

function checkFilePart(part: Json, path: string, context: OpenAIMediaContext): ApiFailure | null {
  const file = part.file;
  if (!isRecord(file))
    return invalid(`Invalid type for '${path}.file': expected an object, but got ${typeName(file)} instead.`, `${path}.file`, 'invalid_type');
  if (typeof file.file_id === 'string') {
    // An uploaded file the fake never saw: priced as one page without text.
    context.tokens.set(part, pdfTokens('openai', [0], context.model, 'file'));
    return null;
  }
  if (typeof file.file_data !== 'string')
    return invalid(`Missing required parameter: '${path}.file.file_data'.`, `${path}.file.file_data`, 'missing_required_parameter');
  if (typeof file.filename !== 'string')
    return invalid(`Missing required parameter: '${path}.file.filename'.`, `${path}.file.filename`, 'missing_required_parameter');
  const dataUrl = parseDataUrl(file.file_data);
  if (dataUrl === null) {
    return invalid(
      `Invalid file data: '${path}.file.file_data'. Expected a base64-encoded data URL with a MIME type (e.g. 'data:application/pdf;base64,SGVsbG8sIFdvcmxkIQ=='), but got a value without the 'data:' prefix.`,
      `${path}.file.file_data`,
      'invalid_value',
    );
  }
  if (dataUrl.mediaType !== 'application/pdf') {
    return invalid(
      `Invalid file data: '${path}.file.file_data'. Only PDF files (application/pdf) are supported, but got '${dataUrl.mediaType}'.`,
      `${path}.file.file_data`,
      'invalid_value',
    );
  }
  const bytes = decodeBase64(dataUrl.data);
  const pdf = bytes === null ? null : readPdfInfo(bytes);
  if (pdf === null || pdf.pages === 0)
    return invalid(`Invalid file '${file.filename}': the file is not a valid PDF.`, `${path}.file.file_data`, 'invalid_value');
  context.tokens.set(part, countTokens(pdf.text) + pdfTokens('openai', new Array<number>(pdf.pages).fill(0), context.model, 'file'));
  return null;
}

/** The per-request image count, once every message is read. */
export function checkOpenAIImageCount(context: OpenAIMediaContext): ApiFailure | null {
  const max = IMAGE_LIMITS.openai.maxImagesPerRequest;
  return context.images > max ? invalid(`Too many images in request. Max is ${max}.`, 'messages', 'invalid_value') : null;
}
