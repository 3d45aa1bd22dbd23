import { createCipheriv, createDecipheriv, createHash } from 'node:crypto';
import type { ReplyContext, ReplySpec } from './types';

/** Matches prompts that ask for a summary (English spellings of summarize / summarise / summary). */
const SUMMARY_REQUEST = /\bsummar(?:y|i[sz](?:e|ing|ation))/i;

export function asksForSummary(systemText: string, lastUserText: string): boolean {
  return SUMMARY_REQUEST.test(systemText) || SUMMARY_REQUEST.test(lastUserText);
}

/**
 * The reply when no reply function answers: deterministic and derived from the request, so a
 * test can assert what the model was sent ("I received 7 messages") and which turn it was.
 */
function messagesPhrase(count: number): string {
  return `${count} message${count === 1 ? '' : 's'}`;
}

export function defaultReply(context: ReplyContext): ReplySpec {
  if (context.isSummaryRequest) {
    return {
      text:
        `Summary: the earlier conversation had ${messagesPhrase(context.messageCount)}. ` +
        'The user asked questions and the assistant answered them; no open tasks remain.',
    };
  }
  if (context.answersToolResults) {
    return { text: `Answer ${context.turn}: I read the tool results. I received ${messagesPhrase(context.messageCount)}.` };
  }
  const quoted = context.lastUserText.replace(/\s+/g, ' ').trim().slice(0, 60);
  return {
    text: `Answer ${context.turn}: I received ${messagesPhrase(context.messageCount)}. Your last message began "${quoted}".`,
  };
}

/** Splits `text` into `count` pieces at word boundaries (fewer when it has fewer words). */
export function splitIntoDeltas(text: string, count?: number): string[] {
  const words = text.match(/\S+\s*|\s+/g) ?? [];
  if (words.length === 0) return [];
  const pieces = Math.max(1, Math.min(words.length, count ?? Math.max(3, Math.ceil(words.length / 3))));
  const perPiece = Math.ceil(words.length / pieces);
  const deltas: string[] = [];
  for (let start = 0; start < words.length; start += perPiece) {
    deltas.push(words.slice(start, start + perPiece).join(''));
  }
  return deltas;
}

/** Splits a string into `count` roughly equal fragments (tool arguments are streamed this way). */
export function splitEvenly(text: string, count: number): string[] {
  if (text === '') return [''];
  const size = Math.max(1, Math.ceil(text.length / count));
  const parts: string[] = [];
  for (let start = 0; start < text.length; start += size) parts.push(text.slice(start, start + size));
  return parts;
}

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

/** Deterministic ids shaped like the providers' (`msg_01…`, `toolu_01…`, `call_…`, `req_011C…`). */
export class IdSource {
  private counter = 0;

  next(prefix: string, length: number): string {
    this.counter += 1;
    let value = this.counter;
    let body = '';
    while (value > 0) {
      body = BASE62[value % 62] + body;
      value = Math.floor(value / 62);
    }
    return prefix + body.padStart(length, '0');
  }

  reset(): void {
    this.counter = 0;
  }
}

const SIGNATURE_KEY = createHash('sha256').update('windowpane-fake-api-thinking').digest();

/**
 * The signature the fake attaches to a thinking block: the full thinking text and the hash of
 * the prefix it was written after (see preservedThinking.ts), encrypted and authenticated, as
 * the real API's signature carries them. The same text after the same prefix always gets the
 * same signature, so replies stay deterministic.
 */
export function thinkingSignature(thinking: string, prefix = ''): string {
  const plain = JSON.stringify([prefix, thinking]);
  const iv = createHash('sha256').update(SIGNATURE_KEY).update(plain).digest().subarray(0, 12);
  const cipher = createCipheriv('aes-256-gcm', SIGNATURE_KEY, iv);
  const sealed = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
  return Buffer.concat([iv, cipher.getAuthTag(), sealed]).toString('base64');
}

function opened(signature: string): [prefix: string, thinking: string] | null {
  const raw = Buffer.from(signature, 'base64');
  if (raw.length < 28 || raw.toString('base64') !== signature) return null;
  try {
    const decipher = createDecipheriv('aes-256-gcm', SIGNATURE_KEY, raw.subarray(0, 12));
    decipher.setAuthTag(raw.subarray(12, 28));
    const parsed: unknown = JSON.parse(Buffer.concat([decipher.update(raw.subarray(28)), decipher.final()]).toString('utf8'));
    return Array.isArray(parsed) && typeof parsed[0] === 'string' && typeof parsed[1] === 'string' ? [parsed[0], parsed[1]] : null;
  } catch {
    return null;
  }
}

/** The full thinking text a signature was issued for, or null when the fake never issued it. */
export function thinkingOfSignature(signature: string): string | null {
  return opened(signature)?.[1] ?? null;
}

/** The hash of the prefix a signature's block was written after ('' when issued without one). */
export function prefixOfSignature(signature: string): string | null {
  return opened(signature)?.[0] ?? null;
}
