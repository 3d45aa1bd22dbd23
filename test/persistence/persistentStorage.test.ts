import { describe, expect, it, vi } from 'vitest';
import { requestPersistentStorage } from '../../src/persistence/persistentStorage';

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
