/**
 * An MCP `CallToolResult` as the text of a tool result. The server is not trusted: the
 * result is read as unknown data, each content item by its type (text, image, audio,
 * resource_link, embedded resource), anything else named but not shown. Images and audio
 * are described, not sent (the canonical tool result is text). The whole is cut to
 * {@link MCP_RESULT_MAX_CHARS} with a note saying how much was left out, and `isError`
 * becomes an error result the model reads like any other.
 */
import type { ToolOutcome } from '../tools/readAttachment';

/** The most characters of one MCP result the model is sent. */
export const MCP_RESULT_MAX_CHARS = 40_000;

const format = (n: number) => n.toLocaleString('en-US');

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);
const text = (value: unknown) => (typeof value === 'string' ? value : '');

/** The size of base64 data once decoded, as people read it. */
function decodedSize(base64: string): string {
  const bytes = Math.floor((base64.replace(/[^A-Za-z0-9+/]/g, '').length * 3) / 4);
  return bytes < 1024 ? `${format(bytes)} bytes` : `${format(Math.round(bytes / 1024))} KB`;
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

function itemText(item: unknown): string {
  if (!isObject(item)) return '[an item that is not content]';
  switch (item.type) {
    case 'text':
      return text(item.text);
    case 'image':
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

/** Cuts `content` to `max` characters, ending with a note of how much was left out. */
export function capToolText(content: string, max = MCP_RESULT_MAX_CHARS): string {
  if (content.length <= max) return content;
  const note = (left: number) => `\n[The result was cut: ${format(left)} of its ${format(content.length)} characters were left out.]`;
  const kept = Math.max(0, max - note(content.length).length);
  return content.slice(0, kept) + note(content.length - kept);
}

/** The result of an MCP tools/call as the tool result's text, at most `max` characters. */
export function mcpResultOutcome(result: unknown, max = MCP_RESULT_MAX_CHARS): ToolOutcome {
  if (!isObject(result)) return { content: 'The MCP server answered with something that is not a tool result.', isError: true };
  const items: string[] = Array.isArray(result.content) ? result.content.map(itemText) : [];
  // structuredContent only when nothing else says it (the spec asks servers to send its JSON as text too).
  if (!items.some((item) => item !== '') && result.structuredContent !== undefined) items.push(JSON.stringify(result.structuredContent) ?? '');
  const isError = result.isError === true;
  const joined = items.filter((item) => item !== '').join('\n');
  const content = joined || (isError ? 'The tool failed and said nothing more.' : 'The tool returned nothing.');
  return { content: capToolText(content, max), isError };
}
