/**
 * One linear pass over the history: token count per item (one counter call each), the
 * units that can only be kept or evicted whole, their validity, and where the head (leading
 * system prompt and the first user message) ends.
 */
import { collectPairingViolations, messageShape, type MessageShape, type RequestViolation } from '../messages';
import { truncationMarker } from '../summary';
import { UnitFlag, type HistoryView, type ModelLimits, type PlanItem, type TokenCounter } from './types';

// Imports read once: compiled to CommonJS (tsx runs the benchmarks that way) every read of
// an imported binding is a getter call, which dominated the cost of a warm plan.
const shapeOf = messageShape;
const pairingViolations = collectPairingViolations;
const {
  Sendable: SENDABLE,
  UserStart: USER_START,
  TurnStart: TURN_START,
  Pinned: PINNED,
  Summary: SUMMARY,
  System: SYSTEM,
  Prefix: PREFIX,
  Invalid: INVALID,
} = UnitFlag;

export interface AnalyzeInput {
  history: readonly PlanItem[];
  counter: TokenCounter;
  model: ModelLimits;
  outputReserve: number;
  system?: string;
  draftTokens?: number;
  /** false: items marked `pinned` are planned like any other (default true). */
  keepPinned?: boolean;
}

/**
 * True when items `[start, end)` can be sent as they are: known roles, no empty content,
 * tool blocks where they belong, and every call of the unit answered exactly once right
 * after it. The common shapes (one plain message; one call with its results) are checked
 * without allocating.
 */
function unitIsValid(shapes: readonly MessageShape[], start: number, end: number): boolean {
  for (let i = start; i < end; i++) if (!(shapes[i] as MessageShape).ok) return false;
  const first = shapes[start] as MessageShape;
  if (first.toolResult) return false;
  const calls = first.callIds;
  if (calls.length === 0) {
    for (let i = start + 1; i < end; i++) {
      const shape = shapes[i] as MessageShape;
      if (shape.toolResult || shape.callIds.length > 0) return slowCheck(shapes, start, end);
    }
    return true;
  }
  let answers = 0;
  let i = start + 1;
  for (; i < end; i++) {
    const shape = shapes[i] as MessageShape;
    if (!shape.toolResult) break;
    if (shape.callIds.length > 0 || (shape.blockResults && i !== start + 1)) return slowCheck(shapes, start, end);
    for (const id of shape.resultIds) {
      if (!calls.includes(id)) return false;
      answers++;
    }
  }
  for (let j = i; j < end; j++) {
    const shape = shapes[j] as MessageShape;
    if (shape.toolResult || shape.callIds.length > 0) return slowCheck(shapes, start, end);
  }
  if (answers !== calls.length) return false;
  if (calls.length === 1) return true;
  if (calls.length > 8) return slowCheck(shapes, start, end);
  // As many answers as calls, all among the calls: valid when each call is answered exactly once.
  for (let a = 0; a < calls.length; a++) {
    const id = calls[a] as string;
    if (calls.indexOf(id) !== a) return false;
    let times = 0;
    for (let r = start + 1; r < i; r++) for (const result of (shapes[r] as MessageShape).resultIds) if (result === id) times++;
    if (times !== 1) return false;
  }
  return true;
}

function slowCheck(shapes: readonly MessageShape[], start: number, end: number): boolean {
  const violations: RequestViolation[] = [];
  pairingViolations(shapes, start, end, violations);
  return violations.length === 0;
}

function storedCount(items: readonly PlanItem[], start: number, end: number): number {
  let count = 0;
  for (let i = start; i < end; i++) if (i === start || (items[i] as PlanItem).id !== (items[i - 1] as PlanItem).id) count++;
  return count;
}

/** Flags of the unit `[start, end)` that follow from its own messages. */
function unitFlagsOf(history: readonly PlanItem[], shapes: readonly MessageShape[], start: number, end: number, pinned: boolean, allSystem: boolean): number {
  const first = shapes[start] as MessageShape;
  let flags = pinned ? PINNED : 0;
  // One message alone needs only its own checks; anything longer, the pairing rules too.
  const valid = end - start === 1 ? first.ok && !first.toolResult && first.callIds.length === 0 : unitIsValid(shapes, start, end);
  if (!valid) flags |= INVALID;
  if (allSystem) flags |= SYSTEM;
  if ((history[start] as PlanItem).kind === 'summary') flags |= SUMMARY | TURN_START;
  if (first.role === 'user' && !first.toolResult) flags |= USER_START | TURN_START;
  return flags;
}

/** Builds the {@link HistoryView} of a history. Linear; calls `counter` once per item (and once for `system`). */
export function analyzeHistory(input: AnalyzeInput): HistoryView {
  const { history, counter } = input;
  const keepPinned = input.keepPinned !== false;
  const n = history.length;
  const itemTokens = new Float64Array(n);
  const shapes: MessageShape[] = new Array<MessageShape>(n);
  const starts = new Int32Array(n);
  const ends = new Int32Array(n);
  const sums = new Float64Array(n);
  const flagsOf = new Uint8Array(n);
  let unitCount = 0;
  // The open unit: where it starts, its tokens and what it holds so far. Plain locals, no
  // closure: this loop is most of the cost of a warm plan.
  let start = 0;
  let tokens = 0;
  let pinned = false;
  let allSystem = true;
  let acceptsResults = false;
  let previousId: string | undefined;
  for (let i = 0; i < n; i++) {
    const item = history[i] as PlanItem;
    const message = item.message;
    const shape = shapeOf(message);
    const id = item.id;
    if (i > 0 && id !== previousId && !(acceptsResults && shape.toolResult)) {
      starts[unitCount] = start;
      ends[unitCount] = i;
      sums[unitCount] = tokens;
      flagsOf[unitCount++] = unitFlagsOf(history, shapes, start, i, pinned, allSystem);
      start = i;
      tokens = 0;
      pinned = false;
      allSystem = true;
    }
    const count = counter(message);
    if (!(count >= 0 && count < Infinity)) throw new Error(`token counter returned ${String(count)} for item ${id}`);
    shapes[i] = shape;
    itemTokens[i] = count;
    tokens += count;
    if (item.pinned === true && keepPinned) pinned = true;
    if (!shape.system) allSystem = false;
    acceptsResults = shape.callIds.length > 0 || shape.toolResult;
    previousId = id;
  }
  if (n > 0) {
    starts[unitCount] = start;
    ends[unitCount] = n;
    sums[unitCount] = tokens;
    flagsOf[unitCount++] = unitFlagsOf(history, shapes, start, n, pinned, allSystem);
  }

  const unitStart = starts.slice(0, unitCount);
  const unitEnd = ends.slice(0, unitCount);
  const unitTokens = sums.slice(0, unitCount);
  const unitFlags = flagsOf.slice(0, unitCount);
  const unitMessages = new Int32Array(unitCount);
  let firstUserUnit = -1;
  for (let u = 0; u < unitCount; u++) {
    unitMessages[u] = (unitEnd[u] as number) - (unitStart[u] as number);
    if (firstUserUnit < 0 && ((unitFlags[u] as number) & (USER_START | INVALID)) === USER_START) firstUserUnit = u;
  }

  // Before the first user message only system instructions and stored summaries can be
  // sent (the APIs want a user message first); anything else there is 'leading'.
  const headEnd = firstUserUnit >= 0 ? firstUserUnit + 1 : unitCount;
  let fullTokens = 0;
  let fullMessages = 0;
  for (let u = 0; u < unitCount; u++) {
    let flags = unitFlags[u] as number;
    if (!(flags & INVALID)) {
      const beforeUser = firstUserUnit < 0 || u < firstUserUnit;
      if (beforeUser && flags & SYSTEM) flags |= PREFIX | SENDABLE;
      else if (!beforeUser || flags & SUMMARY) flags |= SENDABLE;
      unitFlags[u] = flags;
    }
    if (flags & SENDABLE) {
      fullTokens += unitTokens[u] as number;
      if (!(flags & PREFIX)) fullMessages += unitMessages[u] as number;
    }
  }

  const systemTokens = input.system ? counter({ role: 'system', content: input.system }) : 0;
  const draftTokens = input.draftTokens ?? 0;
  const maxInputTokens = maxInputTokensOf(input.model, input.outputReserve);
  return {
    items: history,
    itemTokens,
    unitCount,
    unitStart,
    unitEnd,
    unitTokens,
    unitMessages,
    unitFlags,
    firstUserUnit,
    headEnd,
    systemTokens,
    draftTokens,
    outputReserve: input.outputReserve,
    maxInputTokens,
    fitInputTokens: maxInputTokens - Math.ceil(maxInputTokens * ESTIMATE_MARGIN),
    model: input.model,
    fullInputTokens: systemTokens + draftTokens + fullTokens,
    fullMessages,
    count: counter,
    markerTokens: once(() => counter(truncationMarker(MARKER_SIZING_COUNT))),
  };
}

/** Marker size used when reserving room for it: as if it stood for 999,999 messages. */
const MARKER_SIZING_COUNT = 999_999;

function once(compute: () => number): () => number {
  let value: number | undefined;
  return () => (value ??= compute());
}

/**
 * The share of the max input tokens the window fit leaves free: the estimates a plan counts
 * are within about 2 % of the provider's tokenizer once calibrated, and a request planned to
 * the last token is refused when the estimate is low.
 */
export const ESTIMATE_MARGIN = 0.03;

/** The window minus the answer's reserve, or the provider's lower input cap; never below 0. */
export function maxInputTokensOf(model: ModelLimits, outputReserve: number): number {
  const limit = model.contextWindow - outputReserve;
  return Math.max(0, model.maxInputTokens !== undefined ? Math.min(limit, model.maxInputTokens) : limit);
}

/** Stored messages a unit stands for: its distinct ids, or for a summary the ids it covers. */
export function unitStoredCount(view: HistoryView, unit: number): number {
  const start = view.unitStart[unit] as number;
  const item = view.items[start] as PlanItem;
  if (item.kind === 'summary' && item.covers && item.covers.length > 0) return item.covers.length;
  return storedCount(view.items, start, view.unitEnd[unit] as number);
}
