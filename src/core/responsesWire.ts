/**
 * OpenAI's Responses API, the wire shape of OpenAI's own endpoint. The window plans the
 * OpenAI shape (Chat Completions messages); each message maps to Responses input items one
 * for one and back, so what the planner keeps, pairs, clears and summarizes is exactly what
 * the items carry. Read on 2026-11-29 from OpenAI's API reference (“Create a model response”,
 * “Streaming events”) and its reasoning guide (“Keeping reasoning items in context”,
 * “Encrypted reasoning items”). Pure: no SDK types, no I/O. Only the provider uses it
 * (`providers/openaiResponses.ts`), so it loads with it; the reasoning a tool loop sends
 * back, which the history plans on the first screen, is `loopReasoning.ts`.
 */
import type { ContentBlock, ReasoningItem, ThinkingBlock, ToolUseBlock, Usage } from './conversation';
import type { OpenAIWireMessage } from './messages';
import { providerToolBlock } from './mcp/connector';
import type { ProviderToolCallWire } from './mcp/connector';

/** One Responses API input item (a message, a function call or its output, a reasoning item), as sent. */
export type ResponsesInputItem = { type?: string; role?: string; [key: string]: unknown };

function textOf(content: OpenAIWireMessage['content']): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content
    .map((part) => (typeof part.text === 'string' ? part.text : ''))
    .filter(Boolean)
    .join('\n');
}

/** A Chat Completions content part → the Responses input part (`input_text`, `input_image`, `input_file`). */
function inputPart(part: { type: string; [key: string]: unknown }): Record<string, unknown> | undefined {
  switch (part.type) {
    case 'text':
      return typeof part.text === 'string' ? { type: 'input_text', text: part.text } : undefined;
    case 'image_url': {
      const image = part.image_url as { url?: unknown; detail?: unknown } | undefined;
      if (typeof image?.url !== 'string') return undefined;
      const out: Record<string, unknown> = { type: 'input_image', image_url: image.url, detail: typeof image.detail === 'string' ? image.detail : 'auto' };
      return out;
    }
    case 'file': {
      const file = part.file as { file_data?: unknown; filename?: unknown; file_id?: unknown } | undefined;
      if (typeof file?.file_id === 'string') return { type: 'input_file', file_id: file.file_id };
      if (typeof file?.file_data !== 'string') return undefined;
      return { type: 'input_file', file_data: file.file_data, ...(typeof file.filename === 'string' ? { filename: file.filename } : {}) };
    }
    default:
      // Already a Responses part (input_text, input_image, input_file) or one this version does not know: as it is.
      return part.type.startsWith('input_') ? { ...part } : undefined;
  }
}

function messageContent(content: OpenAIWireMessage['content']): string | Record<string, unknown>[] {
  if (typeof content === 'string' || !Array.isArray(content)) return content ?? '';
  return content.flatMap((part): Record<string, unknown>[] => {
    const mapped = inputPart(part);
    return mapped ? [mapped] : [];
  });
}

/**
 * Planned OpenAI-shape messages → Responses input items, in order: a system or developer
 * message and a user message stay messages (their parts as `input_*` parts); an assistant
 * message becomes its reasoning items (sent back inside a tool loop, each before the item
 * that followed it), then its text as an assistant message, then one `function_call` per
 * tool call; a `role: "tool"` message becomes the `function_call_output` of its call (its
 * output the message's parts as `input_*` parts when it has images, else its text); a
 * message that stands for a compaction item becomes that item alone. Never emits an empty message.
 */
export function toResponsesInput(messages: readonly OpenAIWireMessage[]): ResponsesInputItem[] {
  const items: ResponsesInputItem[] = [];
  for (const message of messages) {
    switch (message.role) {
      case 'tool': {
        // A result with images goes as a list of input_text and input_image parts, which function_call_output takes.
        const parts = Array.isArray(message.content) ? messageContent(message.content) : [];
        const output = parts.length > 0 ? parts : textOf(message.content);
        items.push({ type: 'function_call_output', call_id: message.tool_call_id ?? '', output });
        break;
      }
      case 'assistant': {
        for (const reasoning of message.reasoning ?? []) {
          items.push({
            type: 'reasoning',
            id: reasoning.id,
            summary: reasoning.summary ? [{ type: 'summary_text', text: reasoning.summary }] : [],
            encrypted_content: reasoning.encrypted_content,
          });
        }
        const text = textOf(message.content);
        if (text.trim()) items.push({ role: 'assistant', content: text });
        for (const call of message.tool_calls ?? []) {
          items.push({ type: 'function_call', call_id: call.id, name: call.function.name, arguments: call.function.arguments });
        }
        break;
      }
      default: {
        if (message.compaction) {
          items.push({ ...message.compaction.item, type: 'compaction' });
          break;
        }
        const content = messageContent(message.content);
        if (typeof content === 'string' ? content.trim() : content.length > 0) items.push({ role: message.role, content });
      }
    }
  }
  return items;
}

/** Responses usage, as `response.completed` reports it. */
export interface ResponsesUsageWire {
  input_tokens?: number | null;
  input_tokens_details?: { cached_tokens?: number | null } | null;
  output_tokens?: number | null;
  output_tokens_details?: { reasoning_tokens?: number | null } | null;
}

const count = (value: unknown) => (typeof value === 'number' && Number.isFinite(value) && value > 0 ? Math.floor(value) : 0);

/**
 * Responses usage → canonical usage. `input_tokens` includes the cached ones, which are
 * reported apart (read at the cache rate); `reasoning_tokens` are part of `output_tokens`.
 */
export function fromResponsesUsage(usage: ResponsesUsageWire | null | undefined): Usage {
  const cached = count(usage?.input_tokens_details?.cached_tokens);
  const out: Usage = {
    inputTokens: Math.max(0, count(usage?.input_tokens) - cached),
    outputTokens: count(usage?.output_tokens),
    cacheReadTokens: cached,
    cacheWriteTokens: 0,
  };
  const reasoning = Math.min(out.outputTokens, count(usage?.output_tokens_details?.reasoning_tokens));
  if (reasoning > 0) out.reasoningTokens = reasoning;
  return out;
}

/** One output item of a response, as its stream builds it. */
export type ResponsesOutputItem =
  | { type: 'reasoning'; id: string; summary: string; encryptedContent?: string }
  | { type: 'message'; text: string }
  | { type: 'function_call'; callId: string; name: string; arguments: string; done: boolean }
  | { type: 'compaction'; fields: Record<string, unknown> }
  /** An MCP connector's call (`mcp_call`), or its refused approval (`mcp_approval_request`), or a failed listing (`mcp_list_tools` with an error), as the item ended. */
  | { type: 'mcp_call'; wire: ProviderToolCallWire; answered: boolean };

/**
 * A response's output items → canonical blocks, in the order they came: reasoning as
 * thinking (its summary as the text, the encrypted item kept to go back in a tool loop),
 * text, tool calls with their arguments parsed. Arguments that are not valid JSON: with
 * `complete` the raw text is kept as the input; otherwise (a stopped stream) a call whose
 * arguments did not finish is dropped, since a half call cannot be answered.
 */
export function fromResponsesOutput(items: readonly ResponsesOutputItem[], options: { complete: boolean }): ContentBlock[] {
  const out: ContentBlock[] = [];
  for (const item of items) {
    switch (item.type) {
      case 'reasoning': {
        const block: ThinkingBlock = { type: 'thinking', thinking: item.summary };
        if (item.encryptedContent) block.reasoningItem = { id: item.id, encryptedContent: item.encryptedContent } satisfies ReasoningItem;
        if (block.thinking || block.reasoningItem) out.push(block);
        break;
      }
      case 'message':
        if (item.text) out.push({ type: 'text', text: item.text });
        break;
      case 'mcp_call': {
        const call = providerToolBlock('openai', item.wire, item.answered);
        if (call) out.push(call);
        break;
      }
      case 'compaction':
        // Only a finished item can go back: its encrypted content is the whole of it.
        if (typeof item.fields.encrypted_content === 'string') out.push({ type: 'compaction', provider: 'openai', summary: null, fields: item.fields });
        break;
      case 'function_call': {
        if (!item.callId || !item.name) break;
        if (!options.complete && !item.done) break;
        let input: unknown;
        try {
          input = item.arguments.trim() ? JSON.parse(item.arguments) : {};
        } catch {
          if (!options.complete) break;
          input = item.arguments;
        }
        out.push({ type: 'tool_use', id: item.callId, name: item.name, input } satisfies ToolUseBlock);
        break;
      }
    }
  }
  return out;
}
