/**
 * Wire → canonical: what a provider streamed back (Anthropic's accumulated content blocks
 * and usage, OpenAI Chat Completions' accumulated deltas, usage and finish reason) becomes
 * canonical blocks and usage again. Only the providers use it, so it loads with them; the
 * other way, stored messages as each API's messages, is `wire.ts`. Pure: no SDK types, no I/O.
 */
import { jsonFields } from './compaction';
import { providerToolBlock } from './mcp/connector';
import type { CompactionBlock, ContentBlock, ThinkingBlock, ToolUseBlock, Usage } from './conversation';
import type { AnthropicWireBlock } from './messages';

/** Usage fields of an Anthropic message or `message_delta` event (nulls allowed, as the API sends). */
export interface AnthropicUsageWire {
  input_tokens?: number | null;
  output_tokens?: number | null;
  cache_creation_input_tokens?: number | null;
  cache_read_input_tokens?: number | null;
  /** With compaction asked for: each sampling step's usage; a `compaction` entry is billed on top of the fields above. */
  iterations?: unknown;
}

/** Usage of an OpenAI chat completion (`stream_options.include_usage` chunk). */
export interface OpenAIUsageWire {
  prompt_tokens?: number | null;
  completion_tokens?: number | null;
  prompt_tokens_details?: { cached_tokens?: number | null } | null;
  completion_tokens_details?: { reasoning_tokens?: number | null } | null;
}

const count = (value: number | null | undefined): number => (typeof value === 'number' && value > 0 ? value : 0);

/**
 * Anthropic usage → canonical. Anthropic's `input_tokens` already excludes cache reads
 * and writes, which is the canonical convention; missing fields count 0.
 */
export function fromAnthropicUsage(usage: AnthropicUsageWire | null | undefined): Usage {
  const out: Usage = {
    inputTokens: count(usage?.input_tokens),
    outputTokens: count(usage?.output_tokens),
    cacheReadTokens: count(usage?.cache_read_input_tokens),
    cacheWriteTokens: count(usage?.cache_creation_input_tokens),
  };
  const compaction = compactionIterations(usage?.iterations);
  if (compaction) out.compaction = compaction;
  return out;
}

/** The `compaction` entries of `usage.iterations`, added up; undefined when there are none. */
function compactionIterations(iterations: unknown): Usage['compaction'] {
  if (!Array.isArray(iterations)) return undefined;
  let found: Usage['compaction'];
  for (const entry of iterations as unknown[]) {
    if (typeof entry !== 'object' || entry === null || (entry as { type?: unknown }).type !== 'compaction') continue;
    const e = entry as AnthropicUsageWire;
    found ??= { inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0 };
    found.inputTokens += count(e.input_tokens);
    found.outputTokens += count(e.output_tokens);
    found.cacheReadTokens += count(e.cache_read_input_tokens);
    found.cacheWriteTokens += count(e.cache_creation_input_tokens);
  }
  return found;
}

/**
 * Folds a later Anthropic usage report (`message_delta`, cumulative) over an earlier one
 * (`message_start`): fields the later one reports win, absent or null ones keep the earlier value.
 */
export function mergeAnthropicUsage(earlier: AnthropicUsageWire | null | undefined, later: AnthropicUsageWire | null | undefined): AnthropicUsageWire {
  const merged: AnthropicUsageWire = { ...earlier };
  if (later) {
    for (const key of ['input_tokens', 'output_tokens', 'cache_creation_input_tokens', 'cache_read_input_tokens'] as const) {
      const value = later[key];
      if (typeof value === 'number') merged[key] = value;
    }
    if (Array.isArray(later.iterations)) merged.iterations = later.iterations;
  }
  return merged;
}

/**
 * OpenAI usage → canonical. `prompt_tokens` includes cached tokens; they are moved to
 * `cacheReadTokens` so `inputTokens` excludes them as Anthropic's does. OpenAI does not
 * bill cache writes separately, so `cacheWriteTokens` is 0. `completion_tokens` includes
 * `completion_tokens_details.reasoning_tokens`, kept as `reasoningTokens` when above 0 (a
 * part of the output, never added to it).
 */
export function fromOpenAIUsage(usage: OpenAIUsageWire | null | undefined): Usage {
  const cached = count(usage?.prompt_tokens_details?.cached_tokens);
  const outputTokens = count(usage?.completion_tokens);
  const reasoning = Math.min(outputTokens, count(usage?.completion_tokens_details?.reasoning_tokens));
  return {
    inputTokens: Math.max(0, count(usage?.prompt_tokens) - cached),
    outputTokens,
    cacheReadTokens: cached,
    cacheWriteTokens: 0,
    ...(reasoning > 0 ? { reasoningTokens: reasoning } : {}),
  };
}

/**
 * Content blocks of an accumulated Anthropic message (as `message_start` +
 * `content_block_*` events build it, tool inputs already parsed) → canonical blocks.
 * Empty text blocks and block types Windowpane does not store (server tools, citations)
 * are dropped; thinking and redacted thinking are kept with their signature/data, a
 * compaction with its fields as they came. An MCP connector's `mcp_tool_use` and the
 * `mcp_tool_result` that answers it become one `provider_tool` block where the call was; a call
 * whose result never came is kept as one that failed.
 */
export function fromAnthropicContent(blocks: readonly AnthropicWireBlock[]): ContentBlock[] {
  const out: ContentBlock[] = [];
  const results = new Map<unknown, AnthropicWireBlock>();
  for (const block of blocks) if (block.type === 'mcp_tool_result' && !results.has(block.tool_use_id)) results.set(block.tool_use_id, block);
  for (const block of blocks) {
    switch (block.type) {
      case 'mcp_tool_use': {
        const result = results.get(block.id);
        const wire = { id: block.id, server: block.server_name, name: block.name, input: block.input, output: result?.content, isError: result?.is_error };
        const call = providerToolBlock('anthropic', wire, result !== undefined);
        if (call) out.push(call);
        break;
      }
      case 'text':
        if (typeof block.text === 'string' && block.text.length > 0) out.push({ type: 'text', text: block.text });
        break;
      case 'thinking': {
        const thinking: ThinkingBlock = { type: 'thinking', thinking: String(block.thinking ?? '') };
        if (typeof block.signature === 'string' && block.signature) thinking.signature = block.signature;
        if (thinking.thinking || thinking.signature) out.push(thinking);
        break;
      }
      case 'redacted_thinking':
        if (typeof block.data === 'string') out.push({ type: 'redacted_thinking', data: block.data });
        break;
      case 'tool_use':
        out.push({ type: 'tool_use', id: String(block.id), name: String(block.name), input: block.input ?? {} });
        break;
      case 'compaction': {
        const { type: _type, content, cache_control: _cache, ...fields } = block;
        const compaction: CompactionBlock = {
          type: 'compaction',
          provider: 'anthropic',
          summary: typeof content === 'string' ? content : null,
          fields: jsonFields(fields),
        };
        out.push(compaction);
        break;
      }
    }
  }
  return out;
}

/** One tool call as OpenAI stream deltas build it (keyed by `index`; arguments arrive in pieces). */
export interface OpenAIToolCallAccumulated {
  id: string;
  name: string;
  arguments: string;
}

/** What an OpenAI chat completion stream accumulates into. */
export interface OpenAIAccumulated {
  content: string;
  /** By the deltas' `index`; holes are allowed. */
  toolCalls: ReadonlyArray<OpenAIToolCallAccumulated | undefined>;
  /** `reasoning_content` / `reasoning` deltas some compatible servers send. */
  reasoning?: string;
}

/**
 * Accumulated OpenAI deltas → canonical blocks: thinking (unsigned, from compatible
 * servers' reasoning), then text, then one tool_use per call with its arguments parsed.
 * Arguments that are not valid JSON: with `complete` (the stream finished) the raw text is
 * kept as the input so nothing is lost; otherwise (a stopped stream, arguments cut off)
 * the call is dropped, since a half call cannot be answered. Empty arguments parse as `{}`.
 */
export function fromOpenAIAccumulated(acc: OpenAIAccumulated, options: { complete: boolean }): ContentBlock[] {
  const out: ContentBlock[] = [];
  if (acc.reasoning) out.push({ type: 'thinking', thinking: acc.reasoning });
  if (acc.content) out.push({ type: 'text', text: acc.content });
  for (const call of acc.toolCalls) {
    if (!call || !call.id || !call.name) continue;
    let input: unknown;
    try {
      input = call.arguments.trim() ? JSON.parse(call.arguments) : {};
    } catch {
      if (!options.complete) continue;
      input = call.arguments;
    }
    const block: ToolUseBlock = { type: 'tool_use', id: call.id, name: call.name, input };
    out.push(block);
  }
  return out;
}

/** OpenAI `finish_reason` → the Anthropic-style stop reason the app records. */
export function fromOpenAIFinishReason(reason: string | null | undefined): string {
  switch (reason) {
    case 'stop':
      return 'end_turn';
    case 'length':
      return 'max_tokens';
    case 'tool_calls':
    case 'function_call':
      return 'tool_use';
    case null:
    case undefined:
      return 'end_turn';
    default:
      return reason;
  }
}
