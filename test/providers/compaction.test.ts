// @vitest-environment node
// Compaction on the provider's side, through both adapters and the local fake over real HTTP:
// the adapters ask for it, read back the compaction the answer opens with (streamed), and the
// block or item goes back as the next request's opening, exactly as it came.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { buildHistoryForTest } from './compactionHistory';
import { createProvider } from '../../src/providers';
import type { ChatRequest, ProviderSettings } from '../../src/providers';
import { startFakeApi, type FakeApi } from '../fake-api/server';

let fake: FakeApi;
beforeAll(async () => {
  fake = await startFakeApi({ deltaDelayMs: 0, contextWindow: { '*': 400_000 } });
});
afterEach(() => fake.reset());
afterAll(() => fake.close());

const LONG = 'The river bends past the mill and the orchard. '.repeat(6_000);
const FACT = 'Remember: the vault code is 4711.';

const targets: Array<{ name: string; shape: 'anthropic' | 'openai'; settings: () => ProviderSettings }> = [
  {
    name: 'Anthropic',
    shape: 'anthropic',
    settings: () => ({ provider: 'anthropic', apiKey: 'sk-ant-fake-test-key', baseUrl: fake.url, model: 'claude-opus-4-6' }),
  },
  {
    name: 'OpenAI',
    shape: 'openai',
    settings: () => ({ provider: 'openai', apiKey: 'sk-proj-fake-test-key', baseUrl: `${fake.url}/v1`, model: 'gpt-6-luna' }),
  },
];

describe.each(targets)('$name compaction through the adapter', ({ shape, settings }) => {
  it('asks for it, reads the compaction back, and the next request opens with it', async () => {
    const provider = await createProvider(settings());
    const model = settings().model;
    const ask = { compaction: { triggerTokens: 50_000 } };
    const first = `${FACT}\n${LONG}`;
    const history = buildHistoryForTest(shape, [{ role: 'user', text: first }]);
    const answered = await provider.send({ model, maxTokens: 200, messages: history.messages, contextManagement: ask } as ChatRequest);

    const compaction = answered.content.find((block) => block.type === 'compaction');
    expect(compaction).toMatchObject({ type: 'compaction', provider: shape });
    if (shape === 'anthropic') {
      expect(compaction?.type === 'compaction' && compaction.summary).toContain(FACT);
      expect(answered.usage.compaction?.inputTokens).toBeGreaterThan(50_000);
      expect(compaction?.type === 'compaction' && compaction.compactedTokens).toBeGreaterThan(50_000);
    } else {
      expect(compaction?.type === 'compaction' && compaction.summary).toBeNull();
    }
    // The answer itself read the summary, not the 60,000 tokens.
    expect(answered.usage.inputTokens + answered.usage.cacheReadTokens + answered.usage.cacheWriteTokens).toBeLessThan(1_000);

    const next = buildHistoryForTest(shape, [
      { role: 'user', text: first },
      { role: 'assistant', content: answered.content },
      { role: 'user', text: 'What was the code?' },
    ]);
    const again = await provider.send({ model, maxTokens: 200, messages: next.messages, contextManagement: ask } as ChatRequest);
    expect(again.content.some((block) => block.type === 'text')).toBe(true);
    const sent = fake.requests.at(-1)!;
    expect(sent.status).toBe(200);
    // Nothing before the compaction went: the 300,000 characters of the first message stayed home.
    expect(JSON.stringify(sent.body).length).toBeLessThan(5_000);
    expect(sent.inputTokens).toBeLessThan(1_000);
  });
});
