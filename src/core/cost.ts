import type { Usage } from './conversation';
import { reasoningTokensOf } from './conversation';
import type { ModelPrices } from './models';

// Money from tokens. Every price is USD per million tokens; every result is USD.
//
// Usage follows Anthropic's convention: `inputTokens` counts only the uncached input,
// and cache reads and writes are counted separately (Anthropic's input_tokens,
// cache_read_input_tokens, cache_creation_input_tokens). OpenAI's prompt_tokens
// INCLUDES prompt_tokens_details.cached_tokens, so the OpenAI adapter must store
// inputTokens = prompt_tokens − cached_tokens and cacheReadTokens = cached_tokens, or
// cached tokens are billed twice.

const PER_TOKEN = 1 / 1_000_000;

/**
 * USD for one response: uncached input, output, cache writes and cache reads, each at
 * its own price. Negative or non-finite counts are treated as 0.
 */
export function costOfUsage(usage: Usage, prices: ModelPrices): number {
  const own =
    tokens(usage.inputTokens) * prices.input +
    tokens(usage.outputTokens) * prices.output +
    tokens(usage.cacheWriteTokens) * prices.cacheWrite +
    tokens(usage.cacheReadTokens) * prices.cacheRead;
  // A compaction on the provider's side is billed on top of the answer at the same prices.
  const c = usage.compaction;
  const compaction = c
    ? tokens(c.inputTokens) * prices.input +
      tokens(c.outputTokens) * prices.output +
      tokens(c.cacheWriteTokens) * prices.cacheWrite +
      tokens(c.cacheReadTokens) * prices.cacheRead
    : 0;
  return (own + compaction) * PER_TOKEN;
}

/**
 * The usage of several responses added up, each count on its own; `reasoningTokens` sums the
 * responses that itemized it (a part of `outputTokens`, as in each) and is absent when none
 * did. Negative or non-finite counts are treated as 0; absent usages count nothing.
 */
export function totalUsage(usages: readonly (Usage | undefined)[]): Usage {
  const total: Usage = { inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0 };
  let reasoning: number | undefined;
  for (const usage of usages) {
    if (!usage) continue;
    total.inputTokens += tokens(usage.inputTokens);
    total.outputTokens += tokens(usage.outputTokens);
    total.cacheReadTokens += tokens(usage.cacheReadTokens);
    total.cacheWriteTokens += tokens(usage.cacheWriteTokens);
    const part = reasoningTokensOf(usage);
    if (part !== undefined) reasoning = (reasoning ?? 0) + part;
  }
  if (reasoning !== undefined) total.reasoningTokens = reasoning;
  return total;
}

/**
 * Most a request can cost before it is sent, in USD: every input token at the uncached
 * price (a cache hit only makes it cheaper) plus `maxOutputTokens` at the output price.
 */
export function estimateRequestCost(inputTokens: number, maxOutputTokens: number, prices: ModelPrices): number {
  return (tokens(inputTokens) * prices.input + tokens(maxOutputTokens) * prices.output) * PER_TOKEN;
}

/**
 * How many input tokens a per-request budget of `usd` pays for at the uncached input
 * price, after reserving `outputTokens` at the output price (default 0). A whole number
 * ≥ 0; 0 when the reserve alone exceeds the budget; Infinity when input is free (the
 * Demo), in which case only the model's window limits the request.
 */
export function tokensForBudget(usd: number, prices: ModelPrices, outputTokens = 0): number {
  const left = Math.max(0, usd) - tokens(outputTokens) * prices.output * PER_TOKEN;
  if (left <= 0) return 0;
  if (prices.input <= 0) return Number.POSITIVE_INFINITY;
  // The epsilon absorbs binary rounding, e.g. $0.01 at $2/M is exactly 5,000 tokens.
  return Math.floor((left / (prices.input * PER_TOKEN)) * (1 + 1e-12));
}

function tokens(count: number): number {
  return Number.isFinite(count) && count > 0 ? count : 0;
}
