import { describe, expect, it, vi } from 'vitest';
import { readBrowserStorage, requestPersistentStorage } from '../../src/persistence/persistentStorage';

describe('requestPersistentStorage', () => {
  it('asks the browser when storage is not yet persistent, and reports its answer', async () => {
    const persist = vi.fn(async () => true);
    expect(await requestPersistentStorage({ persisted: async () => false, persist })).toBe('granted');
    expect(persist).toHaveBeenCalledTimes(1);
    expect(await requestPersistentStorage({ persisted: async () => false, persist: async () => false })).toBe('denied');
  });

  it('does not ask again when storage already is persistent', async () => {
    const persist = vi.fn(async () => true);
    expect(await requestPersistentStorage({ persisted: async () => true, persist })).toBe('granted');
    expect(persist).not.toHaveBeenCalled();
  });

  it('reports unsupported without the Storage API, and denied when the call fails', async () => {
    expect(await requestPersistentStorage(undefined)).toBe('unsupported');
    expect(
      await requestPersistentStorage({
        persisted: async () => false,
        persist: async () => {
          throw new DOMException('not allowed', 'SecurityError');
        },
      }),
    ).toBe('denied');
  });
});

describe('readBrowserStorage', () => {
  it('reports the estimate of usage and quota and whether storage is persistent', async () => {
    const facts = await readBrowserStorage({
      estimate: async () => ({ usage: 12_345, quota: 2_000_000_000 }),
      persisted: async () => false,
      persist: async () => true,
    });
    expect(facts).toEqual({ usage: 12_345, quota: 2_000_000_000, persisted: false, canPersist: true });
  });

  it('reports nothing it was not told, without the Storage API or any of its calls', async () => {
    expect(await readBrowserStorage(undefined)).toEqual({ canPersist: false });
    expect(await readBrowserStorage({ persisted: async () => true })).toEqual({ persisted: true, canPersist: false });
    expect(await readBrowserStorage({ estimate: async () => ({ usage: 10 }) })).toEqual({ usage: 10, canPersist: false });
  });

  it('never rejects: a call that throws or rejects, or answers nonsense, is left unreported and the others still are', async () => {
    const facts = await readBrowserStorage({
      estimate: () => {
        throw new DOMException('blocked', 'SecurityError');
      },
      persisted: async () => {
        throw new TypeError('no');
      },
      persist: async () => true,
    });
    expect(facts).toEqual({ canPersist: true });
    expect(await readBrowserStorage({ estimate: async () => ({ usage: Number.NaN, quota: -1 }), persisted: async () => true })).toEqual({
      persisted: true,
      canPersist: false,
    });
    expect(await readBrowserStorage({ estimate: async () => Promise.reject(new Error('gone')), persisted: async () => 'yes' as unknown as boolean })).toEqual({
      canPersist: false,
    });
  });
});
