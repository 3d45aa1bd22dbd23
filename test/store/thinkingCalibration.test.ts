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
import { DEFAULT_SETTINGS } from '../../src/store/settings';
import { scriptedRuntime, sendAndSettle } from './scriptedStore';

const MODEL = 'claude-haiku-5-5';
const THINKING = Array.from({ length: 1500 }, (_, i) => `consideration${i}`).join(' ');
const QUESTION = Array.from({ length: 200 }, (_, i) => `word${i}`).join(' ');

describe('calibration with preserved thinking', () => {
  it('compares what the provider counted with the messages sent, without the thinking the request left out', async () => {
    globalThis.indexedDB = new IDBFactory();
    const sent: ChatRequest[] = [];
    const provider: ChatProvider = {
      id: 'anthropic',
      wireShape: 'anthropic',
      send: async (request) => {
        sent.push(request);
        // The provider counts exactly what it received (the system prompt is a few tokens more).
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
    const rt = await scriptedRuntime(provider);
    // No tools: the request is its messages and system prompt alone, as the provider here counts it.
    const tools = { ...DEFAULT_SETTINGS.tools, readAttachment: false, runJavascript: false };
    const settings = {
      ...DEFAULT_SETTINGS,
      provider: 'anthropic' as const,
      apiKeys: { anthropic: 'sk-ant-test-0123456789' },
      models: { anthropic: MODEL },
      tools,
    };
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
});
