/**
 * The Demo provider: no key, no network. It is the real Anthropic adapter and SDK, given
 * a `fetch` that answers like the Messages API — the same status codes, JSON error
 * bodies, and SSE event sequence (`event:` lines, message_start … message_stop, usage
 * with cache fields). Its context window is tiny, so a newcomer sees trimming and a
 * summary within a few messages, and a request over the window gets the real
 * "prompt is too long" error, so overflow recovery runs exactly as with a real model.
 * Offered the run_javascript tool and asked to compute an arithmetic expression
 * ("compute 12 * 34"), it calls the tool, so the tool loop can be seen without a key.
 */
import { contentChars, DEMO_MODEL_ID, findModelInfo } from '../core';
import type { AnthropicWireBlock, AnthropicWireMessage } from '../core';
import { createAnthropicProvider } from './anthropic';
import type { ChatProvider } from './types';

// The demo enforces what the model registry says about it, so the planner and the
// "API" can never disagree.
const DEMO_INFO = findModelInfo(DEMO_MODEL_ID)?.info;
/** Tokens (estimated as characters / 4). */
export const DEMO_CONTEXT_WINDOW = DEMO_INFO?.contextWindow ?? 4000;
export const DEMO_MAX_OUTPUT_TOKENS = DEMO_INFO?.maxOutputTokens ?? 512;
/** Shortest prefix the demo caches, like Anthropic's per-model minimum. */
export const DEMO_CACHE_MIN_TOKENS = DEMO_INFO?.cacheMinTokens ?? 1024;
/** Never resolved: the demo `fetch` answers every request itself. */
export const DEMO_BASE_URL = 'https://demo.windowpane.invalid';

export interface DemoOptions {
  /** Wait before the first event, in ms (default 250): the "thinking" pause. */
  firstChunkDelayMs?: number;
  /** Wait between stream events, in ms (default 20). Tests pass 0. */
  chunkDelayMs?: number;
}

const estimateTokens = (chars: number): number => Math.ceil(chars / 4);

// ---------------------------------------------------------------------------
// Wire helpers
// ---------------------------------------------------------------------------

function errorResponse(status: number, type: string, message: string, requestId: string): Response {
  return new Response(JSON.stringify({ type: 'error', error: { type, message }, request_id: requestId }), {
    status,
    headers: { 'content-type': 'application/json', 'request-id': requestId, 'x-should-retry': 'false' },
  });
}

function abortError(): Error {
  return new DOMException('This operation was aborted', 'AbortError');
}

function sleep(ms: number, signal: AbortSignal | null | undefined): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(abortError());
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(abortError());
    };
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

async function bodyText(body: BodyInit | null | undefined): Promise<string> {
  if (typeof body === 'string') return body;
  if (body == null) return '';
  return new Response(body).text();
}

function withoutCacheControl(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withoutCacheControl);
  if (value && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const [key, inner] of Object.entries(value)) if (key !== 'cache_control') out[key] = withoutCacheControl(inner);
    return out;
  }
  return value;
}

/**
 * A message as the API reads it: breakpoints removed, and one text block read as the
 * plain string it is shorthand for, so marking a message for caching changes neither
 * its count nor its cache key.
 */
function normalized(message: AnthropicWireMessage): AnthropicWireMessage {
  const content = withoutCacheControl(message.content) as AnthropicWireMessage['content'];
  const only = Array.isArray(content) && content.length === 1 ? content[0] : undefined;
  if (only && only.type === 'text' && typeof only.text === 'string' && Object.keys(only).length === 2) {
    return { role: message.role, content: only.text };
  }
  return { role: message.role, content };
}

function systemText(system: unknown): string {
  if (typeof system === 'string') return system;
  if (Array.isArray(system)) return system.map((b) => (b && typeof b === 'object' && typeof b.text === 'string' ? b.text : '')).join('\n');
  return '';
}

function messageText(message: AnthropicWireMessage): string {
  if (typeof message.content === 'string') return message.content;
  return message.content
    .map((block) => (block.type === 'text' && typeof block.text === 'string' ? block.text : block.type === 'tool_result' && typeof block.content === 'string' ? block.content : ''))
    .filter(Boolean)
    .join('\n');
}

function hasCacheControl(value: unknown): boolean {
  return Array.isArray(value) && value.some((b) => b && typeof b === 'object' && 'cache_control' in b && b.cache_control != null);
}

/** FNV-1a over a string, continuing from `hash`: prefix keys for the simulated cache. */
function fnv1a(text: string, hash = 0x811c9dc5): number {
  let h = hash;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h;
}

// ---------------------------------------------------------------------------
// Request validation, in the API's words
// ---------------------------------------------------------------------------

interface DemoRequest {
  model: string;
  maxTokens: number;
  messages: AnthropicWireMessage[];
  system: unknown;
  stream: boolean;
  /** Names of the tools offered. */
  toolNames: string[];
  /** Characters of the tool definitions, counted against the window as the API counts them. */
  toolChars: number;
}

function validate(body: Record<string, unknown>): { ok: true; request: DemoRequest } | { ok: false; status: number; type: string; message: string } {
  const bad = (message: string) => ({ ok: false as const, status: 400, type: 'invalid_request_error', message });
  if (typeof body.model !== 'string' || !body.model) return bad('model: Field required');
  if (body.model !== DEMO_MODEL_ID) return { ok: false, status: 404, type: 'not_found_error', message: `model: ${body.model}` };
  if (typeof body.max_tokens !== 'number') return bad('max_tokens: Field required');
  if (!Number.isInteger(body.max_tokens) || body.max_tokens < 1) return bad('max_tokens: Input should be greater than or equal to 1');
  if (body.max_tokens > DEMO_MAX_OUTPUT_TOKENS) {
    return bad(`max_tokens: ${body.max_tokens} > ${DEMO_MAX_OUTPUT_TOKENS}, which is the maximum allowed number of output tokens for ${DEMO_MODEL_ID}`);
  }
  if (!Array.isArray(body.messages)) return bad('messages: Field required');
  if (body.messages.length === 0) return bad('messages: at least one message is required');
  const messages = body.messages as AnthropicWireMessage[];
  for (let i = 0; i < messages.length; i++) {
    const message = messages[i] as AnthropicWireMessage;
    if (message.role !== 'user' && message.role !== 'assistant') return bad(`messages.${i}.role: Input should be 'user' or 'assistant'`);
    const content = message.content;
    const isLast = i === messages.length - 1;
    if ((typeof content === 'string' && content.length === 0) || (Array.isArray(content) && content.length === 0)) {
      if (!(isLast && message.role === 'assistant')) {
        return bad(`messages.${i}: all messages must have non-empty content except for the optional final assistant message`);
      }
    }
    if (Array.isArray(content)) {
      for (const block of content as AnthropicWireBlock[]) {
        if (block.type === 'text' && (typeof block.text !== 'string' || block.text.trim() === '')) {
          return bad('messages: text content blocks must contain non-whitespace text');
        }
      }
    }
  }
  const tools = body.tools === undefined ? [] : body.tools;
  if (!Array.isArray(tools)) return bad('tools: Input should be a valid list');
  const toolNames: string[] = [];
  for (const [i, tool] of (tools as unknown[]).entries()) {
    const named = tool && typeof tool === 'object' ? (tool as Record<string, unknown>) : {};
    if (typeof named.name !== 'string' || !/^[a-zA-Z0-9_-]{1,128}$/.test(named.name)) return bad(`tools.${i}.custom.name: String should match pattern '^[a-zA-Z0-9_-]{1,128}$'`);
    toolNames.push(named.name);
  }
  const choice = body.tool_choice as { type?: unknown } | undefined;
  // tool_choice none: the tools are defined (the history calls them) but must not be called.
  if (choice?.type === 'none') toolNames.length = 0;
  return {
    ok: true,
    request: {
      model: body.model,
      maxTokens: body.max_tokens,
      messages,
      system: body.system,
      stream: body.stream === true,
      toolNames,
      toolChars: tools.length > 0 ? JSON.stringify(tools).length : 0,
    },
  };
}

// ---------------------------------------------------------------------------
// Prompt cache, simulated the way Anthropic reports it
// ---------------------------------------------------------------------------

interface CacheAccount {
  totalTokens: number;
  readTokens: number;
  writeTokens: number;
}

/**
 * Prefixes ending at a `cache_control` breakpoint are "written"; a later request whose
 * prefix up to one of its block boundaries matches a written one "reads" it (the API's
 * lookback). Prefixes under {@link DEMO_CACHE_MIN_TOKENS} are never cached.
 */
class DemoPromptCache {
  private readonly written = new Map<string, number>();

  account(system: unknown, messages: readonly AnthropicWireMessage[]): CacheAccount {
    // Positions: 0 = the system prompt, i + 1 = message i. Keys and sizes are of the whole prefix.
    const keys: string[] = [];
    const tokens: number[] = [];
    const breakpoints: number[] = [];
    const sys = systemText(system);
    let chars = sys.length;
    let hash = fnv1a(sys);
    keys.push(`${hash}:${chars}`);
    tokens.push(estimateTokens(chars));
    if (hasCacheControl(system)) breakpoints.push(0);
    messages.forEach((message, i) => {
      const stripped = normalized(message);
      chars += contentChars(stripped);
      hash = fnv1a(JSON.stringify(stripped), hash);
      keys.push(`${hash}:${chars}`);
      tokens.push(estimateTokens(chars));
      if (hasCacheControl(message.content)) breakpoints.push(i + 1);
    });
    const totalTokens = tokens[tokens.length - 1] ?? 0;
    const lastBreakpoint = breakpoints.length > 0 ? Math.max(...breakpoints) : -1;

    let readAt = -1;
    for (let p = lastBreakpoint; p >= 0; p--) {
      if (this.written.has(keys[p] as string)) {
        readAt = p;
        break;
      }
    }
    const readTokens = readAt >= 0 ? (tokens[readAt] as number) : 0;
    let writeEnd = -1;
    for (const p of breakpoints) {
      if (p > readAt && (tokens[p] as number) >= DEMO_CACHE_MIN_TOKENS) {
        this.remember(keys[p] as string, tokens[p] as number);
        writeEnd = Math.max(writeEnd, p);
      }
    }
    const writeTokens = writeEnd >= 0 ? (tokens[writeEnd] as number) - readTokens : 0;
    if (readAt >= 0) this.remember(keys[readAt] as string, readTokens);
    return { totalTokens, readTokens, writeTokens };
  }

  private remember(key: string, size: number): void {
    this.written.delete(key);
    this.written.set(key, size);
    if (this.written.size > 256) {
      const oldest = this.written.keys().next().value;
      if (oldest !== undefined) this.written.delete(oldest);
    }
  }
}

// ---------------------------------------------------------------------------
// What the demo says
// ---------------------------------------------------------------------------

const TIPS = [
  'The gauge by the composer shows how full my window is. Every request is planned before it is sent: Windowpane keeps your first message and the newest ones, and decides what else fits.',
  'Nothing you write is deleted. Trimming only changes what is sent; the whole conversation stays in this browser, and a pinned message is kept in every request.',
  'With summaries on (Settings), trimmed messages are replaced by one short summary, so I still know what we talked about. A summary costs one small extra request; plain trimming costs nothing.',
  'Providers can cache the repeated start of a request, and cached tokens are much cheaper. I report cache reads and writes the way Anthropic does, so you can watch them in the usage details.',
  'You can press Stop at any time: the partial answer is kept and marked as stopped. Try it on one of my answers if you are quick.',
  'When you want a real model, add an Anthropic or OpenAI key in Settings, or point Windowpane at a local server such as Ollama. Your key stays in this browser and goes only to that provider.',
];

function preview(text: string, max: number): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length <= max ? flat : `${flat.slice(0, max - 1).trimEnd()}…`;
}

const SUMMARY_MARK = /^\s*\[conversation summary\]/i;
const TRIM_MARK = /^\s*\[\d+ earlier messages? (?:were )?(?:truncated|trimmed|removed)/i;

function receivedList(messages: readonly AnthropicWireMessage[]): string {
  const lines = messages.map((message, i) => {
    const text = messageText(message);
    const who = SUMMARY_MARK.test(text) ? 'summary' : TRIM_MARK.test(text) ? 'marker' : message.role === 'user' ? 'you' : 'me';
    return `${i + 1}. ${who}: “${preview(text || '(tool call)', 56)}”`;
  });
  if (lines.length <= 10) return lines.join('\n');
  return [...lines.slice(0, 3), `… ${lines.length - 9} more …`, ...lines.slice(-6)].join('\n');
}

function demoReply(messages: readonly AnthropicWireMessage[], account: CacheAccount, replyNumber: number): string {
  const last = messages[messages.length - 1];
  const lastText = last && last.role === 'user' ? messageText(last) : '';
  const percent = Math.round((account.totalTokens / DEMO_CONTEXT_WINDOW) * 100);
  const texts = messages.map(messageText);
  const summarized = texts.some((t) => SUMMARY_MARK.test(t));
  const trimmed = texts.some((t) => TRIM_MARK.test(t));

  const opening =
    messages.length === 1
      ? "Hello! I'm the Windowpane demo model. I run inside this page, with no API key and no network, but my answers travel the same code path a real Anthropic model's do, streamed a few words at a time."
      : `You wrote: “${preview(lastText || '…', 80)}”. I'm only a demo, so I can't really answer that, but I can show you what Windowpane sent me.`;

  let window = `This request carried ${messages.length} message${messages.length === 1 ? '' : 's'}, about ${account.totalTokens.toLocaleString('en-US')} of my ${DEMO_CONTEXT_WINDOW.toLocaleString('en-US')} tokens (${percent} %).`;
  if (summarized) window += ' One of them is a conversation summary standing in for older messages, so I keep the gist without the full text.';
  if (trimmed) window += ' A marker tells me that earlier messages were trimmed to fit.';
  if (!summarized && !trimmed) {
    window +=
      percent < 50
        ? ' My window is deliberately tiny, so after a few more messages Windowpane will trim the oldest ones, or summarize them if summaries are on.'
        : ' We are close to my limit: the next messages will push the oldest ones out of what I see. They stay in your transcript, marked as not sent.';
    const userTurns = Math.max(1, messages.filter((m) => m.role === 'user').length);
    // This answer adds roughly as much as the request holds per turn so far.
    const perExchange = Math.max(150, Math.round(account.totalTokens / userTurns) + 300);
    const left = Math.floor((0.8 * DEMO_CONTEXT_WINDOW - account.totalTokens - 300) / perExchange);
    if (left > 0) {
      window += ` At this pace about ${left} more exchange${left === 1 ? '' : 's'} fit before my window is 80 % full, where trimming usually begins.`;
    }
  }
  const cache =
    account.readTokens > 0
      ? ` ${account.readTokens.toLocaleString('en-US')} of those tokens came from the prompt cache.`
      : account.writeTokens > 0
        ? ` ${account.writeTokens.toLocaleString('en-US')} tokens were written to the prompt cache for next time.`
        : '';

  // Two tips per answer: the answers are meant to be long enough that the tiny window
  // fills within a few exchanges, so trimming shows up early.
  const tips = `${TIPS[(2 * replyNumber) % TIPS.length]} ${TIPS[(2 * replyNumber + 1) % TIPS.length]}`;
  return `${opening}\n\n${window}${cache}\n\nHere is what I received:\n${receivedList(messages)}\n\n${tips}`;
}

const ROLE_LINE = /^\s*(?:\*\*|\[)?(user|human|you|assistant|ai|me)(?:\*\*|\])?\s*[:-]\s*(.+)$/i;

/** A summary request asks, in its last user message, to summarize a conversation. */
function isSummaryRequest(messages: readonly AnthropicWireMessage[], system: unknown): boolean {
  const last = messages[messages.length - 1];
  if (!last || last.role !== 'user') return false;
  const text = `${systemText(system)}\n${messageText(last)}`;
  return /\bsummar(?:y|ies|ize|ise|izing|ising)\b/i.test(text) && /\bconversation\b/i.test(text);
}

function firstSentence(text: string): string {
  const match = /^(.+?[.!?])(?:\s|$)/.exec(text.trim());
  return preview(match ? (match[1] as string) : text, 70);
}

/** Topics an earlier demo summary quoted, so extending a summary keeps them. */
function previousTopics(prompt: string): string[] {
  const start = prompt.search(/previous summary/i);
  if (start < 0) return [];
  const end = prompt.search(/\nconversation:/i);
  const section = prompt.slice(start, end > start ? end : undefined);
  return [...section.matchAll(/“([^”]+)”/g)].map((m) => m[1] as string);
}

/** A plausible summary made from the conversation text in the prompt (and any previous summary in it). */
function demoSummary(prompt: string): string {
  const userLines: string[] = previousTopics(prompt);
  let assistantLines = 0;
  for (const line of prompt.split('\n')) {
    const match = ROLE_LINE.exec(line);
    if (!match) continue;
    const role = (match[1] as string).toLowerCase();
    const said = (match[2] as string).trim();
    if (role === 'assistant' || role === 'ai' || role === 'me') assistantLines++;
    else if (said && !userLines.includes(firstSentence(said))) userLines.push(firstSentence(said));
  }
  if (userLines.length === 0) {
    const sentences = prompt
      .split(/(?<=[.!?])\s+/)
      .map((s) => s.trim())
      .filter((s) => s.length > 20 && !/summar/i.test(s));
    userLines.push(...sentences.slice(-4).map(firstSentence));
  }
  // The first topic is usually the goal; after it, the newest ones matter most.
  const kept = userLines.length <= 6 ? userLines : [userLines[0] as string, ...userLines.slice(-5)];
  const topics = kept.map((t) => `“${t}”`);
  const parts = [
    topics.length > 0
      ? `The user talked with the Windowpane demo model about ${topics.join(', ')}${userLines.length > 6 ? ', among other things' : ''}.`
      : 'The user and the Windowpane demo model exchanged a few messages.',
    `The demo model${assistantLines > 0 ? ` answered each of its ${assistantLines} turns` : ' answered each message'} by explaining what Windowpane sent it: how many messages, how full its ${DEMO_CONTEXT_WINDOW.toLocaleString('en-US')}-token window was, and how older messages are trimmed or summarized.`,
    'Nothing was decided that later messages depend on.',
  ];
  return parts.join(' ');
}

// ---------------------------------------------------------------------------
// The one tool the demo uses
// ---------------------------------------------------------------------------

const DEMO_TOOL = 'run_javascript';
/** "compute 12 * (3 + 4), please", "calculate 2^10", "what is 17 % 5?": the expression, digits and operators only. */
const COMPUTE = /\b(?:compute|calculate|evaluate|what(?:'s|\s+is))\s*:?\s*([-+*/%^().\d\s]+)/i;

/** The code to run when the user asks the demo to compute something and the tool is offered. */
function computeRequest(request: DemoRequest): string | null {
  if (!request.toolNames.includes(DEMO_TOOL)) return null;
  const last = request.messages[request.messages.length - 1];
  if (!last || last.role !== 'user' || (Array.isArray(last.content) && last.content.some((b) => b.type === 'tool_result'))) return null;
  const expression = COMPUTE.exec(messageText(last))?.[1]?.trim().replace(/\.+$/, '');
  if (!expression || !/\d/.test(expression) || !/[-+*/%^]/.test(expression)) return null;
  return expression.replace(/\^/g, '**');
}

/** The result of the demo's own tool call, when the request ends with it. */
function toolResultText(messages: readonly AnthropicWireMessage[]): string | null {
  const last = messages[messages.length - 1];
  if (!last || last.role !== 'user' || !Array.isArray(last.content)) return null;
  const result = last.content.find((b) => b.type === 'tool_result');
  if (!result) return null;
  const content = result.content;
  return typeof content === 'string' ? content : Array.isArray(content) ? content.map((b) => (b && typeof b.text === 'string' ? b.text : '')).join('\n') : '';
}

function toolAnswer(result: string): string {
  return (
    `The sandbox answered:\n\n${result.trim() || '(nothing)'}\n\n` +
    'That was a tool call: I asked for run_javascript, Windowpane ran the code in a Web Worker in your browser (no network, no page access, a time limit) and sent me what it returned. ' +
    'Open the tool call and its result above to see exactly what went back and forth.'
  );
}

// ---------------------------------------------------------------------------
// Responses
// ---------------------------------------------------------------------------

/** Splits text into small deltas of a few words, keeping every character. */
function deltas(text: string): string[] {
  const words = text.match(/\S+\s*|\s+/g) ?? [];
  const out: string[] = [];
  for (let i = 0; i < words.length; i += 3) out.push(words.slice(i, i + 3).join(''));
  return out;
}

function sseFrame(event: string, data: unknown): string {
  return `event: ${event}\ndata: ${JSON.stringify(data)}\n\n`;
}

interface Answer {
  id: string;
  text: string;
  /** A run_javascript call after the text. */
  toolUse?: { id: string; code: string };
  stopReason: 'end_turn' | 'max_tokens' | 'tool_use';
  inputTokens: number;
  outputTokens: number;
  account: CacheAccount;
}

function usageOf(answer: Answer, outputTokens: number) {
  return {
    input_tokens: answer.inputTokens,
    cache_creation_input_tokens: answer.account.writeTokens,
    cache_read_input_tokens: answer.account.readTokens,
    cache_creation: { ephemeral_5m_input_tokens: answer.account.writeTokens, ephemeral_1h_input_tokens: 0 },
    output_tokens: outputTokens,
    service_tier: 'standard',
  };
}

function messageJson(answer: Answer): Record<string, unknown> {
  return {
    id: answer.id,
    type: 'message',
    role: 'assistant',
    model: DEMO_MODEL_ID,
    content: [
      { type: 'text', text: answer.text },
      ...(answer.toolUse ? [{ type: 'tool_use', id: answer.toolUse.id, name: DEMO_TOOL, input: { code: answer.toolUse.code } }] : []),
    ],
    stop_reason: answer.stopReason,
    stop_sequence: null,
    usage: usageOf(answer, answer.outputTokens),
  };
}

function sseFrames(answer: Answer): string[] {
  const frames = [
    sseFrame('message_start', {
      type: 'message_start',
      message: { ...messageJson(answer), content: [], stop_reason: null, usage: usageOf(answer, 1) },
    }),
    sseFrame('content_block_start', { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } }),
    sseFrame('ping', { type: 'ping' }),
  ];
  for (const text of deltas(answer.text)) {
    frames.push(sseFrame('content_block_delta', { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text } }));
  }
  frames.push(sseFrame('content_block_stop', { type: 'content_block_stop', index: 0 }));
  if (answer.toolUse) {
    const json = JSON.stringify({ code: answer.toolUse.code });
    frames.push(sseFrame('content_block_start', { type: 'content_block_start', index: 1, content_block: { type: 'tool_use', id: answer.toolUse.id, name: DEMO_TOOL, input: {} } }));
    // Input JSON arrives in pieces, as the API streams it.
    for (let at = 0; at < json.length; at += 12) {
      frames.push(sseFrame('content_block_delta', { type: 'content_block_delta', index: 1, delta: { type: 'input_json_delta', partial_json: json.slice(at, at + 12) } }));
    }
    frames.push(sseFrame('content_block_stop', { type: 'content_block_stop', index: 1 }));
  }
  frames.push(
    sseFrame('message_delta', {
      type: 'message_delta',
      delta: { stop_reason: answer.stopReason, stop_sequence: null },
      usage: usageOf(answer, answer.outputTokens),
    }),
    sseFrame('message_stop', { type: 'message_stop' }),
  );
  return frames;
}

function sseBody(frames: readonly string[], signal: AbortSignal | null | undefined, delays: Required<DemoOptions>): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder();
  let next = 0;
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      if (next >= frames.length) {
        controller.close();
        return;
      }
      try {
        await sleep(next === 0 ? delays.firstChunkDelayMs : delays.chunkDelayMs, signal);
      } catch (error) {
        controller.error(error);
        return;
      }
      controller.enqueue(encoder.encode(frames[next++] as string));
    },
  });
}

/**
 * A `fetch` that answers `POST /v1/messages` as the Messages API would, for
 * {@link DEMO_MODEL_ID} only. Each call of this factory has its own prompt cache and reply counter.
 */
export function createDemoFetch(options: DemoOptions = {}): typeof fetch {
  const delays: Required<DemoOptions> = { firstChunkDelayMs: options.firstChunkDelayMs ?? 250, chunkDelayMs: options.chunkDelayMs ?? 20 };
  const cache = new DemoPromptCache();
  let requests = 0;
  let replies = 0;

  return async (input, init) => {
    const signal = init?.signal;
    if (signal?.aborted) throw abortError();
    requests++;
    const requestId = `req_demo_${String(requests).padStart(6, '0')}`;
    const url = new URL(typeof input === 'string' ? input : input instanceof URL ? input.href : input.url);
    const method = (init?.method ?? 'GET').toUpperCase();
    const headers = new Headers(init?.headers);
    if (method !== 'POST' || url.pathname !== '/v1/messages') return errorResponse(404, 'not_found_error', 'Not Found', requestId);
    if (!headers.get('x-api-key') && !headers.get('authorization')) {
      return errorResponse(401, 'authentication_error', 'x-api-key header is required', requestId);
    }
    if (!headers.get('anthropic-version')) return errorResponse(400, 'invalid_request_error', 'anthropic-version: header is required', requestId);

    let body: Record<string, unknown>;
    try {
      body = JSON.parse(await bodyText(init?.body)) as Record<string, unknown>;
    } catch {
      return errorResponse(400, 'invalid_request_error', 'There was an issue with your request body: it is not valid JSON', requestId);
    }
    const checked = validate(body);
    if (!checked.ok) return errorResponse(checked.status, checked.type, checked.message, requestId);
    const request = checked.request;

    const systemChars = systemText(request.system).length;
    const messageChars = request.messages.reduce((sum, m) => sum + contentChars(normalized(m)), 0);
    const toolTokens = estimateTokens(request.toolChars);
    const promptTokens = estimateTokens(systemChars + messageChars) + toolTokens;
    if (promptTokens > DEMO_CONTEXT_WINDOW) {
      return errorResponse(400, 'invalid_request_error', `prompt is too long: ${promptTokens} tokens > ${DEMO_CONTEXT_WINDOW} maximum`, requestId);
    }

    const account = cache.account(request.system, request.messages);
    const summary = isSummaryRequest(request.messages, request.system);
    const code = summary ? null : computeRequest(request);
    const toolResult = summary ? null : toolResultText(request.messages);
    let text = summary
      ? demoSummary(messageText(request.messages[request.messages.length - 1] as AnthropicWireMessage))
      : code !== null
        ? `I can work that out in the sandbox: I'll ask Windowpane to run \`${code}\` with the run_javascript tool.`
        : toolResult !== null
          ? toolAnswer(toolResult)
          : demoReply(request.messages, account, replies++);
    let stopReason: Answer['stopReason'] = code !== null ? 'tool_use' : 'end_turn';
    const maxChars = request.maxTokens * 4;
    if (text.length > maxChars) {
      text = text.slice(0, maxChars);
      stopReason = 'max_tokens';
    }
    const answer: Answer = {
      id: `msg_demo_${String(requests).padStart(6, '0')}`,
      text,
      stopReason,
      toolUse: code !== null ? { id: `toolu_demo_${String(requests).padStart(6, '0')}`, code } : undefined,
      inputTokens: account.totalTokens + toolTokens - account.readTokens - account.writeTokens,
      outputTokens: estimateTokens(text.length),
      account,
    };
    const responseHeaders = { 'request-id': requestId };
    if (!request.stream) {
      return new Response(JSON.stringify(messageJson(answer)), {
        status: 200,
        headers: { ...responseHeaders, 'content-type': 'application/json' },
      });
    }
    return new Response(sseBody(sseFrames(answer), signal, delays), {
      status: 200,
      headers: { ...responseHeaders, 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache' },
    });
  };
}

/** The Demo provider: the Anthropic adapter over {@link createDemoFetch}, under id `demo`. */
export function createDemoProvider(options: DemoOptions & { maxRetries?: number } = {}): Promise<ChatProvider> {
  return createAnthropicProvider(
    { provider: 'demo', apiKey: 'demo-key', baseUrl: DEMO_BASE_URL, model: DEMO_MODEL_ID },
    { id: 'demo', fetch: createDemoFetch(options), maxRetries: options.maxRetries },
  );
}
