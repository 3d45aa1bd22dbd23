import { REASONING_TOKENS } from './openai';
import { splitEvenly, splitIntoDeltas, thinkingOfSignature, prefixOfSignature, thinkingSignature } from './replies';
import type { ResponsesRequest } from './responsesRequest';
import { countTokens, truncateToTokens } from './tokens';
import type { ApiFailure, ReplySpec } from './types';

// The answer to an accepted Responses request: the Response object (the non-streaming body, and
// what `response.completed` carries) and the server-sent events of a stream, in the order the
// streaming events reference documents (read 2026-11-29, see responses.ts): response.created,
// response.in_progress, then per output item output_item.added, its parts and deltas,
// output_item.done, and last response.completed (response.incomplete when max_output_tokens cut
// the answer). Every event carries `sequence_number`, counting from 0.

type Json = Record<string, unknown>;

/** What the fake's encrypted reasoning seals: the hidden token count and the scripted text. */
const SEAL_PREFIX = 'openai-reasoning:';

/** The `encrypted_content` of a reasoning item: authenticated, so a changed one fails to open. */
export function sealReasoning(tokens: number, text: string): string {
  return thinkingSignature(text, `${SEAL_PREFIX}${tokens}`);
}

/** The hidden reasoning tokens an encrypted content was issued for, or null when the fake never issued it. */
export function openReasoning(encrypted: string): number | null {
  const prefix = prefixOfSignature(encrypted);
  if (prefix === null || thinkingOfSignature(encrypted) === null || !prefix.startsWith(SEAL_PREFIX)) return null;
  const tokens = Number(prefix.slice(SEAL_PREFIX.length));
  return Number.isInteger(tokens) ? tokens : null;
}

export interface ResponsesEvent {
  type: string;
  data: Json;
  /** Pause before it (deltas), so a test can press Stop mid-answer. */
  pause: boolean;
  /** Assistant text it adds (for recording what a cut stream had shown). */
  text?: string;
}

export interface ResponsesAnswer {
  response: Json;
  events: ResponsesEvent[];
  text: string;
  usage: Json;
  /** The reasoning item issued, with its hidden tokens (for items later sent back by id). */
  reasoning: { id: string; tokens: number } | null;
}

export interface ResponsesIds {
  response: string;
  message: string;
  reasoning: string;
  functionCall: () => string;
  callId: () => string;
}

/** The Response object's fields that do not depend on the output. */
function envelope(request: ResponsesRequest, id: string, createdSeconds: number): Json {
  return {
    id,
    object: 'response',
    created_at: createdSeconds,
    status: 'in_progress',
    background: false,
    error: null,
    incomplete_details: null,
    instructions: request.instructions,
    max_output_tokens: request.maxTokens,
    max_tool_calls: null,
    model: request.model,
    output: [],
    parallel_tool_calls: true,
    previous_response_id: null,
    reasoning: { effort: request.body.reasoning ? request.effort : request.effort === 'none' ? null : request.effort, summary: request.summary },
    service_tier: 'default',
    store: request.store,
    temperature: 1,
    text: { format: { type: 'text' }, verbosity: 'medium' },
    tool_choice: request.body.tool_choice ?? 'auto',
    tools: request.tools.map((tool) => ({ description: null, strict: true, parameters: null, ...tool })),
    top_logprobs: 0,
    top_p: 1,
    truncation: 'disabled',
    usage: null,
    user: null,
    metadata: {},
  };
}

/**
 * Builds the answer: a reasoning item first when the model reasons (its summary the scripted
 * thinking when `reasoning.summary` was asked, its `encrypted_content` only when `include` asks),
 * then the text as a `message` item, then the tool calls as `function_call` items.
 */
export function buildResponsesAnswer(
  request: ResponsesRequest,
  reply: ReplySpec,
  cachedTokens: number,
  ids: ResponsesIds,
  createdSeconds: number,
  compaction?: Json,
  connector: Json[] = [],
): ResponsesAnswer {
  const limit = request.maxTokens ?? Number.POSITIVE_INFINITY;
  let text = reply.text ?? '';
  let incomplete = false;
  if (countTokens(text) > limit) {
    text = truncateToTokens(text, limit);
    incomplete = true;
  }
  const calls =
    incomplete || request.callableTools.length === 0
      ? []
      : (reply.toolCalls ?? []).map((call) => ({
          id: ids.functionCall(),
          type: 'function_call',
          status: 'completed',
          arguments: JSON.stringify(call.input),
          call_id: call.id ?? ids.callId(),
          name: call.name,
        }));
  const visibleTokens = Math.min(limit, countTokens(text) + calls.reduce((sum, call) => sum + 3 + countTokens(call.name) + countTokens(call.arguments), 0));
  const reasons = request.effort !== 'none';
  const thought = reasons ? (reply.thinking ?? '') : '';
  const wanted = reasons ? (reply.thinking ? countTokens(reply.thinking) : (REASONING_TOKENS[request.effort] ?? 0)) : 0;
  const reasoningTokens = Math.max(0, Math.min(wanted, limit - visibleTokens));
  const outputTokens = visibleTokens + reasoningTokens;
  const usage: Json = {
    input_tokens: request.inputTokens,
    input_tokens_details: { cached_tokens: cachedTokens, cache_write_tokens: 0 },
    output_tokens: outputTokens,
    output_tokens_details: { reasoning_tokens: reasoningTokens },
    total_tokens: request.inputTokens + outputTokens,
  };

  // A compaction made for this request opens the output (“Compaction”: the stream includes the item).
  const output: Json[] = compaction ? [compaction] : [];
  const summaryText = request.summary !== null && thought !== '' ? thought : null;
  const reasoningItem: Json | null = reasons
    ? {
        id: ids.reasoning,
        type: 'reasoning',
        summary: summaryText === null ? [] : [{ type: 'summary_text', text: summaryText }],
        ...(request.includeEncrypted ? { encrypted_content: sealReasoning(reasoningTokens, thought) } : {}),
      }
    : null;
  if (reasoningItem) output.push(reasoningItem);
  // The connector's listings and calls come before the text the model wrote after reading them.
  output.push(...connector);
  const part = { type: 'output_text', annotations: [], logprobs: [], text };
  const message: Json | null =
    text !== '' || calls.length === 0
      ? { id: ids.message, type: 'message', status: incomplete ? 'incomplete' : 'completed', content: [part], role: 'assistant' }
      : null;
  if (message) output.push(message);
  output.push(...calls);

  const status = incomplete ? 'incomplete' : 'completed';
  const base = envelope(request, ids.response, createdSeconds);
  const response: Json = {
    ...base,
    status,
    completed_at: incomplete ? null : createdSeconds,
    incomplete_details: incomplete ? { reason: 'max_output_tokens' } : null,
    output,
    usage,
  };

  const events: ResponsesEvent[] = [];
  const emit = (type: string, data: Json, pause = false, piece?: string) =>
    events.push({ type, data: { type, sequence_number: events.length, ...data }, pause, text: piece });
  emit('response.created', { response: base });
  emit('response.in_progress', { response: base });
  for (const [outputIndex, item] of output.entries()) {
    const itemId = item.id as string;
    const at = { item_id: itemId, output_index: outputIndex };
    if (item.type === 'compaction') {
      emit('response.output_item.added', { output_index: outputIndex, item: { id: itemId, type: 'compaction' } });
      emit('response.compaction.compacting', { item_id: itemId, output_index: outputIndex });
    } else if (item.type === 'reasoning') {
      emit('response.output_item.added', { output_index: outputIndex, item: { id: itemId, type: 'reasoning', summary: [] } });
      if (summaryText !== null) {
        const summaryAt = { ...at, summary_index: 0 };
        emit('response.reasoning_summary_part.added', { ...summaryAt, part: { type: 'summary_text', text: '' } });
        for (const piece of splitIntoDeltas(summaryText)) emit('response.reasoning_summary_text.delta', { ...summaryAt, delta: piece }, true);
        emit('response.reasoning_summary_text.done', { ...summaryAt, text: summaryText });
        emit('response.reasoning_summary_part.done', { ...summaryAt, part: { type: 'summary_text', text: summaryText } });
      }
    } else if (item.type === 'mcp_list_tools' || item.type === 'mcp_call' || item.type === 'mcp_approval_request') {
      emit('response.output_item.added', {
        output_index: outputIndex,
        item: item.type === 'mcp_call' ? { ...item, status: 'in_progress', output: null } : item,
      });
      if (item.type === 'mcp_list_tools') {
        emit('response.mcp_list_tools.in_progress', at);
        emit('response.mcp_list_tools.completed', at);
      } else if (item.type === 'mcp_call') {
        emit('response.mcp_call.in_progress', at);
        emit('response.mcp_call_arguments.done', { ...at, arguments: item.arguments });
        emit(item.error ? 'response.mcp_call.failed' : 'response.mcp_call.completed', at);
      }
    } else if (item.type === 'message') {
      emit('response.output_item.added', { output_index: outputIndex, item: { ...item, status: 'in_progress', content: [] } });
      const partAt = { ...at, content_index: 0 };
      emit('response.content_part.added', { ...partAt, part: { ...part, text: '' } });
      for (const piece of splitIntoDeltas(text, reply.deltas)) emit('response.output_text.delta', { ...partAt, delta: piece, logprobs: [] }, true, piece);
      emit('response.output_text.done', { ...partAt, text, logprobs: [] });
      emit('response.content_part.done', { ...partAt, part });
    } else {
      emit('response.output_item.added', { output_index: outputIndex, item: { ...item, status: 'in_progress', arguments: '' } });
      const args = item.arguments as string;
      for (const piece of splitEvenly(args, 3)) emit('response.function_call_arguments.delta', { ...at, delta: piece }, true);
      emit('response.function_call_arguments.done', { ...at, name: item.name, arguments: args });
    }
    emit('response.output_item.done', { output_index: outputIndex, item });
  }
  emit(incomplete ? 'response.incomplete' : 'response.completed', { response });

  return { response, events, text, usage, reasoning: reasoningItem ? { id: ids.reasoning, tokens: reasoningTokens } : null };
}

/** The context-length error of the Responses API (the Chat Completions path words its own). */
export const INPUT_TOO_LONG: ApiFailure = {
  status: 400,
  type: 'invalid_request_error',
  message: 'Your input exceeds the context window of this model. Please adjust your input and try again.',
  param: 'input',
  code: 'context_length_exceeded',
};

/** What a failure after the 200 reports (`streamErrorAfterDeltas`). */
export const STREAM_SERVER_ERROR = {
  type: 'server_error',
  code: 'server_error',
  message: 'The server had an error while processing your request. Sorry about that!',
  param: null,
};

/**
 * The `error` event the API sends in place of the rest of a stream, in its observed wire shape:
 * the error object nested under `error` (the SDK raises either shape as an APIError).
 */
export function streamErrorEvent(sequenceNumber: number, error: { type: string; code: string | null; message: string; param: string | null }): Json {
  return { type: 'error', sequence_number: sequenceNumber, error };
}

/**
 * A streamed request whose input overflows the window: the API opens the stream and reports the
 * error third (`sequence_number` 2), as publicly reported answers of the real API show.
 */
export function contextFailureEvents(request: ResponsesRequest, responseId: string, createdSeconds: number): Array<{ type: string; data: Json }> {
  const response = envelope(request, responseId, createdSeconds);
  const { type, code, message, param } = INPUT_TOO_LONG;
  return [
    { type: 'response.created', data: { type: 'response.created', sequence_number: 0, response } },
    { type: 'response.in_progress', data: { type: 'response.in_progress', sequence_number: 1, response } },
    { type: 'error', data: streamErrorEvent(2, { type, code: code ?? null, message, param: param ?? null }) },
  ];
}
