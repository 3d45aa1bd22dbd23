import { decode, encode } from 'gpt-tokenizer/encoding/o200k_base';

// The fake counts with o200k as a stand-in for both providers' tokenizers: what matters is
// that the count is a real tokenizer's, deterministic, and the same for every endpoint.

/** Special-token look-alikes in user text are plain text, never control tokens. */
const PLAIN_TEXT = { disallowedSpecial: new Set<string>() };

export function tokenize(text: string): number[] {
  return text === '' ? [] : encode(text, PLAIN_TEXT);
}

export function countTokens(text: string): number {
  return tokenize(text).length;
}

/** The first `limit` tokens of `text`, as text. */
export function truncateToTokens(text: string, limit: number): string {
  const tokens = tokenize(text);
  return tokens.length <= limit ? text : decode(tokens.slice(0, Math.max(0, limit)));
}

/** JSON with object keys sorted, so equal values always serialize to equal bytes. */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(sortKeys(value));
}

function sortKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return Object.fromEntries(entries.map(([key, inner]) => [key, sortKeys(inner)]));
  }
  return value;
}
