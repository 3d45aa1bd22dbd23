/**
 * The encryption every synced record goes through, with WebCrypto only. A passphrase
 * becomes a 256-bit secret by PBKDF2-SHA-256 (600,000 iterations, OWASP's 2023 floor for
 * it; the salt is random per server and stored in the passphrase check); HKDF splits that
 * secret into an AES-256-GCM key for the records and an HMAC-SHA-256 key for their ids.
 * Each write has a fresh random 96-bit nonce, and the document's id is the additional
 * data, so a ciphertext moved to another id fails its check like a changed one.
 */
import type { SyncKeys } from './types';

export const KDF_ITERATIONS = 600_000;

/** What the passphrase check stores in the clear: how to derive the keys, and a sealed known text. */
export interface PassphraseCheck {
  format: 1;
  kdf: 'PBKDF2-SHA-256';
  iterations: number;
  /** Base64 of 16 random bytes. */
  salt: string;
  /** A sealed `CHECK_TEXT` (see `seal`). */
  iv: string;
  ct: string;
}

/** The id of the passphrase check document, the one id that is not random. */
export const CHECK_ID = 'windowpane-passphrase-check';
const CHECK_TEXT = 'windowpane sync v1';

/** A record that failed its check: changed on the server, moved to another id, or sealed with another passphrase. */
export class SealBroken extends Error {
  constructor(readonly docId: string) {
    super(`The record ${docId} failed its integrity check.`);
    this.name = 'SealBroken';
  }
}

const encoder = new TextEncoder();
const decoder = new TextDecoder();

export function toBase64(bytes: Uint8Array): string {
  let binary = '';
  for (let i = 0; i < bytes.length; i += 0x8000) binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(binary);
}

export function fromBase64(text: string): Uint8Array<ArrayBuffer> {
  const binary = atob(text);
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  return bytes;
}

/** Derives both keys from the passphrase (slow on purpose: about a second). */
export async function deriveKeys(passphrase: string, salt: Uint8Array<ArrayBuffer>, iterations = KDF_ITERATIONS): Promise<SyncKeys> {
  const base = await crypto.subtle.importKey('raw', encoder.encode(passphrase.normalize('NFC')), 'PBKDF2', false, ['deriveBits']);
  const secret = await crypto.subtle.deriveBits({ name: 'PBKDF2', hash: 'SHA-256', salt, iterations }, base, 256);
  const root = await crypto.subtle.importKey('raw', secret, 'HKDF', false, ['deriveKey']);
  const info = (label: string) => ({ name: 'HKDF', hash: 'SHA-256', salt: new Uint8Array(32), info: encoder.encode(label) });
  const encrypt = await crypto.subtle.deriveKey(info('windowpane records v1'), root, { name: 'AES-GCM', length: 256 }, false, ['encrypt', 'decrypt']);
  const ids = await crypto.subtle.deriveKey(info('windowpane ids v1'), root, { name: 'HMAC', hash: 'SHA-256', length: 256 }, false, ['sign']);
  return { encrypt, ids };
}

/** The document id of a record key ("m:<message id>"): 32 hex digits of its HMAC, the same on every device with the passphrase. */
export async function docIdOf(keys: SyncKeys, recordKey: string): Promise<string> {
  const mac = new Uint8Array(await crypto.subtle.sign('HMAC', keys.ids, encoder.encode(recordKey)));
  let hex = '';
  for (let i = 0; i < 16; i++) hex += mac[i]!.toString(16).padStart(2, '0');
  return hex;
}

/** Encrypts `plain` for the document `docId`. */
export async function seal(keys: SyncKeys, docId: string, plain: Uint8Array<ArrayBuffer>): Promise<{ iv: string; ct: Uint8Array<ArrayBuffer> }> {
  const iv = crypto.getRandomValues(new Uint8Array(12));
  const ct = new Uint8Array(await crypto.subtle.encrypt({ name: 'AES-GCM', iv, additionalData: encoder.encode(docId) }, keys.encrypt, plain));
  return { iv: toBase64(iv), ct };
}

/** Decrypts what `seal` made for `docId`; throws SealBroken when anything was changed. */
export async function unseal(keys: SyncKeys, docId: string, iv: string, ct: Uint8Array<ArrayBuffer>): Promise<Uint8Array<ArrayBuffer>> {
  try {
    const plain = await crypto.subtle.decrypt({ name: 'AES-GCM', iv: fromBase64(iv), additionalData: encoder.encode(docId) }, keys.encrypt, ct);
    return new Uint8Array(plain);
  } catch {
    throw new SealBroken(docId);
  }
}

/** A new passphrase check for an empty server, with the keys it proves. */
export async function createCheck(passphrase: string): Promise<{ check: PassphraseCheck; keys: SyncKeys }> {
  const salt = crypto.getRandomValues(new Uint8Array(16));
  const keys = await deriveKeys(passphrase, salt);
  const sealed = await seal(keys, CHECK_ID, encoder.encode(CHECK_TEXT));
  return { keys, check: { format: 1, kdf: 'PBKDF2-SHA-256', iterations: KDF_ITERATIONS, salt: toBase64(salt), iv: sealed.iv, ct: toBase64(sealed.ct) } };
}

/** Reads a check another device wrote: undefined when it is not one this version can use. */
export function readCheck(value: unknown): PassphraseCheck | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const v = value as Record<string, unknown>;
  const ok =
    v.format === 1 &&
    v.kdf === 'PBKDF2-SHA-256' &&
    typeof v.iterations === 'number' &&
    Number.isInteger(v.iterations) &&
    v.iterations >= KDF_ITERATIONS &&
    v.iterations <= 10_000_000 &&
    typeof v.salt === 'string' &&
    typeof v.iv === 'string' &&
    typeof v.ct === 'string';
  return ok
    ? { format: 1, kdf: 'PBKDF2-SHA-256', iterations: v.iterations as number, salt: v.salt as string, iv: v.iv as string, ct: v.ct as string }
    : undefined;
}

/** The keys when `passphrase` opens the check; undefined when it is the wrong passphrase. */
export async function openCheck(check: PassphraseCheck, passphrase: string): Promise<SyncKeys | undefined> {
  const keys = await deriveKeys(passphrase, fromBase64(check.salt), check.iterations);
  try {
    const text = decoder.decode(await unseal(keys, CHECK_ID, check.iv, fromBase64(check.ct)));
    return text === CHECK_TEXT ? keys : undefined;
  } catch {
    return undefined;
  }
}

export function encodeJson(value: unknown): Uint8Array<ArrayBuffer> {
  return encoder.encode(JSON.stringify(value));
}

export function decodeJson(bytes: Uint8Array): unknown {
  return JSON.parse(decoder.decode(bytes));
}
