/**
 * Server-side compaction in the fake, as the providers document it (read 2026-11-29):
 * - Anthropic, “Compaction”: `context_management.edits` with `compact_20260112` under the beta
 *   header `compact-2026-01-12`; `trigger` `{ type: "input_tokens", value }`, at least 50,000,
 *   150,000 by default. Past it the model first writes a summary, which opens the answer as a
 *   `compaction` block, and answers from it. A compaction block sent back makes the API ignore
 *   every block before it; one with `content: null` (a failed compaction) is a no-op. Usage
 *   gains `iterations`, the compaction's own entry billed apart from the top-level counts.
 * - OpenAI, “Compaction”: the Responses API's `context_management: [{ type: "compaction",
 *   compact_threshold }]`; past the threshold the output opens with an opaque `compaction` item,
 *   which goes back in the input and stands for everything before it.
 *
 * The fake's summary keeps each line of the user's messages that asks to be remembered, so a
 * test can tell what a compacted conversation still recalls. Its sealed fields (`encrypted_content`)
 * let it refuse a block or item it did not write, or one changed on the way back.
 */
import { createHash } from 'node:crypto';
import type { CacheUnit } from '../../src/providers/demo/promptCache';
import type { AnthropicRequest } from './anthropic';
import { countTokens } from './tokens';

type Json = Record<string, unknown>;

export const ANTHROPIC_COMPACTION_BETA = 'compact-2026-01-12';
const MIN_TRIGGER = 50_000;
const DEFAULT_TRIGGER = 150_000;

const isRecord = (value: unknown): value is Json => typeof value === 'object' && value !== null && !Array.isArray(value);

function seal(text: string): string {
  return createHash('sha256').update(`fake-compaction\u0000${text}`).digest('base64url').slice(0, 43);
}

/** Anthropic's opaque field beside the readable summary: a seal of it. */
export function sealAnthropicSummary(summary: string): string {
  return `cmp.${seal(summary)}`;
}

/** OpenAI's whole item is opaque: the summary travels inside its `encrypted_content`, sealed. */
export function sealOpenAISummary(summary: string): string {
  const body = Buffer.from(summary, 'utf8').toString('base64url');
  return `enc.${body}.${seal(summary)}`;
}

/** The summary an OpenAI compaction item stands for, or null when the fake did not write it as it is. */
export function openOpenAISummary(encrypted: unknown): string | null {
  if (typeof encrypted !== 'string') return null;
  const match = /^enc\.([A-Za-z0-9_-]*)\.([A-Za-z0-9_-]{43})$/.exec(encrypted);
  if (!match) return null;
  const summary = Buffer.from(match[1] as string, 'base64url').toString('utf8');
  return seal(summary) === match[2] ? summary : null;
}

/** What a user's messages say, as text (strings and text blocks; tool results are not the user's words). */
function userTexts(messages: readonly unknown[]): string[] {
  const out: string[] = [];
  for (const message of messages) {
    if (!isRecord(message) || message.role !== 'user') continue;
    const content = message.content;
    if (typeof content === 'string') out.push(content);
    else if (Array.isArray(content)) {
      for (const block of content) {
        if (isRecord(block) && (block.type === 'text' || block.type === 'input_text') && typeof block.text === 'string') out.push(block.text);
      }
    }
  }
  return out;
}

/**
 * The fake model's summary of `messages` (either wire shape): how much it read, every line of
 * the user's words with "remember" in it, and what the user asked last. `previous` is the summary
 * the messages opened with, whose remembered lines carry over.
 */
export function fakeSummary(messages: readonly unknown[], inputTokens: number, previous?: string): string {
  const remembered = new Set<string>();
  for (const line of (previous ?? '').split('\n')) if (line.startsWith('- ')) remembered.add(line.slice(2));
  const texts = userTexts(messages);
  for (const text of texts) {
    for (const line of text.split('\n')) if (/remember/i.test(line) && line.trim()) remembered.add(line.trim().slice(0, 300));
  }
  const last = (texts.at(-1) ?? '').replace(/\s+/g, ' ').slice(0, 200);
  return [
    '<summary>',
    `The conversation so far: ${messages.length} messages, ${inputTokens} tokens.`,
    remembered.size > 0 ? 'Things the user asked to remember:' : 'Nothing was asked to be remembered.',
    ...[...remembered].map((line) => `- ${line}`),
    `The user's latest request: ${last}`,
    '</summary>',
  ].join('\n');
}

export interface AnthropicCompactionAsk {
  /** Input tokens past which the request is compacted. */
  trigger: number;
}

export type AnthropicCompactionCheck =
  | {
      ok: true;
      /** The body with every block before the newest compaction block left out: what the model reads. */
      body: Json;
      /** The request asks for compaction (null: it does not). */
      ask: AnthropicCompactionAsk | null;
      /** The summary the request opens with, if it sends one back. */
      previous?: string;
      /** The beta is on: every answer reports `usage.iterations`. */
      beta: boolean;
    }
  | { ok: false; message: string };

/**
 * Checks a Messages request's compaction parts against `betas` (the `anthropic-beta` header's
 * values) and cuts the body at the newest compaction block it sends back.
 */
export function checkAnthropicCompaction(body: Json, betas: readonly string[]): AnthropicCompactionCheck {
  const beta = betas.includes(ANTHROPIC_COMPACTION_BETA);
  let ask: AnthropicCompactionAsk | null = null;
  const management = body.context_management;
  if (management !== undefined && management !== null) {
    if (!isRecord(management)) return { ok: false, message: 'context_management: Input should be a valid dictionary' };
    const edits = management.edits;
    if (edits !== undefined && !Array.isArray(edits)) return { ok: false, message: 'context_management.edits: Input should be a valid list' };
    for (const [i, edit] of ((edits as unknown[] | undefined) ?? []).entries()) {
      if (!isRecord(edit) || edit.type !== 'compact_20260112') continue;
      const path = `context_management.edits.${i}`;
      if (!beta) return { ok: false, message: `${path}: compact_20260112 requires the beta header "${ANTHROPIC_COMPACTION_BETA}"` };
      let trigger = DEFAULT_TRIGGER;
      if (edit.trigger !== undefined && edit.trigger !== null) {
        const t = edit.trigger;
        if (!isRecord(t) || t.type !== 'input_tokens') return { ok: false, message: `${path}.trigger.type: Input should be 'input_tokens'` };
        if (typeof t.value !== 'number' || !Number.isInteger(t.value)) return { ok: false, message: `${path}.trigger.value: Input should be a valid integer` };
        if (t.value < MIN_TRIGGER) return { ok: false, message: `${path}.trigger.value: Input should be greater than or equal to ${MIN_TRIGGER}` };
        trigger = t.value;
      }
      if (edit.instructions !== undefined && edit.instructions !== null && typeof edit.instructions !== 'string') {
        return { ok: false, message: `${path}.instructions: Input should be a valid string` };
      }
      ask = { trigger };
    }
  }

  const messages = Array.isArray(body.messages) ? (body.messages as unknown[]) : [];
  let cut: { message: number; block: number; summary: string } | null = null;
  for (const [i, message] of messages.entries()) {
    if (!isRecord(message) || !Array.isArray(message.content)) continue;
    for (const [j, block] of (message.content as unknown[]).entries()) {
      if (!isRecord(block) || block.type !== 'compaction') continue;
      const path = `messages.${i}.content.${j}`;
      if (!beta) return { ok: false, message: `${path}: compaction blocks require the beta header "${ANTHROPIC_COMPACTION_BETA}"` };
      if (message.role !== 'assistant') return { ok: false, message: `${path}: \`compaction\` blocks can only be in \`assistant\` messages` };
      if (block.content === null || block.content === undefined) continue; // a failed compaction: a no-op
      if (typeof block.content !== 'string' || block.content === '')
        return { ok: false, message: `${path}.compaction.content: String should have at least 1 character` };
      if (block.encrypted_content !== sealAnthropicSummary(block.content))
        return { ok: false, message: `${path}: Invalid \`encrypted_content\` in \`compaction\` block` };
      cut = { message: i, block: j, summary: block.content };
    }
  }
  if (!cut) return { ok: true, body, ask, beta };
  const opening = messages[cut.message] as Json;
  const kept = [{ ...opening, content: (opening.content as unknown[]).slice(cut.block) }, ...messages.slice(cut.message + 1)];
  return { ok: true, body: { ...body, messages: kept }, ask, previous: cut.summary, beta };
}

/** `context_management` of a Responses request: the compaction threshold, or null when none is asked. */
export function checkResponsesCompaction(body: Json): { ok: true; threshold: number | null } | { ok: false; message: string; param: string } {
  const management = body.context_management;
  if (management === undefined || management === null) return { ok: true, threshold: null };
  if (!Array.isArray(management)) return { ok: false, message: "Invalid type for 'context_management': expected an array.", param: 'context_management' };
  let threshold: number | null = null;
  for (const [i, entry] of (management as unknown[]).entries()) {
    if (!isRecord(entry) || entry.type !== 'compaction') {
      return {
        ok: false,
        message: `Invalid value for 'context_management[${i}].type': only 'compaction' is supported.`,
        param: `context_management[${i}].type`,
      };
    }
    const value = entry.compact_threshold;
    if (value !== undefined && value !== null && (typeof value !== 'number' || !Number.isInteger(value) || value < 1)) {
      return {
        ok: false,
        message: `Invalid 'context_management[${i}].compact_threshold': expected a positive integer.`,
        param: `context_management[${i}].compact_threshold`,
      };
    }
    threshold = typeof value === 'number' ? value : DEFAULT_TRIGGER;
  }
  return { ok: true, threshold };
}

/** Tokens of a summary as the model reads it when it comes back. */
export function summaryTokens(summary: string): number {
  return countTokens(summary);
}

/**
 * What the model reads once it has compacted `request`: the tools and system prompt as they
 * were (still a cacheable prefix), then the summary alone.
 */
export function compactedAnthropicRequest(request: AnthropicRequest, summary: string): AnthropicRequest {
  const fixed = request.units.filter((unit) => unit.material.startsWith('{"tool"') || unit.material.startsWith('{"system"'));
  const opening: CacheUnit = { tokens: FRAMING_TOKENS + countTokens(summary), material: JSON.stringify({ compaction: summary }), breakpoint: null };
  const units = [...fixed, opening];
  return { ...request, units, inputTokens: units.reduce((sum, unit) => sum + unit.tokens, 0) };
}

/** Token cost of a message's role framing, as the Anthropic fake charges it. */
const FRAMING_TOKENS = 3;
