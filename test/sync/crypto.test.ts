// @vitest-environment node
/**
 * The encryption every synced record goes through: a passphrase check that tells a wrong
 * passphrase from a right one, ids that are stable per record and say nothing, and sealed
 * records that fail their check when a byte, the id or a part is changed.
 */
import { describe, expect, it } from 'vitest';
import { CHECK_ID, createCheck, deriveKeys, docIdOf, KDF_ITERATIONS, openCheck, readCheck, SealBroken, seal, unseal } from '../../src/sync/crypto';
import { INLINE_LIMIT, openRecord, PartMissing, sealRecord, type SyncDoc } from '../../src/sync/documents';

const salt = new Uint8Array(16).fill(7);
const keysOf = (passphrase: string) => deriveKeys(passphrase, salt, 1000);

describe('the passphrase check', () => {
  it('derives the keys with PBKDF2 at 600,000 iterations and opens only with the same passphrase', async () => {
    const { check, keys } = await createCheck('correct horse battery staple');
    expect(check.iterations).toBe(KDF_ITERATIONS);
    expect(KDF_ITERATIONS).toBeGreaterThanOrEqual(600_000);
    expect(JSON.stringify(check)).not.toContain('correct horse');
    const reopened = await openCheck(check, 'correct horse battery staple');
    expect(reopened).toBeDefined();
    // The reopened keys open what the first keys sealed.
    const sealed = await seal(keys, 'doc', new TextEncoder().encode('hello'));
    expect(new TextDecoder().decode(await unseal(reopened!, 'doc', sealed.iv, sealed.ct))).toBe('hello');
    expect(await openCheck(check, 'correct horse battery stable')).toBeUndefined();
  }, 30_000);

  it('refuses a check another app or a weaker setting wrote', () => {
    expect(readCheck({ format: 1, kdf: 'PBKDF2-SHA-256', iterations: 1000, salt: 'a', iv: 'b', ct: 'c' })).toBeUndefined();
    expect(readCheck({ format: 2 })).toBeUndefined();
    expect(readCheck('check')).toBeUndefined();
    expect(CHECK_ID).toBe('windowpane-passphrase-check');
  });
});

describe('document ids', () => {
  it('are the same for a record on every device with the passphrase, and differ otherwise', async () => {
    const [a, b, other] = await Promise.all([keysOf('passphrase one'), keysOf('passphrase one'), keysOf('passphrase two')]);
    const id = await docIdOf(a, 'm:7f6c0e1e-message');
    expect(id).toMatch(/^[0-9a-f]{32}$/);
    expect(await docIdOf(b, 'm:7f6c0e1e-message')).toBe(id);
    expect(await docIdOf(other, 'm:7f6c0e1e-message')).not.toBe(id);
    expect(await docIdOf(a, 'm:another')).not.toBe(id);
  });
});

describe('sealed records', () => {
  const readFrom = (docs: SyncDoc[]) => async (id: string) => docs.find((d) => d._id === id);

  it('carry no plaintext, use a fresh nonce per write, and open back to the record', async () => {
    const keys = await keysOf('passphrase one');
    const payload = { kind: 'message', text: 'Lisbon itinerary with pastéis de nata' };
    const one = await sealRecord(keys, 'id1', 'm:1', payload);
    const two = await sealRecord(keys, 'id1', 'm:1', payload);
    expect(JSON.stringify(one)).not.toMatch(/Lisbon|pastéis|message/);
    expect(one.doc.iv).not.toBe(two.doc.iv);
    expect(one.doc.ct).not.toBe(two.doc.ct);
    expect(await openRecord(keys, one.doc, readFrom([]))).toEqual(payload);
  });

  it('fail their check when a byte changes, when moved to another id, or under another passphrase', async () => {
    const keys = await keysOf('passphrase one');
    const { doc } = await sealRecord(keys, 'id1', 'm:1', { text: 'secret' });
    const flipped = { ...doc, ct: doc.ct!.slice(0, 10) + (doc.ct![10] === 'A' ? 'B' : 'A') + doc.ct!.slice(11) };
    await expect(openRecord(keys, flipped, readFrom([]))).rejects.toBeInstanceOf(SealBroken);
    await expect(openRecord(keys, { ...doc, _id: 'id2' }, readFrom([]))).rejects.toBeInstanceOf(SealBroken);
    await expect(openRecord(await keysOf('passphrase two'), doc, readFrom([]))).rejects.toBeInstanceOf(SealBroken);
    await expect(openRecord(keys, { _id: 'id1', v: 1, iv: doc.iv, ct: 'not base64!' }, readFrom([]))).rejects.toBeInstanceOf(SealBroken);
  });

  it('too large for one document travel in sealed parts, each under the servers’ limits', async () => {
    const keys = await keysOf('passphrase one');
    // Random text does not compress, so it stays over the inline limit after deflate.
    const bytes = new Uint8Array(900_000);
    for (let i = 0; i < bytes.length; i += 65_536) crypto.getRandomValues(bytes.subarray(i, i + 65_536));
    const noise = Array.from(bytes, (b) => String.fromCharCode(33 + (b % 90))).join('');
    const payload = { kind: 'attachment', text: noise };
    const { doc, parts } = await sealRecord(keys, 'big', 'a:1', payload);
    expect(doc.parts).toHaveLength(parts.length);
    expect(parts.length).toBeGreaterThan(1);
    expect(doc.ct!.length).toBeLessThan(INLINE_LIMIT);
    for (const part of parts) expect(JSON.stringify(part).length).toBeLessThan(1_000_000);
    expect(await openRecord(keys, doc, readFrom(parts))).toEqual(payload);
    // A part not yet arrived keeps the record pending; a swapped part fails its check.
    await expect(openRecord(keys, doc, readFrom(parts.slice(1)))).rejects.toBeInstanceOf(PartMissing);
    const swapped = parts.map((p, i) => (i === 0 ? { ...p, _attachments: parts[1]!._attachments } : p));
    await expect(openRecord(keys, doc, readFrom(swapped))).rejects.toBeInstanceOf(SealBroken);
    // The list of parts is sealed too: a server that reorders it is caught.
    await expect(openRecord(keys, { ...doc, parts: [...doc.parts!].reverse() }, readFrom(parts))).rejects.toBeInstanceOf(SealBroken);
  });
});
