import { PromptCacheStore, chainHash } from '../../src/providers/demo/promptCache';

// Anthropic's prompt caching is simulated in src/providers/demo/promptCache.ts, which the Demo
// uses too; OpenAI's automatic caching, which only this fake serves, keeps its prefixes in the
// same store, keyed the same way and scoped per API key and model.

/** OpenAI automatic prefix caching: prompts of at least 1024 tokens, cached in 128-token steps. */
export class OpenAIPromptCache {
  private readonly store: PromptCacheStore;

  constructor(
    private readonly minimumTokens = 1024,
    private readonly incrementTokens = 128,
    now: () => number = Date.now,
  ) {
    this.store = new PromptCacheStore(now);
  }

  /** Returns the cached prefix length (`prompt_tokens_details.cached_tokens`) and remembers this prompt. */
  apply(scope: string, tokens: readonly number[]): number {
    let hash = scope;
    let cached = 0;
    const steps = Math.floor(tokens.length / this.incrementTokens);
    const seen: string[] = [];
    for (let step = 1; step <= steps; step++) {
      const chunk = tokens.slice((step - 1) * this.incrementTokens, step * this.incrementTokens).join(',');
      hash = chainHash(hash, chunk);
      const length = step * this.incrementTokens;
      if (length < this.minimumTokens) continue;
      if (this.store.has(scope, hash)) cached = length;
      seen.push(hash);
    }
    for (const key of seen) this.store.put(scope, key, 10 * 60_000);
    return cached;
  }

  clear(): void {
    this.store.clear();
  }
}
