/**
 * Images in requests. A stored message refers to its images by file id (see
 * `ImageBlock`); the wire mapping emits a block of the API's own shape whose bytes are
 * still missing and which carries the reference under {@link FILE_REF_KEY}. The planner
 * counts and windows those blocks like any other content; only the plan's survivors are
 * read from storage and encoded (`resolveFileRefs`), once per request.
 */
import type { ContentBlock, DocumentBlock, ImageBlock, StoredMessage } from './conversation';
import type { AnthropicWireBlock } from './messages';
import { anthropicImageTokens, base64Length, openAiImageTokens, PDF_LIMITS, pdfTokens, type PdfSentAs } from './tokens/imageTokens';

/** Key of the file reference a wire image block carries until its bytes are filled in. Never sent. */
export const FILE_REF_KEY = 'windowpane_file';

/** What a wire image block carries under {@link FILE_REF_KEY}: enough to count it, clear it and fill it in. */
export interface FileRef {
  fileId: string;
  name: string;
  mediaType: string;
  width: number;
  height: number;
  /** The model the request goes to, whose formula prices the image (its tier, its tile or patch rule). */
  model?: string;
  /** For a PDF (its width and height are 0): its pages, each page's text tokens, and whether it goes as the file or as its text. */
  pdf?: { pages: number; pageTokens: number[]; as: PdfSentAs };
}

/** The two request shapes an image is sent in. */
export type ImageWireShape = 'anthropic' | 'openai';

/** The wire block for `block` sent to `model`, its bytes still to be filled in by `resolveFileRefs`. */
export function imageWireBlock(shape: ImageWireShape, block: ImageBlock, model?: string): AnthropicWireBlock {
  const ref: FileRef = { fileId: block.fileId, name: block.name, mediaType: block.mediaType, width: block.width, height: block.height };
  if (model) ref.model = model;
  if (shape === 'anthropic') return { type: 'image', source: { type: 'base64', media_type: block.mediaType, data: '' }, [FILE_REF_KEY]: ref };
  return { type: 'image_url', image_url: { url: '' }, [FILE_REF_KEY]: ref };
}

/** The reference a wire block carries, or undefined for any other block. */
export function fileRefOf(block: unknown): FileRef | undefined {
  if (typeof block !== 'object' || block === null) return undefined;
  const ref = (block as Record<string, unknown>)[FILE_REF_KEY];
  if (typeof ref !== 'object' || ref === null) return undefined;
  const { fileId, name, mediaType, width, height, model, pdf } = ref as Record<string, unknown>;
  if (typeof fileId !== 'string' || typeof name !== 'string' || typeof mediaType !== 'string') return undefined;
  if (typeof width !== 'number' || typeof height !== 'number') return undefined;
  const read: FileRef = { fileId, name, mediaType, width, height };
  if (typeof model === 'string') read.model = model;
  if (typeof pdf === 'object' && pdf !== null) read.pdf = pdf as NonNullable<FileRef['pdf']>;
  return read;
}

/**
 * The wire block for the PDF `block` sent to `model`, its bytes or text still to be filled
 * in by `resolveFileRefs`: as the file, an Anthropic `document` block or an OpenAI `file`
 * part; as its text, a text block of either shape.
 */
export function documentWireBlock(shape: ImageWireShape, block: DocumentBlock, as: PdfSentAs, model?: string): AnthropicWireBlock {
  const ref: FileRef = {
    fileId: block.fileId,
    name: block.name,
    mediaType: block.mediaType,
    width: 0,
    height: 0,
    pdf: { pages: block.pages, pageTokens: pageTokensOf(block), as },
  };
  if (model) ref.model = model;
  // Never empty, so no check for empty content drops it before its pages are filled in.
  if (as === 'text') return { type: 'text', text: `[PDF: ${block.name}]`, [FILE_REF_KEY]: ref };
  if (shape === 'anthropic') return { type: 'document', source: { type: 'base64', media_type: 'application/pdf', data: '' }, [FILE_REF_KEY]: ref };
  return { type: 'file', file: { filename: block.name, file_data: '' }, [FILE_REF_KEY]: ref };
}

/** Each page's text tokens, one per page (a block stored without them counts its pages as empty). */
function pageTokensOf(block: Pick<DocumentBlock, 'pages' | 'pageTokens'>): number[] {
  return block.pageTokens?.length === block.pages ? block.pageTokens : new Array<number>(block.pages).fill(0);
}

/**
 * Tokens a PDF costs sent to `model` in `shape` (see `pdfTokens`): its page texts, plus a
 * page image per page when it goes as the file.
 */
export function documentTokens(shape: ImageWireShape, block: Pick<DocumentBlock, 'pages' | 'pageTokens'>, as: PdfSentAs, model = ''): number {
  return pdfTokens(shape, pageTokensOf(block), model, as);
}

/** The text a PDF is sent as when it is left out: "[PDF: report.pdf, 12 pages — not sent to save 20,400 tokens]". */
export function clearedDocumentText(document: Pick<DocumentBlock, 'name' | 'pages'>, tokens: number): string {
  const pages = `${document.pages.toLocaleString('en-US')} page${document.pages === 1 ? '' : 's'}`;
  return `[PDF: ${document.name}, ${pages} — not sent to save ${tokens.toLocaleString('en-US')} tokens]`;
}

/**
 * A PDF's text as it is sent to a model that takes no PDFs: each page after a line naming
 * it ("[PDF: report.pdf — page 3 of 12]"). Pages without text say so, so the numbering
 * stays true.
 */
export function pdfAsText(name: string, pageTexts: readonly string[]): string {
  const total = pageTexts.length;
  return pageTexts
    .map(
      (text, i) => `[PDF: ${name} — page ${(i + 1).toLocaleString('en-US')} of ${total.toLocaleString('en-US')}]\n${text.trim() || '(no text on this page)'}`,
    )
    .join('\n\n');
}

/**
 * Tokens one image costs as the provider counts it for `model`, from its pixels (see
 * tokens/imageTokens.ts for each documented formula). Windowpane sends OpenAI images at
 * `detail: "auto"`, the API's default.
 */
export function imageTokens(shape: ImageWireShape, width: number, height: number, model = ''): number {
  return shape === 'anthropic' ? anthropicImageTokens(width, height, model) : openAiImageTokens(width, height, 'auto', model);
}

/** The text an image is sent as when it is left out: "[image: chart.png, 1200×800 — not sent to save 1,280 tokens]". */
export function clearedImageText(image: Pick<ImageBlock, 'name' | 'width' | 'height'>, tokens: number): string {
  return `[image: ${image.name}, ${image.width}×${image.height} — not sent to save ${tokens.toLocaleString('en-US')} tokens]`;
}

/** A file's size as people read it: "812 bytes", "12 KB". */
export function sizeText(bytes: number): string {
  return bytes < 1024 ? `${bytes.toLocaleString('en-US')} bytes` : `${Math.round(bytes / 1024).toLocaleString('en-US')} KB`;
}

/**
 * The line a tool result's image goes as where the API takes no images in a tool result
 * (Chat Completions' tool messages carry text only): "[image/png, 12 KB, not shown to the model]".
 */
export function toolImageNote(image: Pick<ImageBlock, 'mediaType' | 'bytes'>): string {
  return `[${image.mediaType}, ${sizeText(image.bytes)}, not shown to the model]`;
}

/** The text an image or PDF is sent as when its file is no longer stored (its attachments were deleted). */
export function missingImageText(image: Pick<FileRef, 'name' | 'pdf'>): string {
  return `[${image.pdf ? 'PDF' : 'image'}: ${image.name} — the file was deleted, so it is not sent]`;
}

/** What one request may carry in files: PDF pages sent as files, and bytes of base64. */
export interface FileBudget {
  pages: number;
  bytes: number;
}

/**
 * The provider's documented per-request limits for files (see PDF_LIMITS), with a tenth of
 * the bytes left for the conversation's text: Anthropic takes 100 PDF pages per request
 * under a 1M-token window (600 at 1M) and 32 MB in all; OpenAI documents no page limit and
 * 512 MB. PDFs sent as their text count no pages.
 */
export function requestFileBudget(shape: ImageWireShape, contextWindow: number, pdfAs: PdfSentAs = 'file'): FileBudget {
  if (shape === 'openai') return { pages: Infinity, bytes: PDF_LIMITS.openai.maxRequestBytes * 0.9 };
  const limits = PDF_LIMITS.anthropic;
  const pages = contextWindow < limits.smallWindowBelowTokens ? limits.maxPagesPerRequestSmallWindow : limits.maxPagesPerRequest;
  return { pages: pdfAs === 'text' ? Infinity : pages, bytes: limits.maxRequestBytes * 0.9 };
}

/**
 * File ids of the images and PDFs a request leaves out (a tool result's images among them):
 * all but the newest `keep` of them together (in request order), every image when `noImages` (a model that cannot read
 * them; its PDFs go as text), and, newest first, any that would take the request past
 * `budget` (PDF pages, base64 bytes). Pure; the transcript marks the same files "not sent".
 */
export function imagesToClear(
  messages: readonly Pick<StoredMessage, 'role' | 'content'>[],
  keep: number,
  noImages = false,
  budget: FileBudget = { pages: Infinity, bytes: Infinity },
): Set<string> {
  const cleared = new Set<string>();
  let kept = 0;
  let pages = 0;
  let bytes = 0;
  for (let i = messages.length - 1; i >= 0; i--) {
    const message = messages[i]!;
    if (message.role !== 'user') continue;
    const blocks = message.content.flatMap((block): readonly ContentBlock[] => (block.type === 'tool_result' ? (block.images ?? []) : [block]));
    for (let k = blocks.length - 1; k >= 0; k--) {
      const block = blocks[k]!;
      if (block.type !== 'image' && block.type !== 'document') continue;
      const morePages = block.type === 'document' ? block.pages : 0;
      const moreBytes = base64Length(block.bytes);
      if (block.type === 'image' && noImages) cleared.add(block.fileId);
      else if (kept >= Math.max(0, keep) || pages + morePages > budget.pages || bytes + moreBytes > budget.bytes) cleared.add(block.fileId);
      else {
        kept++;
        pages += morePages;
        bytes += moreBytes;
      }
    }
  }
  return cleared;
}

/**
 * `message` with the images in `cleared` replaced by text placeholders naming them and
 * the tokens saved (`message` itself when it holds none of them). Pure.
 */
export function withImagesCleared<M extends Pick<StoredMessage, 'content'>>(
  message: M,
  cleared: ReadonlySet<string>,
  shape: ImageWireShape,
  model?: string,
  pdfAs: PdfSentAs = 'file',
): M {
  const isCleared = (b: ContentBlock) =>
    ((b.type === 'image' || b.type === 'document') && cleared.has(b.fileId)) ||
    (b.type === 'tool_result' && (b.images ?? []).some((image) => cleared.has(image.fileId)));
  if (!message.content.some(isCleared)) return message;
  const content: ContentBlock[] = message.content.map((b) => {
    if (b.type === 'image' && cleared.has(b.fileId)) return { type: 'text', text: clearedImageText(b, imageTokens(shape, b.width, b.height, model)) };
    if (b.type === 'document' && cleared.has(b.fileId)) return { type: 'text', text: clearedDocumentText(b, documentTokens(shape, b, pdfAs, model)) };
    if (b.type === 'tool_result' && isCleared(b)) {
      // A tool result's cleared images become lines of its own text: it must stay one block, first in its message.
      const images = b.images ?? [];
      const notes = images
        .filter((image) => cleared.has(image.fileId))
        .map((image) => clearedImageText(image, imageTokens(shape, image.width, image.height, model)));
      const { images: _dropped, ...rest } = b;
      const kept = images.filter((image) => !cleared.has(image.fileId));
      return { ...rest, content: [b.content, ...notes].filter((line) => line !== '').join('\n'), ...(kept.length > 0 ? { images: kept } : {}) };
    }
    return b;
  });
  return { ...message, content };
}

/** The blocks of a message's content that may carry a file reference: its own, and those inside an Anthropic tool_result. */
function* refCarriers(content: unknown): Generator<unknown> {
  if (!Array.isArray(content)) return;
  for (const block of content as unknown[]) {
    yield block;
    if (typeof block === 'object' && block !== null && (block as { type?: unknown }).type === 'tool_result') {
      const inner = (block as { content?: unknown }).content;
      if (Array.isArray(inner)) yield* inner as unknown[];
    }
  }
}

/** The file ids a request's messages refer to (a tool result's images too), in order, each once. */
export function fileRefsIn(messages: readonly { content: unknown }[]): FileRef[] {
  const seen = new Map<string, FileRef>();
  for (const message of messages) {
    for (const block of refCarriers(message.content)) {
      const ref = fileRefOf(block);
      if (ref && !seen.has(ref.fileId)) seen.set(ref.fileId, ref);
    }
  }
  return [...seen.values()];
}

/**
 * The request's messages with every file reference filled in from `base64` (file id →
 * the file's bytes in base64) and `pageTexts` (file id → a PDF's page texts): Anthropic
 * image and document blocks get their `source.data`, OpenAI parts a `data:` URL, a PDF
 * sent as text its pages with their markers (`pdfAsText`). A file they lack becomes a text
 * part saying it was deleted. Messages without references are returned as they are. Pure.
 */
export function resolveFileRefs<M extends { content: unknown }>(
  messages: readonly M[],
  base64: ReadonlyMap<string, string>,
  pageTexts: ReadonlyMap<string, readonly string[]> = new Map(),
): M[] {
  return messages.map((message) => {
    if (!Array.isArray(message.content)) return message;
    if (!message.content.some((b) => fileRefOf(b) || (isToolResult(b) && Array.isArray(b.content) && b.content.some((inner) => fileRefOf(inner)))))
      return message;
    const resolve = (block: unknown): unknown => {
      if (isToolResult(block) && Array.isArray(block.content)) return { ...block, content: block.content.map(resolve) };
      const ref = fileRefOf(block);
      if (!ref) return block;
      if (ref.pdf?.as === 'text') {
        const pages = pageTexts.get(ref.fileId);
        return { type: 'text', text: pages ? pdfAsText(ref.name, pages) : missingImageText(ref) };
      }
      const data = base64.get(ref.fileId);
      if (data === undefined) return { type: 'text', text: missingImageText(ref) };
      switch ((block as { type: string }).type) {
        case 'image':
          return { type: 'image', source: { type: 'base64', media_type: ref.mediaType, data } };
        case 'document':
          return { type: 'document', source: { type: 'base64', media_type: ref.mediaType, data } };
        case 'file':
          return { type: 'file', file: { filename: ref.name, file_data: `data:${ref.mediaType};base64,${data}` } };
        default:
          return { type: 'image_url', image_url: { url: `data:${ref.mediaType};base64,${data}` } };
      }
    };
    return { ...message, content: (message.content as unknown[]).map(resolve) };
  });
}

function isToolResult(block: unknown): block is { type: 'tool_result'; content?: unknown } {
  return typeof block === 'object' && block !== null && (block as { type?: unknown }).type === 'tool_result';
}

/** Tokens of one wire block's file reference, as its provider counts it (see `imageTokens`, `pdfTokens`). */
export function fileRefTokens(block: { type?: unknown }, ref: FileRef): number {
  const shape: ImageWireShape = block.type === 'image' || block.type === 'document' ? 'anthropic' : 'openai';
  if (ref.pdf) return pdfTokens(ref.pdf.as === 'text' ? 'openai' : shape, ref.pdf.pageTokens, ref.model ?? '', ref.pdf.as);
  return imageTokens(shape, ref.width, ref.height, ref.model);
}

/** Tokens of the images and PDFs a request's messages carry (a tool result's too), as each provider counts them (placeholders excluded). */
export function imageTokensIn(messages: readonly { content: unknown }[]): number {
  let total = 0;
  for (const message of messages) {
    for (const block of refCarriers(message.content)) {
      const ref = fileRefOf(block);
      if (ref) total += fileRefTokens(block as { type?: unknown }, ref);
    }
  }
  return total;
}
