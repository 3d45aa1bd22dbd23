/**
 * `auto`, the app's default: token-aware against the model's real window and the user's
 * budget, with the message cap as a second limit, trimming in whole turns with hysteresis
 * so the request's prefix stays byte-identical between trims (prompt caches keep hitting).
 */
import { ConfigError } from '../errors';
import { MIN_EVICTED_FOR_SUMMARY, SUMMARY_MAX_TOKENS } from '../summary';
import { booleanOption, ratioOption, wholeOption } from './options';
import { UnitFlag, type ContextStrategy, type EvictionReason, type HistoryView, type Selection, type ToolResultClearing } from './types';
import { keepEverything, summaryOrMarker, summarySlotReserve } from './strategyKit';
import {
  CLEARING_DEFAULTS,
  clearingCandidates,
  clearingOptions,
  clearNext,
  collectClearing,
  newClearingCursor,
  type ClearingCandidates,
  type ClearingOptions,
} from './toolClearing';

// Read once (see historyView.ts): the replay tests these bits for every unit.
const { Sendable: SENDABLE, Pinned: PINNED, Prefix: PREFIX, TurnStart: TURN_START } = UnitFlag;

/** `auto`'s knobs after defaults (see {@link autoStrategy}). */
export interface AutoOptions extends ClearingOptions {
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
  /** Trim when the request would exceed this: min(max input tokens × windowShare, budgetTokens − output reserve). */
  highWaterTokens: number;
  /** A trim evicts whole turns until the request is at or under this: highWaterTokens × lowWater. */
  lowWaterTokens: number;
  /** The message cap (Infinity when off). */
  highWaterMessages: number;
  /** Messages left after a trim forced by the cap. */
  lowWaterMessages: number;
}

/**
 * The high- and low-water marks of `auto` for a model's max input tokens (the window minus
 * the answer's reserve), that reserve and the options. The user's budget is for the whole
 * request, so the reserve comes out of it.
 */
export function autoLimits(maxInputTokens: number, outputReserve: number, o: AutoOptions): AutoLimits {
  const share = Math.floor(maxInputTokens * o.windowShare);
  const highWaterTokens = Math.max(0, o.budgetTokens > 0 ? Math.min(share, o.budgetTokens - outputReserve) : share);
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
 * high-water mark, old tool results are cleared (oldest first, the newest
 * `keepToolResults` and the newest unit's kept) and then, while that is not enough, whole
 * turns are evicted from the oldest end, until it is at or under the low-water mark (a
 * crossing of the message cap evicts for messages first: clearing does not shorten the
 * request). The boundary and the cleared results only ever move forward and only when a
 * mark is crossed, so appending messages that stay under the high-water mark keeps every
 * kept message — and the marker or summary before them — exactly as it was. Only when the
 * current turn alone is too big does the cut go inside it, unit by unit (never splitting a
 * tool exchange), keeping the turn's opening user message. Each unit enters and leaves the
 * kept range once and each tool result is considered for clearing once: linear.
 */
function replay(
  view: HistoryView,
  o: AutoOptions,
  limits: AutoLimits,
): { evict: Array<EvictionReason | null>; trimmed: boolean; cleared: ToolResultClearing | null } {
  const evict = keepEverything(view);
  const count = view.unitCount;
  const headEnd = view.headEnd;
  // Tokens of each unit as it is now: clearing lowers them.
  const tokens = view.unitTokens.slice();
  const messages = view.unitMessages;
  const flags = view.unitFlags;

  let fixedTokens = view.systemTokens;
  let fixedMessages = 0;
  for (let u = 0; u < headEnd; u++) {
    if (!((flags[u] as number) & SENDABLE)) continue;
    fixedTokens += tokens[u] as number;
    if (!((flags[u] as number) & PREFIX)) fixedMessages += messages[u] as number;
  }
  const slotTokens = o.summarize ? summarySlotReserve(view, o.summaryMaxTokens) : o.marker ? view.markerTokens() : 0;

  // nextTurn[u]: first turn start after u; nextUnit[u]: first sendable unit after u (count when none).
  const nextTurn = new Int32Array(count + 1);
  const nextUnit = new Int32Array(count + 1);
  nextTurn[count] = count;
  nextUnit[count] = count;
  for (let u = count - 1; u >= 0; u--) {
    const after = u + 1;
    const afterSendable = after < count && ((flags[after] as number) & SENDABLE) !== 0;
    nextUnit[u] = afterSendable ? after : (nextUnit[after] as number);
    nextTurn[u] = afterSendable && (flags[after] as number) & TURN_START ? after : (nextTurn[after] as number);
  }

  const { highWaterTokens: highTokens, lowWaterTokens: lowTokens, highWaterMessages: highMessages, lowWaterMessages: lowMessages } = limits;
  // All state in plain locals (no closures): this loop runs once per unit of every plan.
  let cut = headEnd; // first unit of the kept suffix
  let suffixTokens = 0;
  let suffixMessages = 0;
  let asideTokens = 0; // pinned units behind the cut
  let asideMessages = 0;
  let turnHead = -1; // opening unit of the current turn, kept while the cut is inside that turn
  let currentTurn = -1; // newest turn start seen, -1 while still in the head's turn
  let newest = -1;
  let evictedAny = false;
  let candidates: ClearingCandidates | null = null; // found on the first clearing
  const cursor = newClearingCursor();
  // Step k appends unit k; the extra last step adds the draft being typed.
  for (let k = headEnd; k <= count; k++) {
    let extra = 0;
    if (k < count) {
      const f = flags[k] as number;
      if (!(f & SENDABLE)) continue;
      newest = k;
      if (f & TURN_START) currentTurn = k;
      suffixTokens += tokens[k] as number;
      suffixMessages += messages[k] as number;
    } else {
      if (view.draftTokens <= 0 || newest < 0) break;
      extra = view.draftTokens;
    }
    let head = turnHead;
    let total = fixedTokens + asideTokens + (head >= 0 ? (tokens[head] as number) : 0) + suffixTokens + (evictedAny ? slotTokens : 0) + extra;
    let kept = fixedMessages + asideMessages + (head >= 0 ? (messages[head] as number) : 0) + suffixMessages;
    if (total <= highTokens && kept <= highMessages) continue;
    const reason: EvictionReason = total > highTokens ? 'token-budget' : 'message-cap';
    let cutStuck = false; // the cut has reached the newest unit
    while (total > lowTokens || kept > lowMessages) {
      // Clearing first, unless the message cap must be met (only evicting shortens the request).
      if (o.clearToolResults && total > lowTokens && (kept <= lowMessages || cutStuck)) {
        candidates ??= clearingCandidates(view);
        const c = clearNext(view, candidates, cursor, cut, newest, o.keepToolResults);
        if (c >= 0) {
          const saving = candidates.saving[c] as number;
          const u = candidates.unit[c] as number;
          tokens[u] = (tokens[u] as number) - saving;
          suffixTokens -= saving;
          total -= saving;
          continue;
        }
      }
      if (cutStuck) break;
      // One step: a whole turn while the cut is behind the current turn, else one unit.
      const wholeTurns = currentTurn >= 0 && cut < currentTurn;
      const next = wholeTurns ? Math.min(nextTurn[cut] as number, currentTurn) : (nextUnit[cut] as number);
      if (next > newest) {
        cutStuck = true;
        continue;
      }
      if (wholeTurns && turnHead >= 0) {
        evict[turnHead] = reason;
        evictedAny = true;
        turnHead = -1;
      }
      for (let u = cut; u < next; u++) {
        const f = flags[u] as number;
        if (!(f & SENDABLE)) continue;
        suffixTokens -= tokens[u] as number;
        suffixMessages -= messages[u] as number;
        if (f & PINNED) {
          asideTokens += tokens[u] as number;
          asideMessages += messages[u] as number;
        } else if (!wholeTurns && u === currentTurn) {
          turnHead = u;
        } else {
          evict[u] = reason;
          evictedAny = true;
        }
      }
      cut = next;
      head = turnHead;
      total = fixedTokens + asideTokens + (head >= 0 ? (tokens[head] as number) : 0) + suffixTokens + (evictedAny ? slotTokens : 0) + extra;
      kept = fixedMessages + asideMessages + (head >= 0 ? (messages[head] as number) : 0) + suffixMessages;
    }
  }
  return { evict, trimmed: evictedAny, cleared: candidates ? collectClearing(view, candidates, (u) => evict[u] !== null) : null };
}

/**
 * `auto` (the default). Limits: input tokens at most min(window × `windowShare` (0.8),
 * `budgetTokens` (the user's per-request budget; 0 = none)) minus the output reserve, and at
 * most `maxMessages` (100; 0 = none) conversation messages. Crossing either high-water mark
 * evicts whole turns, oldest first, down to `lowWater` (60 %) of both, so most requests
 * reuse the previous request's prefix. Before any turn is evicted for tokens, old tool
 * results are cleared (`clearToolResults`, on; the newest `keepToolResults`, 3, kept): their
 * content is sent as a placeholder naming the call. Always kept: the system prompt, the first user
 * message (the goal), pinned messages, the current turn's opening message and the newest
 * message. The evicted turns are replaced by the truncation marker, or with `summarize` by
 * one summary that extends the previous one (at most one per 10 evicted messages).
 */
export const autoStrategy: ContextStrategy<AutoOptions> = {
  label: 'Automatic (recommended): token budget + count cap, cache-friendly',
  fitsWindow: false,
  defaults: {
    budgetTokens: 0,
    windowShare: 0.8,
    lowWater: 0.6,
    maxMessages: 100,
    summarize: false,
    marker: true,
    summaryMaxTokens: SUMMARY_MAX_TOKENS,
    minEvictedForSummary: MIN_EVICTED_FOR_SUMMARY,
    ...CLEARING_DEFAULTS,
    keepPinned: true,
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
      ...clearingOptions(options),
    };
  },
  select(view, o): Selection {
    const limits = autoLimits(view.maxInputTokens, view.outputReserve, o);
    const caps = {
      maxInputTokens: limits.highWaterTokens,
      ...(o.maxMessages > 0 ? { maxMessages: o.maxMessages } : {}),
    };
    const marks = { trigger: limits.highWaterTokens + view.outputReserve, target: limits.lowWaterTokens + view.outputReserve };
    if (view.firstUserUnit < 0) return { evict: keepEverything(view), slot: null, trigger: null, caps, marks };
    const { evict, trimmed, cleared } = replay(view, o, limits);
    const messageCap = Number.isFinite(limits.highWaterMessages) ? ` or ${limits.highWaterMessages} messages` : '';
    const messageLow = Number.isFinite(limits.lowWaterMessages) ? ` and ${limits.lowWaterMessages} messages` : '';
    return {
      evict,
      slot: summaryOrMarker(o),
      trigger: trimmed
        ? `whole turns trimmed at the high-water mark (${limits.highWaterTokens} tokens${messageCap}) down to ${limits.lowWaterTokens} tokens${messageLow}`
        : null,
      caps,
      marks,
      ...(cleared ? { cleared } : {}),
    };
  },
};
