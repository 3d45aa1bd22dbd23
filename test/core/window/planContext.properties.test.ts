// The invariants of planContext (ARCHITECTURE.md) for every strategy, over random
// conversations in both wire shapes with tool exchanges (parallel calls included),
// pinned messages, a system prompt and stored summaries.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  SLOT_ITEM_ID,
  groupUnits,
  isUserTurnStart,
  planContext,
  truncationMarker,
  validateRequest,
  type ContextPlan,
  type ModelLimits,
  type PlanItem,
  type StrategyOptions,
} from '../../../src/core';
import {
  appendedTurnArb,
  buildHistory,
  conversationArb,
  countTokens,
  countingCounter,
  deepFreeze,
  type ConversationSpec,
  type WireShape,
} from './conversations';

const ratio = (min: number, max: number) => fc.double({ min, max, noNaN: true, noDefaultInfinity: true });

const optionArbs: Record<string, fc.Arbitrary<StrategyOptions>> = {
  auto: fc.record(
    {
      budgetTokens: fc.oneof(fc.constant(0), fc.integer({ min: 200, max: 12_000 })),
      windowShare: ratio(0.3, 1),
      lowWater: ratio(0.2, 0.95),
      maxMessages: fc.oneof(fc.constant(0), fc.integer({ min: 3, max: 80 })),
      summarize: fc.boolean(),
      marker: fc.boolean(),
      summaryMaxTokens: fc.integer({ min: 1, max: 400 }),
      minEvictedForSummary: fc.integer({ min: 0, max: 12 }),
    },
    { requiredKeys: [] },
  ),
  count: fc.record(
    {
      maxMessages: fc.integer({ min: 0, max: 50 }),
      preserveFirst: fc.integer({ min: 0, max: 5 }),
      preserveLast: fc.integer({ min: 0, max: 25 }),
      summarize: fc.boolean(),
      marker: fc.boolean(),
      minEvictedForSummary: fc.integer({ min: 0, max: 12 }),
    },
    { requiredKeys: [] },
  ),
  rolling: fc.integer({ min: 1, max: 60 }).chain((rollingMax) => fc.record({ rollingMax: fc.constant(rollingMax), maxHistory: fc.integer({ min: rollingMax, max: 120 }) })),
  truncate: fc.tuple(ratio(0.2, 1), ratio(0.05, 1), fc.boolean()).map(([triggerRatio, target, marker]) => ({ triggerRatio, targetRatio: Math.min(triggerRatio, target), marker })),
  summarize: fc
    .tuple(ratio(0.2, 1), ratio(0.05, 1), fc.integer({ min: 0, max: 50 }), fc.integer({ min: 1, max: 400 }), fc.integer({ min: 0, max: 12 }))
    .map(([triggerRatio, target, maxMessages, summaryMaxTokens, minEvictedForSummary]) => ({
      triggerRatio,
      targetRatio: Math.min(triggerRatio, target),
      maxMessages,
      summaryMaxTokens,
      minEvictedForSummary,
    })),
  'two-tier': fc
    .tuple(fc.integer({ min: 0, max: 8000 }), fc.integer({ min: 0, max: 8000 }), fc.integer({ min: 1, max: 12 }), fc.integer({ min: 1, max: 600 }))
    .map(([a, b, keepLast, summaryMaxTokens]) => ({ heuristicThreshold: Math.min(a, b), aiThreshold: Math.max(a, b), keepLast, summaryMaxTokens })),
  off: fc.constant({}),
};

/** Strategies that always keep the first user message (the goal). */
const KEEPS_GOAL = new Set(['auto', 'truncate', 'summarize', 'two-tier']);

const modelArb: fc.Arbitrary<ModelLimits> = fc.record({ contextWindow: fc.integer({ min: 400, max: 40_000 }), maxOutputTokens: fc.integer({ min: 0, max: 4000 }) });

interface Case {
  spec: ConversationSpec;
  shape: WireShape;
  options: StrategyOptions;
  model: ModelLimits;
  system?: string;
  draftTokens: number;
}

const caseArb = (strategy: string): fc.Arbitrary<Case> =>
  fc.record({
    spec: conversationArb,
    shape: fc.constantFrom<WireShape>('anthropic', 'openai'),
    options: optionArbs[strategy] as fc.Arbitrary<StrategyOptions>,
    model: modelArb,
    system: fc.option(fc.constantFrom('You are terse.', 'Answer in French. '.repeat(40)), { nil: undefined }),
    draftTokens: fc.oneof(fc.constant(0), fc.integer({ min: 1, max: 400 })),
  });

function plan(strategy: string, c: Case, history: readonly PlanItem[], counter = countingCounter().counter): ContextPlan {
  return planContext({
    history,
    policy: { strategy, options: c.options },
    model: c.model,
    counter,
    system: c.shape === 'anthropic' ? c.system : undefined,
    draftTokens: c.draftTokens,
  });
}

/** Index in `history` of each planned item that came from it (summaries opening the request are copies). */
function historyPositions(history: readonly PlanItem[], planned: readonly PlanItem[]): number[] {
  const byIdentity = new Map(history.map((item, i) => [item, i]));
  const positions: number[] = [];
  for (const item of planned) {
    const found = byIdentity.get(item) ?? (item.kind === 'summary' ? history.findIndex((h) => h.id === item.id) : undefined);
    if (found !== undefined && found >= 0) positions.push(found);
    else expect(item.id).toBe(SLOT_ITEM_ID);
  }
  return positions;
}

/**
 * What a trim changes: the evicted messages and what stands in for them. (A previous
 * summary that leaves the kept messages to become the slot is not evicted, yet the
 * boundary moved.)
 */
function trimState(result: ContextPlan): string {
  const slot = result.slot;
  return JSON.stringify([result.evicted, slot && [slot.kind, slot.standsFor, slot.summary?.status, slot.summary?.previous?.id]]);
}

/** Items a strategy may keep even over budget: prefix, goal, pinned, the newest unit and (auto) the newest turn's opening. */
function preservedIds(strategy: string, history: readonly PlanItem[]): Set<string> {
  const ids = new Set<string>();
  const firstUser = history.findIndex((item) => isUserTurnStart(item.message));
  history.forEach((item, i) => {
    if (item.message.role === 'system' || item.pinned || i <= firstUser) ids.add(item.id);
  });
  const units = groupUnits(
    history.map((item) => item.message),
    (i) => history[i]?.id === history[i - 1]?.id,
  );
  const newest = units.at(-1);
  if (newest) for (let i = newest.start; i < newest.end; i++) ids.add((history[i] as PlanItem).id);
  if (strategy === 'auto') {
    const opening = [...units].reverse().find((unit) => isUserTurnStart((history[unit.start] as PlanItem).message) || history[unit.start]?.kind === 'summary');
    if (opening) ids.add((history[opening.start] as PlanItem).id);
  }
  return ids;
}

function checkInvariants(strategy: string, c: Case): void {
  const history = deepFreeze(buildHistory(c.spec, c.shape));
  const before = JSON.stringify(history);
  const counting = countingCounter();
  const result = plan(strategy, c, history, counting.counter);
  const sent = result.messages.map((item) => item.message);

  // 1. Lossless: the (frozen) history is untouched.
  expect(JSON.stringify(history)).toBe(before);

  // 2. Valid for the target API.
  expect(validateRequest(sent, { provider: c.shape }).violations).toEqual([]);

  // 3. Within budget, or flagged; the metrics add up.
  const m = result.metrics;
  const slotItems = result.messages.filter((item) => item.id === SLOT_ITEM_ID);
  const historyTokens = result.messages.filter((item) => !result.slot || item !== result.messages[result.slot.index]).reduce((sum, item) => sum + countTokens(item.message), 0);
  const systemTokens = c.shape === 'anthropic' && c.system ? countTokens({ role: 'system', content: c.system }) : 0;
  expect(m.inputTokens).toBe(systemTokens + historyTokens + m.slotTokens + c.draftTokens);
  expect(m.sentMessages).toBe(result.messages.length);
  const counted = result.messages.filter((item, i) => item.message.role !== 'system' && i !== result.slot?.index).length;
  const overTokens = m.inputTokens > m.budgetTokens;
  const overCount = m.maxMessages !== null && counted > m.maxMessages;
  const overWindow = m.totalTokens > m.contextWindow;
  expect(m.overBudget).toBe(overTokens || overCount || overWindow);
  expect(m.overBudgetReasons.length > 0).toBe(m.overBudget);
  if ((overTokens || overCount) && ['auto', 'truncate', 'summarize'].includes(strategy)) {
    // Over its own caps, a token-aware strategy keeps nothing it could have evicted.
    const preserved = preservedIds(strategy, history);
    for (const item of result.messages) if (item.id !== SLOT_ITEM_ID && item !== result.messages[result.slot?.index ?? -1]) expect(preserved).toContain(item.id);
  }

  // 4. Order kept; at most one slot; head, pinned and newest kept.
  const positions = historyPositions(history, result.messages);
  expect(positions.every((p, i) => i === 0 || p > (positions[i - 1] as number))).toBe(true);
  expect(slotItems.length).toBeLessThanOrEqual(1);
  if (result.slot) expect(result.messages[result.slot.index]?.message.role).toBe(result.slot.role);
  const sentIds = new Set(result.messages.map((item) => item.id));
  for (const item of history) if (item.pinned) expect(sentIds).toContain(item.id);
  expect(sentIds).toContain((history.at(-1) as PlanItem).id);
  const goal = history.find((item) => isUserTurnStart(item.message)) as PlanItem;
  if (KEEPS_GOAL.has(strategy)) expect(sentIds).toContain(goal.id);
  const evictedIds = result.evicted.map((e) => e.id);
  expect(new Set(evictedIds).size).toBe(evictedIds.length);
  for (const id of new Set(history.map((item) => item.id))) expect(sentIds.has(id) !== evictedIds.includes(id)).toBe(true);

  // 5. Deterministic: a structurally equal input (fresh objects, fresh counter) gives a byte-identical plan.
  expect(JSON.stringify(plan(strategy, c, structuredClone(history)))).toBe(JSON.stringify(result));

  // 7. Linear: one count per history item, plus the system prompt and at most two synthetic messages.
  expect(counting.calls()).toBeLessThanOrEqual(history.length + 3);
}

// 700 cases per strategy: 4,900 here; with the append and seed-window properties over 5,000 per run.
// WINDOW_PROPERTY_DEPTH=10 runs ten times as many, for a deeper search before a release.
const DEPTH = Math.max(1, Number(process.env.WINDOW_PROPERTY_DEPTH ?? 1));
const RUNS = 700 * DEPTH;
// About a second each on an idle machine; generous for a loaded 2-core runner.
const PROPERTY_TIMEOUT = { timeout: 60_000 * DEPTH };

describe.each(Object.keys(optionArbs))('planContext invariants: %s', (strategy) => {
  it('is lossless, valid, within budget or flagged, ordered, deterministic and linear', PROPERTY_TIMEOUT, () => {
    fc.assert(fc.property(caseArb(strategy), (c) => checkInvariants(strategy, c)), { numRuns: RUNS });
  });

  it('keeps the sent prefix byte-identical while the evicted set does not change (6. cache-friendly)', PROPERTY_TIMEOUT, () => {
    fc.assert(
      fc.property(caseArb(strategy), appendedTurnArb, (c, turn) => {
        const before = buildHistory(c.spec, c.shape);
        const after = buildHistory({ ...c.spec, turns: [...c.spec.turns, turn] }, c.shape);
        const first = plan(strategy, { ...c, draftTokens: 0 }, before);
        const second = plan(strategy, { ...c, draftTokens: 0 }, after);
        if (trimState(first) !== trimState(second)) return;
        expect(JSON.stringify(second.messages.slice(0, first.messages.length))).toBe(JSON.stringify(first.messages));
      }),
      { numRuns: 60 * DEPTH },
    );
  });
});

describe('auto: hysteresis', () => {
  it('appending messages that stay under the high-water mark keeps the evicted set and the sent prefix', PROPERTY_TIMEOUT, () => {
    const markerTokens = countTokens(truncationMarker(999_999));
    let exercised = 0;
    let exercisedAfterTrim = 0;
    fc.assert(
      fc.property(caseArb('auto'), fc.array(appendedTurnArb, { minLength: 1, maxLength: 3 }), (c, turns) => {
        const quiet = { ...c, draftTokens: 0 };
        const before = buildHistory(c.spec, c.shape);
        const after = buildHistory({ ...c.spec, turns: [...c.spec.turns, ...turns] }, c.shape);
        const first = plan('auto', quiet, before);
        const added = after.slice(before.length);
        const addedTokens = added.reduce((sum, item) => sum + countTokens(item.message), 0);
        const summaryItem = before.find((item) => item.kind === 'summary');
        const slotReserve = c.options.summarize
          ? Math.max(c.options.summaryMaxTokens ?? 1024, markerTokens, summaryItem ? countTokens(summaryItem.message) : 0)
          : c.options.marker === false
            ? 0
            : markerTokens;
        const m = first.metrics;
        const asPlanned = m.inputTokens - m.slotTokens + (m.trimmed ? slotReserve : 0);
        const kept = first.messages.filter((item, i) => item.message.role !== 'system' && i !== first.slot?.index).length;
        const underTokens = asPlanned + addedTokens <= m.budgetTokens;
        const underCount = m.maxMessages === null || kept + added.length <= m.maxMessages;
        if (m.overBudget || !underTokens || !underCount) return;
        exercised++;
        if (m.trimmed) exercisedAfterTrim++;
        const second = plan('auto', quiet, after);
        expect(second.evicted).toEqual(first.evicted);
        expect(JSON.stringify(second.messages.slice(0, first.messages.length))).toBe(JSON.stringify(first.messages));
      }),
      { numRuns: 400 * DEPTH },
    );
    expect(exercised).toBeGreaterThan(50);
    expect(exercisedAfterTrim).toBeGreaterThan(10);
  });
});
