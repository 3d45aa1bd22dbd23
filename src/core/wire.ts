/**
 * Canonical → wire mapping. Stored messages (content blocks close to Anthropic's) become
 * the exact messages each API accepts; the history plans them on the first screen. What a
 * provider streamed back becomes canonical blocks and usage again in `fromWire.ts`, which
 * only the providers use. Pure: no SDK types, no I/O.
 */
import type { ContentBlock, StoredMessage, ToolResultBlock } from './conversation';
import { documentWireBlock, fileRefOf, imageWireBlock, toolImageNote } from './images';
import { providerToolText } from './mcp/providerToolText';
import type { PdfSentAs } from './tokens/imageTokens';
import type { AnthropicWireBlock, AnthropicWireMessage, OpenAIToolCall, OpenAIWireMessage } from './messages';

/**
 * One wire message of a request plan, tagged with the stored message it came from.
 * A stored message may become several items with the same `id` (OpenAI splits tool
 * results into `role:"tool"` messages), so the window can keep or evict them together.
 */
export interface WirePlanItem<M> {
  /** The stored message id, or {@link SYSTEM_WIRE_ID} for the OpenAI system message. */
  id: string;
  message: M;
  pinned?: boolean;
  kind?: 'message' | 'summary';
}

/** Id of the plan item that carries the system prompt in the OpenAI shape (never a stored id). */
export const SYSTEM_WIRE_ID = 'windowpane:system';

function hasText(text: string): boolean {
  // The Messages API rejects text blocks that are empty or whitespace only.
  return text.trim().length > 0;
}

/** An answer's text with the calls the provider ran (as `providerToolText`) where they came. */
function assistantText(blocks: readonly ContentBlock[]): string {
  const parts: string[] = [];
  for (const block of blocks) {
    if (block.type === 'text' && hasText(block.text)) parts.push(block.text);
    else if (block.type === 'provider_tool') parts.push(providerToolText(block));
  }
  return parts.join('\n');
}

function joinedText(blocks: readonly ContentBlock[]): string {
  const parts: string[] = [];
  for (const block of blocks) if (block.type === 'text' && hasText(block.text)) parts.push(block.text);
  return parts.join('\n');
}

function asToolInput(input: unknown): Record<string, unknown> {
  // Anthropic requires an object; a non-object input (e.g. invalid JSON kept as a
  // string from an OpenAI response) is wrapped rather than dropped.
  if (input !== null && typeof input === 'object' && !Array.isArray(input)) return input as Record<string, unknown>;
  return input === undefined || input === null ? {} : { value: input };
}

function toolArguments(input: unknown): string {
  // A string input is raw arguments text the model emitted (not valid JSON): send it back verbatim.
  if (typeof input === 'string') return input;
  return JSON.stringify(input ?? {});
}

function anthropicBlocks(message: StoredMessage, imageModel?: string, pdfAs: PdfSentAs = 'file'): AnthropicWireBlock[] {
  const assistant = message.role === 'assistant';
  const out: AnthropicWireBlock[] = [];
  for (const block of message.content) {
    switch (block.type) {
      case 'text':
        if (hasText(block.text)) out.push({ type: 'text', text: block.text });
        break;
      case 'tool_use':
        if (assistant) out.push({ type: 'tool_use', id: block.id, name: block.name, input: asToolInput(block.input) });
        break;
      case 'tool_result': {
        if (assistant) break;
        const result: AnthropicWireBlock = { type: 'tool_result', tool_use_id: block.tool_use_id };
        if (block.images?.length) {
          // Its text first, then its images: the API takes text and image blocks in a tool result.
          const text: AnthropicWireBlock[] = hasText(block.content) ? [{ type: 'text', text: block.content }] : [];
          result.content = [...text, ...block.images.map((image) => imageWireBlock('anthropic', image, imageModel))];
        } else if (block.content.length > 0) result.content = block.content;
        if (block.is_error) result.is_error = true;
        out.push(result);
        break;
      }
      case 'thinking':
        // The API verifies the signature; an unsigned block (a stream stopped mid-thought)
        // would be rejected, so it stays in the transcript but is not sent.
        if (assistant && block.signature) {
          out.push({ type: 'thinking', thinking: block.thinking, signature: block.signature });
        }
        break;
      case 'redacted_thinking':
        if (assistant) out.push({ type: 'redacted_thinking', data: block.data });
        break;
      case 'provider_tool':
        if (assistant) out.push({ type: 'text', text: providerToolText(block) });
        break;
      case 'image':
        // Only user turns may carry images.
        if (!assistant) out.push(imageWireBlock('anthropic', block, imageModel));
        break;
      case 'document':
        if (!assistant) out.push(documentWireBlock('anthropic', block, pdfAs, imageModel));
        break;
    }
  }
  return out;
}

function isSkipped(message: StoredMessage): boolean {
  return message.status === 'error' && message.content.length === 0;
}

/**
 * Stored messages → Anthropic Messages API messages, one item per stored message.
 * Text, tool_use, tool_result and signed thinking / redacted_thinking blocks map 1:1
 * (thinking only on assistant turns, unchanged, as the API requires). A message with a
 * single text block is sent as a plain string. A summary becomes an assistant text
 * message. Empty text blocks are dropped and a message left with no content is skipped,
 * so no item ever has empty content. Stopped or interrupted answers are sent as stored.
 * Each stored message maps independently of the others, so callers may memoize per message.
 */
export function toAnthropicWire(messages: readonly StoredMessage[], imageModel?: string, pdfAs: PdfSentAs = 'file'): WirePlanItem<AnthropicWireMessage>[] {
  const items: WirePlanItem<AnthropicWireMessage>[] = [];
  for (const stored of messages) {
    if (isSkipped(stored)) continue;
    let message: AnthropicWireMessage;
    if (stored.kind === 'summary') {
      const text = joinedText(stored.content);
      if (!text) continue;
      message = { role: 'assistant', content: text };
    } else {
      const blocks = anthropicBlocks(stored, imageModel, pdfAs);
      if (blocks.length === 0) continue;
      // A PDF sent as text is a text block whose text is filled in later: it stays a block.
      const only = blocks.length === 1 && !fileRefOf(blocks[0]) ? blocks[0] : undefined;
      message = {
        role: stored.role,
        content: only?.type === 'text' ? (only.text as string) : blocks,
      };
    }
    items.push(planItem(stored, message));
  }
  return items;
}

function planItem<M>(stored: StoredMessage, message: M): WirePlanItem<M> {
  const item: WirePlanItem<M> = { id: stored.id, message, kind: stored.kind };
  if (stored.pinned) item.pinned = true;
  return item;
}

/**
 * A tool result as the content of its `role:"tool"` message: its text (errors prefixed
 * "Error: ", since the shape has no error flag), then its images as `image_url` parts where
 * the request takes them (`toolImages`: the Responses API, whose function_call_output takes
 * images), else as a line each naming it (Chat Completions' tool messages carry text only).
 */
function toolMessageContent(block: ToolResultBlock, toolImages: boolean, imageModel?: string): OpenAIWireMessage['content'] {
  const text = block.is_error ? `Error: ${block.content}` : block.content;
  const images = block.images ?? [];
  if (images.length === 0) return text;
  if (!toolImages) return [text, ...images.map(toolImageNote)].filter((line) => line !== '').join('\n');
  const parts: Array<{ type: string; [key: string]: unknown }> = hasText(text) ? [{ type: 'text', text }] : [];
  return [...parts, ...images.map((image) => imageWireBlock('openai', image, imageModel))];
}

/**
 * Stored messages → OpenAI Chat Completions messages. A non-empty `system` becomes a
 * first, pinned item with id {@link SYSTEM_WIRE_ID}. A user message holding tool_result
 * blocks becomes one `role:"tool"` message per result (see `toolMessageContent`; with
 * `toolImages`, a result's images go as parts of it) followed by a user message for any text. An assistant
 * message becomes `{ content: text | null, tool_calls }`. Thinking is dropped (the API has
 * no place for it). A summary becomes an assistant text message. Never emits empty content.
 * Each stored message maps independently of the others, so callers may memoize per message.
 */
export function toOpenAIWire(
  messages: readonly StoredMessage[],
  system?: string,
  imageModel?: string,
  pdfAs: PdfSentAs = 'file',
  toolImages = false,
): WirePlanItem<OpenAIWireMessage>[] {
  const items: WirePlanItem<OpenAIWireMessage>[] = [];
  if (system !== undefined && hasText(system)) {
    items.push({ id: SYSTEM_WIRE_ID, message: { role: 'system', content: system }, pinned: true, kind: 'message' });
  }
  for (const stored of messages) {
    if (isSkipped(stored)) continue;
    const text = joinedText(stored.content);
    if (stored.kind === 'summary') {
      if (text) items.push(planItem(stored, { role: 'assistant', content: text }));
      continue;
    }
    if (stored.role === 'assistant') {
      const text = assistantText(stored.content);
      const toolCalls: OpenAIToolCall[] = [];
      for (const block of stored.content) {
        if (block.type === 'tool_use') {
          toolCalls.push({ id: block.id, type: 'function', function: { name: block.name, arguments: toolArguments(block.input) } });
        }
      }
      if (!text && toolCalls.length === 0) continue;
      const message: OpenAIWireMessage = { role: 'assistant', content: text || null };
      if (toolCalls.length > 0) message.tool_calls = toolCalls;
      items.push(planItem(stored, message));
      continue;
    }
    // Tool results must directly follow the assistant message that called the tools,
    // so they come before the user's own text.
    for (const block of stored.content) {
      if (block.type !== 'tool_result') continue;
      items.push(planItem(stored, { role: 'tool', tool_call_id: block.tool_use_id, content: toolMessageContent(block, toolImages, imageModel) }));
    }
    const images = stored.content.flatMap((block) =>
      block.type === 'image'
        ? [imageWireBlock('openai', block, imageModel)]
        : block.type === 'document'
          ? [documentWireBlock('openai', block, pdfAs, imageModel)]
          : [],
    );
    if (images.length > 0) {
      const parts = text ? [...images, { type: 'text', text }] : images;
      items.push(planItem(stored, { role: 'user', content: parts }));
    } else if (text) items.push(planItem(stored, { role: 'user', content: text }));
  }
  return items;
}
