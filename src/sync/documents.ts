/**
 * How a record becomes the documents the server stores, and back. The server sees only:
 *
 *     { _id: <32 hex digits>, _rev, v: 1, iv: <base64>, ct: <base64 ciphertext> }
 *
 * A record whose ciphertext passes `INLINE_LIMIT` (a long pasted text), and every file's
 * bytes, go instead in part documents of at most `PART_BYTES` each, carried as one binary
 * attachment apiece: under Cloudant's 1 MB document and 10 MB attachment limits and
 * CouchDB's default 8 MB document limit, whatever the file. The record lists its parts;
 * their ids are new on every write, so a record never mixes parts of two writes.
 */
import { deflateSync, inflateSync } from 'fflate';
import { decodeJson, docIdOf, encodeJson, fromBase64, seal, SealBroken, toBase64, unseal } from './crypto';
import type { SyncKeys } from './types';

/** Ciphertext up to this many bytes travels inside the record's document. */
export const INLINE_LIMIT = 192 * 1024;
/** Bytes of ciphertext per part document's attachment. */
export const PART_BYTES = 512 * 1024;

/** A document as PouchDB and the server hold it. */
export interface SyncDoc {
  _id: string;
  _rev?: string;
  _deleted?: boolean;
  _conflicts?: string[];
  _attachments?: Record<string, { content_type: string; data?: string; stub?: boolean; length?: number }>;
  v?: number;
  iv?: string;
  ct?: string;
  /** Part documents holding the ciphertext, in order (when it is too large to be inline). */
  parts?: string[];
}

/** Reads the part documents a record names; undefined for a part not here yet. */
export type ReadPart = (id: string) => Promise<SyncDoc | undefined>;

/** A part document the record is waiting for: the record stays pending until it arrives. */
export class PartMissing extends Error {
  constructor(readonly partId: string) {
    super(`The part ${partId} has not arrived yet.`);
    this.name = 'PartMissing';
  }
}

function randomHex(bytes: number): string {
  return Array.from(crypto.getRandomValues(new Uint8Array(bytes)), (b) => b.toString(16).padStart(2, '0')).join('');
}

/** Seals `bytes` into part documents (each sealed on its own, its id the additional data). */
export async function sealParts(keys: SyncKeys, recordKey: string, bytes: Uint8Array<ArrayBuffer>): Promise<SyncDoc[]> {
  const write = randomHex(8);
  const parts: SyncDoc[] = [];
  for (let offset = 0, index = 0; offset < bytes.length || index === 0; offset += PART_BYTES, index++) {
    const id = await docIdOf(keys, `${recordKey}#${write}:${index}`);
    const sealed = await seal(keys, id, bytes.slice(offset, offset + PART_BYTES));
    parts.push({ _id: id, v: 1, iv: sealed.iv, _attachments: { d: { content_type: 'application/octet-stream', data: toBase64(sealed.ct) } } });
  }
  return parts;
}

/** Opens and joins part documents read with their attachments. */
export async function openParts(keys: SyncKeys, ids: readonly string[], read: ReadPart): Promise<Uint8Array<ArrayBuffer>> {
  const pieces: Uint8Array[] = [];
  let total = 0;
  for (const id of ids) {
    const doc = await read(id);
    if (!doc || doc._deleted) throw new PartMissing(id);
    const data = doc._attachments?.d?.data;
    if (typeof doc.iv !== 'string' || typeof data !== 'string') throw new SealBroken(id);
    const piece = await unseal(keys, id, doc.iv, fromBase64(data));
    pieces.push(piece);
    total += piece.length;
  }
  const out = new Uint8Array(total);
  let at = 0;
  for (const piece of pieces) {
    out.set(piece, at);
    at += piece.length;
  }
  return out;
}

/** The record's document (and its parts, first, when it is large), sealed for `docId`. */
export async function sealRecord(keys: SyncKeys, docId: string, recordKey: string, payload: unknown): Promise<{ doc: SyncDoc; parts: SyncDoc[] }> {
  const plain = deflateSync(encodeJson(payload));
  const sealed = await seal(keys, docId, plain);
  if (sealed.ct.length <= INLINE_LIMIT) return { doc: { _id: docId, v: 1, iv: sealed.iv, ct: toBase64(sealed.ct) }, parts: [] };
  const parts = await sealParts(keys, recordKey, plain);
  const head = await seal(keys, docId, encodeJson(parts.map((p) => p._id)));
  return { doc: { _id: docId, v: 1, iv: head.iv, ct: toBase64(head.ct), parts: parts.map((p) => p._id) }, parts };
}

/**
 * The payload a record's document carries (unchecked: see records.ts `readPayload`).
 * Throws SealBroken when the document fails its check, PartMissing when a part is still
 * on its way.
 */
export async function openRecord(keys: SyncKeys, doc: SyncDoc, read: ReadPart): Promise<unknown> {
  if (doc.v !== 1 || typeof doc.iv !== 'string' || typeof doc.ct !== 'string') throw new SealBroken(doc._id);
  let ct: Uint8Array<ArrayBuffer>;
  try {
    ct = fromBase64(doc.ct);
  } catch {
    throw new SealBroken(doc._id);
  }
  const inner = await unseal(keys, doc._id, doc.iv, ct);
  let plain: Uint8Array;
  if (doc.parts) {
    const listed = decodeJson(inner);
    // The list is sealed too: a server that swaps the clear `parts` fails here.
    if (!Array.isArray(listed) || listed.length !== doc.parts.length || listed.some((id, i) => id !== doc.parts![i])) throw new SealBroken(doc._id);
    plain = await openParts(keys, doc.parts, read);
  } else {
    plain = inner;
  }
  try {
    return decodeJson(inflateSync(plain));
  } catch {
    throw new SealBroken(doc._id);
  }
}
