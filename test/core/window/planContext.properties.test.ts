// The invariants of planContext (lossless, valid, within budget, ordered, deterministic, cache-friendly, linear) for every strategy, over random
// conversations in both wire shapes with tool exchanges (parallel calls included),
// pinned messages, a system prompt and stored summaries; and over tool-heavy histories,
// where the token-budget strategies clear old tool results before evicting turns.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  SLOT_ITEM_ID,
  getStrategy,
  groupUnits,
  planContext,
  truncationMarker,
  type ContextPlan,
  type ModelLimits,
  type PlanItem,
  type StrategyOptions,
  type WindowMessage,
  messageShape,
} from '../../../src/core';
import { isUserTurnStart, validateRequest } from '../validateRequest';
import {
  appendedTurnArb,
  buildHistory,
  conversationArb,
  countTokens,
  countingCounter,
  deepFreeze,
  smallToolStepArb,
  toolHeavyArb,
  toolStepArb,
  withSteps,
  type ConversationSpec,
  type WireShape,
} from './conversations';

/** Every cleared tool result's placeholder starts with this. */
const PLACEHOLDER = '[tool result cleared to save context: ';

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
  rolling: fc
    .integer({ min: 1, max: 60 })
    .chain((rollingMax) => fc.record({ rollingMax: fc.constant(rollingMax), maxHistory: fc.integer({ min: rollingMax, max: 120 }) })),
  truncate: fc
    .tuple(ratio(0.2, 1), ratio(0.05, 1), fc.boolean())
    .map(([triggerRatio, target, marker]) => ({ triggerRatio, targetRatio: Math.min(triggerRatio, target), marker })),
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
    .tuple(
      fc.integer({ min: 0, max: 8000 }),
      fc.integer({ min: 0, max: 8000 }),
      fc.integer({ min: 1, max: 12 }),
      fc.integer({ min: 1, max: 600 }),
      fc.boolean(),
      fc.boolean(),
    )
    .map(([a, b, keepLast, summaryMaxTokens, keepGoal, scriptAwareCount]) => ({
      heuristicThreshold: Math.min(a, b),
      aiThreshold: Math.max(a, b),
      keepLast,
      summaryMaxTokens,
      keepGoal,
      scriptAwareCount,
    })),
  off: fc.constant({}),
};

/** Strategies that always keep the first user message (the goal); two-tier only with `keepGoal`. */
const KEEPS_GOAL = new Set(['auto', 'truncate', 'summarize']);
const keepsGoal = (strategy: string, c: Case) => KEEPS_GOAL.has(strategy) || (strategy === 'two-tier' && c.options.keepGoal === true);

/** A knob as the case sets it, else the strategy's default. */
function knob(strategy: string, c: Case, name: 'clearToolResults' | 'keepPinned'): boolean {
  const value = c.options[name] ?? getStrategy(strategy)?.defaults[name];
  return value !== false;
}

/** The token-budget strategies: they clear old tool results before evicting turns. */
const CLEARS = ['auto', 'truncate', 'summarize', 'two-tier'];

/** Clearing knobs, mostly on (only auto clears by default; the others when asked). */
const clearingArb: fc.Arbitrary<StrategyOptions> = fc.record(
  {
    clearToolResults: fc.oneof({ weight: 4, arbitrary: fc.constant(true) }, { weight: 1, arbitrary: fc.constant(false) }),
    keepToolResults: fc.integer({ min: 0, max: 5 }),
  },
  { requiredKeys: ['clearToolResults'] },
);

/** Pins honored or not (each strategy has its default when unset). */
const pinsArb: fc.Arbitrary<StrategyOptions> = fc.record({ keepPinned: fc.boolean() }, { requiredKeys: [] });

const strategyOptionsArb = (strategy: string): fc.Arbitrary<StrategyOptions> => {
  const options = optionArbs[strategy] as fc.Arbitrary<StrategyOptions>;
  const withPins = fc.tuple(options, pinsArb).map(([own, pins]) => ({ ...own, ...pins }));
  return CLEARS.includes(strategy) ? fc.tuple(withPins, clearingArb).map(([own, clearing]) => ({ ...own, ...clearing })) : withPins;
};

const modelArb: fc.Arbitrary<ModelLimits> = fc.record({
  contextWindow: fc.integer({ min: 400, max: 40_000 }),
  maxOutputTokens: fc.integer({ min: 0, max: 4000 }),
});

/** Windows about the size of a tool-heavy history, where clearing decides what fits. */
const toolHeavyModelArb: fc.Arbitrary<ModelLimits> = fc.record({
  contextWindow: fc.integer({ min: 1500, max: 16_000 }),
  maxOutputTokens: fc.integer({ min: 0, max: 1000 }),
});

interface Case {
  spec: ConversationSpec;
  shape: WireShape;
  options: StrategyOptions;
  model: ModelLimits;
  system?: string;
  draftTokens: number;
}

const caseArb = (
  strategy: string,
  specArb: fc.Arbitrary<ConversationSpec> = conversationArb,
  models: fc.Arbitrary<ModelLimits> = modelArb,
): fc.Arbitrary<Case> =>
  fc.record({
    spec: specArb,
    shape: fc.constantFrom<WireShape>('anthropic', 'openai'),
    options: strategyOptionsArb(strategy),
    model: models,
    system: fc.option(fc.constantFrom('You are terse.', 'Answer in French. '.repeat(40)), { nil: undefined }),
    draftTokens: fc.oneof(fc.constant(0), fc.integer({ min: 1, max: 400 })),
  });

/** Caps that leave tool-heavy histories room for clearing to matter (tiny caps only ever evict). */
const toolHeavyOverrides: Record<string, fc.Arbitrary<StrategyOptions>> = {
  auto: fc.record({
    budgetTokens: fc.oneof(fc.constant(0), fc.integer({ min: 1000, max: 12_000 })),
    maxMessages: fc.oneof(fc.constant(0), fc.integer({ min: 20, max: 80 })),
  }),
  summarize: fc.record({ maxMessages: fc.oneof(fc.constant(0), fc.integer({ min: 30, max: 80 })) }),
};

const toolHeavyCaseArb = (strategy: string): fc.Arbitrary<Case> =>
  fc
    .tuple(caseArb(strategy, toolHeavyArb, toolHeavyModelArb), toolHeavyOverrides[strategy] ?? fc.constant({}))
    .map(([c, overrides]) => ({ ...c, options: { ...c.options, ...overrides } }));

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

/**
 * Index in `history` of each planned item that came from it (summaries opening the request
 * are copies; a cleared tool result is a copy of the next item with its id and call ids).
 */
function historyPositions(history: readonly PlanItem[], planned: readonly PlanItem[]): number[] {
  const byIdentity = new Map(history.map((item, i) => [item, i]));
  const positions: number[] = [];
  const sameResults = (a: WindowMessage, b: WindowMessage) => JSON.stringify(messageShape(a).resultIds) === JSON.stringify(messageShape(b).resultIds);
  for (const item of planned) {
    const after = (positions.at(-1) ?? -1) + 1;
    const found =
      byIdentity.get(item) ??
      (item.kind === 'summary' ? history.findIndex((h) => h.id === item.id) : undefined) ??
      (item.cleared ? history.findIndex((h, i) => i >= after && h.id === item.id && sameResults(h.message, item.message)) : undefined);
    if (found !== undefined && found >= 0) positions.push(found);
    else expect(item.id).toBe(SLOT_ITEM_ID);
  }
  return positions;
}

/**
 * What a trim changes: the evicted messages, what stands in for them, and the tool results
 * cleared. (A previous summary that leaves the kept messages to become the slot is not
 * evicted, yet the boundary moved.)
 */
function trimState(result: ContextPlan): string {
  const slot = result.slot;
  const cleared = result.messages.filter((item) => item.cleared).map((item) => [item.id, item.cleared?.toolCallIds]);
  return JSON.stringify([result.evicted, slot && [slot.kind, slot.standsFor, slot.summary?.status, slot.summary?.previous?.id], cleared]);
}

/** Tool results in `history` after index `i`. */
function resultsAfter(history: readonly PlanItem[], i: number): number {
  let count = 0;
  for (let j = i + 1; j < history.length; j++) count += messageShape((history[j] as PlanItem).message).resultIds.length;
  return count;
}

/** The tool results of a message with their content, in order: `role:"tool"` or `tool_result` blocks. */
function resultContents(message: WindowMessage): { id: string; content: unknown }[] {
  if (message.role === 'tool') return [{ id: message.tool_call_id as string, content: message.content }];
  if (!Array.isArray(message.content)) return [];
  return (message.content as Array<Record<string, unknown>>)
    .filter((b) => b.type === 'tool_result')
    .map((b) => ({ id: b.tool_use_id as string, content: b.content }));
}

/** Long enough that a placeholder (at most about 280 characters) is always smaller. */
const SURELY_WORTH_CLEARING = 400;

/**
 * Clearing: only the token-budget strategies clear, only old results (never the newest
 * unit's, never among the newest `keep`, never pinned), each placeholder differs from its
 * stored message only in the cleared results' content, and the metrics add up.
 */
function checkClearing(strategy: string, c: Case, history: readonly PlanItem[], result: ContextPlan, positions: readonly number[]): void {
  const enabled = CLEARS.includes(strategy) && knob(strategy, c, 'clearToolResults');
  const pinned = (item: PlanItem) => item.pinned === true && knob(strategy, c, 'keepPinned');
  const keep = c.options.keepToolResults ?? 3;
  const units = groupUnits(
    history.map((item) => item.message),
    (i) => history[i]?.id === history[i - 1]?.id,
  );
  const newestStart = units.at(-1)?.start ?? 0;
  // Clearing comes first: evicting for tokens (auto: only at a crossing, so not checked here)
  // or passing its own token cap, a strategy has cleared every long result it was allowed to.
  const overTokens = result.metrics.inputTokens > result.metrics.budgetTokens && strategy !== 'two-tier';
  const evictedForTokens = (result.metrics.evictedByReason['token-budget'] ?? 0) > 0 && strategy !== 'auto';
  const mustHaveCleared = enabled && (overTokens || evictedForTokens);
  let results = 0;
  let saved = 0;
  const historyItems = result.messages.filter((item) => item.id !== SLOT_ITEM_ID);
  historyItems.forEach((item, n) => {
    const at = positions[n] as number;
    const original = history[at] as PlanItem;
    if (!item.cleared) {
      if (!mustHaveCleared || pinned(original) || at >= newestStart || resultsAfter(history, at) < keep) return;
      for (const { content } of resultContents(original.message)) expect(String(content ?? '').length).toBeLessThanOrEqual(SURELY_WORTH_CLEARING);
      return;
    }
    expect(enabled).toBe(true);
    expect(pinned(original)).toBe(false);
    expect(at).toBeLessThan(newestStart);
    expect(resultsAfter(history, at)).toBeGreaterThanOrEqual(keep);
    const before = resultContents(original.message);
    const after = resultContents(item.message);
    expect(after.map((r) => r.id)).toEqual(before.map((r) => r.id));
    const clearedIds = before.filter((r, i) => after[i]?.content !== r.content).map((r) => r.id);
    expect(item.cleared.toolCallIds).toEqual(clearedIds);
    expect(clearedIds.length).toBeGreaterThan(0);
    for (const r of after) if (clearedIds.includes(r.id)) expect(String(r.content).startsWith(PLACEHOLDER)).toBe(true);
    // Nothing else changed: with the cleared contents put back, it is the stored message.
    const restored = JSON.parse(JSON.stringify(item.message)) as WindowMessage;
    if (restored.role === 'tool') restored.content = original.message.content;
    else
      (restored.content as Array<Record<string, unknown>>).forEach((b, i) => Object.assign(b, (original.message.content as Array<Record<string, unknown>>)[i]));
    expect(JSON.stringify(restored)).toBe(JSON.stringify(original.message));
    expect(item.cleared.savedTokens).toBe(countTokens(original.message) - countTokens(item.message));
    expect(item.cleared.savedTokens).toBeGreaterThan(0);
    results += item.cleared.toolCallIds.length;
    saved += item.cleared.savedTokens;
  });
  expect(result.metrics.clearedToolResults).toBe(results);
  expect(result.metrics.clearedTokens).toBe(saved);
}

/** Items a strategy may keep even over budget: prefix, goal, pinned, the newest unit and (auto) the newest turn's opening. */
function preservedIds(strategy: string, history: readonly PlanItem[], pinsKept: boolean): Set<string> {
  const ids = new Set<string>();
  const firstUser = history.findIndex((item) => isUserTurnStart(item.message));
  history.forEach((item, i) => {
    if (item.message.role === 'system' || (pinsKept && item.pinned) || i <= firstUser) ids.add(item.id);
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
  const historyTokens = result.messages
    .filter((item) => !result.slot || item !== result.messages[result.slot.index])
    .reduce((sum, item) => sum + countTokens(item.message), 0);
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
    const preserved = preservedIds(strategy, history, knob(strategy, c, 'keepPinned'));
    for (const item of result.messages)
      if (item.id !== SLOT_ITEM_ID && item !== result.messages[result.slot?.index ?? -1]) expect(preserved).toContain(item.id);
  }

  // 4. Order kept; at most one slot; head, pinned and newest kept.
  const positions = historyPositions(history, result.messages);
  checkClearing(strategy, c, history, result, positions);
  expect(positions.every((p, i) => i === 0 || p > (positions[i - 1] as number))).toBe(true);
  expect(slotItems.length).toBeLessThanOrEqual(1);
  if (result.slot) expect(result.messages[result.slot.index]?.message.role).toBe(result.slot.role);
  const sentIds = new Set(result.messages.map((item) => item.id));
  if (knob(strategy, c, 'keepPinned')) for (const item of history) if (item.pinned) expect(sentIds).toContain(item.id);
  expect(sentIds).toContain((history.at(-1) as PlanItem).id);
  const goal = history.find((item) => isUserTurnStart(item.message)) as PlanItem;
  if (keepsGoal(strategy, c)) expect(sentIds).toContain(goal.id);
  const evictedIds = result.evicted.map((e) => e.id);
  expect(new Set(evictedIds).size).toBe(evictedIds.length);
  for (const id of new Set(history.map((item) => item.id))) expect(sentIds.has(id) !== evictedIds.includes(id)).toBe(true);

  // 5. Deterministic: a structurally equal input (fresh objects, fresh counter) gives a byte-identical plan.
  expect(JSON.stringify(plan(strategy, c, structuredClone(history)))).toBe(JSON.stringify(result));

  // 7. Linear: one count per history item and at most one per tool-result placeholder, plus
  // the system prompt and at most two synthetic messages; planned again, placeholders are not counted again.
  const resultItems = history.filter((item) => messageShape(item.message).resultIds.length > 0).length;
  expect(counting.calls()).toBeLessThanOrEqual(history.length + resultItems + 3);
  const cold = counting.calls();
  plan(strategy, c, history, counting.counter);
  expect(counting.calls() - cold).toBeLessThanOrEqual(3);
}

// 700 cases per strategy: 4,900 here; with the append and ConversationWindow properties over 5,000 per run.
// WINDOW_PROPERTY_DEPTH=10 runs ten times as many, for a deeper search before a release.
const DEPTH = Math.max(1, Number(process.env.WINDOW_PROPERTY_DEPTH ?? 1));
const RUNS = 700 * DEPTH;
// About a second each on an idle machine; generous for a loaded 2-core runner.
const PROPERTY_TIMEOUT = { timeout: 60_000 * DEPTH };

describe.each(Object.keys(optionArbs))('planContext invariants: %s', (strategy) => {
  it('is lossless, valid, within budget or flagged, ordered, deterministic and linear', PROPERTY_TIMEOUT, () => {
    fc.assert(
      fc.property(caseArb(strategy), (c) => checkInvariants(strategy, c)),
      { numRuns: RUNS },
    );
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

/** The thinking an answer carries: Anthropic thinking blocks, or OpenAI reasoning items. */
function thoughtOf(message: WindowMessage): unknown[] {
  if (Array.isArray(message.reasoning)) return message.reasoning as unknown[];
  if (!Array.isArray(message.content)) return [];
  return (message.content as { type?: string }[]).filter((block) => block.type === 'thinking' || block.type === 'redacted_thinking');
}

describe.each(Object.keys(optionArbs).filter((strategy) => strategy !== 'off'))('a tool loop with thinking: %s', (strategy) => {
  it('sends the loop answer byte for byte, its thinking first and right before its results, and never edits kept thinking', PROPERTY_TIMEOUT, () => {
    let trimmed = 0;
    const loopCase = fc
      .tuple(fc.oneof(caseArb(strategy), toolHeavyCaseArb(strategy)), toolStepArb)
      .map(([c, step]) => ({ ...c, spec: withSteps({ ...c.spec, thinking: true }, [step]) }));
    fc.assert(
      fc.property(loopCase, (c) => {
        const history = buildHistory(c.spec, c.shape);
        const result = plan(strategy, c, history);
        if (result.metrics.trimmed || result.metrics.clearedToolResults > 0) trimmed++;
        // The loop's answer: the last assistant message, whose calls the request answers.
        const loopAnswer = history.findLast((item) => item.message.role === 'assistant')!;
        const at = result.messages.findIndex((item) => item.id === loopAnswer.id);
        expect(at, 'the loop answer is sent').toBeGreaterThanOrEqual(0);
        const sent = result.messages[at]!.message;
        expect(JSON.stringify(sent), 'byte for byte').toBe(JSON.stringify(loopAnswer.message));
        if (c.shape === 'anthropic') {
          const types = (sent.content as { type: string }[]).map((block) => block.type);
          expect(types[0]).toBe('thinking');
          expect(types.indexOf('tool_use')).toBeGreaterThan(types.lastIndexOf('thinking'));
        }
        // Its results follow it at once, to the end of the request.
        const after = result.messages.slice(at + 1).map((item) => item.message);
        expect(after.length).toBeGreaterThan(0);
        expect(after.every((m) => (c.shape === 'anthropic' ? m.role === 'user' : m.role === 'tool' || m.role === 'user'))).toBe(true);
        // Whatever else is kept keeps its thinking exactly as it was.
        const original = new Map(history.map((item) => [item.id, item.message]));
        for (const item of result.messages) {
          if (item.message.role !== 'assistant' || item.kind === 'summary' || !original.has(item.id)) continue;
          expect(JSON.stringify(thoughtOf(item.message))).toBe(JSON.stringify(thoughtOf(original.get(item.id)!)));
        }
      }),
      { numRuns: 300 * DEPTH },
    );
    // The property is about windows that had to make room.
    expect(trimmed).toBeGreaterThan(30 * DEPTH);
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

describe.each(CLEARS)('tool-heavy histories: %s', (strategy) => {
  it('clears old tool results in the view only, and stays lossless, valid, within budget or flagged, deterministic and linear', PROPERTY_TIMEOUT, () => {
    let cleared = 0;
    fc.assert(
      fc.property(toolHeavyCaseArb(strategy), (c) => {
        checkInvariants(strategy, c);
        if (plan(strategy, c, buildHistory(c.spec, c.shape)).metrics.clearedToolResults > 0) cleared++;
      }),
      { numRuns: 300 * DEPTH },
    );
    // The property is about clearing: a good share of these plans must send placeholders.
    expect(cleared).toBeGreaterThan(25 * DEPTH);
  });

  it('keeps the sent prefix byte-identical between clearings as a tool loop grows', PROPERTY_TIMEOUT, () => {
    let exercised = 0;
    fc.assert(
      fc.property(toolHeavyCaseArb(strategy), fc.array(fc.oneof(toolStepArb, smallToolStepArb), { minLength: 1, maxLength: 3 }), (c, steps) => {
        const quiet = { ...c, draftTokens: 0 };
        const first = plan(strategy, quiet, buildHistory(c.spec, c.shape));
        const second = plan(strategy, quiet, buildHistory(withSteps(c.spec, steps), c.shape));
        if (trimState(first) !== trimState(second)) return;
        if (first.metrics.clearedToolResults > 0) exercised++;
        expect(JSON.stringify(second.messages.slice(0, first.messages.length))).toBe(JSON.stringify(first.messages));
      }),
      { numRuns: 300 * DEPTH },
    );
    expect(exercised).toBeGreaterThan(10 * DEPTH);
  });
});

describe('auto: tool results are cleared with hysteresis', () => {
  it('appending tool steps that stay under the high-water mark keeps the cleared and evicted sets and the sent prefix', PROPERTY_TIMEOUT, () => {
    let exercised = 0;
    fc.assert(
      fc.property(toolHeavyCaseArb('auto'), toolStepArb, (c, step) => {
        const quiet = { ...c, draftTokens: 0, options: { ...c.options, summarize: false, marker: true } };
        const before = buildHistory(c.spec, c.shape);
        const after = buildHistory(withSteps(c.spec, [step]), c.shape);
        const first = plan('auto', quiet, before);
        const m = first.metrics;
        const addedTokens = after.slice(before.length).reduce((sum, item) => sum + countTokens(item.message), 0);
        const slotReserve = m.trimmed ? countTokens(truncationMarker(999_999)) : 0;
        const kept = first.messages.filter((item, i) => item.message.role !== 'system' && i !== first.slot?.index).length;
        const underTokens = m.inputTokens - m.slotTokens + slotReserve + addedTokens <= m.budgetTokens;
        const underCount = m.maxMessages === null || kept + (after.length - before.length) <= m.maxMessages;
        if (m.overBudget || !underTokens || !underCount || m.clearedToolResults === 0) return;
        exercised++;
        const second = plan('auto', quiet, after);
        expect(trimState(second)).toBe(trimState(first));
        expect(JSON.stringify(second.messages.slice(0, first.messages.length))).toBe(JSON.stringify(first.messages));
      }),
      { numRuns: 300 * DEPTH },
    );
    expect(exercised).toBeGreaterThan(10 * DEPTH);
  });
});
