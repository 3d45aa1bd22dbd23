/**
 * Compaction on the provider's side: which models offer it, when a request asks for it, and
 * which stored answer's compaction a request opens with. Read 2026-11-29:
 * - Anthropic, Claude Platform Docs “Compaction”: `context_management.edits` with
 *   `compact_20260112` under the beta header `compact-2026-01-12`; `trigger` in input tokens,
 *   150,000 by default and at least 50,000; the `compaction` block opens the answer and must go
 *   back, and the API ignores every block before it; a compaction's own usage is an entry of
 *   `usage.iterations`, billed on top of the top-level usage; with tools defined, the
 *   summarizing step may call a tool instead of writing, unless `instructions` say not to.
 * - OpenAI, API docs “Compaction”: the Responses API's `context_management` with
 *   `{ type: "compaction", compact_threshold }`; the `compaction` output item is opaque
 *   (encrypted) and goes back in the input, and items before the newest one may be dropped.
 */
import type { CompactionBlock, ProviderId, StoredMessage } from './conversation';

/** The beta header Anthropic's compaction needs, on every request that asks for it or sends a compaction block back. */
export const COMPACTION_BETA = 'compact-2026-01-12';

/** Anthropic's smallest trigger, in input tokens. */
export const MIN_COMPACTION_TRIGGER = 50_000;

/**
 * The trigger Windowpane asks for when the window allows it: lower than Anthropic's own
 * default of 150,000. In the 300-turn session benchmark (`npm run bench sessionCost`) it costs
 * 0.13× a rolling window against 0.16× at 150,000, with half the compactions of the 50,000
 * minimum (each compaction loses detail).
 */
export const DEFAULT_COMPACTION_TRIGGER = 100_000;

/**
 * The share of the window's input a trigger may reach, so the request that crosses it still
 * fits with the turn that pushed it there.
 */
const TRIGGER_SHARE = 0.8;

/**
 * Anthropic's models with compaction, as the “Compaction” page lists them (the newest version the
 * search reached, read 2026-11-29, lists no 5.5 model). Its models endpoint states it per model
 * for the key, and that wins once the key's models are listed (`compactsOnProvider`).
 */
const ANTHROPIC_COMPACTION_MODELS = [
  'claude-fable-5',
  'claude-mythos-5',
  'claude-mythos-preview',
  'claude-opus-5',
  'claude-opus-4-8',
  'claude-opus-4-7',
  'claude-opus-4-6',
  'claude-sonnet-5',
  'claude-sonnet-4-6',
];

/**
 * Whether `modelId` on `provider` compacts on its side. Anthropic: what its models endpoint
 * `stated` for the key (`ModelInfo.providerCompaction`), else the models the documentation
 * lists (an id that only starts like one, such as `claude-fable-5-1`, is another model and is
 * not assumed to); OpenAI: its own endpoint (the Responses API), every model. Compatible servers
 * and the Demo: none.
 */
export function compactsOnProvider(provider: ProviderId, modelId: string, stated?: boolean): boolean {
  if (provider === 'openai') return true;
  if (provider !== 'anthropic') return false;
  if (stated !== undefined) return stated;
  return ANTHROPIC_COMPACTION_MODELS.some((id) => modelId === id || (modelId.startsWith(`${id}-`) && /^\d{8}$/.test(modelId.slice(id.length + 1))));
}

/**
 * The trigger a request asks for, in input tokens: {@link DEFAULT_COMPACTION_TRIGGER}, lowered
 * to 80 % of what the window lets a request hold; undefined when that is under
 * {@link MIN_COMPACTION_TRIGGER} (the window is too small for the provider to compact).
 */
export function compactionTrigger(maxInputTokens: number, wanted = DEFAULT_COMPACTION_TRIGGER): number | undefined {
  const trigger = Math.min(Math.max(wanted, MIN_COMPACTION_TRIGGER), Math.floor(maxInputTokens * TRIGGER_SHARE));
  return trigger >= MIN_COMPACTION_TRIGGER ? trigger : undefined;
}

/** The compaction block of `message` that `provider` can read, if any (the last one, should there be several). */
export function compactionOf(message: StoredMessage, provider: 'anthropic' | 'openai'): CompactionBlock | undefined {
  if (message.role !== 'assistant') return undefined;
  let found: CompactionBlock | undefined;
  for (const block of message.content) if (block.type === 'compaction' && block.provider === provider) found = block;
  return found;
}

/**
 * Index in `messages` (request order) of the answer whose compaction the request opens with:
 * the newest one `provider` can read, or -1. Everything before it is what the provider compacted.
 */
export function compactionCut(messages: readonly StoredMessage[], provider: 'anthropic' | 'openai'): number {
  for (let i = messages.length - 1; i >= 0; i--) if (compactionOf(messages[i] as StoredMessage, provider)) return i;
  return -1;
}

/** A provider's fields kept to be sent back: JSON values only (what a structured clone and an export keep). */
export function jsonFields(fields: Record<string, unknown>): Record<string, unknown> {
  try {
    const copy: unknown = JSON.parse(JSON.stringify(fields));
    return typeof copy === 'object' && copy !== null && !Array.isArray(copy) ? (copy as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}
