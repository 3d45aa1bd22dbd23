// @vitest-environment node
import OpenAI from 'openai';
import type { ChatCompletionMessageParam } from 'openai/resources/chat/completions';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startFakeApi, type FakeApi } from './server';

/** The SDK's error class, as an instance type. */
type ApiError = InstanceType<typeof OpenAI.APIError>;

const MODEL = 'gpt-5.4-mini';
let fake: FakeApi;

beforeAll(async () => {
  fake = await startFakeApi({ deltaDelayMs: 0, contextWindow: { 'gpt-tiny': 500 } });
});
afterEach(() => fake.reset());
afterAll(() => fake.close());

function client(options: ConstructorParameters<typeof OpenAI>[0] = {}) {
  return new OpenAI({ apiKey: 'sk-proj-test-key-1234', baseURL: `${fake.url}/v1`, maxRetries: 0, ...options });
}

async function post(body: unknown, path = '/v1/chat/completions') {
  const response = await fetch(fake.url + path, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: 'Bearer sk-proj-test-key-1234' },
    body: JSON.stringify(body),
  });
  return { status: response.status, body: (await response.json()) as { error: { message: string; type: string; param: string | null; code: string | null } } };
}

describe('OpenAI chat completions through the real SDK', () => {
  it('answers a non-streaming request with a ChatCompletion', async () => {
    const completion = await client().chat.completions.create({
      model: MODEL,
      messages: [
        { role: 'developer', content: 'Be brief.' },
        { role: 'user', content: 'Hello there' },
      ],
    });
    expect(completion.object).toBe('chat.completion');
    expect(completion.choices[0]!.finish_reason).toBe('stop');
    expect(completion.choices[0]!.message.content).toBe('Answer 1: I received 2 messages. Your last message began "Hello there".');
    expect(completion.usage!.prompt_tokens).toBe(fake.requests[0]!.inputTokens);
    expect(completion.usage!.total_tokens).toBe(completion.usage!.prompt_tokens + completion.usage!.completion_tokens);
    expect(fake.requests[0]).toMatchObject({ path: '/v1/chat/completions', provider: 'openai', authForm: 'bearer', status: 200 });
  });

  it('streams chunks with the role first, the finish reason, and usage last when asked', async () => {
    const stream = await client().chat.completions.create({
      model: MODEL,
      stream: true,
      stream_options: { include_usage: true },
      messages: [{ role: 'user', content: 'Stream please' }],
    });
    const chunks: OpenAI.ChatCompletionChunk[] = [];
    for await (const chunk of stream) chunks.push(chunk);

    expect(chunks[0]!.choices[0]!.delta.role).toBe('assistant');
    const text = chunks.map((chunk) => chunk.choices[0]?.delta.content ?? '').join('');
    expect(text).toBe('Answer 1: I received 1 message. Your last message began "Stream please".');
    expect(chunks.filter((chunk) => chunk.choices[0]?.delta.content).length).toBeGreaterThanOrEqual(3);
    expect(chunks.at(-2)!.choices[0]!.finish_reason).toBe('stop');
    const last = chunks.at(-1)!;
    expect(last.choices).toEqual([]);
    expect(last.usage).toMatchObject({ prompt_tokens: fake.requests[0]!.inputTokens, prompt_tokens_details: { cached_tokens: 0 } });
    expect(chunks.slice(0, -1).every((chunk) => chunk.usage === null)).toBe(true);
  });

  it('ends the wire stream with data: [DONE] and sends no usage chunk unless asked', async () => {
    const response = await fetch(`${fake.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: 'Bearer k' },
      body: JSON.stringify({ model: MODEL, stream: true, messages: [{ role: 'user', content: 'hi' }] }),
    });
    const text = await response.text();
    expect(text.startsWith('data: {')).toBe(true);
    expect(text.endsWith('data: [DONE]\n\n')).toBe(true);
    expect(text).not.toContain('"usage"');
  });

  it('serves OpenAI-compatible base URLs without the /v1 prefix', async () => {
    const completion = await client({ baseURL: fake.url }).chat.completions.create({ model: 'llama3.2', messages: [{ role: 'user', content: 'hi' }] });
    expect(completion.choices[0]!.message.content).toContain('Answer 1');
    expect(fake.requests[0]!.path).toBe('/chat/completions');
    const models = await client().models.list();
    expect(models.data.map((model) => model.id)).toContain('gpt-5.5');
  });

  it('round-trips parallel tool calls through the stream helper', async () => {
    fake.setReply((request) =>
      request.answersToolResults
        ? undefined
        : {
            toolCalls: [
              { name: 'lookup', input: { q: 'a' } },
              { name: 'lookup', input: { q: 'b' } },
            ],
          },
    );
    const tools: OpenAI.ChatCompletionTool[] = [
      { type: 'function', function: { name: 'lookup', parameters: { type: 'object', properties: { q: { type: 'string' } } } } },
    ];
    const openai = client();
    const messages: ChatCompletionMessageParam[] = [{ role: 'user', content: 'Find a and b' }];
    const first = await openai.chat.completions.stream({ model: MODEL, tools, messages }).finalChatCompletion();
    const choice = first.choices[0]!;
    expect(choice.finish_reason).toBe('tool_calls');
    const calls = choice.message.tool_calls ?? [];
    expect(calls.map((call) => (call.type === 'function' ? JSON.parse(call.function.arguments) : null))).toEqual([{ q: 'a' }, { q: 'b' }]);

    messages.push(choice.message as ChatCompletionMessageParam);
    for (const call of calls) messages.push({ role: 'tool', tool_call_id: call.id, content: `result for ${call.id}` });
    const second = await openai.chat.completions.create({ model: MODEL, tools, messages });
    expect(second.choices[0]!.message.content).toBe('Answer 2: I read the tool results. I received 4 messages.');
  });

  it('stops at max_completion_tokens with finish_reason length', async () => {
    fake.setReply(() => ({ text: 'word '.repeat(100) }));
    const completion = await client().chat.completions.create({ model: MODEL, max_completion_tokens: 8, messages: [{ role: 'user', content: 'Long' }] });
    expect(completion.choices[0]!.finish_reason).toBe('length');
    expect(completion.usage!.completion_tokens).toBe(8);
  });

  it('reports an automatically cached prefix in 128-token steps, inside prompt_tokens', async () => {
    const openai = client();
    const system = { role: 'system' as const, content: 'Standing instructions for a long session. '.repeat(150) };
    const first = await openai.chat.completions.create({ model: MODEL, messages: [system, { role: 'user', content: 'First?' }] });
    const second = await openai.chat.completions.create({ model: MODEL, messages: [system, { role: 'user', content: 'Second, longer question?' }] });
    const otherKey = await client({ apiKey: 'sk-other-key-5678' }).chat.completions.create({
      model: MODEL,
      messages: [system, { role: 'user', content: 'First?' }],
    });

    expect(first.usage!.prompt_tokens_details!.cached_tokens).toBe(0);
    const cached = second.usage!.prompt_tokens_details!.cached_tokens!;
    expect(cached).toBeGreaterThanOrEqual(1024);
    expect(cached % 128).toBe(0);
    expect(cached).toBeLessThanOrEqual(second.usage!.prompt_tokens);
    expect(second.usage!.prompt_tokens - cached).toBeLessThan(128 + 20);
    expect(otherKey.usage!.prompt_tokens_details!.cached_tokens).toBe(0);
  });
});

describe('OpenAI errors map to the SDK typed errors', () => {
  const ask = (openai = client(), model = MODEL) => openai.chat.completions.create({ model, messages: [{ role: 'user', content: 'hi' }] });

  it('401 with the real message for a wrong key, and when injected', async () => {
    const wrong = await ask(client({ apiKey: 'sk-invalid-key-0000' })).catch((error: unknown) => error);
    expect(wrong).toBeInstanceOf(OpenAI.AuthenticationError);
    expect((wrong as ApiError).code).toBe('invalid_api_key');
    expect((wrong as ApiError).type).toBe('invalid_request_error');
    expect((wrong as Error).message).toBe(
      '401 Incorrect API key provided: sk-************0000. You can find your API key at https://platform.openai.com/account/api-keys.',
    );
    fake.failNext('401');
    await expect(ask()).rejects.toBeInstanceOf(OpenAI.AuthenticationError);
  });

  it('429 rate_limit_exceeded with retry-after, which the SDK honours', async () => {
    fake.failNext('429', { retryAfterSeconds: 3 });
    const error = await ask().catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(OpenAI.RateLimitError);
    expect((error as ApiError).code).toBe('rate_limit_exceeded');
    expect((error as ApiError).headers?.get('retry-after')).toBe('3');

    fake.failNext('429', { retryAfterSeconds: 0.01 });
    await expect(ask(client({ maxRetries: 1 }))).resolves.toBeTruthy();
    expect(fake.requests.slice(-2).map((request) => request.status)).toEqual([429, 200]);
  });

  it('fails as many requests as asked, so SDK retries can be watched', async () => {
    fake.failNext('429', { retryAfterSeconds: 0.01, times: 2 });
    await expect(ask(client({ maxRetries: 2 }))).resolves.toBeTruthy();
    expect(fake.requests.map((request) => request.status)).toEqual([429, 429, 200]);
    expect(fake.requests.map((request) => request.headers['x-stainless-retry-count'])).toEqual(['0', '1', '2']);
  });

  it('500 and 503 server errors', async () => {
    fake.failNext('500');
    fake.failNext('529');
    const internal = await ask().catch((error: unknown) => error);
    expect(internal).toBeInstanceOf(OpenAI.InternalServerError);
    expect((internal as ApiError).status).toBe(500);
    const overloaded = await ask().catch((error: unknown) => error);
    expect((overloaded as ApiError).status).toBe(503);
  });

  it('404 model_not_found', async () => {
    const error = await ask(client(), 'gpt-unknown').catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(OpenAI.NotFoundError);
    expect((error as ApiError).code).toBe('model_not_found');
    expect((error as Error).message).toContain('The model `gpt-unknown` does not exist or you do not have access to it.');
  });

  it('400 context_length_exceeded with the real texts', async () => {
    fake.failNext('context', { maximumTokens: 4 });
    const injected = await ask().catch((error: unknown) => error);
    expect(injected).toBeInstanceOf(OpenAI.BadRequestError);
    expect((injected as ApiError).code).toBe('context_length_exceeded');
    expect((injected as Error).message).toMatch(
      /This model's maximum context length is 4 tokens\. However, your messages resulted in \d+ tokens\. Please reduce the length of the messages\./,
    );

    const long = await client()
      .chat.completions.create({ model: 'gpt-tiny', messages: [{ role: 'user', content: 'a few words more '.repeat(200) }] })
      .catch((error: unknown) => error);
    const counted = fake.requests.at(-1)!.inputTokens!;
    expect((long as Error).message).toContain(`maximum context length is 500 tokens. However, your messages resulted in ${counted} tokens.`);

    const budget = await client()
      .chat.completions.create({ model: 'gpt-tiny', max_completion_tokens: 499, messages: [{ role: 'user', content: 'short' }] })
      .catch((error: unknown) => error);
    expect((budget as Error).message).toMatch(/However, you requested \d+ tokens \(\d+ in the messages, 499 in the completion\)\./);
  });

  it('a destroyed socket is a connection error', async () => {
    fake.failNext('network');
    await expect(ask()).rejects.toBeInstanceOf(OpenAI.APIConnectionError);
  });

  it('can fail a stream after the 200 with an error chunk', async () => {
    fake.setReply(() => ({ text: 'one two three four five six', deltas: 3, streamErrorAfterDeltas: 1 }));
    const stream = await client().chat.completions.create({ model: MODEL, stream: true, messages: [{ role: 'user', content: 'hi' }] });
    const seen: string[] = [];
    const error = await (async () => {
      for await (const chunk of stream) seen.push(chunk.choices[0]?.delta.content ?? '');
    })().catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(OpenAI.APIError);
    expect((error as ApiError).type).toBe('server_error');
    expect(seen.filter(Boolean)).toHaveLength(1);
  });

  it('records a stream the client aborted', async () => {
    fake.setReply(() => ({ text: 'slow words '.repeat(20), deltaDelayMs: 30 }));
    const controller = new AbortController();
    const stream = await client().chat.completions.create(
      { model: MODEL, stream: true, messages: [{ role: 'user', content: 'Take your time' }] },
      { signal: controller.signal },
    );
    const seen: string[] = [];
    // SDK 7 ends the iteration quietly when its own signal aborts the stream.
    for await (const chunk of stream) {
      seen.push(chunk.choices[0]?.delta.content ?? '');
      if (seen.join('').length > 0) controller.abort();
    }
    expect(seen.join('').length).toBeLessThan('slow words '.repeat(20).length);
    await expect.poll(() => fake.requests[0]!.aborted).toBe(true);
    expect(fake.requests[0]!.completed).toBe(false);
  });
});

describe('OpenAI wire rules', () => {
  const call = (id: string) => ({ id, type: 'function', function: { name: 'lookup', arguments: '{}' } });
  const cases: Array<[string, unknown, string, string | null, string | null]> = [
    [
      'messages must not be empty',
      { model: MODEL, messages: [] },
      "Invalid 'messages': empty array. Expected an array with minimum length 1, but got an empty array instead.",
      'messages',
      'empty_array',
    ],
    [
      'roles are the documented ones',
      { model: MODEL, messages: [{ role: 'human', content: 'hi' }] },
      "Invalid value: 'human'. Supported values are: 'system', 'assistant', 'user', 'function', 'tool', and 'developer'.",
      'messages[0].role',
      'invalid_value',
    ],
    [
      'a tool message answers a preceding tool_calls message',
      {
        model: MODEL,
        messages: [
          { role: 'user', content: 'hi' },
          { role: 'tool', tool_call_id: 'call_1', content: 'x' },
        ],
      },
      "Invalid parameter: messages with role 'tool' must be a response to a preceeding message with 'tool_calls'.",
      'messages.[1].role',
      null,
    ],
    [
      'every tool call is answered before the next message',
      {
        model: MODEL,
        messages: [
          { role: 'user', content: 'hi' },
          { role: 'assistant', content: null, tool_calls: [call('call_1'), call('call_2')] },
          { role: 'tool', tool_call_id: 'call_1', content: 'x' },
          { role: 'user', content: 'next' },
        ],
      },
      "An assistant message with 'tool_calls' must be followed by tool messages responding to each 'tool_call_id'. The following tool_call_ids did not have response messages: call_2",
      'messages.[1].role',
      null,
    ],
    [
      'a tool message names a call of the previous message',
      {
        model: MODEL,
        messages: [
          { role: 'user', content: 'hi' },
          { role: 'assistant', content: null, tool_calls: [call('call_1')] },
          { role: 'tool', tool_call_id: 'call_9', content: 'x' },
        ],
      },
      "Invalid parameter: 'tool_call_id' of 'call_9' not found in 'tool_calls' of previous message.",
      'messages.[2].tool_call_id',
      null,
    ],
    [
      'an assistant message without tool_calls needs content',
      {
        model: MODEL,
        messages: [
          { role: 'user', content: 'hi' },
          { role: 'assistant', content: null },
          { role: 'user', content: 'x' },
        ],
      },
      "Invalid value for 'content': expected a string, got null.",
      'messages.[1].content',
      null,
    ],
    [
      'user content is required',
      { model: MODEL, messages: [{ role: 'user' }] },
      "Missing required parameter: 'messages[0].content'.",
      'messages[0].content',
      'missing_required_parameter',
    ],
    [
      'content arrays are not empty',
      { model: MODEL, messages: [{ role: 'user', content: [] }] },
      "Invalid 'messages[0].content': empty array.",
      'messages[0].content',
      'empty_array',
    ],
    [
      'stream_options needs stream',
      { model: MODEL, stream_options: { include_usage: true }, messages: [{ role: 'user', content: 'hi' }] },
      "The 'stream_options' parameter is only allowed when 'stream' is enabled.",
      'stream_options',
      null,
    ],
  ];

  it.each(cases)('%s', async (_name, body, message, param, code) => {
    const { status, body: error } = await post(body);
    expect(status).toBe(400);
    expect(error.error.type).toBe('invalid_request_error');
    expect(error.error.message).toContain(message);
    expect(error.error.param).toBe(param);
    expect(error.error.code).toBe(code);
  });

  it('requires a bearer key', async () => {
    const response = await fetch(`${fake.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ model: MODEL, messages: [{ role: 'user', content: 'hi' }] }),
    });
    expect(response.status).toBe(401);
    expect(((await response.json()) as { error: { message: string } }).error.message).toMatch(/^You didn't provide an API key\./);
  });

  it('answers unknown paths with a 404 in the OpenAI shape', async () => {
    const { status, body } = await post({ model: MODEL, messages: [] }, '/v1/completions/chat');
    expect(status).toBe(404);
    expect(body.error.message).toBe('Invalid URL (POST /v1/completions/chat)');
  });
});

describe('OpenAI reasoning_effort', () => {
  const ask = (extra: Partial<OpenAI.ChatCompletionCreateParamsNonStreaming> = {}): OpenAI.ChatCompletionCreateParamsNonStreaming => ({
    model: 'gpt-5.5',
    messages: [{ role: 'user', content: 'Think it over' }],
    ...extra,
  });

  it('takes the documented levels and reports reasoning tokens inside completion_tokens', async () => {
    const plain = await client().chat.completions.create(ask());
    expect(plain.usage?.completion_tokens_details?.reasoning_tokens).toBe(0);
    const visible = plain.usage!.completion_tokens;
    for (const effort of ['minimal', 'low', 'medium', 'high', 'xhigh', 'max'] as const) {
      const completion = await client().chat.completions.create(ask({ reasoning_effort: effort }));
      const reasoning = completion.usage!.completion_tokens_details!.reasoning_tokens!;
      expect(reasoning, effort).toBeGreaterThan(0);
      expect(completion.usage!.completion_tokens, effort).toBe(visible + reasoning);
      expect(completion.usage!.total_tokens, effort).toBe(completion.usage!.prompt_tokens + completion.usage!.completion_tokens);
    }
    const none = await client().chat.completions.create(ask({ reasoning_effort: 'none' }));
    expect(none.usage?.completion_tokens_details?.reasoning_tokens).toBe(0);
  });

  it('counts a scripted reasoning, in the stream usage too, within max_completion_tokens', async () => {
    fake.setReply(() => ({ thinking: 'one two three four five six seven eight', text: 'Done.' }));
    const stream = await client().chat.completions.create({ ...ask({ reasoning_effort: 'high' }), stream: true, stream_options: { include_usage: true } });
    let usage: OpenAI.CompletionUsage | null | undefined;
    for await (const chunk of stream) usage = chunk.usage ?? usage;
    expect(usage?.completion_tokens_details?.reasoning_tokens).toBe(8);

    const capped = await client().chat.completions.create(ask({ reasoning_effort: 'high', max_completion_tokens: 5 }));
    expect(capped.usage!.completion_tokens).toBeLessThanOrEqual(5);
  });

  it('refuses an unknown level in the OpenAI error shape', async () => {
    const { status, body } = await post({ ...ask(), reasoning_effort: 'extreme' });
    expect(status).toBe(400);
    expect(body.error).toEqual({
      message: "Invalid value: 'extreme'. Supported values are: 'none', 'minimal', 'low', 'medium', 'high', 'xhigh', and 'max'.",
      type: 'invalid_request_error',
      param: 'reasoning_effort',
      code: 'invalid_value',
    });
    await expect(client().chat.completions.create(ask({ reasoning_effort: 'extreme' as 'high' }))).rejects.toMatchObject({
      status: 400,
      param: 'reasoning_effort',
    });
  });
});
