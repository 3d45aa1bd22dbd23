/**
 * One linear pass over the history: token count per item (one counter call each), the
 * units that can only be kept or evicted whole, their validity, and where the head (leading
 * system prompt and the first user message) ends.
 */
import { WIRE_ROLES, collectPairingViolations, messageShape, type MessageShape, type RequestViolation } from '../messages';
import { UnitFlag, type HistoryView, type ModelLimits, type PlanItem, type TokenCounter } from './types';

export interface AnalyzeInput {
  history: readonly PlanItem[];
  counter: TokenCounter;
  model: ModelLimits;
  outputReserve: number;
  system?: string;
  draftTokens?: number;
}

function tokensOf(counter: TokenCounter, item: PlanItem): number {
  const tokens = counter(item.message);
  if (!Number.isFinite(tokens) || tokens < 0) throw new Error(`token counter returned ${String(tokens)} for item ${item.id}`);
  return tokens;
}

/**
 * True when items `[start, end)` can be sent as they are: known roles, no empty content,
 * tool blocks where they belong, and every call of the unit answered exactly once right
 * after it. The common shapes (one plain message; one call with its results) are checked
 * without allocating.
 */
function unitIsValid(shapes: readonly MessageShape[], start: number, end: number): boolean {
  for (let i = start; i < end; i++) {
    const shape = shapes[i] as MessageShape;
    if (shape.empty || shape.misplaced !== null || !WIRE_ROLES.includes(shape.role)) return false;
  }
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
  collectPairingViolations(shapes, start, end, violations);
  return violations.length === 0;
}

function storedCount(items: readonly PlanItem[], start: number, end: number): number {
  let count = 0;
  for (let i = start; i < end; i++) if (i === start || (items[i] as PlanItem).id !== (items[i - 1] as PlanItem).id) count++;
  return count;
}

/** Builds the {@link HistoryView} of a history. Linear; calls `counter` once per item (and once for `system`). */
export function analyzeHistory(input: AnalyzeInput): HistoryView {
  const { history, counter } = input;
  const n = history.length;
  const itemTokens = new Float64Array(n);
  const shapes: MessageShape[] = new Array<MessageShape>(n);
  const starts = new Int32Array(n);
  let unitCount = 0;
  let acceptsResults = false;
  for (let i = 0; i < n; i++) {
    const item = history[i] as PlanItem;
    const shape = messageShape(item.message);
    shapes[i] = shape;
    itemTokens[i] = tokensOf(counter, item);
    const join = i > 0 && ((shape.toolResult && acceptsResults) || item.id === (history[i - 1] as PlanItem).id);
    if (!join) starts[unitCount++] = i;
    acceptsResults = shape.callIds.length > 0 || shape.toolResult;
  }

  const unitStart = starts.slice(0, unitCount);
  const unitEnd = new Int32Array(unitCount);
  const unitTokens = new Float64Array(unitCount);
  const unitMessages = new Int32Array(unitCount);
  const unitFlags = new Uint8Array(unitCount);
  let firstUserUnit = -1;
  for (let u = 0; u < unitCount; u++) {
    const start = unitStart[u] as number;
    const end = u + 1 < unitCount ? (unitStart[u + 1] as number) : n;
    unitEnd[u] = end;
    unitMessages[u] = end - start;
    let tokens = 0;
    let pinned = false;
    let allSystem = true;
    for (let i = start; i < end; i++) {
      tokens += itemTokens[i] as number;
      if ((history[i] as PlanItem).pinned) pinned = true;
      if (!(shapes[i] as MessageShape).system) allSystem = false;
    }
    unitTokens[u] = tokens;
    const first = shapes[start] as MessageShape;
    let flags = 0;
    if (!unitIsValid(shapes, start, end)) flags |= UnitFlag.Invalid;
    if (pinned) flags |= UnitFlag.Pinned;
    if (allSystem) flags |= UnitFlag.System;
    if ((history[start] as PlanItem).kind === 'summary') flags |= UnitFlag.Summary | UnitFlag.TurnStart;
    if (first.role === 'user' && !first.toolResult) flags |= UnitFlag.UserStart | UnitFlag.TurnStart;
    if (firstUserUnit < 0 && (flags & (UnitFlag.UserStart | UnitFlag.Invalid)) === UnitFlag.UserStart) firstUserUnit = u;
    unitFlags[u] = flags;
  }

  // Before the first user message only system instructions and stored summaries can be
  // sent (the APIs want a user message first); anything else there is 'leading'.
  const headEnd = firstUserUnit >= 0 ? firstUserUnit + 1 : unitCount;
  let fullTokens = 0;
  let fullMessages = 0;
  for (let u = 0; u < unitCount; u++) {
    let flags = unitFlags[u] as number;
    if (!(flags & UnitFlag.Invalid)) {
      const beforeUser = firstUserUnit < 0 || u < firstUserUnit;
      if (beforeUser && flags & UnitFlag.System) flags |= UnitFlag.Prefix | UnitFlag.Sendable;
      else if (!beforeUser || flags & UnitFlag.Summary) flags |= UnitFlag.Sendable;
      unitFlags[u] = flags;
    }
    if (flags & UnitFlag.Sendable) {
      fullTokens += unitTokens[u] as number;
      if (!(flags & UnitFlag.Prefix)) fullMessages += unitMessages[u] as number;
    }
  }

  const systemTokens = input.system ? counter({ role: 'system', content: input.system }) : 0;
  const draftTokens = input.draftTokens ?? 0;
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
    model: input.model,
    fullInputTokens: systemTokens + draftTokens + fullTokens,
    fullMessages,
    count: counter,
  };
}

/** Stored messages a unit stands for: its distinct ids, or for a summary the ids it covers. */
export function unitStoredCount(view: HistoryView, unit: number): number {
  const start = view.unitStart[unit] as number;
  const item = view.items[start] as PlanItem;
  if (item.kind === 'summary' && item.covers && item.covers.length > 0) return item.covers.length;
  return storedCount(view.items, start, view.unitEnd[unit] as number);
}
