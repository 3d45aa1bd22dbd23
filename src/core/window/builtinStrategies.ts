/**
 * The built-in trimming strategies other than `auto`, each with its own defaults. Common to all:
 * units are kept or evicted whole (a tool call with its results, the wire messages of one
 * stored message), pinned messages and the leading system prompt are never evicted, the
 * newest message is always kept, and message caps count conversation messages, not the
 * system prompt or the marker / summary that stands in for evicted ones.
 */
import { ConfigError } from '../errors';
import { MIN_EVICTED_FOR_SUMMARY, STRUCTURED_SUMMARY_MAX_TOKENS, SUMMARY_MAX_TOKENS } from '../summary';
import { countKeptRanges } from './countCut';
import { booleanOption, ratioOption, wholeOption } from './options';
import { chars4 } from '../tokens/chars4';
import { UnitFlag, type ContextStrategy, type HistoryView, type PlanItem, type Selection, type StrategyOptions, type ToolResultClearing } from './types';
import {
  evictBetween,
  headTotals,
  isEvictable,
  keepEverything,
  newestSendable,
  newestThatFit,
  percent,
  pinnedTotals,
  summaryOrMarker,
  summarySlotReserve,
} from './strategyKit';
import { CLEARING_OFF, clearingOptions, replayClearing, withClearing, type ClearingMarks, type ClearingOptions } from './toolClearing';
import { evictKeepingRecentFiles, goalText, PRESERVE_RECENT_FILES } from './recentFiles';

// Read once (see historyView.ts): the strategies test these bits for every unit.
const { Sendable: SENDABLE, Prefix: PREFIX } = UnitFlag;

function unchanged(view: HistoryView, caps: Selection['caps']): Selection {
  return { evict: keepEverything(view), slot: null, trigger: null, caps };
}

/**
 * Old tool results cleared at `marks` (when the strategy clears), and the view the strategy
 * then plans its evictions on: whole units go only when clearing was not enough.
 */
function clearFirst(view: HistoryView, o: ClearingOptions, marks: Omit<ClearingMarks, 'keep'>): { view: HistoryView; clearing: ToolResultClearing | null } {
  // Clearing comes before any eviction, the window fit's included: never above what the fit plans to.
  const high = Math.min(marks.high, view.fitInputTokens);
  const clearing = o.clearToolResults ? replayClearing(view, { high, low: Math.min(marks.low, high), keep: o.keepToolResults }) : null;
  return { view: withClearing(view, clearing), clearing };
}

/** Input-token marks as request sizes (plus the answer's reserve), never past the window. */
function requestMarks(view: HistoryView, trigger: number, target: number): NonNullable<Selection['marks']> {
  const window = view.model.contextWindow;
  return { trigger: Math.min(window, trigger + view.outputReserve), target: Math.min(window, target + view.outputReserve) };
}

/** The selection with the tool results cleared (if any) and the token marks it trims at. */
function withCleared(selection: Selection, clearing: ToolResultClearing | null, marks: Selection['marks']): Selection {
  return clearing ? { ...selection, marks, cleared: clearing } : { ...selection, marks };
}

/** `off`: sends everything; only the window itself is a limit (flagged, never silently exceeded). */
export const offStrategy: ContextStrategy<Record<string, never>> = {
  label: 'Off: send everything',
  fitsWindow: false,
  defaults: {},
  resolveOptions: () => ({}),
  select: (view) => unchanged(view, {}),
};

/**
 * `provider`: the provider compacts on its side (Anthropic's compaction, OpenAI's Responses API
 * compaction). The plan keeps every turn from the provider's newest compaction on (the caller
 * starts the history there) and the request asks the provider to compact once its input passes
 * the trigger. Only what would not fit the window at all is trimmed here, oldest turns first.
 * A model that cannot compact on its side is planned by `auto` instead (the store decides).
 */
export const providerStrategy: ContextStrategy<Record<string, never>> = {
  label: 'Let the provider compact',
  defaults: {},
  resolveOptions: () => ({}),
  select: (view) => unchanged(view, {}),
};

/** `count`'s knobs after defaults (messages; see {@link countStrategy}). */
export interface CountOptions {
  maxMessages: number;
  preserveFirst: number;
  preserveLast: number;
  summarize: boolean;
  marker: boolean;
  summaryMaxTokens: number;
  minEvictedForSummary: number;
}

/**
 * `count`, the message-count window: above `maxMessages` (100) messages, keep the first
 * `preserveFirst` (1), the last `preserveLast` (20) and the newest of the middle up to the
 * cap — `ConversationWindow`'s cut over conversation messages. A tool exchange the cut would
 * split is evicted whole. Pinned messages kept from the evicted middle push out as many of
 * the oldest kept middle messages. `summarize` (`summarize_on_trim`, off) puts a
 * summary of the evicted messages between head and tail; `marker` (off) a truncation marker.
 */
export const countStrategy: ContextStrategy<CountOptions> = {
  label: 'Count: keep first N and last N messages (max 100)',
  defaults: {
    maxMessages: 100,
    preserveFirst: 1,
    preserveLast: 20,
    summarize: false,
    marker: false,
    summaryMaxTokens: SUMMARY_MAX_TOKENS,
    minEvictedForSummary: MIN_EVICTED_FOR_SUMMARY,
    keepPinned: false,
  },
  resolveOptions(options: StrategyOptions): CountOptions {
    return {
      maxMessages: wholeOption(options, 'maxMessages', 100),
      preserveFirst: wholeOption(options, 'preserveFirst', 1),
      preserveLast: wholeOption(options, 'preserveLast', 20),
      summarize: booleanOption(options, 'summarize', false),
      marker: booleanOption(options, 'marker', false),
      summaryMaxTokens: wholeOption(options, 'summaryMaxTokens', SUMMARY_MAX_TOKENS, 1),
      minEvictedForSummary: wholeOption(options, 'minEvictedForSummary', MIN_EVICTED_FOR_SUMMARY),
    };
  },
  select(view, o) {
    const caps = o.maxMessages > 0 ? { maxMessages: o.maxMessages } : {};
    const total = view.fullMessages;
    const ranges = countKeptRanges({ max_messages: o.maxMessages, preserve_first_n: o.preserveFirst, preserve_last_n: o.preserveLast }, total);
    if (!ranges) return unchanged(view, caps);
    const evict = keepEverything(view);
    const middleEnd = total - Math.min(o.preserveLast, total);
    const position = new Int32Array(view.unitCount);
    let at = 0;
    let kept = 0;
    for (let u = 0; u < view.unitCount; u++) {
      if (((view.unitFlags[u] as number) & (SENDABLE | PREFIX)) !== SENDABLE) continue;
      const messages = view.unitMessages[u] as number;
      const end = at + messages;
      position[u] = at;
      const wholeKept = end <= ranges.headEnd || at >= ranges.tailStart;
      if (wholeKept || !isEvictable(view, u)) kept += messages;
      else evict[u] = at < ranges.headEnd || end > ranges.tailStart ? 'tool-exchange' : 'message-cap';
      at = end;
    }
    // The newest message is always sent, whatever preserve_last says.
    const newest = newestSendable(view);
    if (newest >= 0 && evict[newest] !== null) {
      evict[newest] = null;
      kept += view.unitMessages[newest] as number;
    }
    // Pinned messages the count cut would evict stay; make room by evicting the oldest kept middle messages.
    for (let u = 0; u < view.unitCount && kept > o.maxMessages; u++) {
      if (!isEvictable(view, u) || evict[u] !== null || u === newest) continue;
      const start = position[u] as number;
      const messages = view.unitMessages[u] as number;
      if (start < ranges.tailStart || start + messages > middleEnd) continue;
      evict[u] = 'message-cap';
      kept -= messages;
    }
    return {
      evict,
      slot: summaryOrMarker(o),
      trigger: `${total} messages > max_messages (${o.maxMessages})`,
      caps,
    };
  },
};

/** `rolling`'s knobs after defaults (messages; see {@link rollingStrategy}). */
export interface RollingOptions {
  rollingMax: number;
  maxHistory: number;
}

/**
 * `rolling`, the rolling window: keep the last `rollingMax` (50) messages, dropping the oldest; no
 * marker. `rollingMax` must be > 0 and at most `maxHistory` (1,000), the cap on incoming
 * history (messages older than that are reported as `history-cap`). A view must open with a
 * user message, so a kept tail that starts mid-turn loses its leading assistant messages.
 */
export const rollingStrategy: ContextStrategy<RollingOptions> = {
  label: 'Rolling: keep the last N messages (50)',
  defaults: { rollingMax: 50, maxHistory: 1000, keepPinned: false },
  resolveOptions(options) {
    const rollingMax = wholeOption(options, 'rollingMax', 50, 1);
    const maxHistory = wholeOption(options, 'maxHistory', 1000, 1);
    if (rollingMax > maxHistory) {
      throw new ConfigError('rollingMax', `rollingMax (${rollingMax}) must not exceed maxHistory (${maxHistory})`);
    }
    return { rollingMax, maxHistory };
  },
  select(view, o) {
    const caps = { maxMessages: o.rollingMax };
    if (view.fullMessages <= o.rollingMax) return unchanged(view, caps);
    const evict = keepEverything(view);
    const room = o.rollingMax - pinnedTotals(view, 0).messages;
    let cut = newestThatFit(view, 0, Infinity, room, false);
    // A request opens with a user message. When none of the last N can (a tool loop longer
    // than N), the turn's question is kept and the tail gives up its room, so N still holds.
    const opener = openerBefore(view, cut);
    if (opener >= 0) cut = Math.max(newestThatFit(view, 0, Infinity, room - (view.unitMessages[opener] as number), false), opener + 1);
    let fromEnd = 0;
    for (let u = view.unitCount - 1; u >= 0; u--) {
      if (((view.unitFlags[u] as number) & (SENDABLE | PREFIX)) !== SENDABLE) continue;
      fromEnd += view.unitMessages[u] as number;
      if (u < cut && u !== opener && isEvictable(view, u)) evict[u] = fromEnd > o.maxHistory ? 'history-cap' : 'message-cap';
    }
    return { evict, slot: null, trigger: `${view.fullMessages} messages > ${o.rollingMax}`, caps };
  },
};

/** When no sendable unit from `cut` on can open a request, the newest one before it that can (a user turn's start or a stored summary); else -1. */
function openerBefore(view: HistoryView, cut: number): number {
  const opens = UnitFlag.UserStart | UnitFlag.Summary;
  for (let u = cut; u < view.unitCount; u++) {
    const flags = view.unitFlags[u] as number;
    if (flags & SENDABLE && flags & opens) return -1;
  }
  for (let u = cut - 1; u >= 0; u--) {
    const flags = view.unitFlags[u] as number;
    if (flags & SENDABLE && flags & opens) return u;
  }
  return -1;
}

/** `truncate`'s knobs after defaults (shares of the window; see {@link truncateStrategy}). */
export interface TruncateOptions extends ClearingOptions {
  triggerRatio: number;
  targetRatio: number;
  marker: boolean;
}

function ratios(options: StrategyOptions): { triggerRatio: number; targetRatio: number } {
  const triggerRatio = ratioOption(options, 'triggerRatio', 0.8);
  const targetRatio = ratioOption(options, 'targetRatio', 0.7);
  if (targetRatio > triggerRatio) {
    throw new ConfigError('targetRatio', `targetRatio (${targetRatio}) must not exceed triggerRatio (${triggerRatio})`);
  }
  return { triggerRatio, targetRatio };
}

/**
 * `truncate`, the token-ratio truncation: when the request's tokens (system prompt, messages, draft) exceed
 * `triggerRatio` (80 %) of the context window, keep the first user message and the newest
 * messages that fit `targetRatio` (70 %), stopping at the first that does not, and put the
 * marker "[N earlier messages truncated to fit context window]" where they were. Old tool
 * results are cleared first (`clearToolResults`, on; the newest `keepToolResults`, 3,
 * kept), at the same marks; messages are truncated only when that is not enough.
 */
export const truncateStrategy: ContextStrategy<TruncateOptions> = {
  label: 'Truncate: above 80 % of the window, cut to 70 %',
  defaults: { triggerRatio: 0.8, targetRatio: 0.7, marker: true, ...CLEARING_OFF, keepPinned: false },
  resolveOptions: (options) => ({ ...ratios(options), marker: booleanOption(options, 'marker', true), ...clearingOptions(options, CLEARING_OFF) }),
  select(full, o) {
    const limit = full.maxInputTokens;
    const trigger = Math.floor(limit * o.triggerRatio);
    const target = Math.floor(limit * o.targetRatio);
    const caps = { maxInputTokens: trigger };
    const marks = requestMarks(full, trigger, target);
    const { view, clearing } = clearFirst(full, o, { high: trigger, low: target });
    if (view.fullInputTokens <= trigger) return withCleared(unchanged(view, caps), clearing, marks);
    const evict = keepEverything(view);
    const markerTokens = o.marker ? view.markerTokens() : 0;
    const room = target - headTotals(view).tokens - pinnedTotals(view, view.headEnd).tokens - markerTokens;
    const cut = newestThatFit(view, view.headEnd, room, Infinity, true);
    evictBetween(view, evict, view.headEnd, cut, 'token-budget');
    return withCleared(
      {
        evict,
        slot: o.marker ? { kind: 'marker' } : null,
        trigger: `${view.fullInputTokens} tokens > ${percent(o.triggerRatio)} of the ${limit} max input tokens`,
        caps,
      },
      clearing,
      marks,
    );
  },
};

/** `summarize`'s knobs after defaults (see {@link summarizeStrategy}). */
export interface SummarizeOptions extends ClearingOptions {
  triggerRatio: number;
  targetRatio: number;
  maxMessages: number;
  summaryMaxTokens: number;
  minEvictedForSummary: number;
  /** After a trim, the newest tool exchange of each of this many most recently named files stays (0: off). */
  preserveRecentFiles: number;
}

/**
 * `summarize`, truncation with a summary: trims as `truncate` does above `triggerRatio` (80 %) of the
 * window — or, like `count`, above `maxMessages` (100; 0 disables) — keeping the first user
 * message (the goal) and the newest messages that fit `targetRatio` (70 %) and the count.
 * The evicted range becomes one "[Conversation Summary]" message between head and tail,
 * extending the previous summary. At most one new summary per `minEvictedForSummary` (10)
 * newly evicted messages and only when they carry prose; otherwise the previous summary
 * stays, or the truncation marker stands in (also the fallback when summarizing fails).
 * Old tool results are cleared before any message is evicted for tokens, as `truncate` does.
 * When it trims, the newest tool exchange (call and results) of each of the last
 * `preserveRecentFiles` (10) distinct files read or modified is kept first, after the summary,
 * most recent file first while they fit; the newest messages take the room left. The summary
 * prompt is given the goal and those files, so it says what happened instead of repeating them.
 */
export const summarizeStrategy: ContextStrategy<SummarizeOptions> = {
  label: 'Summarize: replace evicted messages with a summary',
  defaults: {
    triggerRatio: 0.8,
    targetRatio: 0.7,
    maxMessages: 100,
    summaryMaxTokens: SUMMARY_MAX_TOKENS,
    minEvictedForSummary: MIN_EVICTED_FOR_SUMMARY,
    preserveRecentFiles: PRESERVE_RECENT_FILES,
    ...CLEARING_OFF,
    keepPinned: false,
  },
  resolveOptions: (options) => ({
    ...ratios(options),
    maxMessages: wholeOption(options, 'maxMessages', 100),
    summaryMaxTokens: wholeOption(options, 'summaryMaxTokens', SUMMARY_MAX_TOKENS, 1),
    minEvictedForSummary: wholeOption(options, 'minEvictedForSummary', MIN_EVICTED_FOR_SUMMARY),
    preserveRecentFiles: wholeOption(options, 'preserveRecentFiles', PRESERVE_RECENT_FILES),
    ...clearingOptions(options, CLEARING_OFF),
  }),
  select(full, o) {
    const limit = full.maxInputTokens;
    const trigger = Math.floor(limit * o.triggerRatio);
    const target = Math.floor(limit * o.targetRatio);
    const caps = o.maxMessages > 0 ? { maxInputTokens: trigger, maxMessages: o.maxMessages } : { maxInputTokens: trigger };
    const marks = requestMarks(full, trigger, target);
    const { view, clearing } = clearFirst(full, o, { high: trigger, low: target });
    const overTokens = view.fullInputTokens > trigger;
    const overCount = o.maxMessages > 0 && view.fullMessages > o.maxMessages;
    if (!overTokens && !overCount) return withCleared(unchanged(view, caps), clearing, marks);
    const evict = keepEverything(view);
    const head = headTotals(view);
    const pinned = pinnedTotals(view, view.headEnd);
    const tokenTarget = overTokens ? target : trigger;
    const tokenRoom = tokenTarget - head.tokens - pinned.tokens - summarySlotReserve(view, o.summaryMaxTokens);
    const messageRoom = o.maxMessages > 0 ? o.maxMessages - head.messages - pinned.messages : Infinity;
    const reason = overTokens ? 'token-budget' : 'message-cap';
    const kept = evictKeepingRecentFiles(view, evict, { from: view.headEnd, tokenRoom, messageRoom, limit: o.preserveRecentFiles, clearing, reason });
    const goal = goalText(view);
    return withCleared(
      {
        evict,
        slot: {
          kind: 'summary',
          source: 'llm',
          prompt: 'concise',
          maxTokens: o.summaryMaxTokens,
          minEvicted: o.minEvictedForSummary,
          ...(goal === undefined ? {} : { goal }),
          ...(kept.files.length > 0 ? { preservedFiles: kept.files } : {}),
        },
        ...(kept.slotBefore === undefined ? {} : { slotBefore: kept.slotBefore }),
        trigger: overTokens
          ? `${view.fullInputTokens} tokens > ${percent(o.triggerRatio)} of the ${limit} max input tokens`
          : `${view.fullMessages} messages > max_messages (${o.maxMessages})`,
        caps,
      },
      clearing,
      marks,
    );
  },
};

/** `two-tier`'s knobs after defaults (tokens and messages; see {@link twoTierStrategy}). */
export interface TwoTierOptions extends ClearingOptions {
  heuristicThreshold: number;
  aiThreshold: number;
  keepLast: number;
  summaryMaxTokens: number;
  /** Share of `heuristicThreshold` that clearing tool results brings the request down to. */
  lowWater: number;
  keepGoal: boolean;
  scriptAwareCount: boolean;
}

/**
 * The request's size as two-tier summarization counts it: characters ÷ 4, rounded up, per
 * sendable message (a cleared result as its placeholder), plus the system prompt and draft.
 */
function chars4Tokens(view: HistoryView, clearing: ToolResultClearing | null): number {
  const placeholders = new Map<number, PlanItem>();
  clearing?.items.forEach((index, n) => placeholders.set(index, clearing.placeholders[n] as PlanItem));
  let tokens = view.systemTokens + view.draftTokens;
  for (let u = 0; u < view.unitCount; u++) {
    if (!((view.unitFlags[u] as number) & SENDABLE)) continue;
    for (let i = view.unitStart[u] as number; i < (view.unitEnd[u] as number); i++) {
      tokens += chars4((placeholders.get(i) ?? (view.items[i] as PlanItem)).message);
    }
  }
  return tokens;
}

/** `two-tier`: an AI summary needs more than this many messages to summarize. */
const AI_SUMMARY_MIN_MESSAGES = 8;

/**
 * `two-tier`, two-tier summarization: above `heuristicThreshold` (80,000) tokens, keep the last
 * `keepLast` (8) messages (plus the first user message, so the request opens with one) and
 * condense the rest into a heuristic summary — tools used, files explored, commands run —
 * without a model call. Above `aiThreshold` (120,000) with more than 8 messages to
 * condense, ask for an AI summary with the structured six-part prompt (up to 2,000 tokens),
 * extending the previous summary; summaries are cached by content. Until the AI summary
 * exists (or when it fails) the heuristic one stands in, so crossing 120k changes nothing
 * that is sent before the summary arrives. Above `heuristicThreshold`, old tool results are
 * cleared first (`clearToolResults`, on; the newest `keepToolResults`, 3, kept) down to
 * `lowWater` (60 %) of it; the thresholds are then checked on what is left.
 */
export const twoTierStrategy: ContextStrategy<TwoTierOptions> = {
  label: 'Two-tier: heuristic summary above 80k, AI summary above 120k',
  defaults: {
    heuristicThreshold: 80_000,
    aiThreshold: 120_000,
    keepLast: 8,
    summaryMaxTokens: STRUCTURED_SUMMARY_MAX_TOKENS,
    lowWater: 0.6,
    ...CLEARING_OFF,
    keepPinned: false,
    keepGoal: false,
    scriptAwareCount: false,
  },
  resolveOptions(options) {
    const heuristicThreshold = wholeOption(options, 'heuristicThreshold', 80_000);
    const aiThreshold = wholeOption(options, 'aiThreshold', 120_000);
    if (aiThreshold < heuristicThreshold) {
      throw new ConfigError('aiThreshold', `aiThreshold (${aiThreshold}) must not be below heuristicThreshold (${heuristicThreshold})`);
    }
    return {
      heuristicThreshold,
      aiThreshold,
      keepLast: wholeOption(options, 'keepLast', 8, 1),
      summaryMaxTokens: wholeOption(options, 'summaryMaxTokens', STRUCTURED_SUMMARY_MAX_TOKENS, 1),
      lowWater: ratioOption(options, 'lowWater', 0.6),
      keepGoal: booleanOption(options, 'keepGoal', false),
      scriptAwareCount: booleanOption(options, 'scriptAwareCount', false),
      ...clearingOptions(options, CLEARING_OFF),
    };
  },
  select(full, o) {
    // Clearing comes before any eviction, the window fit's included: above the first tier, or above what the fit plans to when that is lower.
    const high = Math.min(o.heuristicThreshold, full.fitInputTokens);
    const { view, clearing } = clearFirst(full, o, { high, low: Math.floor(high * o.lowWater) });
    // The gauge marks the first tier: above it the history is summarized down to the last messages.
    const marks = requestMarks(full, o.heuristicThreshold, o.heuristicThreshold);
    const tokens = o.scriptAwareCount ? view.fullInputTokens : chars4Tokens(view, clearing);
    if (tokens <= o.heuristicThreshold) return withCleared(unchanged(view, {}), clearing, marks);
    const evict = keepEverything(view);
    const from = o.keepGoal ? view.headEnd : 0;
    const cut = newestThatFit(view, from, Infinity, o.keepLast, false);
    const evicted = evictBetween(view, evict, from, cut, 'token-budget');
    if (evicted === 0) return withCleared(unchanged(view, {}), clearing, marks);
    const ai = tokens > o.aiThreshold && evicted > AI_SUMMARY_MIN_MESSAGES;
    return withCleared(
      {
        evict,
        slot: ai
          ? { kind: 'summary', source: 'llm', prompt: 'structured', maxTokens: o.summaryMaxTokens, minEvicted: 1, fallback: 'heuristic' }
          : { kind: 'summary', source: 'heuristic' },
        trigger: ai ? `${tokens} tokens > ${o.aiThreshold} (AI summary)` : `${tokens} tokens > ${o.heuristicThreshold} (heuristic summary)`,
        caps: {},
      },
      clearing,
      marks,
    );
  },
};
