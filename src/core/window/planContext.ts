/**
 * planContext: history + policy + model limits + token counter → what to send. The
 * strategy decides which units to evict; this file enforces what holds for every strategy
 * and builds the plan: pinned messages and the system prefix are never evicted, units that
 * cannot be sent are dropped with their reason, the request opens with a user message,
 * one marker or summary stands where the strategy evicted, and tool results the strategy
 * cleared are sent as their placeholders. Pure, deterministic (the
 * same input gives a byte-identical plan) and linear in the history.
 */
import { ConfigError } from '../errors';
import { wireText, type WindowMessage } from '../messages';
import { hasSummarizableText, heuristicSummary, summaryMessage, truncationMarker } from '../summary';
import { fitToMaxInput } from './fitWindow';
import { analyzeHistory, unitStoredCount } from './historyView';
import { booleanOption, checkModelLimits, resolveOutputReserve } from './options';
import { getStrategy, listStrategies } from './registry';
import { withClearing } from './toolClearing';
import {
  SLOT_ITEM_ID,
  UnitFlag,
  type ContextPlan,
  type EvictionReason,
  type HistoryView,
  type PlanContextInput,
  type PlanItem,
  type PlanMetrics,
  type PlanSlot,
  type Selection,
  type SlotRequest,
  type SummaryRequest,
} from './types';

// Imports read once (see historyView.ts): these run for every unit of every plan.
const { Sendable: SENDABLE, Invalid: INVALID, Prefix: PREFIX, Pinned: PINNED, UserStart: USER_START, Summary: SUMMARY, System: SYSTEM } = UnitFlag;
const storedCountOf = unitStoredCount;
const textOf = wireText;

/** Every reason, in the order `evictedByReason` lists them. */
const REASONS: readonly EvictionReason[] = ['message-cap', 'token-budget', 'history-cap', 'tool-exchange', 'user-first', 'invalid', 'leading'];
const REASON_INDEX = Object.fromEntries(REASONS.map((name, index) => [name, index])) as Record<EvictionReason, number>;

/** Reasons that mean "the strategy chose to evict" (a marker or summary may stand in for these). */
const STRATEGY_REASONS: ReadonlySet<EvictionReason> = new Set<EvictionReason>(['message-cap', 'token-budget', 'history-cap', 'tool-exchange', 'user-first']);

/** A conversation past this share of its cap is flagged as approaching the limit. */
export const APPROACHING_LIMIT_RATIO = 0.8;

/**
 * Plans one request. See {@link PlanContextInput} for the arguments:
 * - `history`: wire messages tagged with stored ids, in send order (never modified);
 * - `policy`: strategy name and knobs (unknown knobs ignored, bad ones throw ConfigError);
 * - `model`: `{ contextWindow, maxOutputTokens }` in tokens;
 * - `counter`: tokens of one wire message, called once per history item;
 * - `system`: a separate system prompt (Anthropic); `draftTokens`: the message being typed.
 * @throws ConfigError for an unknown strategy, an invalid knob or unusable model limits.
 */
export function planContext<M extends WindowMessage>(input: PlanContextInput<M>): ContextPlan<M> {
  const { policy, model } = input;
  checkModelLimits(model);
  const draftTokens = input.draftTokens ?? 0;
  if (!Number.isFinite(draftTokens) || draftTokens < 0) {
    throw new ConfigError('draftTokens', `draftTokens must be a number of tokens ≥ 0, got ${String(draftTokens)}`);
  }
  const strategy = getStrategy(policy.strategy);
  if (!strategy) {
    throw new ConfigError('strategy', `unknown strategy "${policy.strategy}"; registered: ${listStrategies().join(', ')}`);
  }
  const options = policy.options ?? {};
  const outputReserve = resolveOutputReserve(options, model);
  const resolved = strategy.resolveOptions(options);
  const keepPinned = booleanOption(options, 'keepPinned', strategy.defaults.keepPinned !== false);
  const view = analyzeHistory({ history: input.history, counter: input.counter, model, outputReserve, system: input.system, draftTokens, keepPinned });
  const selection = strategy.select(view, resolved);
  if (selection.evict.length !== view.unitCount) {
    throw new Error(`strategy "${policy.strategy}" decided ${selection.evict.length} units of ${view.unitCount}`);
  }
  const planned = withClearing(view, selection.cleared ?? null);
  const fitted = strategy.fitsWindow === false ? selection : fitToMaxInput(planned, selection);
  return assemblePlan(planned, fitted, policy.strategy) as unknown as ContextPlan<M>;
}

function withRole(item: PlanItem, role: 'user' | 'assistant'): PlanItem {
  return item.message.role === role ? item : { ...item, message: { ...item.message, role } };
}

/** Settles each unit's fate: unsendable dropped, protected kept, the strategy's choice otherwise. */
function settle(view: HistoryView, selection: Selection): Array<EvictionReason | null> {
  const reasons = new Array<EvictionReason | null>(view.unitCount);
  for (let u = 0; u < view.unitCount; u++) {
    const flags = view.unitFlags[u] as number;
    if (!(flags & SENDABLE)) reasons[u] = flags & INVALID ? 'invalid' : 'leading';
    else if (flags & (PREFIX | PINNED)) reasons[u] = null;
    else reasons[u] = selection.evict[u] ?? null;
  }
  return reasons;
}

/**
 * Makes the request open with a user message. If the strategy evicted something before
 * the first kept conversational unit and has a slot, the slot opens the request (as a user
 * message). Otherwise leading assistant units are evicted (`user-first`) while a later kept
 * unit can open the request; when none can, the newest turn's opening user message is
 * kept instead (the request may then pass a cap, which the metrics report). A pinned
 * assistant unit in front forces a user-role marker before it. Returns the slot request
 * and where it goes.
 */
function openWithUser(
  view: HistoryView,
  reasons: Array<EvictionReason | null>,
  requested: SlotRequest | null,
  slotBefore: number | undefined,
): { slot: SlotRequest | null; at: number } {
  const opens = USER_START | SUMMARY;
  // keptOpenerAfter[u]: a kept unit after u can open the request.
  const keptOpenerAfter = new Uint8Array(view.unitCount + 1);
  for (let u = view.unitCount - 1; u >= 0; u--) {
    keptOpenerAfter[u] = keptOpenerAfter[u + 1] || (reasons[u + 1] === null && (view.unitFlags[u + 1] as number) & opens ? 1 : 0);
  }
  let slot = requested;
  let strategyEvictedBefore = false;
  let lastOpener = -1;
  for (let u = 0; u < view.unitCount; u++) {
    const flags = view.unitFlags[u] as number;
    const reason = reasons[u];
    if (flags & SENDABLE && flags & opens) lastOpener = u;
    if (reason !== null) {
      if (STRATEGY_REASONS.has(reason as EvictionReason)) strategyEvictedBefore = true;
      continue;
    }
    if (flags & SYSTEM) continue;
    if ((slot && strategyEvictedBefore) || flags & opens) break;
    if (flags & PINNED) {
      slot ??= { kind: 'marker' };
      break;
    }
    if (!keptOpenerAfter[u] && lastOpener >= 0) {
      reasons[lastOpener] = null;
      break;
    }
    reasons[u] = 'user-first';
    strategyEvictedBefore = true;
  }
  let at = -1;
  for (let u = 0; u < view.unitCount && at < 0; u++) {
    const reason = reasons[u];
    if (reason != null && STRATEGY_REASONS.has(reason)) at = u;
  }
  // A strategy that keeps units inside its evicted range may want the slot ahead of them.
  if (at >= 0 && slotBefore !== undefined && slotBefore >= view.headEnd && slotBefore < at) at = slotBefore;
  return { slot: at >= 0 ? slot : null, at };
}

/** What the evicted units hand to the slot, gathered during the assembly pass. */
interface SlotInputs {
  /** Stored messages the strategy evicted (a summary counts the messages it covers). */
  standsFor: number;
  /** Newly evicted stored ids and their wire messages (summary slots only). */
  ids: string[];
  messages: WindowMessage[];
  covers: string[];
  previousTexts: string[];
  previousUnit: number;
}

interface BuiltSlot {
  slot: PlanSlot;
  item: PlanItem;
  tokens: number;
  /** The history unit the slot reuses as it is (a previous summary), or -1. */
  reusedUnit: number;
}

function buildSlot(view: HistoryView, request: SlotRequest, inputs: SlotInputs, role: 'user' | 'assistant', index: number): BuiltSlot {
  const { standsFor, ids, messages, covers, previousTexts, previousUnit } = inputs;
  const marker = (): BuiltSlot => {
    const message = truncationMarker(standsFor, role);
    return { slot: { kind: 'marker', index, role, standsFor, summary: null }, item: { id: SLOT_ITEM_ID, message }, tokens: view.count(message), reusedUnit: -1 };
  };
  if (request.kind === 'marker') return marker();

  const previousItem = previousUnit >= 0 ? (view.items[view.unitStart[previousUnit] as number] as PlanItem) : null;
  const previous = previousItem ? { id: previousItem.id, text: previousTexts.join('\n\n') } : null;
  const summaryOf = (status: SummaryRequest['status'], prompt: SummaryRequest['prompt'], maxTokens: number): SummaryRequest => {
    const summary: SummaryRequest = { status, prompt, maxTokens, ids, messages, previous, covers };
    if (request.source === 'llm' && request.goal !== undefined) summary.goal = request.goal;
    if (request.source === 'llm' && request.preservedFiles?.length) summary.preservedFiles = [...request.preservedFiles];
    return summary;
  };

  const heuristic = () => summaryMessage(heuristicSummary(messages, { previous: previous?.text, condensed: standsFor }), role);
  const byHeuristic = request.source === 'heuristic' || request.fallback === 'heuristic';
  // A new summary only when enough has been evicted since the last one and it carries prose.
  if (request.source === 'llm' && ids.length > 0 && ids.length >= request.minEvicted && hasSummarizableText(messages)) {
    const fallback = byHeuristic ? heuristic() : previousItem ? withRole(previousItem, role).message : truncationMarker(standsFor, role);
    return {
      slot: { kind: 'summary', index, role, standsFor, summary: summaryOf('needed', request.prompt, request.maxTokens) },
      item: byHeuristic ? { id: SLOT_ITEM_ID, message: fallback, kind: 'summary', covers } : { id: SLOT_ITEM_ID, message: fallback, kind: previousItem ? 'summary' : 'message' },
      tokens: Math.max(view.count(fallback), request.maxTokens),
      reusedUnit: -1,
    };
  }
  if (byHeuristic) {
    const message = heuristic();
    return {
      slot: { kind: 'summary', index, role, standsFor, summary: summaryOf('heuristic', null, 0) },
      item: { id: SLOT_ITEM_ID, message, kind: 'summary', covers },
      tokens: view.count(message),
      reusedUnit: -1,
    };
  }
  if (previousItem) {
    return {
      slot: { kind: 'summary', index, role, standsFor: storedCountOf(view, previousUnit), summary: summaryOf('reused', request.prompt, request.maxTokens) },
      item: withRole(previousItem, role),
      tokens: view.unitTokens[previousUnit] as number,
      reusedUnit: previousUnit,
    };
  }
  return marker();
}

/**
 * One pass over the units builds the request, the evicted list and what the slot needs;
 * the slot itself is filled in at the end, where the pass left room for it. `view` already
 * counts cleared tool results at their placeholders' size; kept ones are sent as placeholders.
 */
function assemblePlan(view: HistoryView, selection: Selection, strategy: string): ContextPlan {
  const reasons = settle(view, selection);
  const clearing = selection.cleared;
  let nextCleared = 0;
  let clearedResults = 0;
  let clearedTokens = 0;
  const opening = openWithUser(view, reasons, selection.slot, selection.slotBefore);
  const request = opening.slot;
  const gather = request !== null && request.kind === 'summary';
  const inputs: SlotInputs = { standsFor: 0, ids: [], messages: [], covers: [], previousTexts: [], previousUnit: -1 };
  const { items, unitStart, unitEnd, unitFlags, unitTokens } = view;

  const messages: PlanItem[] = [];
  const evicted: { id: string; reason: EvictionReason }[] = [];
  const evictedCounts = new Float64Array(REASONS.length);
  let keptMessages = 0;
  let countedMessages = 0;
  let keptTokens = 0;
  let opened = false;
  let slotIndex = -1;
  let slotRole: 'user' | 'assistant' = 'user';
  for (let u = 0; u < view.unitCount; u++) {
    const start = unitStart[u] as number;
    const end = unitEnd[u] as number;
    const flags = unitFlags[u] as number;
    if (request && u === opening.at) {
      slotRole = opened ? 'assistant' : 'user';
      slotIndex = messages.length;
      messages.push(null as unknown as PlanItem);
      opened = true;
    }
    const reason = reasons[u] ?? null;
    if (reason !== null) {
      const forSlot = request !== null && reason !== 'invalid' && reason !== 'leading';
      let distinct = 0;
      for (let i = start; i < end; i++) {
        const item = items[i] as PlanItem;
        if (gather && forSlot && !(flags & SUMMARY)) inputs.messages.push(item.message);
        if (i > start && item.id === (items[i - 1] as PlanItem).id) continue;
        distinct++;
        evicted.push({ id: item.id, reason });
        if (gather && forSlot && !(flags & SUMMARY)) {
          inputs.ids.push(item.id);
          inputs.covers.push(item.id);
        }
      }
      const reasonIndex = REASON_INDEX[reason];
      evictedCounts[reasonIndex] = (evictedCounts[reasonIndex] as number) + distinct;
      if (!forSlot) continue;
      if (flags & SUMMARY) {
        const summaryItem = items[start] as PlanItem;
        const covered = summaryItem.covers && summaryItem.covers.length > 0 ? summaryItem.covers : [summaryItem.id];
        inputs.standsFor += covered.length;
        if (gather) {
          inputs.previousUnit = u;
          inputs.previousTexts.push(textOf(summaryItem.message));
          inputs.covers.push(...covered);
        }
      } else {
        inputs.standsFor += distinct;
      }
      continue;
    }
    keptMessages += end - start;
    keptTokens += unitTokens[u] as number;
    if (!(flags & PREFIX)) countedMessages += end - start;
    // A stored summary that opens the request speaks as the user (the APIs want a user message first).
    const reRole = !opened && !(flags & SYSTEM) && (flags & SUMMARY) !== 0;
    if (!(flags & SYSTEM)) opened = true;
    for (let i = start; i < end; i++) {
      let item = items[i] as PlanItem;
      if (clearing) {
        // Cleared items come in history order: skip those of evicted units, then take this one's.
        while (nextCleared < clearing.items.length && (clearing.items[nextCleared] as number) < i) nextCleared++;
        if (clearing.items[nextCleared] === i) {
          item = clearing.placeholders[nextCleared] as PlanItem;
          clearedResults += item.cleared?.toolCallIds.length ?? 0;
          clearedTokens += item.cleared?.savedTokens ?? 0;
        }
      }
      messages.push(reRole && i === start ? withRole(item, 'user') : item);
    }
  }

  let built: BuiltSlot | null = null;
  if (request) {
    built = buildSlot(view, request, inputs, slotRole, slotIndex);
    messages[slotIndex] = built.item;
    if (built.reusedUnit >= 0) {
      // The previous summary is sent as the slot: it is not evicted after all.
      const id = (items[unitStart[built.reusedUnit] as number] as PlanItem).id;
      const at = evicted.findLastIndex((entry) => entry.id === id);
      const [entry] = evicted.splice(at, 1);
      if (entry) evictedCounts[REASON_INDEX[entry.reason]] = (evictedCounts[REASON_INDEX[entry.reason]] as number) - 1;
    }
  }
  const evictedByReason: Partial<Record<EvictionReason, number>> = {};
  REASONS.forEach((name, index) => {
    if ((evictedCounts[index] as number) > 0) evictedByReason[name] = evictedCounts[index] as number;
  });

  const metrics = measure(view, selection, {
    keptMessages,
    countedMessages,
    keptTokens,
    slotTokens: built?.tokens ?? 0,
    slotMessages: built ? 1 : 0,
    reusedMessages: built && built.reusedUnit >= 0 ? (view.unitMessages[built.reusedUnit] as number) : 0,
    trimmed: opening.at >= 0,
    evictedByReason,
    clearedResults,
    clearedTokens,
  });
  return { strategy, messages, evicted, slot: built?.slot ?? null, metrics };
}

function measure(
  view: HistoryView,
  selection: Selection,
  counts: {
    keptMessages: number;
    countedMessages: number;
    keptTokens: number;
    slotTokens: number;
    slotMessages: number;
    reusedMessages: number;
    trimmed: boolean;
    evictedByReason: Partial<Record<EvictionReason, number>>;
    clearedResults: number;
    clearedTokens: number;
  },
): PlanMetrics {
  const window = view.model.contextWindow;
  const reserve = view.outputReserve;
  const totalMessages = view.items.length;
  const messageTokens = counts.keptTokens + counts.slotTokens;
  const inputTokens = view.systemTokens + messageTokens + view.draftTokens;
  const budgetTokens = selection.caps.maxInputTokens ?? view.maxInputTokens;
  const maxMessages = selection.caps.maxMessages ?? null;
  const overBudgetReasons: string[] = [];
  if (inputTokens > budgetTokens) overBudgetReasons.push(`the request needs ${inputTokens} input tokens, over the budget of ${budgetTokens}`);
  if (inputTokens + reserve > window) {
    overBudgetReasons.push(`${inputTokens} input tokens plus ${reserve} reserved for the answer exceed the ${window}-token context window`);
  } else if (inputTokens > view.maxInputTokens) {
    overBudgetReasons.push(`${inputTokens} input tokens exceed the model's ${view.maxInputTokens} max input tokens`);
  }
  if (maxMessages !== null && counts.countedMessages > maxMessages) {
    overBudgetReasons.push(`${counts.countedMessages} messages are kept, over the cap of ${maxMessages}`);
  }
  const approachingMessageCap = maxMessages !== null && counts.countedMessages > APPROACHING_LIMIT_RATIO * maxMessages;
  const approachingLimit = inputTokens > APPROACHING_LIMIT_RATIO * budgetTokens || approachingMessageCap;
  return {
    totalMessages,
    keptMessages: counts.keptMessages,
    evictedMessages: totalMessages - counts.keptMessages - counts.reusedMessages,
    sentMessages: counts.keptMessages + counts.slotMessages,
    countedMessages: counts.countedMessages,
    fullInputTokens: view.fullInputTokens,
    systemTokens: view.systemTokens,
    messageTokens,
    slotTokens: counts.slotTokens,
    draftTokens: view.draftTokens,
    inputTokens,
    outputReserveTokens: reserve,
    maxInputTokens: view.maxInputTokens,
    totalTokens: inputTokens + reserve,
    contextWindow: window,
    budgetTokens,
    maxMessages,
    triggerTokens: selection.marks?.trigger ?? window,
    targetTokens: selection.marks?.target ?? window,
    windowShare: (inputTokens + reserve) / window,
    budgetShare: inputTokens / Math.max(budgetTokens, 1),
    approachingLimit,
    approachingMessageCap,
    overBudget: overBudgetReasons.length > 0,
    overBudgetReasons,
    trimmed: counts.trimmed,
    trigger: counts.trimmed ? selection.trigger : null,
    evictedByReason: counts.evictedByReason,
    clearedToolResults: counts.clearedResults,
    clearedTokens: counts.clearedTokens,
  };
}
