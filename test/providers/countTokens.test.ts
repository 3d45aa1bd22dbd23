// @vitest-environment node
// The adapters' count of a request, against the fake over real HTTP: the count endpoint's
// number for the request as `send` would send it, and nothing trusted that is not a count.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { placeCacheBreakpoints, THINKING_BINDING_BETA, toAnthropicWire, toOpenAIWire, WindowpaneError } from '../../src/core';
import type { ContentBlock, StoredMessage } from '../../src/core';
import { createProvider } from '../../src/providers';
import type { ChatProvider, ChatRequest, ProviderSettings } from '../../src/providers';
import { startFakeApi, type FakeApi } from '../fake-api/server';

let fake: FakeApi;
beforeAll(async () => {
  fake = await startFakeApi({ deltaDelayMs: 0 });
});
afterEach(() => fake.reset());
afterAll(() => fake.close());

const anthropic = (): ProviderSettings => ({ provider: 'anthropic', apiKey: 'sk-ant-fake-test-key', baseUrl: fake.url, model: 'claude-opus-4-8' });
const openai = (): ProviderSettings => ({ provider: 'openai', apiKey: 'sk-proj-fake-test-key', baseUrl: `${fake.url}/v1`, model: 'gpt-5.5' });

let seq = 0;
function stored(role: 'user' | 'assistant', text: string): StoredMessage {
  seq++;
  const content: ContentBlock[] = [{ type: 'text', text }];
  return { id: `m${seq}`, conversationId: 'c', seq, role, kind: 'message', content, createdAt: seq, status: 'complete' };
}

const history = () => [
  stored('user', 'Tell me how the window of a conversation is planned, in a few words.'),
  stored('assistant', 'The planner keeps the newest messages that fit.'),
  stored('user', 'And what does the gauge show?'),
];
const tools = [{ name: 'lookup', description: 'Looks a word up', inputSchema: { type: 'object', properties: { q: { type: 'string' } } } }];

function requestFor(provider: ChatProvider, model: string, extra: Partial<ChatRequest> = {}): ChatRequest {
  if (provider.wireShape === 'anthropic') {
    const items = toAnthropicWire(history());
    const messages = items.map((i) => i.message);
    return { model, maxTokens: 400, system: 'Be brief.', messages, cacheBreakpoints: placeCacheBreakpoints(items, [], { system: true }), tools, ...extra };
  }
  return { model, maxTokens: 400, messages: toOpenAIWire(history(), 'Be brief.').map((i) => i.message), tools, ...extra };
}

describe.each([
  { name: 'Anthropic', settings: anthropic, path: '/v1/messages/count_tokens', answerPath: '/v1/messages' },
  { name: 'OpenAI (Responses API)', settings: openai, path: '/v1/responses/input_tokens', answerPath: '/v1/responses' },
])('$name countTokens', ({ settings, path, answerPath }) => {
  it('counts what the answer to the same request reports as its input', async () => {
    const provider = await createProvider(settings());
    const request = requestFor(provider, settings().model);
    const counted = await provider.countTokens!(request);
    const result = await provider.send(request);
    const usage = result.usage;
    expect(counted).toBeGreaterThan(50);
    expect(counted).toBe(usage.inputTokens + usage.cacheReadTokens + usage.cacheWriteTokens);
    const count = fake.requests.find((r) => r.path === path);
    const answer = fake.requests.find((r) => r.path === answerPath);
    expect(count?.status).toBe(200);
    expect(count?.inputTokens).toBe(answer?.inputTokens);
  });

  it('rejects an answer that holds no count, and never returns it', async () => {
    for (const body of [{ input_tokens: '120' }, { input_tokens: -3 }, { input_tokens: 1.5 }, { tokens: 12 }, []]) {
      const hostile: typeof fetch = async () => new Response(JSON.stringify(body), { status: 200, headers: { 'content-type': 'application/json' } });
      const provider = await createProvider(settings(), { fetch: hostile });
      const error = await provider.countTokens!(requestFor(provider, settings().model)).then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(error, JSON.stringify(body)).toBeInstanceOf(WindowpaneError);
      expect((error as WindowpaneError).code).toBe('provider');
    }
  });

  it('does not retry a 429 itself: the caller backs off', async () => {
    let calls = 0;
    const limited: typeof fetch = async () => {
      calls++;
      return new Response(JSON.stringify({ type: 'error', error: { type: 'rate_limit_error', message: 'Slow down' } }), {
        status: 429,
        headers: { 'content-type': 'application/json', 'retry-after': '7' },
      });
    };
    const provider = await createProvider(settings(), { fetch: limited });
    const error = (await provider.countTokens!(requestFor(provider, settings().model)).catch((e: unknown) => e)) as WindowpaneError;
    expect(error.code).toBe('rate_limit');
    expect(error.details.retryAfterSeconds).toBe(7);
    expect(calls).toBe(1);
  });
});

describe('countTokens where it exists', () => {
  it('sends the Anthropic count under the beta headers the request uses', async () => {
    const provider = await createProvider(anthropic());
    const request = requestFor(provider, 'claude-opus-4-8', { thinking: { thinking: { type: 'adaptive' }, extraOutput: 0, dropMismatched: true } });
    expect(await provider.countTokens!(request)).toBeGreaterThan(0);
    const count = fake.requests.find((r) => r.path === '/v1/messages/count_tokens');
    expect(count?.headers['anthropic-beta']).toBe(THINKING_BINDING_BETA);
    expect(count?.body).toMatchObject({ thinking: { block_binding: { prefix_mismatch_behavior: 'drop_block' } } });
  });

  it('is absent on compatible servers and the Demo, which have no count endpoint', async () => {
    const compatible = await createProvider({ provider: 'openai-compatible', apiKey: '', baseUrl: `${fake.url}/v1`, model: 'llama3.2' });
    const demo = await createProvider({ provider: 'demo', apiKey: '', model: 'demo' });
    expect(compatible.countTokens).toBeUndefined();
    expect(demo.countTokens).toBeUndefined();
    expect((await createProvider(openai())).countTokens).toBeTypeOf('function');
  });
});
