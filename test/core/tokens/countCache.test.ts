import { describe, expect, it } from 'vitest';
import { createCountCache, estimateMessageTokens, type WindowMessage } from '../../../src/core';

function conversation(size: number): WindowMessage[] {
  return Array.from({ length: size }, (_, i) => ({ role: i % 2 === 0 ? 'user' : 'assistant', content: `Message ${i}: ${'some words '.repeat(i % 7)}` }));
}

/** The real estimator, wrapped to count how often it runs. */
function countingEstimator() {
  const calls = { count: 0 };
  const counter = (message: WindowMessage) => {
    calls.count++;
    return estimateMessageTokens(message);
  };
  return { calls, counter };
}

describe('createCountCache', () => {
  it('returns the wrapped counter’s counts', () => {
    const cached = createCountCache(estimateMessageTokens);
    for (const message of conversation(20)) expect(cached(message)).toBe(estimateMessageTokens(message));
  });

  it('counts each message once: a second pass over the same history does no counting', () => {
    const { calls, counter } = countingEstimator();
    const cached = createCountCache(counter);
    const history = conversation(1_000);
    const first = history.map(cached);
    expect(calls.count).toBe(1_000);
    expect(cached.stats()).toEqual({ hits: 0, misses: 1_000 });
    const second = history.map(cached);
    expect(second).toEqual(first);
    expect(calls.count).toBe(1_000);
    expect(cached.stats()).toEqual({ hits: 1_000, misses: 1_000 });
  });

  it('counts only the new message when the history grows by one', () => {
    const { calls, counter } = countingEstimator();
    const cached = createCountCache(counter);
    const history = conversation(500);
    history.forEach((message) => cached(message));
    const grown = [...history, { role: 'user', content: 'One more question.' }];
    cached.resetStats();
    grown.forEach((message) => cached(message));
    expect(cached.stats()).toEqual({ hits: 500, misses: 1 });
    expect(calls.count).toBe(501);
  });

  it('keys by identity only, unless given a stable id', () => {
    const { calls, counter } = countingEstimator();
    const byIdentity = createCountCache(counter);
    const message = { role: 'user', content: 'Same text' };
    byIdentity(message);
    byIdentity({ ...message }); // a copy is a different object
    expect(calls.count).toBe(2);

    const ids = new WeakMap<object, string>();
    const withIds = createCountCache(counter, { keyOf: (m) => ids.get(m) });
    const stored = { role: 'user', content: 'Stored text' };
    const copy = { ...stored };
    ids.set(stored, 'msg-1');
    ids.set(copy, 'msg-1');
    calls.count = 0;
    withIds(stored);
    withIds(copy);
    expect(calls.count).toBe(1);
    expect(withIds.stats()).toEqual({ hits: 1, misses: 1 });
  });

  it('counts a message again when its content length changed under the same id (streaming, edits)', () => {
    const { calls, counter } = countingEstimator();
    const cached = createCountCache(counter, { keyOf: () => 'msg-streaming' });
    expect(cached({ role: 'assistant', content: 'Partial' })).toBe(estimateMessageTokens({ role: 'assistant', content: 'Partial' }));
    const full = { role: 'assistant', content: 'Partial answer, now complete.' };
    expect(cached(full)).toBe(estimateMessageTokens(full));
    expect(calls.count).toBe(2);
  });

  it('drops the oldest id-keyed counts beyond its bound', () => {
    const { calls, counter } = countingEstimator();
    const cached = createCountCache(counter, { keyOf: (m) => String(m.content), maxKeyedEntries: 2 });
    const make = (text: string) => ({ role: 'user', content: text });
    cached(make('a'));
    cached(make('b'));
    cached(make('c')); // evicts 'a'
    calls.count = 0;
    cached(make('b'));
    cached(make('c'));
    expect(calls.count).toBe(0);
    cached(make('a'));
    expect(calls.count).toBe(1);
  });
});
