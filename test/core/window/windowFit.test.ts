import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { contentChars, planContext, type PlanItem, type TokenCounter } from '../../../src/core';
import { ESTIMATE_MARGIN } from '../../../src/core/window/historyView';

/**
 * One meaning for the window: with its default knobs, no strategy but `off` plans a request
 * over the model's max input tokens (the window minus the answer's reserve), for any window
 * from 4,096 to 2,000,000 tokens and any reserve, as long as what must be sent (the first
 * user message, the newest and a summary standing in for the rest) fits.
 */

/** Messages say their own size ("t:1234" costs 1,234 tokens) so a 2M-token history stays small in memory; anything else costs characters / 4. */
const counter: TokenCounter = (message) => {
  const match = typeof message.content === 'string' ? /^t:(\d+)$/.exec(message.content) : null;
  return match ? Number(match[1]) : Math.ceil(contentChars(message) / 4) + 4;
};

const STRATEGIES = ['auto', 'count', 'rolling', 'truncate', 'summarize', 'two-tier'];

const caseArb = fc
  .record({
    // Small, mid-size and the largest windows equally often.
    contextWindow: fc.oneof(fc.integer({ min: 4096, max: 32_768 }), fc.integer({ min: 32_768, max: 262_144 }), fc.integer({ min: 262_144, max: 2_000_000 })),
    reserveShare: fc.double({ min: 0, max: 0.5, noNaN: true }),
    turns: fc.integer({ min: 10, max: 400 }),
    sizes: fc.array(fc.integer({ min: 1, max: 100 }), { minLength: 1, maxLength: 64 }),
    largest: fc.double({ min: 0.02, max: 0.25, noNaN: true }),
  })
  .map(({ contextWindow, reserveShare, turns, sizes, largest }) => {
    const outputReserve = Math.floor(contextWindow * reserveShare);
    // No message above `largest` of the max input tokens, and the goal, the newest and the
    // largest stand-in for evicted messages (two-tier's 2,000-token AI summary) always fit.
    const maxInput = contextWindow - outputReserve;
    const cap = Math.max(1, Math.min(Math.floor(maxInput * largest), Math.floor((maxInput - 2000) / 2)));
    const history: PlanItem[] = [];
    for (let i = 0; i < turns * 2; i++) {
      const tokens = Math.max(1, Math.floor(((sizes[i % sizes.length] as number) / 100) * cap));
      history.push({ id: `m${i}`, message: { role: i % 2 === 0 ? 'user' : 'assistant', content: `t:${tokens}` } });
    }
    return { contextWindow, outputReserve, history };
  });

describe('with default settings every strategy fits the window', () => {
  for (const strategy of STRATEGIES) {
    it(`${strategy}: the request never passes the max input tokens`, () => {
      let fitted = 0;
      fc.assert(
        fc.property(caseArb, ({ contextWindow, outputReserve, history }) => {
          const plan = planContext({
            history,
            policy: { strategy, options: { outputReserve } },
            model: { contextWindow, maxOutputTokens: 128_000 },
            counter,
          });
          const m = plan.metrics;
          expect(m.maxInputTokens).toBe(contextWindow - outputReserve);
          expect(m.inputTokens).toBeLessThanOrEqual(m.maxInputTokens);
          expect(m.totalTokens).toBeLessThanOrEqual(m.contextWindow);
          expect(m.overBudgetReasons.filter((reason) => /window|max input/.test(reason))).toEqual([]);
          if (m.trigger?.includes('to fit the model')) {
            fitted++;
            // The fit leaves the estimate's margin free, so an estimate a little low is still accepted.
            expect(m.inputTokens).toBeLessThanOrEqual(m.maxInputTokens - Math.ceil(m.maxInputTokens * ESTIMATE_MARGIN));
          }
        }),
        { numRuns: 150 },
      );
      // The strategies that trim by message count or at fixed thresholds do not fit a small window by their own rule.
      if (['count', 'rolling', 'two-tier'].includes(strategy)) expect(fitted).toBeGreaterThan(10);
    });
  }

  it('says how many more messages a strategy’s own rule had to leave out, and why', () => {
    const history: PlanItem[] = Array.from({ length: 30 }, (_, i) => ({
      id: `m${i}`,
      message: { role: i % 2 === 0 ? 'user' : 'assistant', content: 't:500' },
    }));
    // 4,096 − 1,024 reserved for the answer: 3,072 max input tokens, planned to 2,979 (3 % left
    // for the estimate's error); the count cap (100) is far. Six messages of 500 would be 3,000.
    const plan = planContext({ history, policy: { strategy: 'count' }, model: { contextWindow: 4096, maxOutputTokens: 1024 }, counter });
    expect(plan.messages.map((item) => item.id)).toEqual(['m0', 'm26', 'm27', 'm28', 'm29']);
    expect(plan.metrics.inputTokens).toBe(2500);
    expect(plan.metrics.trigger).toBe("25 more messages left out to fit the model's 3072 max input tokens");
    expect(plan.metrics.evictedByReason).toEqual({ 'token-budget': 25 });
    expect(plan.metrics.overBudget).toBe(false);
  });

  it('off sends everything and flags a request over the window', () => {
    const history: PlanItem[] = Array.from({ length: 20 }, (_, i) => ({
      id: `m${i}`,
      message: { role: i % 2 === 0 ? 'user' : 'assistant', content: 't:500' },
    }));
    const plan = planContext({ history, policy: { strategy: 'off' }, model: { contextWindow: 4096, maxOutputTokens: 1024 }, counter });
    expect(plan.evicted).toEqual([]);
    expect(plan.metrics.overBudget).toBe(true);
  });
});
