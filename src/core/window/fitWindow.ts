/**
 * The planner's last rule, after any strategy's own: a request never holds more input than
 * the model accepts. A strategy's rule can leave too much (a message cap on a small window,
 * two-tier's fixed thresholds above a small window); then the oldest turns it kept after the
 * head go too, whole, until the request is under the max input tokens by the estimate's
 * margin, and the plan's trigger says how many and why.
 */
import { SUMMARY_MAX_TOKENS } from '../summary';
import { isEvictable, newestSendable, summarySlotReserve } from './strategyKit';
import { UnitFlag, type HistoryView, type Selection, type SlotRequest } from './types';

const { Sendable: SENDABLE, Pinned: PINNED, Prefix: PREFIX } = UnitFlag;

/** Tokens to allow for what stands in for the evicted messages. */
function slotAllowance(view: HistoryView, slot: SlotRequest | null): number {
  if (!slot) return 0;
  if (slot.kind === 'marker') return view.markerTokens();
  return summarySlotReserve(view, slot.source === 'llm' ? slot.maxTokens : SUMMARY_MAX_TOKENS);
}

/**
 * `selection`, with the oldest kept turns after the head evicted while the request is over
 * `view.fitInputTokens` (the max input tokens less the estimate's margin).
 */
export function fitToMaxInput(view: HistoryView, selection: Selection): Selection {
  const limit = view.fitInputTokens;
  if (view.fullInputTokens <= limit) return selection;
  let tokens = view.systemTokens + view.draftTokens + slotAllowance(view, selection.slot);
  for (let u = 0; u < view.unitCount; u++) {
    const flags = view.unitFlags[u] as number;
    if (!(flags & SENDABLE)) continue;
    if (flags & (PINNED | PREFIX) || selection.evict[u] === null) tokens += view.unitTokens[u] as number;
  }
  if (tokens <= limit) return selection;
  const evict = [...selection.evict];
  const newest = newestSendable(view);
  let removed = 0;
  for (let u = view.headEnd; u < newest && tokens > limit; u++) {
    if (!isEvictable(view, u) || evict[u] !== null) continue;
    evict[u] = 'token-budget';
    tokens -= view.unitTokens[u] as number;
    removed += view.unitMessages[u] as number;
  }
  if (removed === 0) return selection;
  const why = `${removed} more message${removed === 1 ? '' : 's'} left out to fit the model's ${view.maxInputTokens} max input tokens`;
  return {
    ...selection,
    evict,
    trigger: selection.trigger ? `${selection.trigger}; ${why}` : why,
  };
}
