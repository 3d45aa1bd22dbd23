import { afterEach, describe, expect, it, vi } from 'vitest';
import { browserDeps } from '../src/browserRuntime';

describe('browserDeps().newId', () => {
  afterEach(() => vi.unstubAllGlobals());

  it('makes v4 UUIDs where crypto.randomUUID is missing (the app served over plain http on a LAN)', () => {
    const real = globalThis.crypto;
    vi.stubGlobal('crypto', { getRandomValues: (bytes: Uint8Array<ArrayBuffer>) => real.getRandomValues(bytes) });
    const ids = new Set(Array.from({ length: 50 }, () => browserDeps().newId()));
    expect(ids.size).toBe(50);
    for (const id of ids) expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
  });
});
