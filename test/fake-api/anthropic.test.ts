// @vitest-environment node
import Anthropic from '@anthropic-ai/sdk';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startFakeApi, type FakeApi } from './server';

/** The SDK's error class, as an instance type. */
type ApiError = InstanceType<typeof Anthropic.APIError>;

const MODEL = 'claude-sonnet-4-6';
let fake: FakeApi;

beforeAll(async () => {
  fake = await startFakeApi({ deltaDelayMs: 0, contextWindow: { 'claude-haiku': 600, '*': 200_000 } });
});
afterEach(() => fake.reset());
afterAll(() => fake.close());

function client(options: ConstructorParameters<typeof Anthropic>[0] = {}) {
  return new Anthropic({ apiKey: 'sk-ant-test-key', baseURL: fake.url, maxRetries: 0, ...options });
}

/** A raw Messages API call, for what the SDK would never send. */
async function post(body: unknown, headers: Record<string, string> = {}, path = '/v1/messages') {
  const response = await fetch(fake.url + path, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-api-key': 'sk-ant-test-key', 'anthropic-version': '2023-06-01', ...headers },
    body: JSON.stringify(body),
  });
  return {
    status: response.status,
    headers: response.headers,
    body: (await response.json()) as { type: string; error: { type: string; message: string }; request_id: string },
  };
}

describe('Anthropic messages through the real SDK', () => {
  it('answers a non-streaming request with a Message and records it', async () => {
    const message = await client().messages.create({ model: MODEL, max_tokens: 200, messages: [{ role: 'user', content: 'Hello there' }] });

    expect(message.type).toBe('message');
    expect(message.role).toBe('assistant');
    expect(message.stop_reason).toBe('end_turn');
    expect(message.content[0]).toMatchObject({ type: 'text', text: 'Answer 1: I received 1 message. Your last message began "Hello there".' });
    expect(message.usage.input_tokens).toBeGreaterThan(0);
    expect(message.usage.output_tokens).toBeGreaterThan(0);
    const [recorded] = fake.requests;
    expect(recorded).toMatchObject({ method: 'POST', path: '/v1/messages', provider: 'anthropic', status: 200, authForm: 'bearer', completed: true });
    expect(recorded!.headers['anthropic-version']).toBe('2026-10-21');
    expect(recorded!.headers.authorization).toBe('Bearer [redacted]');
    expect(recorded!.inputTokens).toBe(message.usage.input_tokens);
  });

  it('streams the documented event sequence and the SDK assembles the same message', async () => {
    const stream = client().messages.stream({ model: MODEL, max_tokens: 200, messages: [{ role: 'user', content: 'Stream please' }] });
    const types: string[] = [];
    const deltas: string[] = [];
    stream.on('streamEvent', (event) => types.push(event.type));
    stream.on('text', (delta) => deltas.push(delta));
    const message = await stream.finalMessage();

    expect(types[0]).toBe('message_start');
    expect(types.slice(1, 3)).toEqual(['content_block_start', 'content_block_delta']);
    expect(types.slice(-3)).toEqual(['content_block_stop', 'message_delta', 'message_stop']);
    expect(deltas.length).toBeGreaterThanOrEqual(3);
    expect(deltas.join('')).toBe((message.content[0] as { text: string }).text);
    expect(message.usage.output_tokens).toBeGreaterThan(1);
    expect(fake.requests[0]!.stream).toBe(true);
  });

  it('sends event: lines and a ping on the wire', async () => {
    const response = await fetch(`${fake.url}/v1/messages`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': 'k', 'anthropic-version': '2023-06-01' },
      body: JSON.stringify({ model: MODEL, max_tokens: 50, stream: true, messages: [{ role: 'user', content: 'hi' }] }),
    });
    const text = await response.text();
    expect(response.headers.get('content-type')).toMatch(/^text\/event-stream/);
    expect(text.startsWith('event: message_start\ndata: {')).toBe(true);
    expect(text).toContain('event: ping\ndata: {"type":"ping"}');
    expect(text.trimEnd().endsWith('event: message_stop\ndata: {"type":"message_stop"}')).toBe(true);
  });

  it('accepts the key as x-api-key as well as Authorization: Bearer', async () => {
    const viaHeader = new Anthropic({ apiKey: null, authToken: null, baseURL: fake.url, maxRetries: 0, defaultHeaders: { 'x-api-key': 'sk-ant-header-key' } });
    await viaHeader.messages.create({ model: MODEL, max_tokens: 20, messages: [{ role: 'user', content: 'hi' }] });
    await client().messages.create({ model: MODEL, max_tokens: 20, messages: [{ role: 'user', content: 'hi' }] });

    expect(fake.requests.map((request) => request.authForm)).toEqual(['x-api-key', 'bearer']);
    expect(fake.requests[0]!.headers['x-api-key']).toBe('[redacted]');
  });

  it('round-trips parallel tool calls and checks the results against them', async () => {
    fake.setReply((request) =>
      request.answersToolResults
        ? undefined
        : {
            text: 'Let me look.',
            toolCalls: [
              { name: 'lookup', input: { q: 'a' } },
              { name: 'lookup', input: { q: 'b' } },
            ],
          },
    );
    const tools = [{ name: 'lookup', description: 'Looks things up', input_schema: { type: 'object' as const, properties: { q: { type: 'string' } } } }];
    const anthropic = client();
    const first = await anthropic.messages
      .stream({ model: MODEL, max_tokens: 300, tools, messages: [{ role: 'user', content: 'Find a and b' }] })
      .finalMessage();

    expect(first.stop_reason).toBe('tool_use');
    const uses = first.content.filter((block) => block.type === 'tool_use');
    expect(uses.map((use) => use.input)).toEqual([{ q: 'a' }, { q: 'b' }]);

    const second = await anthropic.messages.create({
      model: MODEL,
      max_tokens: 300,
      tools,
      messages: [
        { role: 'user', content: 'Find a and b' },
        { role: 'assistant', content: first.content },
        { role: 'user', content: uses.map((use) => ({ type: 'tool_result' as const, tool_use_id: use.id, content: `result for ${use.id}` })) },
      ],
    });
    expect(second.content[0]).toMatchObject({ type: 'text', text: 'Answer 2: I read the tool results. I received 3 messages.' });
  });

  it('returns thinking with a signature and refuses a tampered one', async () => {
    fake.setReply(() => ({ thinking: 'Weighing the options.', text: 'Done.' }));
    const anthropic = client();
    const first = await anthropic.messages
      .stream({ model: MODEL, max_tokens: 2000, thinking: { type: 'enabled', budget_tokens: 1024 }, messages: [{ role: 'user', content: 'Think' }] })
      .finalMessage();
    const thinking = first.content[0] as { type: string; thinking: string; signature: string };
    expect(thinking.type).toBe('thinking');
    expect(thinking.signature.length).toBeGreaterThan(20);

    const history = (block: object) => [
      { role: 'user' as const, content: 'Think' },
      { role: 'assistant' as const, content: [block, { type: 'text' as const, text: 'Done.' }] as Anthropic.ContentBlockParam[] },
      { role: 'user' as const, content: 'Again' },
    ];
    await expect(anthropic.messages.create({ model: MODEL, max_tokens: 50, messages: history(thinking) })).resolves.toBeTruthy();
    await expect(anthropic.messages.create({ model: MODEL, max_tokens: 50, messages: history({ ...thinking, thinking: 'Edited.' }) })).rejects.toThrow(
      'Invalid `signature` in `thinking` block',
    );
  });

  it('cuts the answer at max_tokens like the model does', async () => {
    fake.setReply(() => ({ text: 'word '.repeat(200) }));
    const message = await client().messages.create({ model: MODEL, max_tokens: 10, messages: [{ role: 'user', content: 'Long please' }] });
    expect(message.stop_reason).toBe('max_tokens');
    expect(message.usage.output_tokens).toBe(10);
  });

  it('answers summary requests with a short summary, and plays a script in order', async () => {
    const summary = await client().messages.create({
      model: MODEL,
      max_tokens: 100,
      system: 'Summarize the conversation below in a few sentences.',
      messages: [{ role: 'user', content: 'Earlier turns go here.' }],
    });
    expect((summary.content[0] as { text: string }).text).toMatch(/^Summary: /);

    const scripted = await startFakeApi({ deltaDelayMs: 0, script: [{ text: 'first scripted' }, { text: 'second scripted' }] });
    const anthropic = new Anthropic({ apiKey: 'k', baseURL: scripted.url, maxRetries: 0 });
    const texts: string[] = [];
    for (let turn = 0; turn < 3; turn++) {
      const message = await anthropic.messages.create({ model: MODEL, max_tokens: 50, messages: [{ role: 'user', content: 'next' }] });
      texts.push((message.content[0] as { text: string }).text);
    }
    await scripted.close();
    expect(texts).toEqual(['first scripted', 'second scripted', 'Answer 3: I received 1 message. Your last message began "next".']);
  });

  it('lists models in the Anthropic shape', async () => {
    const page = await client().models.list();
    expect(page.data.map((model) => model.id)).toContain('claude-haiku-4-5');
    expect(page.data[0]).toMatchObject({ type: 'model' });
  });

  it('can fail a stream after the 200 with an overloaded error event', async () => {
    fake.setReply(() => ({ text: 'one two three four five six seven eight nine', deltas: 4, streamErrorAfterDeltas: 2 }));
    const stream = client().messages.stream({ model: MODEL, max_tokens: 100, messages: [{ role: 'user', content: 'hi' }] });
    const deltas: string[] = [];
    stream.on('text', (delta) => deltas.push(delta));
    const error = await stream.finalMessage().catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(Anthropic.APIError);
    expect((error as ApiError).type).toBe('overloaded_error');
    expect(deltas).toHaveLength(2);
  });

  it('counts tokens on /v1/messages/count_tokens exactly as the messages endpoint does', async () => {
    const params = { model: MODEL, system: 'Be brief.', messages: [{ role: 'user' as const, content: 'How many tokens is this?' }] };
    const counted = await client().messages.countTokens(params);
    const message = await client().messages.create({ ...params, max_tokens: 20 });
    expect(counted.input_tokens).toBe(message.usage.input_tokens);
  });
});

describe('Anthropic prompt caching', () => {
  const longSystem = 'The reference manual says many careful things about the system. '.repeat(120);

  it('writes a marked prefix once and reads it on the next request, keeping input_tokens apart', async () => {
    const anthropic = client();
    const request = (question: string) =>
      anthropic.messages.create({
        model: MODEL,
        max_tokens: 50,
        system: [{ type: 'text', text: longSystem, cache_control: { type: 'ephemeral' } }],
        messages: [{ role: 'user', content: question }],
      });
    const first = await request('First question?');
    const second = await request('A different second question?');

    expect(first.usage.cache_creation_input_tokens).toBeGreaterThan(1024);
    expect(first.usage.cache_read_input_tokens).toBe(0);
    expect(second.usage.cache_read_input_tokens).toBe(first.usage.cache_creation_input_tokens);
    expect(second.usage.cache_creation_input_tokens).toBe(0);
    const total = (usage: Anthropic.Usage) => usage.input_tokens + (usage.cache_creation_input_tokens ?? 0) + (usage.cache_read_input_tokens ?? 0);
    expect(total(first.usage)).toBe(fake.requests[0]!.inputTokens);
    expect(total(second.usage)).toBe(fake.requests[1]!.inputTokens);
    expect(second.usage.input_tokens).toBeLessThan(20);
  });

  it('does not cache a prefix shorter than the minimum, and changed bytes miss', async () => {
    const anthropic = client();
    const short = await anthropic.messages.create({
      model: MODEL,
      max_tokens: 20,
      system: [{ type: 'text', text: 'Short system prompt.', cache_control: { type: 'ephemeral' } }],
      messages: [{ role: 'user', content: 'hi' }],
    });
    expect(short.usage.cache_creation_input_tokens).toBe(0);

    const withSystem = (system: string) =>
      anthropic.messages.create({
        model: MODEL,
        max_tokens: 20,
        system: [{ type: 'text', text: system, cache_control: { type: 'ephemeral' } }],
        messages: [{ role: 'user', content: 'hi' }],
      });
    await withSystem(longSystem);
    const changed = await withSystem(longSystem.replace('manual', 'Manual'));
    expect(changed.usage.cache_read_input_tokens).toBe(0);
    expect(changed.usage.cache_creation_input_tokens).toBeGreaterThan(1024);
  });

  it('reads an earlier breakpoint after the newest-turn breakpoint moves on', async () => {
    const anthropic = client();
    const turn = (text: string, marked: boolean) => ({
      role: 'user' as const,
      content: [{ type: 'text' as const, text, ...(marked ? { cache_control: { type: 'ephemeral' as const } } : {}) }],
    });
    const history = [turn(longSystem, true), { role: 'assistant' as const, content: 'Noted.' }];
    await anthropic.messages.create({ model: MODEL, max_tokens: 20, messages: [...history, turn('Next question', true)] });
    const later = await anthropic.messages.create({
      model: MODEL,
      max_tokens: 20,
      messages: [...history, turn('Next question', false), { role: 'assistant', content: 'Answer.' }, turn('Another one', true)],
    });
    expect(later.usage.cache_read_input_tokens).toBeGreaterThan(1024);
    expect(later.usage.cache_creation_input_tokens).toBeGreaterThan(0);
  });
});

describe('Anthropic errors map to the SDK typed errors', () => {
  const ask = (anthropic = client(), model = MODEL) => anthropic.messages.create({ model, max_tokens: 20, messages: [{ role: 'user', content: 'hi' }] });

  it('401 for an injected failure and for a rejected key, in the real body shape', async () => {
    fake.failNext('401');
    const injected = await ask().catch((error: unknown) => error);
    expect(injected).toBeInstanceOf(Anthropic.AuthenticationError);
    expect((injected as ApiError).error).toMatchObject({ type: 'error', error: { type: 'authentication_error', message: 'invalid x-api-key' } });
    expect((injected as ApiError).requestID).toMatch(/^req_/);

    const badKey = await ask(client({ apiKey: 'sk-ant-invalid' })).catch((error: unknown) => error);
    expect(badKey).toBeInstanceOf(Anthropic.AuthenticationError);
    expect((badKey as Error).message).toContain('Invalid bearer token');
  });

  it('429 carries retry-after, and the SDK retries after it', async () => {
    fake.failNext('429', { retryAfterSeconds: 7 });
    const error = await ask().catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(Anthropic.RateLimitError);
    expect((error as ApiError).headers?.get('retry-after')).toBe('7');
    expect((error as ApiError).type).toBe('rate_limit_error');

    fake.failNext('429', { retryAfterSeconds: 0.01 });
    const message = await ask(client({ maxRetries: 1 }));
    expect(message.type).toBe('message');
    expect(fake.requests.slice(-2).map((request) => request.status)).toEqual([429, 200]);
  });

  it('529 overloaded and 500 api errors', async () => {
    fake.failNext('529');
    fake.failNext('500');
    const overloaded = await ask().catch((error: unknown) => error);
    expect(overloaded).toBeInstanceOf(Anthropic.InternalServerError);
    expect((overloaded as ApiError).status).toBe(529);
    expect((overloaded as ApiError).type).toBe('overloaded_error');
    const internal = await ask().catch((error: unknown) => error);
    expect((internal as ApiError).status).toBe(500);
    expect((internal as ApiError).type).toBe('api_error');
  });

  it('404 for an unknown model, injected or real', async () => {
    const unknown = await ask(client(), 'claude-nonexistent-9').catch((error: unknown) => error);
    expect(unknown).toBeInstanceOf(Anthropic.NotFoundError);
    expect((unknown as Error).message).toContain('model: claude-nonexistent-9');
    fake.failNext('unknown_model');
    await expect(ask()).rejects.toBeInstanceOf(Anthropic.NotFoundError);
  });

  it('context errors carry the real texts and counts', async () => {
    fake.failNext('context', { maximumTokens: 3 });
    const injected = await ask().catch((error: unknown) => error);
    expect(injected).toBeInstanceOf(Anthropic.BadRequestError);
    expect((injected as Error).message).toMatch(/prompt is too long: \d+ tokens > 3 maximum/);

    const long = 'many words in this prompt '.repeat(150);
    const tooLong = await client()
      .messages.create({ model: 'claude-haiku-4-5', max_tokens: 10, messages: [{ role: 'user', content: long }] })
      .catch((error: unknown) => error);
    const counted = fake.requests.at(-1)!.inputTokens!;
    expect(counted).toBeGreaterThan(600);
    expect((tooLong as Error).message).toContain(`prompt is too long: ${counted} tokens > 600 maximum`);

    const budget = await client()
      .messages.create({ model: 'claude-haiku-4-5', max_tokens: 599, messages: [{ role: 'user', content: 'short question' }] })
      .catch((error: unknown) => error);
    expect((budget as Error).message).toMatch(
      /input length and `max_tokens` exceed context limit: \d+ \+ 599 > 600, decrease input length or `max_tokens` and try again/,
    );
  });

  it('a network failure surfaces as a connection error', async () => {
    fake.failNext('network');
    await expect(ask()).rejects.toBeInstanceOf(Anthropic.APIConnectionError);
    expect(fake.requests[0]!.status).toBe(0);
  });

  it('records an aborted stream', async () => {
    fake.setReply(() => ({ text: 'slow words '.repeat(20), deltaDelayMs: 30 }));
    const stream = client().messages.stream({ model: MODEL, max_tokens: 500, messages: [{ role: 'user', content: 'Take your time' }] });
    await new Promise<void>((resolve) => stream.once('text', () => resolve()));
    stream.abort();
    await expect(stream.finalMessage()).rejects.toBeInstanceOf(Anthropic.APIUserAbortError);
    await expect.poll(() => fake.requests[0]!.aborted).toBe(true);
    expect(fake.requests[0]!.completed).toBe(false);
    expect(fake.requests[0]!.replyText!.length).toBeLessThan('slow words '.repeat(20).length);
  });
});

describe('Anthropic wire rules', () => {
  const user = (content: unknown) => ({ role: 'user', content });
  const assistant = (content: unknown) => ({ role: 'assistant', content });
  const toolUse = (id: string) => ({ type: 'tool_use', id, name: 'lookup', input: {} });
  const toolResult = (id: string) => ({ type: 'tool_result', tool_use_id: id, content: 'ok' });
  const base = { model: MODEL, max_tokens: 20 };
  const tools = [{ name: 'lookup', input_schema: { type: 'object' } }];
  const cases: Array<[string, unknown, RegExp | string]> = [
    ['model is required', { max_tokens: 20, messages: [user('hi')] }, 'model: Field required'],
    ['max_tokens is required', { model: MODEL, messages: [user('hi')] }, 'max_tokens: Field required'],
    ['max_tokens must be an integer', { ...base, max_tokens: 2.5, messages: [user('hi')] }, 'max_tokens: Input should be a valid integer'],
    ['messages are required', { ...base }, 'messages: Field required'],
    [
      'roles are user or assistant',
      { ...base, messages: [{ role: 'tool', content: 'x' }] },
      "messages.0.role: Input should be 'user', 'assistant' or 'system'",
    ],
    ['the first message is the user', { ...base, messages: [assistant('hi'), user('yo')] }, 'messages: first message must use the "user" role'],
    [
      'current models take no assistant prefill',
      { ...base, model: 'claude-opus-4-6', messages: [user('hi'), assistant('Hello')] },
      'This model does not support assistant message prefill. The conversation must end with a user message.',
    ],
    [
      'no empty string content',
      { ...base, messages: [user('')] },
      'messages.0: all messages must have non-empty content except for the optional final assistant message',
    ],
    ['no empty content array', { ...base, messages: [user('hi'), assistant([]), user('x')] }, 'messages.1: all messages must have non-empty content'],
    ['no empty text block', { ...base, messages: [user([{ type: 'text', text: '' }])] }, 'messages: text content blocks must be non-empty'],
    ['no whitespace-only text', { ...base, messages: [user('   ')] }, 'messages: text content blocks must contain non-whitespace text'],
    ['system is text', { ...base, system: [{ type: 'image' }], messages: [user('hi')] }, "system.0.type: Input should be 'text'"],
    [
      'every tool_use is answered in the next message',
      { ...base, tools, messages: [user('hi'), assistant([toolUse('toolu_1')]), user('no results')] },
      'messages.1: `tool_use` ids were found without `tool_result` blocks immediately after: toolu_1.',
    ],
    [
      'tool_result blocks come first',
      { ...base, tools, messages: [user('hi'), assistant([toolUse('toolu_1')]), user([{ type: 'text', text: 'see' }, toolResult('toolu_1')])] },
      'messages.1: `tool_use` ids were found without `tool_result` blocks immediately after: toolu_1.',
    ],
    [
      'every tool_result answers the previous message',
      { ...base, tools, messages: [user('hi'), assistant('plain'), user([toolResult('toolu_9')])] },
      'messages.2.content.0: unexpected `tool_use_id` found in `tool_result` blocks: toolu_9. Each `tool_result` block must have a corresponding `tool_use` block in the previous message.',
    ],
    [
      'tool blocks need tools defined',
      { ...base, messages: [user('hi'), assistant([toolUse('toolu_1')]), user([toolResult('toolu_1')])] },
      'Requests which include `tool_use` or `tool_result` blocks must define tools.',
    ],
    ['tool_choice needs tools', { ...base, tool_choice: { type: 'none' }, messages: [user('hi')] }, 'tool_choice may only be specified while providing tools.'],
    [
      'tool_choice names a tool offered',
      { ...base, tools, tool_choice: { type: 'tool', name: 'search' }, messages: [user('hi')] },
      "tool_choice.tool.name: Tool 'search' not found",
    ],
    [
      'at most four cache breakpoints',
      {
        ...base,
        system: [1, 2, 3].map((n) => ({ type: 'text', text: `part ${n}`, cache_control: { type: 'ephemeral' } })),
        messages: [
          user([
            { type: 'text', text: 'a', cache_control: { type: 'ephemeral' } },
            { type: 'text', text: 'b', cache_control: { type: 'ephemeral' } },
          ]),
        ],
      },
      'A maximum of 4 blocks with cache_control may be provided. Found 5.',
    ],
  ];

  it.each(cases)('%s', async (_name, body, expected) => {
    const { status, body: error } = await post(body);
    expect(status).toBe(400);
    expect(error.type).toBe('error');
    expect(error.error.type).toBe('invalid_request_error');
    expect(error.error.message).toContain(expected);
    expect(error.request_id).toMatch(/^req_/);
    expect(fake.requests[0]!.validation.ok).toBe(false);
  });

  it('merges consecutive user messages before pairing tool results', async () => {
    const { status } = await post({ ...base, tools, messages: [user('hi'), assistant([toolUse('toolu_1')]), user([toolResult('toolu_1')]), user('and more')] });
    expect(status).toBe(200);
  });

  it('requires anthropic-version, and accepts 2023-06-01', async () => {
    const missing = await post({ ...base, messages: [user('hi')] }, { 'anthropic-version': '' });
    expect(missing.status).toBe(400);
    expect(missing.body.error.message).toContain('anthropic-version');
    const response = await fetch(`${fake.url}/v1/messages`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': 'k' },
      body: JSON.stringify({ ...base, messages: [user('hi')] }),
    });
    expect(response.status).toBe(400);
    expect(await response.json()).toMatchObject({ error: { type: 'invalid_request_error', message: 'anthropic-version: header is required' } });
  });

  it('demands the direct-browser-access header from browser origins, and a key', async () => {
    const fromBrowser = await post({ ...base, messages: [user('hi')] }, { origin: 'http://127.0.0.1:4173' });
    expect(fromBrowser.status).toBe(401);
    expect(fromBrowser.body.error.message).toBe("CORS requests must set 'anthropic-dangerous-direct-browser-access' header");
    const allowed = await post({ ...base, messages: [user('hi')] }, { origin: 'http://127.0.0.1:4173', 'anthropic-dangerous-direct-browser-access': 'true' });
    expect(allowed.status).toBe(200);
    const noKey = await post({ ...base, messages: [user('hi')] }, { 'x-api-key': '' });
    expect(noKey.status).toBe(401);
    expect(noKey.body.error).toEqual({ type: 'authentication_error', message: 'x-api-key header is required' });
  });

  it('has no /v1/v1 route: a base URL ending in /v1 is a 404', async () => {
    const { status, body } = await post({ ...base, messages: [user('hi')] }, {}, '/v1/v1/messages');
    expect(status).toBe(404);
    expect(body.error.type).toBe('not_found_error');
  });
});

/** A fake of its own for one describe (started before, reset after each test, closed after), and an SDK client of it without retries. */
function localFake(): { fake: () => FakeApi; sdk: () => Anthropic } {
  let local: FakeApi | undefined;
  beforeAll(async () => {
    local = await startFakeApi({ deltaDelayMs: 0 });
  });
  afterEach(() => local?.reset());
  afterAll(() => local?.close());
  return { fake: () => local!, sdk: () => new Anthropic({ apiKey: 'sk-ant-test-key', baseURL: local!.url, maxRetries: 0 }) };
}

describe('Anthropic thinking and effort per model', () => {
  type Body = Anthropic.MessageCreateParamsNonStreaming;
  // Its own fake: the one above gives Haiku models a small window.
  const { fake: local, sdk } = localFake();
  const ask = (model: string, extra: Partial<Body> = {}): Body => ({
    model,
    max_tokens: 4000,
    messages: [{ role: 'user', content: 'Think it over' }],
    ...extra,
  });

  /** The request's outcome: 'ok', or the status and message of the SDK's error. */
  async function outcome(body: Body): Promise<string> {
    try {
      await sdk().messages.create(body);
      return 'ok';
    } catch (error) {
      const apiError = error as ApiError & { error?: { error?: { type?: string; message?: string } } };
      return `${apiError.status} ${apiError.error?.error?.type}: ${apiError.error?.error?.message}`;
    }
  }
  const refused = (type: string) =>
    `400 invalid_request_error: "thinking.type.${type}" is not supported for this model. Use "thinking.type.adaptive" and "output_config.effort" to control thinking behavior.`;
  const disabled = { type: 'disabled' } as const;
  const enabled = { type: 'enabled', budget_tokens: 2048 } as const;
  const effort = (level: 'low' | 'medium' | 'high' | 'xhigh' | 'max') => ({ output_config: { effort: level } });

  it('keeps thinking always on for Opus 5.5 and Fable 5.1 and 5.2, with the documented errors', async () => {
    for (const model of ['claude-opus-5-5', 'claude-fable-5-1', 'claude-fable-5-2']) {
      expect(await outcome(ask(model, { thinking: disabled })), model).toBe(refused('disabled'));
      expect(await outcome(ask(model, { thinking: enabled })), model).toBe(refused('enabled'));
      expect(await outcome(ask(model, { thinking: { type: 'adaptive' }, ...effort('max') })), model).toBe('ok');
      expect(await outcome(ask(model, effort('low'))), model).toBe('ok');
    }
    expect(await outcome(ask('claude-fable-5', { thinking: disabled }))).toBe(refused('disabled'));
  });

  it('checks the effort level, and which levels each model takes', async () => {
    const unknown = { output_config: { effort: 'extreme' } } as unknown as Partial<Body>;
    expect(await outcome(ask('claude-opus-5', unknown))).toBe(
      "400 invalid_request_error: output_config.effort: Input should be 'low', 'medium', 'high', 'xhigh' or 'max'",
    );
    expect(await outcome(ask('claude-next-1', unknown))).toMatch(/^400 .*output_config\.effort: Input should be/);
    expect(await outcome(ask('claude-haiku-4-5', effort('low')))).toMatch(/^400 invalid_request_error: output_config\.effort: /);
    expect(await outcome(ask('claude-opus-4-6', effort('xhigh')))).toMatch(/^400 invalid_request_error: output_config\.effort: 'xhigh' is not supported/);
    expect(await outcome(ask('claude-opus-4-6', effort('max')))).toBe('ok');
    expect(await outcome(ask('claude-opus-4-8', effort('xhigh')))).toBe('ok');
    expect(await outcome(ask('claude-opus-4-8', { thinking: enabled }))).toBe(refused('enabled'));
    for (const model of ['claude-fable-5', 'claude-opus-5', 'claude-sonnet-5', 'claude-opus-5-5', 'claude-sonnet-5-5', 'claude-haiku-5-5']) {
      expect(await outcome(ask(model, effort('xhigh'))), model).toBe('ok');
      expect(await outcome(ask(model, effort('max'))), model).toBe('ok');
    }
  });

  it('turns Sonnet 5.5 down with between_tools, not disabled, at effort high or below', async () => {
    const model = 'claude-sonnet-5-5';
    const betweenTools = { type: 'between_tools' } as const;
    expect(await outcome(ask(model, { thinking: betweenTools, ...effort('high') }))).toBe('ok');
    expect(await outcome(ask(model, { thinking: betweenTools }))).toBe('ok');
    expect(await outcome(ask(model, { thinking: betweenTools, ...effort('xhigh') }))).toMatch(/^400 invalid_request_error: "thinking\.type\.between_tools"/);
    expect(await outcome(ask(model, { thinking: disabled }))).toMatch(/^400 invalid_request_error: "thinking\.type\.disabled" .*between_tools/);
    expect(await outcome(ask(model, { thinking: enabled }))).toBe(refused('enabled'));
  });

  it('lets Haiku 5.5 and Opus 5 disable thinking at effort high or below, and refuses a budget', async () => {
    for (const model of ['claude-haiku-5-5', 'claude-opus-5']) {
      expect(await outcome(ask(model, { thinking: disabled })), model).toBe('ok');
      expect(await outcome(ask(model, { thinking: disabled, ...effort('high') })), model).toBe('ok');
      expect(await outcome(ask(model, { thinking: disabled, ...effort('max') })), model).toMatch(/^400 invalid_request_error: "thinking\.type\.disabled"/);
      expect(await outcome(ask(model, { thinking: enabled })), model).toBe(refused('enabled'));
    }
    expect(await outcome(ask('claude-sonnet-5', { thinking: enabled }))).toBe(refused('enabled'));
  });

  it('takes a budget on Opus 4.6 and Haiku 4.5, and refuses adaptive on Haiku 4.5', async () => {
    expect(await outcome(ask('claude-opus-4-6', { thinking: enabled }))).toBe('ok');
    expect(await outcome(ask('claude-opus-4-6', { thinking: disabled }))).toBe('ok');
    expect(await outcome(ask('claude-opus-4-6', { thinking: { type: 'adaptive' } }))).toBe('ok');
    expect(await outcome(ask('claude-haiku-4-5', { thinking: enabled }))).toBe('ok');
    expect(await outcome(ask('claude-haiku-4-5', { thinking: { type: 'adaptive' } }))).toMatch(
      /^400 invalid_request_error: "thinking\.type\.adaptive" is not supported/,
    );
  });

  it('keeps the permissive rules for a model the table does not know', async () => {
    const model = 'claude-next-1';
    expect(await outcome(ask(model, { thinking: disabled }))).toBe('ok');
    expect(await outcome(ask(model, { thinking: enabled }))).toBe('ok');
    expect(await outcome(ask(model, { thinking: { type: 'adaptive' }, ...effort('xhigh') }))).toBe('ok');
    expect(await outcome(ask(model, { thinking: { type: 'enabled', budget_tokens: 512 } }))).toMatch(
      /budget_tokens: Input should be greater than or equal to 1024/,
    );
  });

  it('omits the thinking text by default on the 5 series, signed so it can come back, and summarizes on request', async () => {
    local().setReply((context) => (context.turn <= 2 ? { thinking: 'Weighing the options carefully.', text: 'Done.' } : undefined));
    const anthropic = sdk();
    const omitted = await anthropic.messages.create(ask('claude-opus-5-5'));
    const block = omitted.content[0] as Anthropic.ThinkingBlock;
    expect(block).toMatchObject({ type: 'thinking', thinking: '' });
    expect(block.signature.length).toBeGreaterThan(20);
    expect(omitted.usage.output_tokens).toBeGreaterThan(4);

    const summarized = await anthropic.messages.stream(ask('claude-opus-5-5', { thinking: { type: 'adaptive', display: 'summarized' } })).finalMessage();
    expect(summarized.content[0]).toMatchObject({ type: 'thinking', thinking: 'Weighing the options carefully.', signature: block.signature });
    expect(summarized.usage.output_tokens).toBe(omitted.usage.output_tokens);

    const history = (thinking: object): Body['messages'] => [
      { role: 'user', content: 'Think it over' },
      { role: 'assistant', content: [thinking, { type: 'text', text: 'Done.' }] as Anthropic.ContentBlockParam[] },
      { role: 'user', content: 'Again' },
    ];
    expect(await outcome(ask('claude-opus-5-5', { messages: history(block) }))).toBe('ok');
    expect(await outcome(ask('claude-opus-5-5', { messages: history({ ...block, thinking: 'Something else.' }) }))).toMatch(/Invalid `signature`/);
    expect(await outcome(ask('claude-opus-5-5', { messages: history({ ...block, signature: 'c2lnbmF0dXJl' }) }))).toMatch(/Invalid `signature`/);
  });

  it('returns no thinking when the request turns it off', async () => {
    local().setReply(() => ({ thinking: 'Weighing the options.', text: 'Done.' }));
    const message = await sdk().messages.create(ask('claude-haiku-5-5', { thinking: disabled }));
    expect(message.content.map((block) => block.type)).toEqual(['text']);
  });

  it('returns no thinking from a model that thinks only when asked and was not', async () => {
    local().setReply(() => ({ thinking: 'Weighing the options.', text: 'Done.' }));
    for (const model of ['claude-opus-4-8', 'claude-haiku-4-5']) {
      const message = await sdk().messages.create(ask(model));
      expect(
        message.content.map((block) => block.type),
        model,
      ).toEqual(['text']);
    }
    const asked = await sdk().messages.create(ask('claude-opus-4-8', { thinking: { type: 'adaptive' } }));
    expect(asked.content.map((block) => block.type)).toEqual(['thinking', 'text']);
  });

  it('demands the thinking of the reply that made the tool calls back in the tool loop', async () => {
    const model = 'claude-haiku-5-5';
    local().setReply((context) =>
      context.answersToolResults ? undefined : { thinking: 'I should look it up.', toolCalls: [{ name: 'lookup', input: { q: 'a' } }] },
    );
    const tools = [{ name: 'lookup', input_schema: { type: 'object' as const, properties: { q: { type: 'string' } } } }];
    const anthropic = sdk();
    const first = await anthropic.messages.stream({ model, max_tokens: 2000, tools, messages: [{ role: 'user', content: 'Find a' }] }).finalMessage();
    expect(first.content.map((block) => block.type)).toEqual(['thinking', 'tool_use']);
    const use = first.content[1] as Anthropic.ToolUseBlock;
    const loop = (assistantContent: Anthropic.ContentBlockParam[]): Body['messages'] => [
      { role: 'user', content: 'Find a' },
      { role: 'assistant', content: assistantContent },
      { role: 'user', content: [{ type: 'tool_result', tool_use_id: use.id, content: 'found' }] },
    ];

    expect(await outcome({ model, max_tokens: 2000, tools, messages: loop([use]) })).toBe(
      '400 invalid_request_error: messages.1.content.0.type: Expected `thinking` or `redacted_thinking`, but found `tool_use`. ' +
        'When `thinking` is enabled, a final `assistant` message must start with a thinking block (preceeding the lastmost set of `tool_use` and `tool_result` blocks). ' +
        'We recommend you include thinking blocks from previous turns. To avoid this requirement, disable `thinking`. ' +
        'Please consult our documentation at https://docs.claude.com/en/docs/build-with-claude/extended-thinking',
    );
    expect(await outcome({ model, max_tokens: 2000, tools, messages: loop([{ type: 'text', text: 'Looking.' }, use]) })).toMatch(/but found `text`/);
    expect(await outcome({ model, max_tokens: 2000, tools, messages: loop(first.content as Anthropic.ContentBlockParam[]) })).toBe('ok');
    expect(await outcome({ model, max_tokens: 2000, tools, thinking: disabled, messages: loop([use]) })).toBe('ok');
    // A tool call the fake never made (a history built by hand) is not held to it.
    const handMade = { ...use, id: 'toolu_handmade' };
    expect(
      await outcome({
        model,
        max_tokens: 2000,
        tools,
        messages: [
          { role: 'user', content: 'Find a' },
          { role: 'assistant', content: [handMade] },
          { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_handmade', content: 'found' }] },
        ],
      }),
    ).toBe('ok');
  });
});

describe('Anthropic redacted thinking', () => {
  const { fake: local, sdk } = localFake();

  it('streams a redacted_thinking block whole, takes it back as given, and refuses data it never issued', async () => {
    const model = 'claude-haiku-5-5';
    local().setReply((context) =>
      context.answersToolResults ? { text: 'Done.' } : { thinking: 'Look it up.', redactedThinking: true, toolCalls: [{ name: 'lookup', input: {} }] },
    );
    const tools = [{ name: 'lookup', input_schema: { type: 'object' as const } }];
    const thinking = { type: 'adaptive', display: 'summarized' } as const;
    const anthropic = sdk();
    const first = await anthropic.messages
      .stream({ model, max_tokens: 2000, tools, thinking, messages: [{ role: 'user', content: 'Find it' }] })
      .finalMessage();
    expect(first.content.map((block) => block.type)).toEqual(['thinking', 'redacted_thinking', 'tool_use']);
    const redacted = first.content[1] as Anthropic.RedactedThinkingBlock;
    expect(redacted.data.length).toBeGreaterThan(20);
    const use = first.content[2] as Anthropic.ToolUseBlock;
    const loop = (content: Anthropic.ContentBlockParam[]) =>
      anthropic.messages
        .create({
          model,
          max_tokens: 2000,
          tools,
          thinking,
          messages: [
            { role: 'user', content: 'Find it' },
            { role: 'assistant', content },
            { role: 'user', content: [{ type: 'tool_result', tool_use_id: use.id, content: 'found' }] },
          ],
        })
        .then(
          () => 'ok',
          (error: Error) => error.message,
        );
    expect(await loop(first.content as Anthropic.ContentBlockParam[])).toBe('ok');
    // Filtering the redacted block out is refused, as the docs warn.
    expect(await loop(first.content.filter((block) => block.type !== 'redacted_thinking') as Anthropic.ContentBlockParam[])).toMatch(
      /messages\.1\.content\.1: `thinking` or `redacted_thinking` blocks in the latest assistant message cannot be modified\./,
    );
    const forged = first.content.map((block) => (block.type === 'redacted_thinking' ? { ...block, data: `${redacted.data.slice(0, -4)}AAA=` } : block));
    expect(await loop(forged as Anthropic.ContentBlockParam[])).toMatch(/messages\.1\.content\.1: Invalid `data` in `redacted_thinking` block/);
  });
});

describe('Anthropic preserved thinking: the prefix check', () => {
  const { fake: local, sdk } = localFake();
  const MODEL_55 = 'claude-opus-5-5';
  const thinking = { type: 'adaptive', display: 'summarized' } as const;

  async function exchange(messages: Anthropic.MessageParam[], system = 'Be brief.') {
    const reply = await sdk().messages.create({ model: MODEL_55, max_tokens: 2000, system, thinking, messages } as Anthropic.MessageCreateParamsNonStreaming);
    return reply.content as Anthropic.ContentBlockParam[];
  }

  it('takes thinking back after the prefix it was written after, and refuses it once something before it changed', async () => {
    local().setReply((context) => ({ thinking: `Thought ${context.turn}`, text: `Answer ${context.turn}` }));
    const history: Anthropic.MessageParam[] = [{ role: 'user', content: 'First' }];
    history.push({ role: 'assistant', content: await exchange(history) }, { role: 'user', content: 'Second' });
    history.push({ role: 'assistant', content: await exchange(history) }, { role: 'user', content: 'Third' });
    // Unchanged, with cache markers added and the question as a text block: the same prefix.
    const marked = history.map((m, i) =>
      i === 0 ? { role: m.role, content: [{ type: 'text' as const, text: 'First', cache_control: { type: 'ephemeral' as const } }] } : m,
    );
    await expect(exchange(marked)).resolves.toBeTruthy();

    // The first exchange trimmed: the second answer's thinking now follows another prefix.
    await expect(exchange([{ role: 'user', content: 'Second' }, ...history.slice(3)])).rejects.toThrow(
      // (The SDK's message shows the body as JSON, its quotes escaped.)
      'messages.1.content.0: Invalid `signature` in `thinking` block. The block is bound to a different conversation. Remove the block, or set `thinking.block_binding.prefix_mismatch_behavior` to',
    );
    // A changed system prompt changes every block's prefix.
    await expect(exchange(history, 'Be thorough.')).rejects.toThrow('messages.1.content.0: Invalid `signature` in `thinking` block. The block is bound');
    // Without the stale thinking, the rest goes through.
    const withoutThinking = history.map((m) =>
      m.role === 'assistant' ? { ...m, content: (m.content as Anthropic.ContentBlockParam[]).filter((b) => b.type !== 'thinking') } : m,
    );
    await expect(exchange(withoutThinking, 'Be thorough.')).resolves.toBeTruthy();
  });

  it('leaves models without the check alone', async () => {
    local().setReply(() => ({ thinking: 'Hm.', text: 'Yes.' }));
    const ask = (system: string, messages: Anthropic.MessageParam[]) =>
      sdk().messages.create({ model: 'claude-opus-5', max_tokens: 2000, system, thinking, messages } as Anthropic.MessageCreateParamsNonStreaming);
    const first = await ask('Be brief.', [{ role: 'user', content: 'Go' }]);
    await expect(
      ask('Be thorough.', [
        { role: 'user', content: 'Go' },
        { role: 'assistant', content: first.content as Anthropic.ContentBlockParam[] },
        { role: 'user', content: 'On' },
      ]),
    ).resolves.toBeTruthy();
  });
});
