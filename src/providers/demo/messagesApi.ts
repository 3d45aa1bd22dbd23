/**
 * The demo's Messages API: a `fetch` that answers `POST /v1/messages` like the Anthropic
 * Messages API — the same status codes, JSON error bodies, and SSE event sequence (`event:`
 * lines, message_start … message_stop, usage with cache fields). A request over the demo's
 * tiny window gets the real "prompt is too long" error.
 */
import { DEMO_MODEL_ID } from '../../core';
import { DEMO_TOOL } from './calculator';
import { anthropicErrorBody, anthropicStreamEvents, anthropicUsage, promptTooLong, sseFrame } from './messagesWire';
import type { AnthropicCacheOutcome } from './messagesWire';
import { DEMO_CACHE_MIN_TOKENS, DEMO_CONTEXT_WINDOW, countedChars, demoCacheUnits, estimateTokens, normalized, systemText } from './model';
import { AnthropicPromptCache } from './promptCache';
import { demoAnswer } from './replies';
import type { DemoReply } from './replies';
import { validate } from './validate';
import type { DemoRequest } from './validate';

export interface DemoOptions {
  /** Wait before the first event, in ms (default 250): the "thinking" pause. */
  firstChunkDelayMs?: number;
  /** Wait between stream events, in ms (default 20). Tests pass 0. */
  chunkDelayMs?: number;
}

function errorResponse(status: number, type: string, message: string, requestId: string): Response {
  return new Response(JSON.stringify(anthropicErrorBody({ type, message }, requestId)), {
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

/** Splits text into small deltas of a few words, keeping every character; a tool call's input JSON into pieces of 12 characters. */
function deltas(text: string, kind: 'text' | 'thinking' | 'input_json'): string[] {
  const out: string[] = [];
  if (kind === 'input_json') {
    for (let at = 0; at < text.length; at += 12) out.push(text.slice(at, at + 12));
    return out;
  }
  const words = text.match(/\S+\s*|\s+/g) ?? [];
  for (let i = 0; i < words.length; i += 3) out.push(words.slice(i, i + 3).join(''));
  return out;
}

interface Answer {
  id: string;
  text: string;
  /** A run_javascript call after the text. */
  toolUse?: { id: string; code: string };
  stopReason: 'end_turn' | 'max_tokens' | 'tool_use';
  cache: AnthropicCacheOutcome;
  outputTokens: number;
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
    usage: anthropicUsage(answer.cache, answer.outputTokens),
  };
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

/** The validated request, or the error response the API gives it: unknown route, no key, no version, bad JSON, a broken rule. */
async function readRequest(input: Parameters<typeof fetch>[0], init: RequestInit | undefined, requestId: string): Promise<DemoRequest | Response> {
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
  return checked.request;
}

/** The answer to send: the reply cut at `max_tokens`, with its ids and usage. */
function buildAnswer(serial: string, request: DemoRequest, reply: DemoReply, cache: AnthropicCacheOutcome, toolTokens: number): Answer {
  let text = reply.text;
  let stopReason: Answer['stopReason'] = reply.code !== null ? 'tool_use' : 'end_turn';
  const maxChars = request.maxTokens * 4;
  if (text.length > maxChars) {
    text = text.slice(0, maxChars);
    stopReason = 'max_tokens';
  }
  return {
    id: `msg_demo_${serial}`,
    text,
    stopReason,
    toolUse: reply.code !== null ? { id: `toolu_demo_${serial}`, code: reply.code } : undefined,
    // The Demo keeps its calculator tool out of the cached prefix: its tokens are never cached.
    cache: { ...cache, uncachedTokens: cache.uncachedTokens + toolTokens },
    outputTokens: estimateTokens(text.length),
  };
}

function respond(answer: Answer, stream: boolean, requestId: string, signal: AbortSignal | null | undefined, delays: Required<DemoOptions>): Response {
  const responseHeaders = { 'request-id': requestId };
  if (!stream) {
    return new Response(JSON.stringify(messageJson(answer)), {
      status: 200,
      headers: { ...responseHeaders, 'content-type': 'application/json' },
    });
  }
  const frames = anthropicStreamEvents(messageJson(answer), 1, deltas).map((event) => sseFrame(event.event, event.data));
  return new Response(sseBody(frames, signal, delays), {
    status: 200,
    headers: { ...responseHeaders, 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache' },
  });
}

/**
 * A `fetch` that answers `POST /v1/messages` as the Messages API would, for
 * {@link DEMO_MODEL_ID} only. Each call of this factory has its own prompt cache and reply counter.
 */
export function createDemoFetch(options: DemoOptions = {}): typeof fetch {
  const delays: Required<DemoOptions> = { firstChunkDelayMs: options.firstChunkDelayMs ?? 250, chunkDelayMs: options.chunkDelayMs ?? 20 };
  const promptCache = new AnthropicPromptCache();
  let requests = 0;
  let replies = 0;

  return async (input, init) => {
    const signal = init?.signal;
    if (signal?.aborted) throw abortError();
    requests++;
    const serial = String(requests).padStart(6, '0');
    const requestId = `req_demo_${serial}`;
    const request = await readRequest(input, init, requestId);
    if (request instanceof Response) return request;

    const systemChars = systemText(request.system).length;
    const messageChars = request.messages.reduce((sum, m) => sum + countedChars(normalized(m)), 0);
    const toolTokens = estimateTokens(request.toolChars);
    const promptTokens = estimateTokens(systemChars + messageChars) + toolTokens;
    if (promptTokens > DEMO_CONTEXT_WINDOW) {
      const tooLong = promptTooLong(promptTokens, DEMO_CONTEXT_WINDOW);
      return errorResponse(tooLong.status, tooLong.type, tooLong.message, requestId);
    }

    const cache = promptCache.apply(DEMO_MODEL_ID, demoCacheUnits(request.system, request.messages), DEMO_CACHE_MIN_TOKENS);
    const reply = demoAnswer(request, cache, () => replies++);
    return respond(buildAnswer(serial, request, reply, cache, toolTokens), request.stream, requestId, signal, delays);
  };
}
