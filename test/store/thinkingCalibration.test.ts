/**
 * The token estimate's calibration on a model with preserved thinking, through `send` on the
 * real store and fake IndexedDB: a request that leaves out earlier answers' thinking is
 * compared with the provider's count of what it sent, not with the thinking it left out, so
 * the estimate never learns to read low.
 */
import { IDBFactory } from 'fake-indexeddb';
import { describe, expect, it } from 'vitest';
import { estimateMessageTokens, type AnthropicWireMessage } from '../../src/core';
import type { ChatProvider, ChatRequest } from '../../src/providers';
import { shownBranch } from '../../src/store/branches';
import { contextFor, planFor } from '../../src/store/planning';
import { DEFAULT_SETTINGS } from '../../src/store/settings';
import { scriptedRuntime, sendAndSettle } from './scriptedStore';

const MODEL = 'claude-haiku-5-5';
const THINKING = Array.from({ length: 1500 }, (_, i) => `consideration${i}`).join(' ');
const QUESTION = Array.from({ length: 200 }, (_, i) => `word${i}`).join(' ');

/** A provider that counts exactly what it received (the system prompt is a few tokens more) and answers with long thinking. */
function countingProvider(sent: ChatRequest[]): ChatProvider {
  return {
    id: 'anthropic',
    wireShape: 'anthropic',
    send: async (request) => {
      sent.push(request);
      const counted = (request.messages as AnthropicWireMessage[]).reduce((sum, m) => sum + estimateMessageTokens(m), 0);
      return {
        content: [
          { type: 'thinking', thinking: THINKING, signature: `sig-${sent.length}` },
          { type: 'text', text: `Answer ${sent.length}.` },
        ],
        usage: { inputTokens: counted + 5, outputTokens: 50, cacheReadTokens: 0, cacheWriteTokens: 0 },
        usageReported: true,
        stopReason: 'end_turn',
        model: MODEL,
      };
    },
    complete: async () => '',
  };
}

// No tools: the request is its messages and system prompt alone, as the provider here counts it.
const SETTINGS = {
  ...DEFAULT_SETTINGS,
  provider: 'anthropic' as const,
  apiKeys: { anthropic: 'sk-ant-test-0123456789' },
  models: { anthropic: MODEL },
  tools: { ...DEFAULT_SETTINGS.tools, readAttachment: false, runJavascript: false },
};

describe('calibration with preserved thinking', () => {
  it('compares what the provider counted with the messages sent, without the thinking the request left out', async () => {
    globalThis.indexedDB = new IDBFactory();
    const sent: ChatRequest[] = [];
    const rt = await scriptedRuntime(countingProvider(sent));
    const settings = SETTINGS;
    rt.store.setState({ settings });
    await sendAndSettle(rt, `First: ${QUESTION}`);
    // A new system prompt changes every answer's prefix: the first answer's thinking is left out.
    rt.store.setState({ settings: { ...settings, systemPrompt: 'Be brief.' } });
    await sendAndSettle(rt, `Second: ${QUESTION}`);

    expect(sent).toHaveLength(2);
    const second = sent[1]!.messages as AnthropicWireMessage[];
    expect(JSON.stringify(second)).not.toContain('consideration');
    // Counted and estimated alike: the factor stays near 1, where counting the thinking left out would have lowered it to about 0.7.
    const factor = rt.store.getState().calibration.models[MODEL]?.factor;
    expect(factor).toBeGreaterThan(0.95);
    expect(factor).toBeLessThan(1.1);
  });

  it('the plan the gauge reads counts the thinking the request sends, and not what it leaves out', async () => {
    globalThis.indexedDB = new IDBFactory();
    const sent: ChatRequest[] = [];
    const rt = await scriptedRuntime(countingProvider(sent));
    rt.store.setState({ settings: SETTINGS });
    await sendAndSettle(rt, `First: ${QUESTION}`);
    const id = rt.store.getState().activeId;
    const next = () => {
      const ctx = contextFor(rt, id);
      const plan = planFor(ctx, shownBranch(rt.store.getState(), id));
      const counted = plan.messages.reduce((sum, item) => sum + ctx.counter(item.message), 0);
      return { plan, counted };
    };
    // Nothing changed before the answer: its thinking goes back, and is counted.
    const before = next();
    expect(JSON.stringify(before.plan.messages)).toContain('consideration');
    expect(before.plan.metrics.messageTokens).toBe(before.counted);

    // A new system prompt changes the answer's prefix: the request leaves its thinking out, and so does the plan.
    rt.store.setState({ settings: { ...SETTINGS, systemPrompt: 'Be brief.' } });
    const after = next();
    expect(JSON.stringify(after.plan.messages)).not.toContain('consideration');
    expect(after.plan.metrics.messageTokens).toBe(after.counted);
    expect(after.plan.metrics.inputTokens).toBeLessThan(before.plan.metrics.inputTokens - 1000);
    expect(after.plan.metrics.totalTokens).toBe(after.plan.metrics.inputTokens + after.plan.metrics.outputReserveTokens);

    // The request sent is the plan's messages.
    await sendAndSettle(rt, `Second: ${QUESTION}`);
    expect(JSON.stringify(sent[1]!.messages.slice(0, 2))).toBe(JSON.stringify(after.plan.messages.map((item) => item.message)));
  });
});
