/**
 * Anthropic's "preserved thinking" (build-with-claude/preserved-thinking and its "Prefix checks
 * on thinking blocks" page, read 2026-11-29): on the models that run the prefix check, a
 * thinking block sent back is valid only when everything before it (the top-level `system`,
 * `tools`, and every message and block before it) is what was sent when the block was
 * written. The first block that fails makes the request a 400 with the documented message
 * (the default for accounts created since 2026-08-31), unless the request sets
 * `thinking.block_binding.prefix_mismatch_behavior` to "drop_block".
 *
 * The fake binds a block to its prefix by sealing the prefix's hash in the signature it
 * issues (replies.ts), and compares the prefix as it stands when the block comes back. The
 * prefix is compared as content: `cache_control` markers, and a string against the same text
 * as one text block, are not changes.
 */
import { createHash } from 'node:crypto';

/** The models whose page lists them under "Prefix checks on thinking blocks". */
export const PREFIX_CHECKED_MODELS: ReadonlySet<string> = new Set([
  'claude-fable-5-2',
  'claude-fable-5-1',
  'claude-opus-5-5',
  'claude-sonnet-5-5',
  'claude-haiku-5-5',
]);

type Json = Record<string, unknown>;
const isRecord = (value: unknown): value is Json => typeof value === 'object' && value !== null && !Array.isArray(value);

/** A block as content: its `cache_control` is not part of it. */
function contentOf(block: unknown): unknown {
  if (!isRecord(block)) return block;
  const rest: Json = {};
  for (const [key, value] of Object.entries(block)) if (key !== 'cache_control') rest[key] = key === 'content' ? blocksOf(value) : value;
  return rest;
}

function blocksOf(content: unknown): unknown[] {
  if (typeof content === 'string') return [{ type: 'text', text: content }];
  return Array.isArray(content) ? content.map(contentOf) : [];
}

function systemText(system: unknown): string {
  if (typeof system === 'string') return system;
  return Array.isArray(system) ? system.map((b) => (isRecord(b) && typeof b.text === 'string' ? b.text : '')).join('') : '';
}

/** The hash of what comes before block `blockIndex` of message `messageIndex` (the whole request: messages.length, 0). */
export function prefixHash(body: Json, messageIndex: number, blockIndex: number): string {
  const messages = Array.isArray(body.messages) ? body.messages : [];
  const before = messages.slice(0, messageIndex).map((m) => (isRecord(m) ? { role: m.role, content: blocksOf(m.content) } : m));
  const current = messages[messageIndex];
  const partial = isRecord(current) ? blocksOf(current.content).slice(0, blockIndex) : [];
  const tools = Array.isArray(body.tools) ? body.tools.map(contentOf) : [];
  return createHash('sha256')
    .update(JSON.stringify([systemText(body.system), tools, before, partial]))
    .digest('base64');
}

/** The documented 400 for a block whose prefix changed. */
export function boundElsewhere(messageIndex: number, blockIndex: number): string {
  return (
    `messages.${messageIndex}.content.${blockIndex}: Invalid \`signature\` in \`thinking\` block. The block is bound to a different conversation. ` +
    'Remove the block, or set `thinking.block_binding.prefix_mismatch_behavior` to "drop_block".'
  );
}
