/**
 * Clearing old tool results, in the spirit of Anthropic's context editing
 * (`clear_tool_uses` with `keep`): before a token-budget strategy evicts whole turns, the
 * content of old tool results is replaced in the view — never in stored history — by a
 * short placeholder naming the call, e.g.
 * `[tool result cleared to save context: read_attachment {"name":"app.log"} — 3,412 tokens]`.
 * The call itself stays, so every exchange remains valid in both wire shapes and the
 * model knows what it could read again. Clearing is replayed from the history, as auto's
 * trims are: it happens in bulk when the request passes a high-water mark, oldest result
 * first, down toward a low-water mark, so between clearings the sent prefix does not
 * change. Placeholders are memoized per tool-result message object, so a caller's count
 * cache counts each one once, not once per plan.
 */
import { contentChars, messageShape, toolCallsOf, type ToolCallInfo, type WindowMessage } from '../messages';
import { fileRefOf, fileRefsIn, fileRefTokens } from '../images';
import { estimateTextTokens } from '../tokens/estimate';
import { booleanOption, wholeOption } from './options';
import { toolArgumentsText } from '../tools/toolArguments';
import { UnitFlag, type HistoryView, type PlanItem, type StrategyOptions, type ToolResultClearing } from './types';

// Read once (see historyView.ts): the replays test these for every unit.
const { Sendable: SENDABLE, Pinned: PINNED, Prefix: PREFIX, Summary: SUMMARY } = UnitFlag;
const shapeOf = messageShape;

/** Every placeholder's text starts with this. */
const CLEARED_TOOL_RESULT_PREFIX = '[tool result cleared to save context: ';

/** Characters of the call's arguments quoted in a placeholder: enough to say which file and range. */
const MAX_QUOTED_ARGUMENT_CHARS = 200;

/** The clearing knobs a token-budget strategy reads, after defaults. */
export interface ClearingOptions {
  /** Clear old tool results before evicting turns for tokens. */
  clearToolResults: boolean;
  /** The newest this many tool results are never cleared. */
  keepToolResults: number;
}

/** Anthropic's context editing keeps the newest 3 tool uses by default; so does Windowpane. */
export const CLEARING_DEFAULTS: Readonly<ClearingOptions> = { clearToolResults: true, keepToolResults: 3 };

/** The same knobs with clearing off: the strategies whose own rule evicts messages and nothing else. */
export const CLEARING_OFF: Readonly<ClearingOptions> = { ...CLEARING_DEFAULTS, clearToolResults: false };

/** Reads `clearToolResults` and `keepToolResults` (a ConfigError names a bad one); `defaults` says whether clearing is on when unset. */
export function clearingOptions(options: StrategyOptions, defaults: Readonly<ClearingOptions> = CLEARING_DEFAULTS): ClearingOptions {
  return {
    clearToolResults: booleanOption(options, 'clearToolResults', defaults.clearToolResults),
    keepToolResults: wholeOption(options, 'keepToolResults', CLEARING_DEFAULTS.keepToolResults),
  };
}

/** When one strategy clears (input tokens of the request) and what it always keeps. */
export interface ClearingMarks {
  /** Clear when the request passes this many input tokens... */
  high: number;
  /** ...down toward this many (at most `high`). */
  low: number;
  /** The newest this many tool results stay intact. */
  keep: number;
}

/**
 * The placeholder for one cleared result: the call's name and arguments (cut to 200
 * characters) and the result's size in tokens. The size is the uncalibrated estimate of
 * the content, so the text — and the prefix it sits in — does not move when calibration does.
 */
function clearedToolResultText(call: Pick<ToolCallInfo, 'name' | 'input'> | undefined, tokens: number): string {
  const what = call ? `${call.name || 'a tool'} ${toolArgumentsText(call.input, MAX_QUOTED_ARGUMENT_CHARS)}` : 'a tool call';
  return `${CLEARED_TOOL_RESULT_PREFIX}${what} — ${tokens.toLocaleString('en-US')} tokens]`;
}

/** Tokens of the images a result carries, as their provider counts them (a tool's images, which clearing removes with its text). */
function resultImageTokens(content: unknown): number {
  if (!Array.isArray(content)) return 0;
  let total = 0;
  for (const block of content as unknown[]) {
    const ref = fileRefOf(block);
    if (ref) total += fileRefTokens(block as { type?: unknown }, ref);
  }
  return total;
}

function resultTokens(content: unknown): number {
  if (typeof content === 'string') return estimateTextTokens(content);
  if (content == null) return 0;
  if (!Array.isArray(content)) return estimateTextTokens(JSON.stringify(content));
  const text = (content as unknown[]).filter((block) => !fileRefOf(block));
  return (text.length > 0 ? estimateTextTokens(JSON.stringify(text)) : 0) + resultImageTokens(content);
}

/** A result's size against its placeholder's: its characters, an image as the characters its tokens are worth. */
function resultChars(content: unknown): number {
  if (typeof content === 'string') return content.length;
  return content == null ? 0 : JSON.stringify(content).length + 4 * resultImageTokens(content);
}

interface Placeholder {
  /** The message whose calls the placeholder names (checked by identity on reuse). */
  caller: WindowMessage | undefined;
  /** The copy to send, or null when no result of the message is longer than its placeholder. */
  message: WindowMessage | null;
  toolCallIds: string[];
}

const placeholderCache = new WeakMap<object, Placeholder>();

/**
 * The placeholder copy of a tool-result message (OpenAI `role:"tool"`, or a user message
 * with `tool_result` blocks): each result whose content is longer than its placeholder
 * gets the placeholder as content; everything else (text blocks, `is_error`) is kept.
 */
function placeholderOf(original: WindowMessage, caller: WindowMessage | undefined): Placeholder {
  const cached = placeholderCache.get(original);
  if (cached && cached.caller === caller) return cached;
  const calls = new Map<string, ToolCallInfo>();
  if (caller) for (const call of toolCallsOf(caller)) calls.set(call.id, call);
  const toolCallIds: string[] = [];
  let message: WindowMessage | null = null;
  if (original.role === 'tool') {
    const id = original.tool_call_id ?? '';
    const text = clearedToolResultText(calls.get(id), resultTokens(original.content));
    if (text.length < resultChars(original.content)) {
      toolCallIds.push(id);
      message = { ...original, content: text };
    }
  } else if (Array.isArray(original.content)) {
    const content = (original.content as unknown[]).map((block) => {
      if (block === null || typeof block !== 'object' || (block as { type?: unknown }).type !== 'tool_result') return block;
      const result = block as { tool_use_id?: unknown; content?: unknown };
      const id = typeof result.tool_use_id === 'string' ? result.tool_use_id : '';
      const text = clearedToolResultText(calls.get(id), resultTokens(result.content));
      if (text.length >= resultChars(result.content)) return block;
      toolCallIds.push(id);
      return { ...result, content: text };
    });
    if (toolCallIds.length > 0) message = { ...original, content };
  }
  // Cleared, a result's images go with it: worth it whatever their JSON's length.
  const carriesImages = toolCallIds.length > 0 && fileRefsIn([original]).length > 0;
  const smaller = message && (carriesImages || contentChars(message) < contentChars(original));
  const placeholder: Placeholder = { caller, message: smaller ? message : null, toolCallIds };
  placeholderCache.set(original, placeholder);
  return placeholder;
}

/**
 * The tool-result items clearing may touch, in history order: results in sendable units
 * after the head. Pinned ones count toward the newest `keep` but are never cleared.
 * Parallel arrays; `saving` is filled in lazily (one count per placeholder per plan).
 */
export interface ClearingCandidates {
  readonly count: number;
  /** History index of each candidate item. */
  readonly item: Int32Array;
  readonly unit: Int32Array;
  /** Tool results in candidates up to and including this one: "the newest `keep`" counts results, not messages. */
  readonly resultsThrough: Int32Array;
  readonly pinned: Uint8Array;
  /** Tokens clearing it saves (≤ 0: not worth it), NaN until asked. */
  readonly saving: Float64Array;
  /** Placeholder message of each candidate once asked, for the plan. */
  readonly placeholders: Array<Placeholder | undefined>;
  /** 1 once cleared. */
  readonly cleared: Uint8Array;
}

/** Finds the candidates of a view. Linear; allocates only for histories with tool results. */
export function clearingCandidates(view: HistoryView): ClearingCandidates {
  const { items, unitStart, unitEnd, unitFlags } = view;
  const found: number[] = [];
  const units: number[] = [];
  const results: number[] = [];
  let through = 0;
  for (let u = view.headEnd; u < view.unitCount; u++) {
    const flags = unitFlags[u] as number;
    if ((flags & (SENDABLE | PREFIX | SUMMARY)) !== SENDABLE) continue;
    const end = unitEnd[u] as number;
    for (let i = unitStart[u] as number; i < end; i++) {
      const shape = shapeOf((items[i] as PlanItem).message);
      if (!shape.toolResult) continue;
      through += shape.resultIds.length;
      found.push(i);
      units.push(u);
      results.push(through);
    }
  }
  const count = found.length;
  const pinned = new Uint8Array(count);
  for (let c = 0; c < count; c++) if ((unitFlags[units[c] as number] as number) & PINNED) pinned[c] = 1;
  return {
    count,
    item: Int32Array.from(found),
    unit: Int32Array.from(units),
    resultsThrough: Int32Array.from(results),
    pinned,
    saving: new Float64Array(count).fill(Number.NaN),
    placeholders: new Array<Placeholder | undefined>(count),
    cleared: new Uint8Array(count),
  };
}

/** Where a replay's clearing stands: the next candidate to consider and the results appended so far. */
export interface ClearingCursor {
  next: number;
  /** Candidates appended so far (their units are at or before the newest appended unit). */
  seen: number;
  results: number;
}

export function newClearingCursor(): ClearingCursor {
  return { next: 0, seen: 0, results: 0 };
}

function savingOf(view: HistoryView, candidates: ClearingCandidates, c: number): number {
  const known = candidates.saving[c] as number;
  if (!Number.isNaN(known)) return known;
  const index = candidates.item[c] as number;
  const caller = (view.items[view.unitStart[candidates.unit[c] as number] as number] as PlanItem).message;
  const placeholder = placeholderOf((view.items[index] as PlanItem).message, caller);
  candidates.placeholders[c] = placeholder;
  const saving = placeholder.message ? (view.itemTokens[index] as number) - view.count(placeholder.message) : 0;
  candidates.saving[c] = saving;
  return saving;
}

/**
 * Clears the oldest clearable candidate, if any: not in `newest` (the unit just appended,
 * whose results the model has not read yet), not among the newest `keep` results, not
 * pinned, not behind `cut` (already evicted) and worth clearing. Returns its index (its
 * saving is `candidates.saving[c]`) or -1 when nothing can be cleared now. The cursor only
 * moves forward: each candidate is considered once per plan.
 */
export function clearNext(view: HistoryView, candidates: ClearingCandidates, cursor: ClearingCursor, cut: number, newest: number, keep: number): number {
  const { unit, resultsThrough } = candidates;
  while (cursor.seen < candidates.count && (unit[cursor.seen] as number) <= newest) cursor.results = resultsThrough[cursor.seen++] as number;
  while (cursor.next < candidates.count) {
    const c = cursor.next;
    if ((unit[c] as number) >= newest || (resultsThrough[c] as number) > cursor.results - keep) return -1;
    cursor.next++;
    if ((unit[c] as number) < cut || candidates.pinned[c] || savingOf(view, candidates, c) <= 0) continue;
    candidates.cleared[c] = 1;
    return c;
  }
  return -1;
}

/**
 * The cleared candidates whose units are kept (`evicted(unit)` false), as the planner
 * takes them: history indexes and placeholder items with `cleared` filled in. Null when none.
 */
export function collectClearing(view: HistoryView, candidates: ClearingCandidates, evicted: (unit: number) => boolean): ToolResultClearing | null {
  const items: number[] = [];
  const placeholders: PlanItem[] = [];
  for (let c = 0; c < candidates.count; c++) {
    if (!candidates.cleared[c] || evicted(candidates.unit[c] as number)) continue;
    const index = candidates.item[c] as number;
    const original = view.items[index] as PlanItem;
    const placeholder = candidates.placeholders[c] as Placeholder;
    items.push(index);
    placeholders.push({
      ...original,
      message: placeholder.message as WindowMessage,
      cleared: { toolCallIds: placeholder.toolCallIds, savedTokens: candidates.saving[c] as number, original: original.message },
    });
  }
  return items.length > 0 ? { items, placeholders } : null;
}

/**
 * Clearing for strategies that evict without a replay of their own (truncate, summarize,
 * two-tier): the units after the head are appended as the conversation grew (the draft
 * last); whenever the request passes `marks.high`, old results are cleared until it is at
 * or under `marks.low` or nothing more can be cleared. Null when nothing is cleared (and
 * at once when the whole request never passes `marks.high`). Linear.
 */
export function replayClearing(view: HistoryView, marks: ClearingMarks): ToolResultClearing | null {
  if (view.fullInputTokens <= marks.high) return null;
  const { unitFlags, unitTokens } = view;
  let total = view.systemTokens;
  for (let u = 0; u < view.headEnd; u++) if ((unitFlags[u] as number) & SENDABLE) total += unitTokens[u] as number;
  let candidates: ClearingCandidates | null = null;
  const cursor = newClearingCursor();
  let newest = -1;
  for (let k = view.headEnd; k <= view.unitCount; k++) {
    if (k < view.unitCount) {
      if (!((unitFlags[k] as number) & SENDABLE)) continue;
      newest = k;
      total += unitTokens[k] as number;
    } else {
      if (view.draftTokens <= 0 || newest < 0) break;
      total += view.draftTokens;
    }
    if (total <= marks.high) continue;
    candidates ??= clearingCandidates(view);
    while (total > marks.low) {
      const c = clearNext(view, candidates, cursor, view.headEnd, newest, marks.keep);
      if (c < 0) break;
      total -= candidates.saving[c] as number;
    }
  }
  return candidates ? collectClearing(view, candidates, () => false) : null;
}

/**
 * The view as it is with `clearing` applied: item and unit tokens and the full request
 * reduced by what each placeholder saves. Strategies that clear plan their evictions on it.
 */
export function withClearing(view: HistoryView, clearing: ToolResultClearing | null): HistoryView {
  if (!clearing) return view;
  const itemTokens = view.itemTokens.slice();
  const unitTokens = view.unitTokens.slice();
  let saved = 0;
  // Items and units are both in history order: one forward walk finds each item's unit.
  let u = 0;
  clearing.items.forEach((index, n) => {
    const saving = (clearing.placeholders[n] as PlanItem).cleared?.savedTokens ?? 0;
    while ((view.unitEnd[u] as number) <= index) u++;
    itemTokens[index] = (itemTokens[index] as number) - saving;
    unitTokens[u] = (unitTokens[u] as number) - saving;
    saved += saving;
  });
  return { ...view, itemTokens, unitTokens, fullInputTokens: view.fullInputTokens - saved };
}
