/**
 * "Let the provider compact" through `send` on the real store and fake IndexedDB: the request
 * asks the provider to compact past its trigger, the compaction the provider returns is stored
 * in the answer, and every later request opens with it and sends nothing before it; the
 * transcript says what the provider compacted. A model that cannot compact falls back to Auto.
 */
import { IDBFactory } from 'fake-indexeddb';
import { describe, expect, it } from 'vitest';
import { COMPACTION_BETA, estimateMessageTokens, type AnthropicWireMessage, type ContentBlock, type OpenAIWireMessage } from '../../src/core';
import type { ChatProvider, ChatRequest, ChatResult } from '../../src/providers';
import { anthropicBetas, anthropicRequestBody } from '../../src/providers/anthropic';
import { responsesRequestBody } from '../../src/providers/openaiResponses';
import { shownBranch } from '../../src/store/branches';
import { chatView } from '../../src/store/chatView';
import { contextFor, planFor } from '../../src/store/planning';
import { DEFAULT_SETTINGS, DEFAULT_WINDOW, type Settings } from '../../src/store/settings';
import { scriptedRuntime, sendAndSettle } from './scriptedStore';

const SUMMARY = '<summary>The user asked to remember the vault code 4711.</summary>';
/** Long enough for a request to calibrate the estimate on. */
const DETAIL = Array.from({ length: 300 }, (_, i) => `detail${i}`).join(' ');

/** Answers each request; the second one comes back compacted, as a provider past its trigger answers. */
function compactingProvider(shape: 'anthropic' | 'openai', sent: ChatRequest[]): ChatProvider {
  return {
    id: shape,
    wireShape: shape,
    send: async (request): Promise<ChatResult> => {
      sent.push(request);
      const content: ContentBlock[] = [];
      if (sent.length === 2) {
        content.push(
          shape === 'anthropic'
            ? { type: 'compaction', provider: 'anthropic', summary: SUMMARY, fields: { encrypted_content: 'sealed-1' } }
            : { type: 'compaction', provider: 'openai', summary: null, fields: { id: 'cmp_1', encrypted_content: 'enc-1' } },
        );
      }
      content.push({ type: 'text', text: `Answer ${sent.length}.` });
      return {
        content,
        usage: {
          // About what was sent, as the provider counts it, so the estimate can be calibrated on it.
          inputTokens: (request.messages as AnthropicWireMessage[]).reduce((sum, m) => sum + estimateMessageTokens(m), 0) + 5,
          outputTokens: 20,
          cacheReadTokens: 0,
          cacheWriteTokens: 0,
          ...(sent.length === 2 ? { compaction: { inputTokens: 90_000, outputTokens: 300, cacheReadTokens: 0, cacheWriteTokens: 0 } } : {}),
        },
        usageReported: true,
        stopReason: 'end_turn',
        model: request.model,
      };
    },
    complete: async () => '',
  };
}

function settingsFor(shape: 'anthropic' | 'openai', model: string, strategy = 'provider'): Settings {
  return {
    ...DEFAULT_SETTINGS,
    provider: shape,
    apiKeys: { [shape]: shape === 'anthropic' ? 'sk-ant-test-0123456789' : 'sk-proj-test-0123456789' },
    models: { [shape]: model },
    window: { ...DEFAULT_WINDOW, strategy },
    tools: { ...DEFAULT_SETTINGS.tools, readAttachment: false, runJavascript: false },
  };
}

async function threeTurns(shape: 'anthropic' | 'openai', model: string, strategy = 'provider') {
  globalThis.indexedDB = new IDBFactory();
  const sent: ChatRequest[] = [];
  const rt = await scriptedRuntime(compactingProvider(shape, sent));
  rt.store.setState({ settings: settingsFor(shape, model, strategy) });
  await sendAndSettle(rt, `Remember: the vault code is 4711. ${DETAIL}`);
  const id = await sendAndSettle(rt, `A long second question. ${DETAIL}`);
  await sendAndSettle(rt, `What was the code? ${DETAIL}`);
  return { rt, id, sent };
}

describe('the provider compacts', () => {
  it('is the default: a compacting model asks for it at 100,000 tokens, the Demo plans as Auto and says so', async () => {
    globalThis.indexedDB = new IDBFactory();
    const rt = await scriptedRuntime(compactingProvider('anthropic', []));
    const fresh = { ...DEFAULT_SETTINGS, provider: 'anthropic' as const, models: { anthropic: 'claude-opus-4-6' } };
    rt.store.setState({ settings: fresh });
    const compacting = contextFor(rt, null);
    expect(compacting.compaction).toEqual({ provider: 'anthropic', triggerTokens: 100_000 });
    rt.store.setState({ settings: DEFAULT_SETTINGS });
    const demo = contextFor(rt, null);
    expect(DEFAULT_SETTINGS.provider).toBe('demo');
    expect(demo.compaction).toBeUndefined();
    expect(demo.policy.strategy).toBe('auto');
    expect(demo.strategyFallback).toMatch(/cannot compact on the provider's side/);
  });

  it('on Anthropic: asks past the trigger, then opens every request with the compaction and sends nothing before it', async () => {
    const { rt, id, sent } = await threeTurns('anthropic', 'claude-opus-4-6');
    expect(sent).toHaveLength(3);
    for (const request of sent) expect(request.contextManagement).toEqual({ compaction: { triggerTokens: 100_000 } });
    expect(anthropicBetas(sent[0]!)).toEqual([COMPACTION_BETA]);
    expect((anthropicRequestBody(sent[0]!, true) as unknown as Record<string, unknown>).context_management).toEqual({
      edits: [{ type: 'compact_20260112', trigger: { type: 'input_tokens', value: 100_000 } }],
    });

    const third = sent[2]!.messages as AnthropicWireMessage[];
    expect(JSON.stringify(third)).not.toContain('vault code is 4711.');
    // An opener the API ignores, the answer that holds the compaction (its block first, as it came), then the new question.
    expect(third[0]?.role).toBe('user');
    expect(third[1]).toEqual({
      role: 'assistant',
      content: [
        { type: 'compaction', content: SUMMARY, encrypted_content: 'sealed-1' },
        { type: 'text', text: 'Answer 2.' },
      ],
    });
    expect(third[2]).toEqual({ role: 'user', content: `What was the code? ${DETAIL}` });

    // The transcript dims what the provider compacted and says so where the summary begins.
    const state = rt.store.getState();
    const ctx = contextFor(rt, id);
    const messages = shownBranch(state, id);
    const view = chatView(ctx, messages, planFor(ctx, messages), undefined, 0);
    const dimmed = view.rows.filter((row) => row.kind === 'message' && row.notSent);
    expect(dimmed).toHaveLength(3);
    expect(view.rows.find((row) => row.kind === 'trim')).toMatchObject({ compactedBy: 'anthropic', evicted: 3 });
    expect(view.gauge.trigger).toBe(100_000);
    expect(view.gauge.contextNote).toMatch(/Anthropic compacts .* 100,000 input tokens/);

    // What the compaction cost is kept with the answer, and the estimate is not calibrated on a compacted request.
    const holder = messages.find((m) => m.content.some((b) => b.type === 'compaction'));
    expect(holder?.usage?.compaction?.inputTokens).toBe(90_000);
    // The first and third requests calibrated the estimate; the compacted second did not.
    expect(state.calibration.models['claude-opus-4-6']?.samples).toBe(2);
  });

  it('on OpenAI: the opaque item goes back in place of everything before it', async () => {
    const { sent } = await threeTurns('openai', 'gpt-6-luna');
    const third = sent[2]!;
    const body = responsesRequestBody(third, true) as unknown as { input: Array<Record<string, unknown>>; context_management: unknown };
    expect(body.context_management).toEqual([{ type: 'compaction', compact_threshold: 100_000 }]);
    expect(body.input[0]).toEqual({ type: 'compaction', id: 'cmp_1', encrypted_content: 'enc-1' });
    expect(body.input.slice(1)).toEqual([
      { role: 'assistant', content: 'Answer 2.' },
      { role: 'user', content: `What was the code? ${DETAIL}` },
    ]);
    expect(JSON.stringify(third.messages as OpenAIWireMessage[])).not.toContain('vault');
  });

  it('a model that cannot compact on its side is planned by Auto, and the gauge says why', async () => {
    globalThis.indexedDB = new IDBFactory();
    const rt = await scriptedRuntime(compactingProvider('anthropic', []));
    rt.store.setState({ settings: settingsFor('anthropic', 'claude-haiku-5-5') });
    const ctx = contextFor(rt, null);
    expect(ctx.compaction).toBeUndefined();
    expect(ctx.policy.strategy).toBe('auto');
    expect(ctx.strategyFallback).toMatch(/Claude Haiku 5\.5 cannot compact on the provider's side/);
    const view = chatView(ctx, [], planFor(ctx, []), undefined, 0);
    expect(view.gauge.fallbackNote).toBe(ctx.strategyFallback);
    expect(view.gauge.contextNote).toBeUndefined();
  });

  it('under another strategy a stored compaction is not sent: the strategy plans the whole history', async () => {
    const { sent } = await threeTurns('anthropic', 'claude-opus-4-6', 'auto');
    const third = sent[2]!;
    expect(third.contextManagement).toBeUndefined();
    expect(JSON.stringify(third.messages)).toContain('vault code is 4711.');
    expect(JSON.stringify(third.messages)).not.toContain('"compaction"');
    expect(anthropicBetas(third)).toEqual([]);
  });
});
