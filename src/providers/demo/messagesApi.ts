/**
 * The demo's Messages API: a `fetch` that answers `POST /v1/messages` like the Anthropic
 * Messages API — the same status codes, JSON error bodies, and SSE event sequence (`event:`
 * lines, message_start … message_stop, usage with cache fields). A request over the demo's
 * tiny window gets the real "prompt is too long" error.
 */
import { contentChars, DEMO_MODEL_ID } from '../../core';
import { DEMO_TOOL } from './calculator';
import { DEMO_CONTEXT_WINDOW, estimateTokens, systemText } from './model';
import { DemoPromptCache, normalized } from './promptCache';
import type { CacheAccount } from './promptCache';
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
function buildAnswer(serial: string, request: DemoRequest, reply: DemoReply, account: CacheAccount, toolTokens: number): Answer {
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
    inputTokens: account.totalTokens + toolTokens - account.readTokens - account.writeTokens,
    outputTokens: estimateTokens(text.length),
    account,
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
  return new Response(sseBody(sseFrames(answer), signal, delays), {
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
  const cache = new DemoPromptCache();
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
    const messageChars = request.messages.reduce((sum, m) => sum + contentChars(normalized(m)), 0);
    const toolTokens = estimateTokens(request.toolChars);
    const promptTokens = estimateTokens(systemChars + messageChars) + toolTokens;
    if (promptTokens > DEMO_CONTEXT_WINDOW) {
      return errorResponse(400, 'invalid_request_error', `prompt is too long: ${promptTokens} tokens > ${DEMO_CONTEXT_WINDOW} maximum`, requestId);
    }

    const account = cache.account(request.system, request.messages);
    const reply = demoAnswer(request, account, () => replies++);
    return respond(buildAnswer(serial, request, reply, account, toolTokens), request.stream, requestId, signal, delays);
  };
}
