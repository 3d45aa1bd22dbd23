/**
 * Prompt caching as Anthropic documents it, simulated once for the two fakes of its API: the
 * Demo's in-page Messages API and test/fake-api's HTTP server (which keeps OpenAI's automatic
 * prefix caching in the same kind of store). A prefix ending at a `cache_control` breakpoint,
 * of at least the model's minimum cacheable length, is written; a later request reads the
 * longest written prefix found looking back up to 20 units from each of its breakpoints.
 * Entries are keyed by a hash chain over the prompt, so a hit needs the prompt to be identical
 * up to the cached point, and kept per `scope` (API key and model, the way an organization's
 * cache is) for five minutes or an hour, each read renewing the five.
 */
import { hashString } from '../../core';
import type { AnthropicCacheOutcome } from './messagesWire';

const FIVE_MINUTES_MS = 5 * 60_000;
const ONE_HOUR_MS = 60 * 60_000;
/** Anthropic looks for earlier cache entries up to about 20 blocks before each breakpoint. */
const ANTHROPIC_LOOKBACK_BLOCKS = 20;
/** Bounds memory in long runs; a real cache evicts too. */
const MAX_ENTRIES_PER_SCOPE = 50_000;

/** One cacheable unit of an Anthropic prompt, in prefix order: a tool, a system block or a content block. */
export interface CacheUnit {
  tokens: number;
  /** The unit's bytes for the prefix hash (without its cache_control marker). */
  material: string;
  /** Present when the unit carries `cache_control` (or the top-level automatic breakpoint lands on it). */
  breakpoint: { ttl: '5m' | '1h' } | null;
}

/** The key of a prefix: the key of the prefix before it, extended by the next unit's bytes. */
export function chainHash(previous: string, part: string): string {
  return hashString(`${previous}\u0000${part}`);
}

/** Prefix keys with their expiry times, per scope. */
export class PromptCacheStore {
  private readonly scopes = new Map<string, Map<string, number>>();

  constructor(private readonly now: () => number) {}

  has(scope: string, key: string): boolean {
    const expiresAt = this.scopes.get(scope)?.get(key);
    return expiresAt !== undefined && expiresAt > this.now();
  }

  put(scope: string, key: string, ttlMs: number): void {
    let entries = this.scopes.get(scope);
    if (!entries) {
      entries = new Map();
      this.scopes.set(scope, entries);
    }
    if (entries.size >= MAX_ENTRIES_PER_SCOPE) entries.clear();
    const expiresAt = this.now() + ttlMs;
    entries.set(key, Math.max(expiresAt, entries.get(key) ?? 0));
  }

  clear(): void {
    this.scopes.clear();
  }
}

/** Anthropic prompt caching: explicit breakpoints, a minimum cacheable length, reads and writes reported apart. */
export class AnthropicPromptCache {
  private readonly store: PromptCacheStore;

  constructor(now: () => number = Date.now) {
    this.store = new PromptCacheStore(now);
  }

  apply(scope: string, units: readonly CacheUnit[], minCacheableTokens: number): AnthropicCacheOutcome {
    const hashes: string[] = [];
    const cumulative: number[] = [];
    let hash = scope;
    let total = 0;
    for (const unit of units) {
      hash = chainHash(hash, unit.material);
      total += unit.tokens;
      hashes.push(hash);
      cumulative.push(total);
    }
    const breakpoints = units.flatMap((unit, index) => (unit.breakpoint ? [index] : []));

    let readIndex = -1;
    for (const breakpoint of breakpoints) {
      for (let index = breakpoint; index >= Math.max(0, breakpoint - ANTHROPIC_LOOKBACK_BLOCKS); index--) {
        if (this.store.has(scope, hashes[index]!)) {
          if (index > readIndex) readIndex = index;
          break;
        }
      }
    }
    const cacheReadTokens = readIndex >= 0 ? cumulative[readIndex]! : 0;
    if (readIndex >= 0) this.store.put(scope, hashes[readIndex]!, FIVE_MINUTES_MS);

    let writtenUpTo = cacheReadTokens;
    let cacheWrite1hTokens = 0;
    for (const index of breakpoints) {
      const prefixTokens = cumulative[index]!;
      if (index <= readIndex || prefixTokens < minCacheableTokens) continue;
      const ttl = units[index]!.breakpoint!.ttl;
      if (ttl === '1h') cacheWrite1hTokens += prefixTokens - writtenUpTo;
      writtenUpTo = prefixTokens;
      this.store.put(scope, hashes[index]!, ttl === '1h' ? ONE_HOUR_MS : FIVE_MINUTES_MS);
    }
    const cacheWriteTokens = writtenUpTo - cacheReadTokens;
    return {
      cacheReadTokens,
      cacheWriteTokens,
      cacheWrite1hTokens,
      uncachedTokens: total - cacheReadTokens - cacheWriteTokens,
    };
  }

  clear(): void {
    this.store.clear();
  }
}
