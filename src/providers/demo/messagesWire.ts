/**
 * What a server of the Anthropic Messages API writes on the wire: the error body and the
 * wording of the errors both fakes raise alike, usage with its cache fields, and the
 * server-sent events that stream a message. The Demo's in-browser API and the local fake
 * API the tests run (test/fake-api) both answer with these, so the two cannot drift apart
 * in how the API speaks; what they answer stays their own.
 */

type Json = Record<string, unknown>;

/** The body of an API error: `{ type: 'error', error: { type, message }, request_id }`. */
export function anthropicErrorBody(error: { type: string; message: string }, requestId: string): Json {
  return { type: 'error', error: { type: error.type, message: error.message }, request_id: requestId };
}

/** An API error before it is put in a body: the HTTP status, `error.type` and `error.message`. */
interface WireError {
  status: number;
  type: string;
  message: string;
}

/** The error for a prompt over the context window, in the API's words. */
export function promptTooLong(inputTokens: number, contextWindow: number): WireError {
  return { status: 400, type: 'invalid_request_error', message: `prompt is too long: ${inputTokens} tokens > ${contextWindow} maximum` };
}

const TOOL_NAME = /^[a-zA-Z0-9_-]{1,128}$/;

/** Whether `name` is a valid tool name. */
export function isToolName(name: unknown): name is string {
  return typeof name === 'string' && TOOL_NAME.test(name);
}

/** The message for the `index`-th tool when its name is not valid. */
export function badToolName(index: number): string {
  return `tools.${index}.custom.name: String should match pattern '${TOOL_NAME.source}'`;
}

/** How a request's input tokens divide between the prompt cache and the rest. */
export interface AnthropicCacheOutcome {
  cacheReadTokens: number;
  cacheWriteTokens: number;
  /** Part of `cacheWriteTokens` written with a one-hour TTL. */
  cacheWrite1hTokens: number;
  /** Tokens neither read from nor written to the cache: Anthropic's `input_tokens`. */
  uncachedTokens: number;
}

/** A Message's `usage`: input split by the cache, cache writes by TTL, and the output. */
export function anthropicUsage(cache: AnthropicCacheOutcome, outputTokens: number): Json {
  return {
    input_tokens: cache.uncachedTokens,
    cache_creation_input_tokens: cache.cacheWriteTokens,
    cache_read_input_tokens: cache.cacheReadTokens,
    cache_creation: {
      ephemeral_5m_input_tokens: cache.cacheWriteTokens - cache.cacheWrite1hTokens,
      ephemeral_1h_input_tokens: cache.cacheWrite1hTokens,
    },
    output_tokens: outputTokens,
    service_tier: 'standard',
  };
}

/** One server-sent event; `pause` marks deltas, which a server spaces out in time. */
export interface AnthropicEvent {
  event: string;
  data: Json;
  pause: boolean;
  /** Assistant text this event adds (for recording what a cut stream had shown). */
  text?: string;
}

/** Cuts a block's streamed text (or a tool call's input JSON) into the pieces of its deltas. */
export type DeltaSplitter = (text: string, kind: 'text' | 'thinking' | 'input_json') => string[];

function blockStart(block: Json): Json {
  if (block.type === 'text') return { type: 'text', text: '' };
  if (block.type === 'thinking') return { type: 'thinking', thinking: '', signature: '' };
  // Redacted thinking arrives whole in its start event, with no deltas.
  if (block.type === 'redacted_thinking') return block;
  // An MCP connector's result, like redacted thinking, arrives whole in its start event.
  if (block.type === 'mcp_tool_result') return block;
  // A compaction's summary arrives whole in one delta (“Compaction”: Streaming).
  if (block.type === 'compaction') return { type: 'compaction', content: null, encrypted_content: null };
  return { ...block, input: {} };
}

function blockDeltas(block: Json, index: number, split: DeltaSplitter): AnthropicEvent[] {
  const delta = (data: Json, pause: boolean, text?: string): AnthropicEvent => ({
    event: 'content_block_delta',
    data: { type: 'content_block_delta', index, delta: data },
    pause,
    ...(text === undefined ? {} : { text }),
  });
  if (block.type === 'text') return split(block.text as string, 'text').map((text) => delta({ type: 'text_delta', text }, true, text));
  if (block.type === 'redacted_thinking' || block.type === 'mcp_tool_result') return [];
  if (block.type === 'compaction')
    return [delta({ type: 'compaction_delta', content: block.content, encrypted_content: block.encrypted_content ?? null }, false)];
  if (block.type === 'thinking') {
    const pieces = split(block.thinking as string, 'thinking').map((thinking) => delta({ type: 'thinking_delta', thinking }, true));
    return [...pieces, delta({ type: 'signature_delta', signature: block.signature }, false)];
  }
  return split(JSON.stringify(block.input), 'input_json').map((partial_json) => delta({ type: 'input_json_delta', partial_json }, true));
}

/**
 * The events that stream `message`, a complete Message: message_start (the message with no
 * content yet and `startOutputTokens` of output), then for each content block its start, its
 * deltas and its stop, with a ping after the first start, then message_delta with the stop
 * fields and the usage counters, and message_stop.
 */
export function anthropicStreamEvents(message: Json, startOutputTokens: number, split: DeltaSplitter): AnthropicEvent[] {
  const usage = message.usage as Json;
  const content = message.content as Json[];
  const events: AnthropicEvent[] = [
    {
      event: 'message_start',
      data: {
        type: 'message_start',
        message: { ...message, content: [], stop_reason: null, stop_sequence: null, usage: { ...usage, output_tokens: startOutputTokens } },
      },
      pause: false,
    },
  ];
  for (const [index, block] of content.entries()) {
    events.push({ event: 'content_block_start', data: { type: 'content_block_start', index, content_block: blockStart(block) }, pause: false });
    if (index === 0) events.push({ event: 'ping', data: { type: 'ping' }, pause: false });
    events.push(...blockDeltas(block, index, split));
    events.push({ event: 'content_block_stop', data: { type: 'content_block_stop', index }, pause: false });
  }
  const stop: Json = { stop_reason: message.stop_reason, stop_sequence: message.stop_sequence ?? null };
  if ('stop_details' in message) stop.stop_details = message.stop_details;
  const counters = ['input_tokens', 'cache_creation_input_tokens', 'cache_read_input_tokens', 'output_tokens'] as const;
  const counted: Json = Object.fromEntries(counters.map((key) => [key, usage[key]]));
  if (usage.iterations !== undefined) counted.iterations = usage.iterations;
  events.push(
    { event: 'message_delta', data: { type: 'message_delta', delta: stop, usage: counted }, pause: false },
    { event: 'message_stop', data: { type: 'message_stop' }, pause: false },
  );
  return events;
}

/** One server-sent event as the API frames it: an `event:` line, a `data:` line of JSON, a blank line. */
export function sseFrame(event: string, data: unknown): string {
  return `event: ${event}\ndata: ${JSON.stringify(data)}\n\n`;
}
