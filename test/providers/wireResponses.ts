/**
 * Responses in the providers' exact wire formats, for a custom `fetch` handed to the real
 * SDKs: JSON error bodies as the APIs send them, and SSE streams (Anthropic with `event:`
 * lines, OpenAI `data:` chunks ending in `[DONE]`).
 */

export interface CapturedRequest {
  url: string;
  headers: Headers;
  body: Record<string, unknown>;
}

/**
 * A `fetch` that answers from `responses` in order and records each request. Each
 * Response is handed out once (not cloned: cancelling one branch of a cloned body would
 * wait for the other); a function makes a fresh one per call; an Error is thrown.
 */
export function scriptedFetch(responses: Array<Response | Error | (() => Response)>): { fetch: typeof fetch; requests: CapturedRequest[] } {
  const requests: CapturedRequest[] = [];
  let next = 0;
  const impl: typeof fetch = async (input, init) => {
    const url = typeof input === 'string' ? input : input instanceof URL ? input.href : input.url;
    const body = typeof init?.body === 'string' ? (JSON.parse(init.body) as Record<string, unknown>) : {};
    requests.push({ url, headers: new Headers(init?.headers), body });
    const answer = responses[Math.min(next++, responses.length - 1)];
    if (answer instanceof Error) throw answer;
    if (typeof answer === 'function') return answer();
    if (answer === undefined || answer.bodyUsed) throw new Error(`scriptedFetch: no answer left for request ${next}`);
    return answer;
  };
  return { fetch: impl, requests };
}

export function jsonResponse(status: number, body: unknown, headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json', ...headers } });
}

export function anthropicError(status: number, type: string, message: string, headers: Record<string, string> = {}): Response {
  return jsonResponse(status, { type: 'error', error: { type, message }, request_id: 'req_011CTest' }, { 'request-id': 'req_011CTest', ...headers });
}

export function openAIError(
  status: number,
  error: { message: string; type: string; param?: string | null; code?: string | null },
  headers: Record<string, string> = {},
): Response {
  return jsonResponse(status, { error: { param: null, code: null, ...error } }, { 'x-request-id': 'req_test', ...headers });
}

/** An SSE response whose body is the given frames, optionally stopping short (connection dropped). */
export function sseResponse(frames: string[]): Response {
  const encoder = new TextEncoder();
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      for (const frame of frames) controller.enqueue(encoder.encode(frame));
      controller.close();
    },
  });
  return new Response(body, { status: 200, headers: { 'content-type': 'text/event-stream; charset=utf-8' } });
}

export function anthropicFrames(events: Array<Record<string, unknown>>): string[] {
  return events.map((event) => `event: ${String(event.type)}\ndata: ${JSON.stringify(event)}\n\n`);
}

export function openAIFrames(chunks: Array<Record<string, unknown>>, done = true): string[] {
  const frames = chunks.map(
    (chunk) => `data: ${JSON.stringify({ id: 'chatcmpl-test', object: 'chat.completion.chunk', created: 1_763_000_000, model: 'gpt-5.5', ...chunk })}\n\n`,
  );
  if (done) frames.push('data: [DONE]\n\n');
  return frames;
}

export function anthropicMessageStart(
  usage: Record<string, unknown> = { input_tokens: 25, output_tokens: 1, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 },
) {
  return {
    type: 'message_start',
    message: {
      id: 'msg_01Test',
      type: 'message',
      role: 'assistant',
      model: 'claude-sonnet-4-6',
      content: [],
      stop_reason: null,
      stop_sequence: null,
      usage,
    },
  };
}

/** A complete text answer as Anthropic streams it. */
export function anthropicTextStream(text: string, usage?: Record<string, unknown>): Response {
  return sseResponse(
    anthropicFrames([
      anthropicMessageStart(usage),
      { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } },
      { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text } },
      { type: 'content_block_stop', index: 0 },
      { type: 'message_delta', delta: { stop_reason: 'end_turn', stop_sequence: null }, usage: { output_tokens: 7 } },
      { type: 'message_stop' },
    ]),
  );
}

/** A complete text answer as OpenAI streams it, usage last. */
export function openAITextStream(text: string): Response {
  return sseResponse(
    openAIFrames([
      { choices: [{ index: 0, delta: { role: 'assistant', content: '' }, finish_reason: null }] },
      { choices: [{ index: 0, delta: { content: text }, finish_reason: null }] },
      { choices: [{ index: 0, delta: {}, finish_reason: 'stop' }] },
      { choices: [], usage: { prompt_tokens: 30, completion_tokens: 5, total_tokens: 35, prompt_tokens_details: { cached_tokens: 0 } } },
    ]),
  );
}

/** Responses API stream events as OpenAI sends them: an `event:` line naming each, `sequence_number` in order. */
export function responsesFrames(events: Array<Record<string, unknown>>): string[] {
  return events.map((event, n) => `event: ${String(event.type)}\ndata: ${JSON.stringify({ ...event, sequence_number: n })}\n\n`);
}

/** A Responses API response object with the given output, status and usage. */
export function responsesObject(output: unknown[], usage: Record<string, unknown> | null, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return { id: 'resp_test', object: 'response', created_at: 1_763_000_000, model: 'gpt-6.1-terra', status: 'completed', output, usage, ...extra };
}

/** A complete text answer as the Responses API streams it. */
export function responsesTextStream(text: string, usage: Record<string, unknown> = { input_tokens: 30, output_tokens: 5, total_tokens: 35 }): Response {
  const message = { type: 'message', id: 'msg_1', role: 'assistant', status: 'completed', content: [{ type: 'output_text', text, annotations: [] }] };
  return sseResponse(
    responsesFrames([
      { type: 'response.created', response: responsesObject([], null, { status: 'in_progress' }) },
      { type: 'response.output_item.added', output_index: 0, item: { ...message, status: 'in_progress', content: [] } },
      { type: 'response.content_part.added', output_index: 0, item_id: 'msg_1', content_index: 0, part: { type: 'output_text', text: '' } },
      { type: 'response.output_text.delta', output_index: 0, item_id: 'msg_1', content_index: 0, delta: text },
      { type: 'response.output_text.done', output_index: 0, item_id: 'msg_1', content_index: 0, text },
      { type: 'response.output_item.done', output_index: 0, item: message },
      { type: 'response.completed', response: responsesObject([message], usage) },
    ]),
  );
}

/** A `fetch` whose stream sends `frames` and then stalls; aborting the request errors its body, as fetch does. */
export function stallingFetch(frames: string[]): typeof fetch {
  return async (_input, init) =>
    new Response(
      new ReadableStream<Uint8Array>({
        start(streamController) {
          for (const frame of frames) streamController.enqueue(new TextEncoder().encode(frame));
          init?.signal?.addEventListener('abort', () => streamController.error(new DOMException('The operation was aborted.', 'AbortError')));
        },
      }),
      { status: 200, headers: { 'content-type': 'text/event-stream' } },
    );
}
