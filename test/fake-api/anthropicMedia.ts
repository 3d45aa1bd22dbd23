import { IMAGE_LIMITS, PDF_LIMITS, anthropicImageTier, anthropicImageTokens, pdfPageImageTokens } from '../../src/core';
import { decodeBase64, readImageInfo, readPdfInfo } from './media';
import { countTokens } from './tokens';

// Image and document blocks of the Messages API, checked as "Vision" and "PDF support" document
// them (read 2026-11-25). Error texts are the API's own where one was found in public reports:
// the base64 size ("image exceeds 5 MB maximum: N bytes > 5242880 bytes", now 10 MB), the media
// type list, the magic-number mismatch ("The image was specified using the image/jpeg media
// type, but the image appears to be a image/png image"), both dimension limits, "'image' blocks
// are not permitted within assistant turns", "A maximum of 100 PDF pages may be provided.",
// "too many images and documents: 104 + 1 > 100" and "… does not support PDFs.". The texts for
// bad base64, an undecodable image and an invalid PDF could not be confirmed.

type Json = Record<string, unknown>;

const LIMITS = IMAGE_LIMITS.anthropic;
const MEDIA_TYPES = LIMITS.mediaTypes as readonly string[];
const MEDIA_TYPE_LIST = "'image/jpeg', 'image/png', 'image/gif' or 'image/webp'";

/** Images and documents seen so far in one request, for the per-request limits. */
export interface MediaTally {
  images: Array<{ path: string; width: number; height: number }>;
  documents: number;
  pdfPages: number;
  /** Where the first PDF is, for the page-limit error. */
  pdfPath: string | null;
}

export function emptyTally(): MediaTally {
  return { images: [], documents: 0, pdfPages: 0, pdfPath: null };
}

export interface AnthropicMediaOptions {
  model: string;
  /** Models that refuse document blocks. */
  noPdfModels: ReadonlySet<string>;
  /** Token cost of each accepted block, for the request's count. */
  tokens: WeakMap<Json, number>;
}

function isRecord(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * `null` when an `image` or `document` block is valid, else the error message. `path` is the
 * block's (`messages.0.content.1`, or `….tool_result.content.0` inside a tool result);
 * `messagePath` the message's (`messages.0`).
 */
export function checkAnthropicMedia(
  block: Json,
  path: string,
  messagePath: string,
  role: string,
  tally: MediaTally,
  options: AnthropicMediaOptions,
): string | null {
  const kind = block.type as 'image' | 'document';
  if (role !== 'user') return `${messagePath}.content: '${kind}' blocks are not permitted within ${role} turns.`;
  const source = block.source;
  if (!isRecord(source)) return `${path}.${kind}.source: Field required`;
  const at = `${path}.${kind}.source`;
  return kind === 'image' ? checkImage(block, source, at, path, tally, options) : checkDocument(block, source, at, path, tally, options);
}

function checkImage(block: Json, source: Json, at: string, path: string, tally: MediaTally, options: AnthropicMediaOptions): string | null {
  if (source.type === 'url') {
    if (typeof source.url !== 'string') return `${at}.url.url: Field required`;
    // Nothing to measure without fetching it: priced at the tier's budget.
    options.tokens.set(block, anthropicImageTier(options.model).maxVisualTokens);
    tally.images.push({ path, width: 1, height: 1 });
    return null;
  }
  if (source.type !== 'base64') {
    return `${at}: Input tag '${String(source.type)}' found using 'type' does not match any of the expected tags: 'base64', 'url', 'file'`;
  }
  if (typeof source.media_type !== 'string' || !MEDIA_TYPES.includes(source.media_type)) return `${at}.base64.media_type: Input should be ${MEDIA_TYPE_LIST}`;
  if (typeof source.data !== 'string') return `${at}.base64.data: Field required`;
  const max = LIMITS.maxImageBase64Bytes!;
  if (source.data.length > max) return `${at}.base64: image exceeds ${max / 1024 / 1024} MB maximum: ${source.data.length} bytes > ${max} bytes`;
  const bytes = decodeBase64(source.data);
  if (bytes === null) return `${at}.base64.data: Invalid base64 data`;
  const info = readImageInfo(bytes);
  if (info === null) return `${at}.base64.data: Could not process image`;
  if (info.mediaType !== source.media_type) {
    return `${at}.base64: The image was specified using the ${source.media_type} media type, but the image appears to be a ${info.mediaType} image`;
  }
  if (Math.max(info.width, info.height) > LIMITS.maxDimension!) {
    return `${at}.base64.data: At least one of the image dimensions exceed max allowed size: ${LIMITS.maxDimension} pixels`;
  }
  options.tokens.set(block, anthropicImageTokens(info.width, info.height, options.model));
  tally.images.push({ path: `${at}.base64.data`, width: info.width, height: info.height });
  return null;
}

function checkDocument(block: Json, source: Json, at: string, path: string, tally: MediaTally, options: AnthropicMediaOptions): string | null {
  const pageImage = pdfPageImageTokens('anthropic', options.model);
  switch (source.type) {
    case 'text':
      if (source.media_type !== 'text/plain') return `${at}.text.media_type: Input should be 'text/plain'`;
      if (typeof source.data !== 'string') return `${at}.text.data: Field required`;
      tally.documents += 1;
      return null;
    case 'url':
      if (typeof source.url !== 'string') return `${at}.url.url: Field required`;
      if (options.noPdfModels.has(options.model)) return `${options.model} does not support PDFs.`;
      options.tokens.set(block, pageImage);
      tally.documents += 1;
      tally.pdfPages += 1;
      return null;
    case 'base64': {
      if (source.media_type !== 'application/pdf') return `${at}.base64.media_type: Input should be 'application/pdf'`;
      if (typeof source.data !== 'string') return `${at}.base64.data: Field required`;
      const bytes = decodeBase64(source.data);
      if (bytes === null) return `${at}.base64.data: Invalid base64 data`;
      const pdf = readPdfInfo(bytes);
      if (pdf === null || pdf.pages === 0) return `${at}.base64.data: The PDF specified was not valid.`;
      if (options.noPdfModels.has(options.model)) return `${options.model} does not support PDFs.`;
      options.tokens.set(block, countTokens(pdf.text) + pdf.pages * pageImage);
      tally.documents += 1;
      tally.pdfPages += pdf.pages;
      tally.pdfPath ??= `${path}.pdf.source.base64.data`;
      return null;
    }
    default:
      return `${at}: Input tag '${String(source.type)}' found using 'type' does not match any of the expected tags: 'base64', 'text', 'content', 'url', 'file'`;
  }
}

/**
 * The per-request limits, once every block is read: PDF pages, images and documents together
 * (600, or 100 when the model's window is under 1M tokens), and 2000 px per side once a request
 * holds more than 20 images.
 */
export function checkMediaTally(tally: MediaTally, contextWindow: number): string | null {
  const small = contextWindow < PDF_LIMITS.anthropic.smallWindowBelowTokens;
  const pageLimit = small ? PDF_LIMITS.anthropic.maxPagesPerRequestSmallWindow : PDF_LIMITS.anthropic.maxPagesPerRequest;
  if (tally.pdfPages > pageLimit) return `${tally.pdfPath ?? 'messages'}: A maximum of ${pageLimit} PDF pages may be provided.`;
  const mediaLimit = small ? LIMITS.maxImagesPerRequestSmallWindow : LIMITS.maxImagesPerRequest;
  if (tally.images.length + tally.documents > mediaLimit) {
    return `too many images and documents: ${tally.images.length} + ${tally.documents} > ${mediaLimit}`;
  }
  const many = LIMITS.manyImages!;
  if (tally.images.length > many.threshold) {
    const large = tally.images.find((image) => Math.max(image.width, image.height) > many.maxDimension);
    if (large) return `${large.path}: At least one of the image dimensions exceed max allowed size for many-image requests: ${many.maxDimension} pixels`;
  }
  return null;
}
