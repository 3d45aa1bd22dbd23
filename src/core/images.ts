/**
 * Images in requests. A stored message refers to its images by file id (see
 * `ImageBlock`); the wire mapping emits a block of the API's own shape whose bytes are
 * still missing and which carries the reference under {@link FILE_REF_KEY}. The planner
 * counts and windows those blocks like any other content; only the plan's survivors are
 * read from storage and encoded (`resolveFileRefs`), once per request.
 */
import type { ContentBlock, ImageBlock, StoredMessage } from './conversation';
import type { AnthropicWireBlock } from './messages';
import { anthropicImageTokens, openAiImageTokens } from './tokens/imageTokens';

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
  const { fileId, name, mediaType, width, height, model } = ref as Record<string, unknown>;
  if (typeof fileId !== 'string' || typeof name !== 'string' || typeof mediaType !== 'string') return undefined;
  if (typeof width !== 'number' || typeof height !== 'number') return undefined;
  const read: FileRef = { fileId, name, mediaType, width, height };
  if (typeof model === 'string') read.model = model;
  return read;
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

/** The text an image is sent as when its file is no longer stored (its attachments were deleted). */
export function missingImageText(image: Pick<FileRef, 'name'>): string {
  return `[image: ${image.name} — the file was deleted, so it is not sent]`;
}

/**
 * File ids of the images a request leaves out: all but the newest `keep` images of
 * `messages` (in request order). Pure; the transcript marks the same images "not sent".
 */
export function imagesToClear(messages: readonly Pick<StoredMessage, 'role' | 'content'>[], keep: number): Set<string> {
  const cleared = new Set<string>();
  let kept = 0;
  for (let i = messages.length - 1; i >= 0; i--) {
    const message = messages[i]!;
    if (message.role !== 'user') continue;
    const blocks = message.content;
    for (let k = blocks.length - 1; k >= 0; k--) {
      const block = blocks[k]!;
      if (block.type !== 'image') continue;
      if (kept < Math.max(0, keep)) kept++;
      else cleared.add(block.fileId);
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
): M {
  if (!message.content.some((b) => b.type === 'image' && cleared.has(b.fileId))) return message;
  const content: ContentBlock[] = message.content.map((b) =>
    b.type === 'image' && cleared.has(b.fileId) ? { type: 'text', text: clearedImageText(b, imageTokens(shape, b.width, b.height, model)) } : b,
  );
  return { ...message, content };
}

/** The file ids a request's messages refer to, in order, each once. */
export function fileRefsIn(messages: readonly { content: unknown }[]): FileRef[] {
  const seen = new Map<string, FileRef>();
  for (const message of messages) {
    if (!Array.isArray(message.content)) continue;
    for (const block of message.content as unknown[]) {
      const ref = fileRefOf(block);
      if (ref && !seen.has(ref.fileId)) seen.set(ref.fileId, ref);
    }
  }
  return [...seen.values()];
}

/**
 * The request's messages with every file reference filled in from `base64` (file id →
 * the file's bytes in base64): Anthropic image blocks get their `source.data`, OpenAI
 * parts a `data:` URL. A file `base64` lacks becomes a text part saying it was deleted.
 * Messages without references are returned as they are. Pure.
 */
export function resolveFileRefs<M extends { content: unknown }>(messages: readonly M[], base64: ReadonlyMap<string, string>): M[] {
  return messages.map((message) => {
    if (!Array.isArray(message.content) || !message.content.some((b) => fileRefOf(b))) return message;
    const content = (message.content as unknown[]).map((block) => {
      const ref = fileRefOf(block);
      if (!ref) return block;
      const data = base64.get(ref.fileId);
      if (data === undefined) return { type: 'text', text: missingImageText(ref) };
      if ((block as { type: string }).type === 'image') return { type: 'image', source: { type: 'base64', media_type: ref.mediaType, data } };
      return { type: 'image_url', image_url: { url: `data:${ref.mediaType};base64,${data}` } };
    });
    return { ...message, content };
  });
}

/** Tokens of the images a request's messages carry, as each provider counts them (placeholders excluded). */
export function imageTokensIn(messages: readonly { content: unknown }[]): number {
  let total = 0;
  for (const message of messages) {
    if (!Array.isArray(message.content)) continue;
    for (const block of message.content as unknown[]) {
      const ref = fileRefOf(block);
      if (ref) total += imageTokens((block as { type: string }).type === 'image' ? 'anthropic' : 'openai', ref.width, ref.height, ref.model);
    }
  }
  return total;
}
