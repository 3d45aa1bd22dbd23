/**
 * planContext: history + policy + model limits + token counter → what to send. The
 * strategy decides which units to evict; this file enforces what holds for every strategy
 * and builds the plan: pinned messages and the system prefix are never evicted, units that
 * cannot be sent are dropped with their reason, the request opens with a user message,
 * and one marker or summary stands where the strategy evicted. Pure, deterministic (the
 * same input gives a byte-identical plan) and linear in the history.
 */
import { ConfigError } from '../errors';
import { wireText, type WindowMessage } from '../messages';
import { hasSummarizableText, heuristicSummary, summaryMessage, truncationMarker } from '../summary';
import { analyzeHistory, unitStoredCount } from './historyView';
import { checkModelLimits, resolveOutputReserve } from './options';
import { getStrategy, listStrategies } from './registry';
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

/** Reasons that mean "the strategy chose to evict" (a marker or summary may stand in for these). */
const STRATEGY_REASONS: ReadonlySet<EvictionReason> = new Set<EvictionReason>(['message-cap', 'token-budget', 'history-cap', 'tool-exchange', 'user-first']);

/** Seed 000 warns when a conversation passes 80 % of its cap. */
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
  const view = analyzeHistory({ history: input.history, counter: input.counter, model, outputReserve, system: input.system, draftTokens });
  const selection = strategy.select(view, resolved);
  if (selection.evict.length !== view.unitCount) {
    throw new Error(`strategy "${policy.strategy}" decided ${selection.evict.length} units of ${view.unitCount}`);
  }
  return assemblePlan(view, selection, policy.strategy) as unknown as ContextPlan<M>;
}

function withRole(item: PlanItem, role: 'user' | 'assistant'): PlanItem {
  return item.message.role === role ? item : { ...item, message: { ...item.message, role } };
}

/** Settles each unit's fate: unsendable dropped, protected kept, the strategy's choice otherwise. */
function settle(view: HistoryView, selection: Selection): Array<EvictionReason | null> {
  const reasons = new Array<EvictionReason | null>(view.unitCount);
  for (let u = 0; u < view.unitCount; u++) {
    const flags = view.unitFlags[u] as number;
    if (!(flags & UnitFlag.Sendable)) reasons[u] = flags & UnitFlag.Invalid ? 'invalid' : 'leading';
    else if (flags & (UnitFlag.Prefix | UnitFlag.Pinned)) reasons[u] = null;
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
function openWithUser(view: HistoryView, reasons: Array<EvictionReason | null>, requested: SlotRequest | null): { slot: SlotRequest | null; at: number } {
  const opens = UnitFlag.UserStart | UnitFlag.Summary;
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
    if (flags & UnitFlag.Sendable && flags & opens) lastOpener = u;
    if (reason !== null) {
      if (STRATEGY_REASONS.has(reason as EvictionReason)) strategyEvictedBefore = true;
      continue;
    }
    if (flags & UnitFlag.System) continue;
    if ((slot && strategyEvictedBefore) || flags & opens) break;
    if (flags & UnitFlag.Pinned) {
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
  return { slot: at >= 0 ? slot : null, at };
}

interface BuiltSlot {
  slot: PlanSlot;
  item: PlanItem;
  tokens: number;
  /** The history unit the slot reuses as it is (a previous summary), or -1. */
  reusedUnit: number;
}

function buildSlot(view: HistoryView, reasons: ReadonlyArray<EvictionReason | null>, request: SlotRequest, at: number, role: 'user' | 'assistant'): BuiltSlot {
  let standsFor = 0;
  const ids: string[] = [];
  const messages: WindowMessage[] = [];
  const covers: string[] = [];
  const previousTexts: string[] = [];
  let previousUnit = -1;
  for (let u = at; u < view.unitCount; u++) {
    const reason = reasons[u] ?? null;
    if (reason === null || !STRATEGY_REASONS.has(reason as EvictionReason)) continue;
    standsFor += unitStoredCount(view, u);
    if (request.kind === 'marker') continue;
    const start = view.unitStart[u] as number;
    const end = view.unitEnd[u] as number;
    if ((view.unitFlags[u] as number) & UnitFlag.Summary) {
      const summaryItem = view.items[start] as PlanItem;
      previousUnit = u;
      previousTexts.push(wireText(summaryItem.message));
      if (summaryItem.covers) covers.push(...summaryItem.covers);
      else covers.push(summaryItem.id);
      continue;
    }
    for (let i = start; i < end; i++) {
      const item = view.items[i] as PlanItem;
      messages.push(item.message);
      if (i === start || item.id !== (view.items[i - 1] as PlanItem).id) {
        ids.push(item.id);
        covers.push(item.id);
      }
    }
  }
  const marker = (): BuiltSlot => {
    const message = truncationMarker(standsFor, role);
    return { slot: { kind: 'marker', index: -1, role, standsFor, summary: null }, item: { id: SLOT_ITEM_ID, message }, tokens: view.count(message), reusedUnit: -1 };
  };
  if (request.kind === 'marker') return marker();

  const previousItem = previousUnit >= 0 ? (view.items[view.unitStart[previousUnit] as number] as PlanItem) : null;
  const previous = previousItem ? { id: previousItem.id, text: previousTexts.join('\n\n') } : null;
  const summaryOf = (status: SummaryRequest['status'], prompt: SummaryRequest['prompt'], maxTokens: number): SummaryRequest => ({
    status,
    prompt,
    maxTokens,
    ids,
    messages,
    previous,
    covers,
  });

  if (request.source === 'heuristic') {
    const message = summaryMessage(heuristicSummary(messages, { previous: previous?.text, condensed: standsFor }), role);
    return {
      slot: { kind: 'summary', index: -1, role, standsFor, summary: summaryOf('heuristic', null, 0) },
      item: { id: SLOT_ITEM_ID, message, kind: 'summary', covers },
      tokens: view.count(message),
      reusedUnit: -1,
    };
  }
  // Seed 000: a new summary only when enough has been evicted since the last one and it carries prose.
  if (ids.length > 0 && ids.length >= request.minEvicted && hasSummarizableText(messages)) {
    const fallback = previousItem ? withRole(previousItem, role).message : truncationMarker(standsFor, role);
    return {
      slot: { kind: 'summary', index: -1, role, standsFor, summary: summaryOf('needed', request.prompt, request.maxTokens) },
      item: { id: SLOT_ITEM_ID, message: fallback, kind: previousItem ? 'summary' : 'message' },
      tokens: Math.max(view.count(fallback), request.maxTokens),
      reusedUnit: -1,
    };
  }
  if (previousItem) {
    const item = withRole(previousItem, role);
    return {
      slot: { kind: 'summary', index: -1, role, standsFor: unitStoredCount(view, previousUnit), summary: summaryOf('reused', request.prompt, request.maxTokens) },
      item,
      tokens: view.unitTokens[previousUnit] as number,
      reusedUnit: previousUnit,
    };
  }
  return marker();
}

function assemblePlan(view: HistoryView, selection: Selection, strategy: string): ContextPlan {
  const reasons = settle(view, selection);
  const opening = openWithUser(view, reasons, selection.slot);

  let built: BuiltSlot | null = null;
  if (opening.slot) {
    let keptBefore = false;
    for (let u = 0; u < opening.at && !keptBefore; u++) {
      keptBefore = reasons[u] === null && !((view.unitFlags[u] as number) & UnitFlag.System);
    }
    built = buildSlot(view, reasons, opening.slot, opening.at, keptBefore ? 'assistant' : 'user');
  }

  const messages: PlanItem[] = [];
  const evicted: { id: string; reason: EvictionReason }[] = [];
  const evictedByReason: Partial<Record<EvictionReason, number>> = {};
  let keptMessages = 0;
  let countedMessages = 0;
  let keptTokens = 0;
  let opened = false;
  let slotIndex = -1;
  for (let u = 0; u < view.unitCount; u++) {
    const start = view.unitStart[u] as number;
    const end = view.unitEnd[u] as number;
    const flags = view.unitFlags[u] as number;
    if (built && u === opening.at) {
      slotIndex = messages.length;
      messages.push(built.item);
      opened = true;
    }
    const reason = reasons[u] ?? null;
    if (reason !== null) {
      if (u === built?.reusedUnit) continue;
      for (let i = start; i < end; i++) {
        const id = (view.items[i] as PlanItem).id;
        if (i > start && id === (view.items[i - 1] as PlanItem).id) continue;
        evicted.push({ id, reason });
        evictedByReason[reason] = (evictedByReason[reason] ?? 0) + 1;
      }
      continue;
    }
    keptMessages += end - start;
    keptTokens += view.unitTokens[u] as number;
    if (!(flags & UnitFlag.Prefix)) countedMessages += end - start;
    // A stored summary that opens the request speaks as the user (the APIs want a user message first).
    const reRole = !opened && !(flags & UnitFlag.System) && (flags & UnitFlag.Summary) !== 0;
    if (!(flags & UnitFlag.System)) opened = true;
    for (let i = start; i < end; i++) {
      const item = view.items[i] as PlanItem;
      messages.push(reRole && i === start ? withRole(item, 'user') : item);
    }
  }

  const slot = built ? { ...built.slot, index: slotIndex } : null;
  const slotTokens = built?.tokens ?? 0;
  const metrics = measure(view, selection, {
    keptMessages,
    countedMessages,
    keptTokens,
    slotTokens,
    slotMessages: built ? 1 : 0,
    reusedMessages: built && built.reusedUnit >= 0 ? (view.unitMessages[built.reusedUnit] as number) : 0,
    trimmed: opening.at >= 0,
    evictedByReason,
  });
  return { strategy, messages, evicted, slot, metrics };
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
  },
): PlanMetrics {
  const window = view.model.contextWindow;
  const reserve = view.outputReserve;
  const totalMessages = view.items.length;
  const messageTokens = counts.keptTokens + counts.slotTokens;
  const inputTokens = view.systemTokens + messageTokens + view.draftTokens;
  const budgetTokens = selection.caps.maxInputTokens ?? Math.max(0, window - reserve);
  const maxMessages = selection.caps.maxMessages ?? null;
  const overBudgetReasons: string[] = [];
  if (inputTokens > budgetTokens) overBudgetReasons.push(`the request needs ${inputTokens} input tokens, over the budget of ${budgetTokens}`);
  if (inputTokens + reserve > window) {
    overBudgetReasons.push(`${inputTokens} input tokens plus ${reserve} reserved for the answer exceed the ${window}-token context window`);
  }
  if (maxMessages !== null && counts.countedMessages > maxMessages) {
    overBudgetReasons.push(`${counts.countedMessages} messages are kept, over the cap of ${maxMessages}`);
  }
  const approachingLimit =
    inputTokens > APPROACHING_LIMIT_RATIO * budgetTokens || (maxMessages !== null && counts.countedMessages > APPROACHING_LIMIT_RATIO * maxMessages);
  return {
    totalMessages,
    keptMessages: counts.keptMessages,
    evictedMessages: totalMessages - counts.keptMessages - counts.reusedMessages,
    sentMessages: counts.keptMessages + counts.slotMessages,
    systemTokens: view.systemTokens,
    messageTokens,
    slotTokens: counts.slotTokens,
    draftTokens: view.draftTokens,
    inputTokens,
    outputReserveTokens: reserve,
    totalTokens: inputTokens + reserve,
    contextWindow: window,
    budgetTokens,
    maxMessages,
    windowShare: (inputTokens + reserve) / window,
    budgetShare: inputTokens / Math.max(budgetTokens, 1),
    approachingLimit,
    overBudget: overBudgetReasons.length > 0,
    overBudgetReasons,
    trimmed: counts.trimmed,
    trigger: counts.trimmed ? selection.trigger : null,
    evictedByReason: counts.evictedByReason,
  };
}
