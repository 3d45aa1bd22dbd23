import { describe, expect, it } from 'vitest';
import { costOfUsage, estimateRequestCost, tokensForBudget, totalUsage, type ModelPrices } from '../../src/core';

// Claude Opus 5.5's published prices.
const OPUS: ModelPrices = { input: 4, output: 20, cacheWrite: 5, cacheRead: 0.2 };

describe('costOfUsage', () => {
  it('prices input, output, cache writes and cache reads separately', () => {
    // 2,000 uncached + 1,000 output + 10,000 written + 100,000 read:
    // 0.008 + 0.02 + 0.05 + 0.02 = $0.098
    expect(costOfUsage({ inputTokens: 2_000, outputTokens: 1_000, cacheWriteTokens: 10_000, cacheReadTokens: 100_000 }, OPUS)).toBeCloseTo(0.098, 12);
  });

  it('makes a cache hit cost a tenth of sending the same tokens uncached at Anthropic’s ratio', () => {
    const prices: ModelPrices = { input: 3, output: 15, cacheWrite: 3.75, cacheRead: 0.3 };
    const uncached = costOfUsage({ inputTokens: 100_000, outputTokens: 0, cacheWriteTokens: 0, cacheReadTokens: 0 }, prices);
    const cached = costOfUsage({ inputTokens: 0, outputTokens: 0, cacheWriteTokens: 0, cacheReadTokens: 100_000 }, prices);
    expect(cached / uncached).toBeCloseTo(0.1, 12);
  });

  it('bills OpenAI usage correctly once the adapter subtracts cached tokens from prompt_tokens', () => {
    const sol: ModelPrices = { input: 2, output: 10, cacheWrite: 2.5, cacheRead: 0.1 };
    // prompt_tokens 10,000 of which cached_tokens 8,000; completion_tokens 500.
    const usage = { inputTokens: 10_000 - 8_000, outputTokens: 500, cacheWriteTokens: 0, cacheReadTokens: 8_000 };
    expect(costOfUsage(usage, sol)).toBeCloseTo(0.004 + 0.005 + 0.0008, 12);
  });

  it('bills reasoning once, as the part of the output it is', () => {
    const usage = { inputTokens: 1_000, outputTokens: 5_000, cacheWriteTokens: 0, cacheReadTokens: 0 };
    expect(costOfUsage({ ...usage, reasoningTokens: 4_000 }, OPUS)).toBe(costOfUsage(usage, OPUS));
  });

  it('treats negative or non-finite counts as zero and free models as free', () => {
    expect(costOfUsage({ inputTokens: -5, outputTokens: Number.NaN, cacheWriteTokens: 0, cacheReadTokens: 0 }, OPUS)).toBe(0);
    expect(
      costOfUsage({ inputTokens: 1e6, outputTokens: 1e6, cacheWriteTokens: 1e6, cacheReadTokens: 1e6 }, { input: 0, output: 0, cacheWrite: 0, cacheRead: 0 }),
    ).toBe(0);
  });
});

describe('estimateRequestCost', () => {
  it('is the worst case: all input uncached plus the whole output reserve', () => {
    expect(estimateRequestCost(100_000, 8_000, OPUS)).toBeCloseTo(0.4 + 0.16, 12);
  });
});

describe('tokensForBudget', () => {
  it('converts a money budget to input tokens at the uncached price', () => {
    expect(tokensForBudget(0.5, OPUS)).toBe(125_000);
    expect(tokensForBudget(0.01, { input: 2, output: 10, cacheWrite: 2.5, cacheRead: 0.1 })).toBe(5_000);
  });

  it('reserves the output first', () => {
    // $0.50 − 8,000 × $20/M ($0.16) = $0.34 → 85,000 input tokens at $4/M.
    expect(tokensForBudget(0.5, OPUS, 8_000)).toBe(85_000);
    expect(tokensForBudget(0.1, OPUS, 8_000)).toBe(0);
  });

  it('is unlimited for free input and zero for no money', () => {
    expect(tokensForBudget(1, { input: 0, output: 0, cacheWrite: 0, cacheRead: 0 })).toBe(Number.POSITIVE_INFINITY);
    expect(tokensForBudget(0, OPUS)).toBe(0);
    expect(tokensForBudget(-3, OPUS)).toBe(0);
  });

  it('agrees with estimateRequestCost: the tokens it returns fit the budget, one more does not', () => {
    for (const usd of [0.09, 0.1337, 0.33, 1, 2.5]) {
      const affordable = tokensForBudget(usd, OPUS, 4_000);
      expect(estimateRequestCost(affordable, 4_000, OPUS)).toBeLessThanOrEqual(usd + 1e-12);
      expect(estimateRequestCost(affordable + 1, 4_000, OPUS)).toBeGreaterThan(usd);
    }
  });
});

describe('totalUsage', () => {
  it('adds each count on its own, reasoning as the part of the output it is', () => {
    const total = totalUsage([
      { inputTokens: 100, outputTokens: 500, cacheReadTokens: 10, cacheWriteTokens: 20, reasoningTokens: 400 },
      undefined,
      { inputTokens: 50, outputTokens: 40, cacheReadTokens: 0, cacheWriteTokens: 0 },
      { inputTokens: 1, outputTokens: 300, cacheReadTokens: 0, cacheWriteTokens: 0, reasoningTokens: 256 },
    ]);
    expect(total).toEqual({ inputTokens: 151, outputTokens: 840, cacheReadTokens: 10, cacheWriteTokens: 20, reasoningTokens: 656 });
    expect(costOfUsage(total, OPUS)).toBeCloseTo(costOfUsage({ ...total, reasoningTokens: 0 }, OPUS), 12);
  });

  it('reports no reasoning when no response itemized it, and skips bad counts', () => {
    expect(totalUsage([{ inputTokens: -3, outputTokens: Number.NaN, cacheReadTokens: 2, cacheWriteTokens: 0, reasoningTokens: -1 }])).toEqual({
      inputTokens: 0,
      outputTokens: 0,
      cacheReadTokens: 2,
      cacheWriteTokens: 0,
    });
    expect(totalUsage([])).toEqual({ inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0 });
  });
});
