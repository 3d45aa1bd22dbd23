/** Small building blocks the built-in strategies share. All linear in the number of units. */
import { UnitFlag, type EvictionReason, type HistoryView, type SlotRequest } from './types';

// Read once (see historyView.ts): these run once per unit.
const { Sendable: SENDABLE, Pinned: PINNED, Prefix: PREFIX, Summary: SUMMARY } = UnitFlag;

export type EvictList = Array<EvictionReason | null>;

/** Sendable and not protected (pinned units and the system prefix are never evicted). */
export function isEvictable(view: HistoryView, unit: number): boolean {
  const flags = view.unitFlags[unit] as number;
  return (flags & SENDABLE) !== 0 && (flags & (PINNED | PREFIX)) === 0;
}

/** A selection that evicts nothing. */
export function keepEverything(view: HistoryView): EvictList {
  return new Array<EvictionReason | null>(view.unitCount).fill(null);
}

/** Input tokens and counted messages of the head: system prompt, draft, prefix, leading summaries and the first user message. */
export function headTotals(view: HistoryView): { tokens: number; messages: number } {
  let tokens = view.systemTokens + view.draftTokens;
  let messages = 0;
  for (let u = 0; u < view.headEnd; u++) {
    const flags = view.unitFlags[u] as number;
    if (!(flags & SENDABLE)) continue;
    tokens += view.unitTokens[u] as number;
    if (!(flags & PREFIX)) messages += view.unitMessages[u] as number;
  }
  return { tokens, messages };
}

/** Tokens and messages of pinned sendable units at or after `from` (kept whatever the strategy does). */
export function pinnedTotals(view: HistoryView, from: number): { tokens: number; messages: number } {
  let tokens = 0;
  let messages = 0;
  for (let u = from; u < view.unitCount; u++) {
    const flags = view.unitFlags[u] as number;
    if (flags & SENDABLE && flags & PINNED) {
      tokens += view.unitTokens[u] as number;
      messages += view.unitMessages[u] as number;
    }
  }
  return { tokens, messages };
}

/** Index of the newest sendable unit, or -1. */
export function newestSendable(view: HistoryView): number {
  for (let u = view.unitCount - 1; u >= 0; u--) if ((view.unitFlags[u] as number) & SENDABLE) return u;
  return -1;
}

/**
 * Walks back from the newest unit to `from`, keeping evictable units while they fit in
 * `tokenRoom` and `messageRoom`, and stops at the first that does not (the kept tail is
 * contiguous). With `strict`, a unit fits only if room is left after it (the token-ratio
 * truncation's `remaining - tokens > 0`). The newest sendable unit is always kept. Returns the index of
 * the oldest kept unit: evictable units in `[from, result)` are the ones to evict.
 */
export function newestThatFit(view: HistoryView, from: number, tokenRoom: number, messageRoom: number, strict: boolean): number {
  const newest = newestSendable(view);
  let cut = view.unitCount;
  let tokensLeft = tokenRoom;
  let messagesLeft = messageRoom;
  for (let u = view.unitCount - 1; u >= from; u--) {
    if (!isEvictable(view, u)) continue;
    const tokens = view.unitTokens[u] as number;
    const messages = view.unitMessages[u] as number;
    const fits = (strict ? tokensLeft - tokens > 0 : tokensLeft - tokens >= 0) && messagesLeft - messages >= 0;
    if (!fits && u !== newest) break;
    tokensLeft -= tokens;
    messagesLeft -= messages;
    cut = u;
  }
  return Math.max(cut, from);
}

/** Marks evictable units in `[from, to)` with `reason`. */
export function evictBetween(view: HistoryView, evict: EvictList, from: number, to: number, reason: EvictionReason): number {
  let evicted = 0;
  for (let u = from; u < to; u++) {
    if (isEvictable(view, u)) {
      evict[u] = reason;
      evicted += view.unitMessages[u] as number;
    }
  }
  return evicted;
}

export function percent(ratio: number): string {
  return `${Math.round(ratio * 1000) / 10} %`;
}

/**
 * Tokens to reserve for a summary slot: the summary's `maxTokens`, or more when what may
 * stand in instead is bigger (a previous summary it falls back to, or the marker).
 */
export function summarySlotReserve(view: HistoryView, maxTokens: number): number {
  let reserve = Math.max(maxTokens, view.markerTokens());
  for (let u = view.headEnd; u < view.unitCount; u++) {
    const flags = view.unitFlags[u] as number;
    if (flags & SUMMARY && flags & SENDABLE) reserve = Math.max(reserve, view.unitTokens[u] as number);
  }
  return reserve;
}

/** What stands in for evicted messages under `summarize` / `marker` knobs: a concise summary, else the marker, else nothing. */
export function summaryOrMarker(o: { summarize: boolean; marker: boolean; summaryMaxTokens: number; minEvictedForSummary: number }): SlotRequest | null {
  if (o.summarize) return { kind: 'summary', source: 'llm', prompt: 'concise', maxTokens: o.summaryMaxTokens, minEvicted: o.minEvictedForSummary };
  return o.marker ? { kind: 'marker' } : null;
}
