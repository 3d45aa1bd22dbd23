/**
 * An MCP `CallToolResult` as a tool result. The server is not trusted: the result is read
 * as unknown data, each content item by its type (text, image, audio, resource_link,
 * embedded resource), anything else named but not shown. Images of a type the providers
 * read are handed back apart, still base64, for the store to check, scale and keep as
 * files (they go to the model as image blocks); audio and other images are described, not
 * sent. The text is cut to {@link MCP_RESULT_MAX_CHARS}, and on a small window to
 * {@link MCP_RESULT_WINDOW_SHARE} of what a request may hold, with a note saying how much was
 * left out, and `isError` becomes an error result the model reads like any other.
 */
import { sizeText } from '../images';
import { estimateTextTokens } from '../tokens/estimate';
import { IMAGE_MEDIA_TYPES, type ImageMediaType } from '../tokens/imageTokens';
import type { ToolOutcome } from '../tools/readAttachment';

/** The most characters of one MCP result the model is sent. */
export const MCP_RESULT_MAX_CHARS = 40_000;

/**
 * The share of a request's input (window − output reserve) one MCP result may take. The
 * clearing step keeps the newest results whole, so on a small window a result as long as
 * {@link MCP_RESULT_MAX_CHARS} would leave no room for them and the conversation's first
 * message; a tenth keeps several in reach.
 */
export const MCP_RESULT_WINDOW_SHARE = 0.1;

/** The most tokens one MCP result may take when a request may hold `maxInputTokens`. */
export const mcpResultMaxTokens = (maxInputTokens: number): number => Math.max(200, Math.floor(MCP_RESULT_WINDOW_SHARE * maxInputTokens));

/** The most images of one MCP result kept and sent; further ones are described. */
export const MCP_RESULT_MAX_IMAGES = 8;

/** An image an MCP tool returned, not yet checked beyond its type and its base64 form. */
export interface McpImage {
  mediaType: ImageMediaType;
  /** The image's bytes in base64, without whitespace. */
  data: string;
}

/** What an MCP result becomes: the tool result's text and the images it returned, in order. */
export interface McpOutcome extends ToolOutcome {
  images: McpImage[];
}

const format = (n: number) => n.toLocaleString('en-US');

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);
const text = (value: unknown) => (typeof value === 'string' ? value : '');

/** The size of base64 data once decoded, as people read it. */
const decodedSize = (base64: string) => sizeText(Math.floor((base64.replace(/[^A-Za-z0-9+/]/g, '').length * 3) / 4));

/** Base64 as an image's bytes: only its alphabet, whole quads, padding at the end (whitespace dropped). */
function cleanBase64(value: string): string | undefined {
  const data = value.replace(/\s+/g, '');
  return data.length > 0 && data.length % 4 === 0 && /^[A-Za-z0-9+/]+={0,2}$/.test(data) ? data : undefined;
}

/** A media type as the server gave it, kept only when it looks like one (it is shown to the model and the user). */
const mediaType = (value: unknown, fallback: string) => (typeof value === 'string' && /^[\w.+-]{1,64}\/[\w.+-]{1,64}$/.test(value) ? value : fallback);

function resourceText(resource: unknown): string {
  if (!isObject(resource)) return '[an embedded resource with nothing readable]';
  const uri = text(resource.uri);
  if (typeof resource.text === 'string') return uri ? `[resource ${uri}]\n${resource.text}` : resource.text;
  if (typeof resource.blob === 'string')
    return `[resource ${uri || 'without a URI'}: ${mediaType(resource.mimeType, 'binary')}, ${decodedSize(resource.blob)}, not shown to the model]`;
  return `[resource ${uri || 'without a URI'} with no text]`;
}

/** The image an item carries when it is one the providers read (its type one of theirs, its data base64), else undefined. */
function sendableImage(item: Record<string, unknown>): McpImage | undefined {
  if (item.type !== 'image' || typeof item.data !== 'string') return undefined;
  const mediaType = (IMAGE_MEDIA_TYPES as readonly unknown[]).includes(item.mimeType) ? (item.mimeType as ImageMediaType) : undefined;
  const data = cleanBase64(item.data);
  return mediaType && data ? { mediaType, data } : undefined;
}

function itemText(item: unknown): string {
  if (!isObject(item)) return '[an item that is not content]';
  switch (item.type) {
    case 'text':
      return text(item.text);
    case 'image':
      return `[${mediaType(item.mimeType, item.type)}, ${decodedSize(text(item.data))}, not shown to the model: ${
        sendableImage(item)
          ? `more than ${MCP_RESULT_MAX_IMAGES} images`
          : (IMAGE_MEDIA_TYPES as readonly unknown[]).includes(item.mimeType)
            ? 'its data is not base64'
            : 'not a PNG, JPEG, GIF or WebP image'
      }]`;
    case 'audio':
      return `[${mediaType(item.mimeType, item.type)}, ${decodedSize(text(item.data))}, not shown to the model]`;
    case 'resource_link': {
      const title = text(item.title) || text(item.name);
      return `[link to resource ${text(item.uri)}${title ? ` (${title})` : ''}${typeof item.description === 'string' ? `: ${item.description}` : ''}]`;
    }
    case 'resource':
      return resourceText(item.resource);
    default:
      return `[content of type ${JSON.stringify(String(item.type).slice(0, 40))}, not shown]`;
  }
}

/**
 * Cuts `content` to `max` characters and about `maxTokens` estimated tokens, ending with a
 * note of how much was left out.
 */
export function capToolText(content: string, max = MCP_RESULT_MAX_CHARS, maxTokens = Number.POSITIVE_INFINITY): string {
  let limit = max;
  if (Number.isFinite(maxTokens)) {
    const head = content.slice(0, max);
    const tokens = estimateTextTokens(head);
    // Proportional: the cut keeps the same mix of text, so about the same tokens per character.
    if (tokens > maxTokens) limit = Math.floor((head.length * maxTokens) / tokens);
  }
  if (content.length <= limit) return content;
  const note = (left: number) => `\n[The result was cut: ${format(left)} of its ${format(content.length)} characters were left out.]`;
  const kept = Math.max(0, limit - note(content.length).length);
  return content.slice(0, kept) + note(content.length - kept);
}

/**
 * The result of an MCP tools/call: its text, at most `max` characters and about `maxTokens`, and the first
 * {@link MCP_RESULT_MAX_IMAGES} images of a type the providers read (later ones, and other
 * types, are described in the text).
 */
export function mcpResultOutcome(result: unknown, max = MCP_RESULT_MAX_CHARS, maxTokens = Number.POSITIVE_INFINITY): McpOutcome {
  if (!isObject(result)) return { content: 'The MCP server answered with something that is not a tool result.', isError: true, images: [] };
  const items: string[] = [];
  const images: McpImage[] = [];
  for (const item of Array.isArray(result.content) ? (result.content as unknown[]) : []) {
    const image = isObject(item) && images.length < MCP_RESULT_MAX_IMAGES ? sendableImage(item) : undefined;
    if (image) images.push(image);
    else items.push(itemText(item));
  }
  // structuredContent only when nothing else says it (the spec asks servers to send its JSON as text too).
  if (!items.some((item) => item !== '') && images.length === 0 && result.structuredContent !== undefined)
    items.push(JSON.stringify(result.structuredContent) ?? '');
  const isError = result.isError === true;
  const joined = items.filter((item) => item !== '').join('\n');
  const content = joined || (images.length > 0 ? '' : isError ? 'The tool failed and said nothing more.' : 'The tool returned nothing.');
  return { content: capToolText(content, max, maxTokens), isError, images };
}
