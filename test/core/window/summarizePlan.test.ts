import { describe, expect, it } from 'vitest';
import {
  SLOT_ITEM_ID,
  planContext,
  resolvePlanSummary,
  type ContextPlan,
  type PlanItem,
  type StrategyOptions,
  type SummarizeFn,
  type TokenCounter,
} from '../../../src/core';

const lengthCounter: TokenCounter = (message) => String(message.content).length;
const model = { contextWindow: 10_000, maxOutputTokens: 1000 };
// High water 2,000 tokens, low water 1,200; summaries of up to 200 tokens, asked for once 4 messages are evicted.
const options: StrategyOptions = { budgetTokens: 3000, summarize: true, summaryMaxTokens: 200, minEvictedForSummary: 4 };

/** Turns of a 100-token question and answer, numbered from `from`. */
function turns(from: number, count: number): PlanItem[] {
  const items: PlanItem[] = [];
  for (let t = from; t < from + count; t++) {
    items.push({ id: `q${t}`, message: { role: 'user', content: `question ${t}`.padEnd(100, '.') } });
    items.push({ id: `a${t}`, message: { role: 'assistant', content: `answer ${t}`.padEnd(100, '.') } });
  }
  return items;
}

function plan(history: readonly PlanItem[]): ContextPlan {
  return planContext({ history, policy: { strategy: 'auto', options }, model, counter: lengthCounter });
}

/** A summarizer that records what it was asked and answers with a short text. */
function recorder(answer: (prompt: string) => string | Promise<string> = (prompt) => `Covered ${prompt.split('\n').length} lines.`) {
  const calls: { prompt: string; maxTokens: number }[] = [];
  const summarize: SummarizeFn = async (prompt, request) => {
    calls.push({ prompt, maxTokens: request.maxTokens });
    return answer(prompt);
  };
  return { summarize, calls };
}

/** What the store does with a new summary: it takes the place of the messages it covers. */
function storeSummary(history: readonly PlanItem[], id: string, covers: readonly string[], message: PlanItem['message']): PlanItem[] {
  const covered = new Set(covers);
  const kept = history.filter((item) => !covered.has(item.id) && item.kind !== 'summary');
  return [kept[0] as PlanItem, { id, kind: 'summary', covers: [...covers], message }, ...kept.slice(1)];
}

describe('resolvePlanSummary', () => {
  it('fills the slot with the model’s summary, asked with the plan’s prompt and max_tokens', async () => {
    const first = plan(turns(0, 12));
    expect(first.slot?.summary?.status).toBe('needed');
    const { summarize, calls } = recorder();
    const resolved = await resolvePlanSummary(first, { summarize });
    expect(resolved.outcome).toBe('summarized');
    expect(calls).toHaveLength(1);
    expect(calls[0]?.maxTokens).toBe(200);
    expect(calls[0]?.prompt).toContain('[user]: question 1');
    expect(calls[0]?.prompt).not.toContain('question 0'); // the goal is kept, not summarized
    const index = first.slot?.index as number;
    expect(resolved.messages[index]).toEqual({
      id: SLOT_ITEM_ID,
      kind: 'summary',
      covers: first.slot?.summary?.covers,
      message: { role: 'assistant', content: `[Conversation Summary]\n${resolved.summary?.text}` },
    });
    expect(resolved.messages.filter((_, i) => i !== index)).toEqual(first.messages.filter((_, i) => i !== index));
    expect(resolved.summary).toMatchObject({ covers: first.slot?.summary?.covers, replaces: null });
  });

  it('reuses a cached summary for the same evicted range', async () => {
    const cache = new Map<string, string>();
    const { summarize, calls } = recorder();
    const first = await resolvePlanSummary(plan(turns(0, 12)), { summarize, cache });
    const again = await resolvePlanSummary(plan(structuredClone(turns(0, 12))), { summarize, cache });
    expect(again.outcome).toBe('cached');
    expect(calls).toHaveLength(1);
    expect(again.messages).toEqual(first.messages);
    expect(cache.size).toBe(1);
  });

  it('reads and writes a cache that answers with promises, as a database does', async () => {
    const stored = new Map<string, string>();
    const cache = { get: async (key: string) => stored.get(key), set: async (key: string, text: string) => void stored.set(key, text) };
    const { summarize, calls } = recorder();
    const first = await resolvePlanSummary(plan(turns(0, 12)), { summarize, cache });
    expect(first.outcome).toBe('summarized');
    expect([...stored]).toEqual([[first.summary?.cacheKey, first.summary?.text]]);
    const again = await resolvePlanSummary(plan(turns(0, 12)), { summarize, cache });
    expect(again.outcome).toBe('cached');
    expect(again.messages).toEqual(first.messages);
    expect(calls).toHaveLength(1);
  });

  it('summarizes in batches the model can read, each extending the summary so far', async () => {
    const needed = plan(turns(0, 12));
    const evicted = needed.slot?.summary?.messages.length as number;
    // Room for the prompt's instructions and about three of the 100-character messages.
    const fits = (prompt: string) => prompt.length <= 700;
    const { summarize, calls } = recorder(() => `Summary ${calls.length}.`);
    const resolved = await resolvePlanSummary(needed, { summarize, fits });
    expect(calls.length).toBeGreaterThan(2);
    expect(resolved.outcome).toBe('summarized');
    expect(resolved.summary?.text).toBe(`Summary ${calls.length}.`);
    calls.forEach((call, i) => {
      expect(fits(call.prompt)).toBe(true);
      expect(call.maxTokens).toBe(200);
      if (i === 0) expect(call.prompt).not.toContain('Previous summary');
      else expect(call.prompt).toContain(`Previous summary (extend it with the conversation below; keep what still matters):\nSummary ${i}.`);
    });
    // Every evicted message is in exactly one batch, in order.
    const quoted = calls.flatMap((call) => call.prompt.match(/^\[(user|assistant)\]: .*$/gm) ?? []);
    expect(quoted).toHaveLength(evicted);
    expect(quoted).toEqual(needed.slot?.summary?.messages.map((m) => `[${m.role}]: ${String(m.content)}`));
  });

  it('sends a message too long for any batch on its own', async () => {
    const needed = plan(turns(0, 12));
    const { summarize, calls } = recorder();
    const resolved = await resolvePlanSummary(needed, { summarize, fits: () => false });
    expect(resolved.outcome).toBe('summarized');
    expect(calls).toHaveLength(needed.slot?.summary?.messages.length as number);
  });

  it('falls back when a batch after the first fails, and caches nothing', async () => {
    const cache = new Map<string, string>();
    const { summarize, calls } = recorder((prompt) => (prompt.includes('Previous summary') ? Promise.reject(new Error('overloaded')) : 'First part.'));
    const failed = await resolvePlanSummary(plan(turns(0, 12)), { summarize, cache, fits: (prompt) => prompt.length <= 700 });
    expect(calls).toHaveLength(2);
    expect(failed).toMatchObject({ outcome: 'fallback', summary: null });
    expect((failed.error as Error).message).toBe('overloaded');
    expect(cache.size).toBe(0);
  });

  it('falls back to the marker when the call fails or answers nothing', async () => {
    const needed = plan(turns(0, 12));
    const failed = await resolvePlanSummary(needed, { summarize: recorder(() => Promise.reject(new Error('overloaded'))).summarize });
    expect(failed).toMatchObject({ outcome: 'fallback', summary: null });
    expect((failed.error as Error).message).toBe('overloaded');
    expect(failed.messages).toBe(needed.messages);
    expect(String(failed.messages[needed.slot?.index as number]?.message.content)).toMatch(/^\[\d+ earlier messages truncated to fit context window\]$/);
    const blank = await resolvePlanSummary(needed, { summarize: recorder(() => '  ').summarize });
    expect(blank.outcome).toBe('fallback');
  });

  it('returns a plan that needs no summary as it is', async () => {
    const { summarize, calls } = recorder();
    const quiet = plan(turns(0, 3));
    expect(await resolvePlanSummary(quiet, { summarize })).toEqual({ messages: quiet.messages, outcome: 'unchanged', summary: null });
    expect(calls).toEqual([]);
  });
});

describe('incremental summaries, end to end', () => {
  it('extends the previous summary with newly evicted turns only, and keeps the sent prefix between trims', async () => {
    const { summarize, calls } = recorder((prompt) => (prompt.includes('Previous summary') ? 'Second summary.' : 'First summary.'));
    let history = turns(0, 12);

    const first = await resolvePlanSummary(plan(history), { summarize });
    const firstSummary = first.summary;
    expect(firstSummary).not.toBeNull();
    history = storeSummary(history, 's1', firstSummary?.covers ?? [], firstSummary?.message as PlanItem['message']);

    // Planned again around the stored summary, the request is byte-identical to what was sent.
    const replanned = plan(history);
    expect(replanned.metrics.trimmed).toBe(false);
    expect(JSON.stringify(replanned.messages.map((item) => item.message))).toBe(JSON.stringify(first.messages.map((item) => item.message)));

    // New turns under the high-water mark only append.
    let previous = replanned;
    let next = previous;
    let added = 12;
    while (!next.metrics.trimmed) {
      previous = next;
      history = [...history, ...turns(added++, 1)];
      next = plan(history);
      if (!next.metrics.trimmed) expect(next.messages.slice(0, previous.messages.length)).toEqual(previous.messages);
    }
    expect(added).toBeGreaterThan(13);

    // The next trim extends the stored summary with what was evicted since.
    const request = next.slot?.summary;
    expect(request).toMatchObject({ status: 'needed', previous: { id: 's1', text: '[Conversation Summary]\nFirst summary.' } });
    expect(request?.ids.some((id) => firstSummary?.covers.includes(id))).toBe(false);
    expect(request?.covers.slice(0, firstSummary?.covers.length)).toEqual(firstSummary?.covers);
    const second = await resolvePlanSummary(next, { summarize });
    expect(second.summary).toMatchObject({ text: 'Second summary.', replaces: 's1' });
    const prompt = calls[1]?.prompt ?? '';
    expect(prompt).toContain('Previous summary (extend it with the conversation below; keep what still matters):\nFirst summary.');
    expect(prompt).not.toContain('question 1.');
    expect(calls).toHaveLength(2);
  });
});
