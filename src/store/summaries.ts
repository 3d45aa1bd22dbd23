/**
 * Summaries of what the window leaves out: written when a plan asks for one (from the cache
 * when the same messages were summarized before), in batches a small window can read, and
 * stored as a `summary` message covering the ids it replaces.
 */
import type { ContextPlan, PlanItem, StoredMessage, SummaryFocus, SummaryRequest } from '../core';
import { SLOT_ITEM_ID, buildSummaryPrompt, estimateTextTokens, resolveModelInfo, resolvePlanSummary, summaryFocusOf, summaryMessage } from '../core';
import type { Runtime } from './runtime';
import { shownBranch } from './branches';
import { buildHistory } from './history';
import { appendMessage, updateMessage } from './messageWrites';
import { contextFor, planFor } from './planning';
import type { Turn, TurnContext } from './turn';

/**
 * When the plan needs a new summary: reuse a cached one (same evicted range and previous
 * summary) or ask the provider with a small max_tokens, store it as a `summary` message
 * covering its ids, and plan again around it. On failure the plan keeps its fallback
 * marker (plain eviction) and the user is told.
 */
export async function ensureSummary(turn: Turn, ctx: TurnContext, plan: ContextPlan, history: () => StoredMessage[]): Promise<ContextPlan> {
  const request = plan.slot?.summary;
  if (!request || (request.status !== 'needed' && request.status !== 'heuristic')) return plan;
  const text = request.status === 'heuristic' ? slotText(plan) : await summarize(turn, ctx, plan, request);
  if (!text) return plan;
  await appendMessage(turn.rt, {
    conversationId: turn.conversationId,
    role: 'assistant',
    kind: 'summary',
    content: [{ type: 'text', text: summaryMessage(text).content }],
    covers: request.covers,
    model: request.status === 'heuristic' ? undefined : ctx.settings.window.summaryModel || ctx.modelId,
  });
  return planFor(ctx, history());
}

function slotText(plan: ContextPlan): string | null {
  const item = plan.messages.find((m: PlanItem) => m.id === SLOT_ITEM_ID);
  const content = item?.message.content;
  return typeof content === 'string' ? content : null;
}

/**
 * The summary the plan asks for, through the core's one path: the repository caches it by
 * a hash of what it condenses, and a small window (the Demo's 4,000 tokens, a local model's)
 * reads the evicted messages in batches that fit, the estimate calibrated for the chat model
 * and given a tenth more for safety. Null when it failed (the user is told, unless they
 * pressed Stop).
 */
async function summarize(turn: Turn, ctx: TurnContext, plan: ContextPlan, request: SummaryRequest): Promise<string | null> {
  const model = ctx.settings.window.summaryModel || ctx.modelId;
  const maxTokens = Math.min(request.maxTokens, ctx.model.maxOutputTokens);
  const window = ctx.settings.window.summaryModel ? resolveModelInfo(model, { provider: ctx.provider }).contextWindow : ctx.model.contextWindow;
  const resolved = await resolvePlanSummary(plan, {
    summarize: (prompt) => turn.provider.complete(prompt, { model, maxTokens, signal: turn.signal }),
    cache: {
      get: (key) => turn.rt.repositories.settings.getCachedSummary(key).catch(() => undefined),
      set: (key, text) => turn.rt.repositories.settings.setCachedSummary(key, text).catch(() => undefined),
    },
    fits: (prompt) => Math.ceil(estimateTextTokens(prompt) * ctx.calibrationFactor * 1.1) + maxTokens <= window,
  });
  if (resolved.summary) return resolved.summary.text;
  if (!turn.signal.aborted) {
    const reason = resolved.error instanceof Error ? resolved.error.message : String(resolved.error);
    turn.rt.notifier.notify({ tone: 'warning', text: `Summarizing failed (${reason}); the oldest messages were trimmed instead.` });
  }
  return null;
}

/** Writes the summary again from the messages it covers. */
export async function regenerateSummary(rt: Runtime, summaryId: string): Promise<void> {
  const state = rt.store.getState();
  const conversationId = state.activeId;
  if (!conversationId || state.sendingId) return;
  const list = shownBranch(state, conversationId);
  const summary = list.find((m) => m.id === summaryId);
  if (!summary?.covers?.length) return;
  const ctx = contextFor(rt, conversationId);
  const covered = new Set(summary.covers);
  const messages = buildHistory(
    list.filter((m) => covered.has(m.id)),
    ctx.wireShape,
    '',
  ).map((i) => i.message);
  rt.store.setState({ sendingId: conversationId });
  try {
    const provider = await rt.deps.createProvider(ctx.providerSettings);
    const maxTokens = Math.min(ctx.settings.window.summaryMaxTokens, ctx.model.maxOutputTokens);
    const prompt = buildSummaryPrompt(summaryKind(ctx), messages, undefined, regeneratedFocus(ctx, list, covered));
    const text = (await provider.complete(prompt, { model: ctx.settings.window.summaryModel || ctx.modelId, maxTokens })).trim();
    if (text) await updateMessage(rt, summary, { content: [{ type: 'text', text: summaryMessage(text).content }] });
  } catch (error) {
    rt.notifier.reportError(error, 'regenerate the summary');
  } finally {
    rt.store.setState({ sendingId: null });
  }
}

/** The prompt the conversation's strategy writes its summaries with: two-tier's structured one, else the concise one. */
function summaryKind(ctx: TurnContext): 'structured' | 'concise' {
  return ctx.policy.strategy === 'two-tier' ? 'structured' : 'concise';
}

/** Under `summarize`, a summary written again keeps the goal and the files read after it in view, as when it was first written. */
function regeneratedFocus(ctx: TurnContext, list: readonly StoredMessage[], covered: ReadonlySet<string>): SummaryFocus | undefined {
  if (ctx.policy.strategy !== 'summarize') return undefined;
  const history = buildHistory(list, ctx.wireShape, '');
  const goal = history.find((item) => item.message.role === 'user' && !covered.has(item.id))?.message;
  const after = history.filter((item) => !covered.has(item.id) && item.kind !== 'summary').map((item) => item.message);
  return summaryFocusOf(goal, after);
}
