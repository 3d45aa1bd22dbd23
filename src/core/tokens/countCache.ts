import { contentChars, type WindowMessage } from '../messages';
import type { MessageTokenCounter } from './types';

/** Lookups a cached counter answered from memory (`hits`) or by counting (`misses`). */
export interface CountCacheStats {
  hits: number;
  misses: number;
}

/** A memoized MessageTokenCounter that also reports how often it had to count. */
export interface CachedCounter {
  (message: WindowMessage): number;
  /** A snapshot of the counters since creation or the last `resetStats`. */
  stats(): CountCacheStats;
  resetStats(): void;
}

export interface CountCacheOptions {
  /**
   * A stable id for a message (e.g. the stored message id), so a copy of the same
   * message made by a store update still hits. Combined with the message's
   * `contentChars`, so an edited or still-streaming message is counted again.
   */
  keyOf?: (message: WindowMessage) => string | undefined;
  /** How many id-keyed counts to keep before dropping the oldest; default 50,000. */
  maxKeyedEntries?: number;
}

/**
 * Memoizes `counter` per message so a plan costs one count per new message and a map
 * lookup per known one, which keeps planning O(n) across repeated plans. Messages are
 * looked up by object identity first (a WeakMap, so forgotten messages are collected),
 * then by `keyOf` + content length when given. Messages are treated as immutable: mutate
 * one in place and its cached count is stale, so replace it instead.
 */
export function createCountCache(counter: MessageTokenCounter, options: CountCacheOptions = {}): CachedCounter {
  const byIdentity = new WeakMap<object, number>();
  const byKey = new Map<string, number>();
  const maxKeyed = options.maxKeyedEntries ?? 50_000;
  const { keyOf } = options;
  let hits = 0;
  let misses = 0;

  const cached = ((message: WindowMessage): number => {
    const known = byIdentity.get(message);
    if (known !== undefined) {
      hits++;
      return known;
    }
    const id = keyOf?.(message);
    const key = id === undefined ? undefined : `${id}\u0000${contentChars(message)}`;
    if (key !== undefined) {
      const keyed = byKey.get(key);
      if (keyed !== undefined) {
        hits++;
        byIdentity.set(message, keyed);
        return keyed;
      }
    }
    misses++;
    const count = counter(message);
    byIdentity.set(message, count);
    if (key !== undefined) {
      byKey.set(key, count);
      if (byKey.size > maxKeyed) {
        // Maps iterate in insertion order, so the first key is the oldest.
        const oldest = byKey.keys().next();
        if (!oldest.done) byKey.delete(oldest.value);
      }
    }
    return count;
  }) as CachedCounter;

  cached.stats = () => ({ hits, misses });
  cached.resetStats = () => {
    hits = 0;
    misses = 0;
  };
  return cached;
}
