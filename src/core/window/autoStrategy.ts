/**
 * `auto`, the app's default: token-aware against the model's real window and the user's
 * budget, with the message cap as a second limit, trimming in whole turns with hysteresis
 * so the request's prefix stays byte-identical between trims (prompt caches keep hitting).
 */
import { ConfigError } from '../errors';
import { MIN_EVICTED_FOR_SUMMARY, SUMMARY_MAX_TOKENS, truncationMarker } from '../summary';
import { booleanOption, ratioOption, wholeOption } from './options';
import { UnitFlag, type ContextStrategy, type EvictionReason, type HistoryView, type Selection } from './types';
import { hasFlag, keepEverything, MARKER_SIZING_COUNT, summarySlotReserve } from './strategyKit';

export interface AutoOptions {
  /** The user's per-request token budget, 0 for none. */
  budgetTokens: number;
  windowShare: number;
  lowWater: number;
  /** 0 disables the message cap. */
  maxMessages: number;
  summarize: boolean;
  marker: boolean;
  summaryMaxTokens: number;
  minEvictedForSummary: number;
}

/** The limits `auto` plans against, in input tokens (system + messages + draft) and conversation messages. */
export interface AutoLimits {
  /** Trim when the request would exceed this: min(window × windowShare, budgetTokens) − output reserve. */
  highWaterTokens: number;
  /** A trim evicts whole turns until the request is at or under this: highWaterTokens × lowWater. */
  lowWaterTokens: number;
  /** The message cap (Infinity when off). */
  highWaterMessages: number;
  /** Messages left after a trim forced by the cap. */
  lowWaterMessages: number;
}

/** The high- and low-water marks of `auto` for a model, output reserve and options. */
export function autoLimits(contextWindow: number, outputReserve: number, o: AutoOptions): AutoLimits {
  const share = Math.floor(contextWindow * o.windowShare);
  const budget = o.budgetTokens > 0 ? Math.min(share, o.budgetTokens) : share;
  const highWaterTokens = Math.max(0, budget - outputReserve);
  return {
    highWaterTokens,
    lowWaterTokens: Math.floor(highWaterTokens * o.lowWater),
    highWaterMessages: o.maxMessages > 0 ? o.maxMessages : Infinity,
    lowWaterMessages: o.maxMessages > 0 ? Math.floor(o.maxMessages * o.lowWater) : Infinity,
  };
}

/**
 * The plan's boundary is replayed from the history alone, so it is reproducible from
 * stored state and needs no memory of the previous plan: the units after the head are
 * appended one at a time, as the conversation grew; whenever the request would pass a
 * high-water mark, whole turns are evicted from the oldest end until it is at or under
 * the low-water mark. The boundary only ever moves forward and only when a mark is
 * crossed, so appending messages that stay under the high-water mark keeps every kept
 * message — and the marker or summary before them — exactly as it was. Only when the
 * current turn alone is too big does the cut go inside it, unit by unit (never splitting a
 * tool exchange), keeping the turn's opening user message. Each unit enters and leaves the
 * kept range once: linear.
 */
function replay(view: HistoryView, o: AutoOptions, limits: AutoLimits): { evict: Array<EvictionReason | null>; trimmed: boolean } {
  const evict = keepEverything(view);
  const count = view.unitCount;
  const headEnd = view.headEnd;
  const tokens = view.unitTokens;
  const messages = view.unitMessages;
  const sendable = (u: number) => hasFlag(view, u, UnitFlag.Sendable);

  let fixedTokens = view.systemTokens;
  let fixedMessages = 0;
  for (let u = 0; u < headEnd; u++) {
    if (!sendable(u)) continue;
    fixedTokens += tokens[u] as number;
    if (!hasFlag(view, u, UnitFlag.Prefix)) fixedMessages += messages[u] as number;
  }
  const slotTokens = o.summarize ? summarySlotReserve(view, o.summaryMaxTokens) : o.marker ? view.count(truncationMarker(MARKER_SIZING_COUNT)) : 0;

  // nextTurn[u]: first turn start after u; nextUnit[u]: first sendable unit after u (count when none).
  const nextTurn = new Int32Array(count + 1);
  const nextUnit = new Int32Array(count + 1);
  nextTurn[count] = count;
  nextUnit[count] = count;
  for (let u = count - 1; u >= 0; u--) {
    const after = u + 1;
    const afterSendable = after < count && sendable(after);
    nextUnit[u] = afterSendable ? after : (nextUnit[after] as number);
    nextTurn[u] = afterSendable && hasFlag(view, after, UnitFlag.TurnStart) ? after : (nextTurn[after] as number);
  }

  let cut = headEnd;
  let suffixTokens = 0;
  let suffixMessages = 0;
  let keptAsideTokens = 0; // pinned units behind the cut
  let keptAsideMessages = 0;
  let turnHead = -1; // opening unit of the current turn, kept while the cut is inside that turn
  let currentTurn = -1; // newest turn start seen, -1 while still in the head's turn
  let evictedAny = false;
  let reason: EvictionReason = 'token-budget';

  const inputTokens = (extra: number) =>
    fixedTokens + keptAsideTokens + (turnHead >= 0 ? (tokens[turnHead] as number) : 0) + suffixTokens + (evictedAny ? slotTokens : 0) + extra;
  const keptMessages = () => fixedMessages + keptAsideMessages + (turnHead >= 0 ? (messages[turnHead] as number) : 0) + suffixMessages;

  const drop = (u: number) => {
    if (hasFlag(view, u, UnitFlag.Pinned)) {
      keptAsideTokens += tokens[u] as number;
      keptAsideMessages += messages[u] as number;
    } else {
      evict[u] = reason;
      evictedAny = true;
    }
  };

  /** Moves the cut one step (a whole turn, or one unit inside the current turn). False when only the newest unit is left. */
  const advance = (newest: number): boolean => {
    const wholeTurns = currentTurn >= 0 && cut < currentTurn;
    const next = wholeTurns ? Math.min(nextTurn[cut] as number, currentTurn) : (nextUnit[cut] as number);
    if (next > newest) return false;
    if (wholeTurns && turnHead >= 0) {
      drop(turnHead);
      turnHead = -1;
    }
    for (let u = cut; u < next; u++) {
      if (!sendable(u)) continue;
      suffixTokens -= tokens[u] as number;
      suffixMessages -= messages[u] as number;
      if (!wholeTurns && u === currentTurn && !hasFlag(view, u, UnitFlag.Pinned)) turnHead = u;
      else drop(u);
    }
    cut = next;
    return true;
  };

  const trimIfOver = (newest: number, extra: number) => {
    const tokensNow = inputTokens(extra);
    if (tokensNow <= limits.highWaterTokens && keptMessages() <= limits.highWaterMessages) return;
    reason = tokensNow > limits.highWaterTokens ? 'token-budget' : 'message-cap';
    while ((inputTokens(extra) > limits.lowWaterTokens || keptMessages() > limits.lowWaterMessages) && advance(newest));
  };

  let newest = -1;
  for (let u = headEnd; u < count; u++) {
    if (!sendable(u)) continue;
    newest = u;
    if (hasFlag(view, u, UnitFlag.TurnStart)) currentTurn = u;
    suffixTokens += tokens[u] as number;
    suffixMessages += messages[u] as number;
    trimIfOver(u, 0);
  }
  if (view.draftTokens > 0 && newest >= 0) trimIfOver(newest, view.draftTokens);
  return { evict, trimmed: evictedAny };
}

/**
 * `auto` (the default). Limits: input tokens at most min(window × `windowShare` (0.8),
 * `budgetTokens` (the user's per-request budget; 0 = none)) minus the output reserve, and at
 * most `maxMessages` (100; 0 = none) conversation messages. Crossing either high-water mark
 * evicts whole turns, oldest first, down to `lowWater` (60 %) of both, so most requests
 * reuse the previous request's prefix. Always kept: the system prompt, the first user
 * message (the goal), pinned messages, the current turn's opening message and the newest
 * message. The evicted turns are replaced by the truncation marker, or with `summarize` by
 * one summary that extends the previous one (at most one per 10 evicted messages).
 */
export const autoStrategy: ContextStrategy<AutoOptions> = {
  description:
    'Default: trims whole turns when the request passes min(80 % of the window, your budget) minus the answer reserve, or 100 messages, down to 60 % — so the sent prefix stays the same between trims and prompt caching keeps working. Keeps the goal, pinned and newest messages.',
  defaults: {
    budgetTokens: 0,
    windowShare: 0.8,
    lowWater: 0.6,
    maxMessages: 100,
    summarize: false,
    marker: true,
    summaryMaxTokens: SUMMARY_MAX_TOKENS,
    minEvictedForSummary: MIN_EVICTED_FOR_SUMMARY,
  },
  resolveOptions(options) {
    const lowWater = ratioOption(options, 'lowWater', 0.6);
    if (lowWater >= 1) throw new ConfigError('lowWater', 'lowWater must be below 1, or every trim would evict a turn per request');
    return {
      budgetTokens: wholeOption(options, 'budgetTokens', 0),
      windowShare: ratioOption(options, 'windowShare', 0.8),
      lowWater,
      maxMessages: wholeOption(options, 'maxMessages', 100),
      summarize: booleanOption(options, 'summarize', false),
      marker: booleanOption(options, 'marker', true),
      summaryMaxTokens: wholeOption(options, 'summaryMaxTokens', SUMMARY_MAX_TOKENS, 1),
      minEvictedForSummary: wholeOption(options, 'minEvictedForSummary', MIN_EVICTED_FOR_SUMMARY),
    };
  },
  select(view, o): Selection {
    const limits = autoLimits(view.model.contextWindow, view.outputReserve, o);
    const caps = {
      maxInputTokens: limits.highWaterTokens,
      ...(o.maxMessages > 0 ? { maxMessages: o.maxMessages } : {}),
    };
    if (view.firstUserUnit < 0) return { evict: keepEverything(view), slot: null, trigger: null, caps };
    const { evict, trimmed } = replay(view, o, limits);
    const messageCap = Number.isFinite(limits.highWaterMessages) ? ` or ${limits.highWaterMessages} messages` : '';
    const messageLow = Number.isFinite(limits.lowWaterMessages) ? ` and ${limits.lowWaterMessages} messages` : '';
    return {
      evict,
      slot: o.summarize
        ? { kind: 'summary', source: 'llm', prompt: 'concise', maxTokens: o.summaryMaxTokens, minEvicted: o.minEvictedForSummary }
        : o.marker
          ? { kind: 'marker' }
          : null,
      trigger: trimmed
        ? `whole turns trimmed at the high-water mark (${limits.highWaterTokens} tokens${messageCap}) down to ${limits.lowWaterTokens} tokens${messageLow}`
        : null,
      caps,
    };
  },
};
