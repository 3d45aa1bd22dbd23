// @vitest-environment node
// The adapters against the local fake of both APIs, over real HTTP with the platform fetch:
// what the store will do, end to end, short of a real provider.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { loopReasoning, placeCacheBreakpoints, thinkingRequest, thinkingSupport, toAnthropicWire, toOpenAIWire, WindowpaneError } from '../../src/core';
import type { ContentBlock, OpenAIWireMessage, StoredMessage, ThinkingRequest, ToolUseBlock } from '../../src/core';
import { createProvider } from '../../src/providers';
import type { ChatProvider, ChatRequest, ProviderSettings, RetryInfo } from '../../src/providers';
import { startFakeApi, type FakeApi } from '../fake-api/server';

let fake: FakeApi;
beforeAll(async () => {
  fake = await startFakeApi({ deltaDelayMs: 0 });
});
afterEach(() => fake.reset());
afterAll(() => fake.close());

interface Target {
  name: string;
  settings: () => ProviderSettings;
  model: string;
  /** Its context-length error states the counts (OpenAI's Responses API says only that the input is too long). */
  statesCounts: boolean;
}

const targets: Target[] = [
  {
    name: 'Anthropic',
    model: 'claude-sonnet-4-6',
    settings: () => ({ provider: 'anthropic', apiKey: 'sk-ant-fake-test-key', baseUrl: fake.url, model: 'claude-sonnet-4-6' }),
    statesCounts: true,
  },
  {
    name: 'OpenAI',
    model: 'gpt-5.5',
    settings: () => ({ provider: 'openai', apiKey: 'sk-proj-fake-test-key', baseUrl: `${fake.url}/v1`, model: 'gpt-5.5' }),
    statesCounts: false,
  },
  {
    name: 'OpenAI-compatible without a key',
    model: 'llama3.2',
    statesCounts: true,
    settings: () => ({ provider: 'openai-compatible', apiKey: '', baseUrl: `${fake.url}/v1`, model: 'llama3.2' }),
  },
];

let seq = 0;
function stored(role: 'user' | 'assistant', content: ContentBlock[]): StoredMessage {
  seq++;
  return { id: `m${seq}`, conversationId: 'c', seq, role, kind: 'message', content, createdAt: seq, status: 'complete' };
}
const text = (t: string): ContentBlock => ({ type: 'text', text: t });
const textOf = (content: ContentBlock[]) => content.map((b) => (b.type === 'text' ? b.text : '')).join('');

/** One send as the store makes it: map the stored history to the provider's wire shape, then send. */
function request(provider: ChatProvider, model: string, history: StoredMessage[], extra: Partial<ChatRequest> = {}): ChatRequest {
  if (provider.wireShape === 'anthropic') {
    const items = toAnthropicWire(history);
    return {
      model,
      maxTokens: 300,
      messages: items.map((i) => i.message),
      cacheBreakpoints: placeCacheBreakpoints(items, [], { system: true }),
      system: 'You are helpful.',
      ...extra,
    };
  }
  return { model, maxTokens: 300, messages: toOpenAIWire(history, 'You are helpful.').map((i) => i.message), ...extra };
}

async function failure(promise: Promise<unknown>): Promise<WindowpaneError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(WindowpaneError);
  return error as WindowpaneError;
}

describe.each(targets)('$name adapter against the fake API', ({ settings, model, statesCounts }) => {
  it('streams deltas and reports the usage the API reported', async () => {
    const provider = await createProvider(settings());
    const deltas: string[] = [];
    const result = await provider.send(request(provider, model, [stored('user', [text('Hello over HTTP')])]), { onText: (d) => deltas.push(d) });
    expect(deltas.length).toBeGreaterThanOrEqual(3);
    expect(textOf(result.content)).toBe(deltas.join(''));
    expect(textOf(result.content)).toContain('Your last message began "Hello over HTTP"');
    const recorded = fake.requests.find((r) => r.method === 'POST');
    expect(recorded?.validation).toEqual({ ok: true });
    expect(result.usageReported).toBe(true);
    expect(result.usage.inputTokens + result.usage.cacheReadTokens + result.usage.cacheWriteTokens).toBe(recorded?.inputTokens);
    expect(result.usage.outputTokens).toBeGreaterThan(0);
    expect(result.stopReason).toBe('end_turn');
  });

  it('runs a parallel tool round trip the API accepts', async () => {
    fake.setReply((context) =>
      context.answersToolResults
        ? undefined
        : {
            text: 'Looking both up.',
            toolCalls: [
              { name: 'lookup', input: { q: 'alpha' } },
              { name: 'lookup', input: { q: 'beta' } },
            ],
          },
    );
    const provider = await createProvider(settings());
    const tools = [{ name: 'lookup', description: 'Looks a word up', inputSchema: { type: 'object', properties: { q: { type: 'string' } }, required: ['q'] } }];
    const history = [stored('user', [text('Look up alpha and beta')])];
    const seen: ToolUseBlock[] = [];
    const first = await provider.send(request(provider, model, history, { tools }), { onToolUse: (b) => seen.push(b) });
    expect(first.stopReason).toBe('tool_use');
    const calls = first.content.filter((b): b is ToolUseBlock => b.type === 'tool_use');
    expect(calls.map((c) => c.input)).toEqual([{ q: 'alpha' }, { q: 'beta' }]);
    expect(seen).toEqual(calls);

    history.push(stored('assistant', first.content));
    history.push(
      stored(
        'user',
        calls.map((c, i) => ({ type: 'tool_result' as const, tool_use_id: c.id, content: `result ${i}`, ...(i === 1 ? { is_error: true } : {}) })),
      ),
    );
    const second = await provider.send(request(provider, model, history, { tools }));
    const posts = fake.requests.filter((r) => r.method === 'POST');
    expect(posts[1]?.validation).toEqual({ ok: true });
    expect(textOf(second.content)).toContain('I read the tool results');

    // The user then switches the tools off: the history still holds the calls, and the next
    // message must still be accepted (Anthropic requires tools defined whenever it does).
    history.push(stored('assistant', second.content));
    history.push(stored('user', [text('Thanks. No more lookups, please.')]));
    const third = await provider.send(request(provider, model, history));
    const last = fake.requests.filter((r) => r.method === 'POST')[2];
    expect(last?.validation).toEqual({ ok: true });
    expect(third.content.some((b) => b.type === 'tool_use')).toBe(false);
    if (provider.wireShape === 'anthropic') {
      expect(last?.body).toMatchObject({ tools: [{ name: 'lookup' }], tool_choice: { type: 'none' } });
    } else {
      expect((last?.body as { tools?: unknown }).tools).toBeUndefined();
    }
  });

  it('rejects a bad key as auth, with the Settings hint', async () => {
    const provider = await createProvider({ ...settings(), apiKey: 'sk-invalid-key-000' });
    const error = await failure(provider.send(request(provider, model, [stored('user', [text('Hi')])])));
    expect(error.code).toBe('auth');
    expect(error.message).toMatch(/^The API key was rejected by .+\. Check it in Settings\.$/);
    expect(JSON.stringify(error.details)).not.toContain('sk-invalid-key-000');
  });

  it('retries a 429 honouring retry-after, shows each retry, and gives up as rate_limit with the wait', async () => {
    const provider = await createProvider(settings());
    fake.failNext('429', { retryAfterSeconds: 0.02 });
    const retries: RetryInfo[] = [];
    const result = await provider.send(request(provider, model, [stored('user', [text('Hi')])]), { onRetry: (r) => retries.push(r) });
    expect(textOf(result.content)).toContain('I received');
    expect(retries).toEqual([{ attempt: 1, maxRetries: 2, delayMs: 20, reason: 'rate_limit', status: 429 }]);

    fake.failNext('429', { retryAfterSeconds: 0.02, times: 3 });
    const seen: RetryInfo[] = [];
    const error = await failure(provider.send(request(provider, model, [stored('user', [text('Hi')])]), { onRetry: (r) => seen.push(r) }));
    expect(error.code).toBe('rate_limit');
    expect(error.details.retryAfterSeconds).toBe(1);
    expect(seen.map((r) => r.attempt)).toEqual([1, 2]);
  });

  it('keeps the partial answer when stopped mid-stream, and the server sees the abort', async () => {
    fake.setReply(() => ({ text: 'one two three four five six seven eight nine ten eleven twelve', deltas: 12, deltaDelayMs: 20 }));
    const provider = await createProvider(settings());
    const controller = new AbortController();
    const deltas: string[] = [];
    const result = await provider.send(request(provider, model, [stored('user', [text('Count')])], { signal: controller.signal }), {
      onText: (d) => {
        deltas.push(d);
        if (deltas.length === 2) controller.abort();
      },
    });
    expect(result.stopReason).toBe('stopped');
    expect(textOf(result.content)).toBe(deltas.join(''));
    expect(deltas.length).toBeLessThan(12);
    await expect.poll(() => fake.requests.find((r) => r.method === 'POST')?.aborted).toBe(true);
  });

  it('reads a context-length error, with the real counts where the API states them', async () => {
    const provider = await createProvider(settings());
    fake.failNext('context', { maximumTokens: 5 });
    const error = await failure(provider.send(request(provider, model, [stored('user', [text('A prompt that is too long for the window')])])));
    expect(error.code).toBe('context_length');
    const recorded = fake.requests.find((r) => r.method === 'POST');
    if (statesCounts) expect(error.details).toMatchObject({ promptTokens: recorded?.inputTokens, limit: 5 });
    else expect(error.details).not.toHaveProperty('promptTokens');
  });

  it('names an unknown model and reports overload and lost connections', async () => {
    const provider = await createProvider(settings(), { maxRetries: 0 });
    expect((await failure(provider.send(request(provider, 'nonexistent-model-1', [stored('user', [text('Hi')])])))).code).toBe('unknown_model');
    fake.failNext('529');
    expect((await failure(provider.send(request(provider, model, [stored('user', [text('Hi')])])))).code).toBe('overloaded');
    fake.failNext('network');
    const lost = await failure(provider.send(request(provider, model, [stored('user', [text('Hi')])])));
    expect(lost.code).toBe('network');
    expect(lost.message).toContain(fake.url);
  });
});

describe('Anthropic specifics against the fake API', () => {
  const anthropic = () => createProvider({ provider: 'anthropic', apiKey: 'sk-ant-fake-test-key', baseUrl: fake.url, model: 'claude-sonnet-4-6' });

  it('sends thinking back with its signature, as the API verifies', async () => {
    fake.setReply((context) => (context.turn === 1 ? { thinking: 'The user greets me; greet back.', text: 'Hello!' } : undefined));
    const provider = await anthropic();
    const history = [stored('user', [text('Hi')])];
    // Sonnet 4.6 thinks only when asked.
    const thinking: ThinkingRequest = { thinking: { type: 'adaptive' }, extraOutput: 0 };
    const first = await provider.send(request(provider, 'claude-sonnet-4-6', history, { thinking }));
    expect(first.content[0]).toMatchObject({ type: 'thinking', thinking: 'The user greets me; greet back.' });
    expect((first.content[0] as { signature?: string }).signature).toBeTruthy();
    history.push(stored('assistant', first.content), stored('user', [text('And now?')]));
    await provider.send(request(provider, 'claude-sonnet-4-6', history, { thinking }));
    expect(fake.requests.filter((r) => r.method === 'POST')[1]?.validation).toEqual({ ok: true });
  });

  it('asks for thinking as the model takes it: adaptive, its summary, and the effort', async () => {
    const provider = await anthropic();
    const thinking = thinkingRequest('anthropic', thinkingSupport('anthropic', 'claude-opus-5-5'), { kind: 'effort', effort: 'high' });
    await provider.send(request(provider, 'claude-opus-5-5', [stored('user', [text('Plan a week')])], { thinking }));
    const sent = fake.requests.find((r) => r.method === 'POST')!;
    expect(sent.body).toMatchObject({ thinking: { type: 'adaptive', display: 'summarized' }, output_config: { effort: 'high' } });
    expect(sent.validation).toEqual({ ok: true });
  });

  it('sends a budget with max_tokens above it, and nothing for the default of a model that thinks only when asked', async () => {
    const provider = await anthropic();
    const budget = thinkingRequest('anthropic', thinkingSupport('anthropic', 'claude-haiku-4-5'), { kind: 'budget', tokens: 1024 });
    await provider.send(request(provider, 'claude-haiku-4-5', [stored('user', [text('Think')])], { thinking: budget, maxTokens: 1324 }));
    const plain = thinkingRequest('anthropic', thinkingSupport('anthropic', 'claude-haiku-4-5'), { kind: 'default' });
    await provider.send(request(provider, 'claude-haiku-4-5', [stored('user', [text('Quick')])], { thinking: plain }));
    const [first, second] = fake.requests.filter((r) => r.method === 'POST');
    expect(first!.body).toMatchObject({ thinking: { type: 'enabled', budget_tokens: 1024 }, max_tokens: 1324 });
    expect(first!.validation).toEqual({ ok: true });
    expect(second!.body).not.toHaveProperty('thinking');
    expect(second!.body).not.toHaveProperty('output_config');
  });

  it('in a tool loop whose prefix changed, keeps the calling answer’s thinking and asks the API to drop what fails its check', async () => {
    fake.setReply((context) =>
      context.turn === 1 ? { thinking: 'Look it up first.', toolCalls: [{ name: 'lookup', input: { q: 'x' } }] } : { text: 'Found.' },
    );
    const provider = await createProvider({ provider: 'anthropic', apiKey: 'sk-ant-fake-test-key', baseUrl: fake.url, model: 'claude-opus-5-5' });
    const thinking = thinkingRequest('anthropic', thinkingSupport('anthropic', 'claude-opus-5-5'), { kind: 'default' });
    const tools = [{ name: 'lookup', inputSchema: { type: 'object', properties: { q: { type: 'string' } } } }];
    const history = [stored('user', [text('Find x')])];
    const first = await provider.send(request(provider, 'claude-opus-5-5', history, { thinking, tools }));
    const call = first.content.find((b): b is ToolUseBlock => b.type === 'tool_use')!;
    history.push(stored('assistant', first.content), stored('user', [{ type: 'tool_result', tool_use_id: call.id, content: 'x = 1' }]));
    // The system prompt changed mid-loop: the API would refuse the thinking, unless asked to drop it.
    const loop = { thinking, tools, system: 'You are thorough.' };
    await expect(provider.send(request(provider, 'claude-opus-5-5', history, loop))).rejects.toMatchObject({ code: 'bad_request' });
    const answer = await provider.send(request(provider, 'claude-opus-5-5', history, { ...loop, thinking: { ...thinking, dropMismatched: true } }));
    expect(textOf(answer.content)).toBe('Found.');
    const last = fake.requests.filter((r) => r.method === 'POST').at(-1)!;
    expect(last.validation).toEqual({ ok: true });
    expect(last.body).toMatchObject({ thinking: { type: 'adaptive', block_binding: { prefix_mismatch_behavior: 'drop_block' } } });
    expect(last.headers['anthropic-beta']).toBe('thinking-binding-controls-2026-08-01');
  });

  it('reads the cached prefix on the next request through the breakpoints', async () => {
    const provider = await anthropic();
    const history = [stored('user', [text('background '.repeat(2000))]), stored('assistant', [text('Noted.')]), stored('user', [text('First question')])];
    const first = await provider.send(request(provider, 'claude-sonnet-4-6', history));
    expect(first.usage.cacheWriteTokens).toBeGreaterThan(1024);
    history.push(stored('assistant', first.content), stored('user', [text('Second question')]));
    const second = await provider.send(request(provider, 'claude-sonnet-4-6', history));
    expect(second.usage.cacheReadTokens).toBeGreaterThanOrEqual(first.usage.cacheWriteTokens);
  });
});

describe('OpenAI reasoning against the fake API (Responses)', () => {
  const luna = () => createProvider({ provider: 'openai', apiKey: 'sk-proj-fake-test-key', baseUrl: `${fake.url}/v1`, model: 'gpt-6-luna' });
  const support = thinkingSupport('openai', 'gpt-6-luna');

  it('sends the effort with a summary and encrypted reasoning asked for, and effort none for off', async () => {
    const provider = await luna();
    await provider.send(
      request(provider, 'gpt-6-luna', [stored('user', [text('Sum 2 and 2')])], {
        thinking: thinkingRequest('openai', support, { kind: 'effort', effort: 'xhigh' }),
      }),
    );
    await provider.send(request(provider, 'gpt-6-luna', [stored('user', [text('Hi')])], { thinking: thinkingRequest('openai', support, { kind: 'off' }) }));
    const [first, second] = fake.requests.filter((r) => r.method === 'POST');
    expect(first!.path).toBe('/v1/responses');
    expect(first!.body).toMatchObject({ reasoning: { effort: 'xhigh', summary: 'auto' }, include: ['reasoning.encrypted_content'], store: false });
    expect(second!.body).toMatchObject({ reasoning: { effort: 'none' } });
    expect(second!.body).not.toHaveProperty('include');
    expect([first!.validation, second!.validation]).toEqual([{ ok: true }, { ok: true }]);
  });

  it('carries the encrypted reasoning through a tool loop, which the API verifies, and reports reasoning tokens', async () => {
    fake.setReply((context) =>
      context.answersToolResults
        ? { thinking: 'The lookup says 1.', text: 'x is 1.' }
        : { thinking: 'I should look x up.', toolCalls: [{ name: 'lookup', input: { q: 'x' } }] },
    );
    const provider = await luna();
    const thinking = thinkingRequest('openai', support, { kind: 'effort', effort: 'high' });
    const tools = [{ name: 'lookup', inputSchema: { type: 'object', properties: { q: { type: 'string' } } } }];
    const thoughts: string[] = [];
    const history = [stored('user', [text('Find x')])];
    const first = await provider.send(request(provider, 'gpt-6-luna', history, { thinking, tools }), { onThinking: (d) => thoughts.push(d) });
    expect(thoughts.join('')).toBe('I should look x up.');
    expect(first.content[0]).toMatchObject({ type: 'thinking', thinking: 'I should look x up.', reasoningItem: { id: expect.stringMatching(/^rs_/) } });
    expect(first.usage.reasoningTokens).toBeGreaterThan(0);
    const call = first.content.find((b): b is ToolUseBlock => b.type === 'tool_use')!;
    history.push(
      { ...stored('assistant', first.content), usage: first.usage },
      stored('user', [{ type: 'tool_result', tool_use_id: call.id, content: 'x = 1' }]),
    );

    // As the store plans it: the loop's answer goes back with its reasoning item.
    const loop = loopReasoning(history);
    const wire: OpenAIWireMessage[] = toOpenAIWire(history, 'You are helpful.').map(({ id, message }) =>
      message.role === 'assistant' && loop.has(id) ? { ...message, reasoning: loop.get(id) } : message,
    );
    const answer = await provider.send({ model: 'gpt-6-luna', maxTokens: 300, messages: wire, thinking, tools });
    expect(textOf(answer.content)).toBe('x is 1.');
    const [, second] = fake.requests.filter((r) => r.method === 'POST');
    expect(second!.validation).toEqual({ ok: true });
    expect((second!.body as { input: { type?: string }[] }).input.map((item) => item.type ?? 'message')).toEqual([
      'message',
      'message',
      'reasoning',
      'function_call',
      'function_call_output',
    ]);

    // Its encrypted content changed on the way: refused, as OpenAI refuses it.
    const tampered = wire.map((m) =>
      m.reasoning ? { ...m, reasoning: m.reasoning.map((r) => ({ ...r, encrypted_content: `${r.encrypted_content.slice(0, -4)}AAAA` })) } : m,
    );
    const refused = await failure(provider.send({ model: 'gpt-6-luna', maxTokens: 300, messages: tampered, thinking, tools }));
    expect(refused.code).toBe('bad_request');
    expect(refused.message).toMatch(/could not be verified/);
  });
});
