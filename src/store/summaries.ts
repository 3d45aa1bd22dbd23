/**
 * Summaries of what the window leaves out: written when a plan asks for one (from the cache
 * when the same messages were summarized before), in batches a small window can read, and
 * stored as a `summary` message covering the ids it replaces.
 */
import type { ContextPlan, PlanItem, StoredMessage, SummaryFocus, SummaryRequest, WindowMessage } from '../core';
import {
  SLOT_ITEM_ID,
  WindowpaneError,
  buildSummaryPrompt,
  estimateTextTokens,
  resolveModelInfo,
  summaryCacheKey,
  summaryFocusOf,
  summaryMessage,
} from '../core';
import type { ChatProvider } from '../providers';
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
  const text = request.status === 'heuristic' ? slotText(plan) : await summarize(turn.rt, ctx, turn.provider, request, turn.signal);
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

/** What the plan asks the summary to keep in view: the goal and the files kept verbatim after it (summarize). */
function focusOf(request: SummaryRequest): SummaryFocus {
  return { goal: request.goal, preservedFiles: request.preservedFiles };
}

async function summarize(rt: Runtime, ctx: TurnContext, provider: ChatProvider, request: SummaryRequest, signal: AbortSignal): Promise<string | null> {
  const kind = request.prompt ?? 'concise';
  const key = summaryCacheKey(kind, request.messages, request.previous?.text, focusOf(request));
  const cached = await rt.repositories.settings.getCachedSummary(key).catch(() => undefined);
  if (cached) return cached;
  try {
    const summary = await writeInBatches(ctx, provider, request, signal);
    await rt.repositories.settings.setCachedSummary(key, summary).catch(() => undefined);
    return summary;
  } catch (error) {
    if (signal.aborted) return null;
    const reason = error instanceof Error ? error.message : String(error);
    rt.notifier.notify({ tone: 'warning', text: `Summarizing failed (${reason}); the oldest messages were trimmed instead.` });
    return null;
  }
}

/**
 * A small window (the Demo's 4,000 tokens, a local model's) cannot read every evicted
 * message at once: summarize them in batches that fit, each extending the summary so far.
 * The estimate is calibrated for the chat model and given a tenth more for safety.
 */
async function writeInBatches(ctx: TurnContext, provider: ChatProvider, request: SummaryRequest, signal: AbortSignal): Promise<string> {
  const kind = request.prompt ?? 'concise';
  const focus = focusOf(request);
  const model = ctx.settings.window.summaryModel || ctx.modelId;
  const maxTokens = Math.min(request.maxTokens, ctx.model.maxOutputTokens);
  const window = ctx.settings.window.summaryModel ? resolveModelInfo(model, { provider: ctx.provider }).contextWindow : ctx.model.contextWindow;
  const fits = (batch: WindowMessage[], previous: string | undefined) =>
    Math.ceil(estimateTextTokens(buildSummaryPrompt(kind, batch, previous, focus)) * ctx.calibrationFactor * 1.1) + maxTokens <= window;
  let summary = request.previous?.text;
  let batch: WindowMessage[] = [];
  const write = async () => {
    const text = (await provider.complete(buildSummaryPrompt(kind, batch, summary, focus), { model, maxTokens, signal })).trim();
    if (!text) throw new WindowpaneError('provider', 'the summary came back empty');
    summary = text;
    batch = [];
  };
  for (const message of request.messages) {
    if (batch.length > 0 && !fits([...batch, message], summary)) await write();
    batch.push(message);
  }
  if (batch.length > 0) await write();
  if (!summary) throw new WindowpaneError('provider', 'the summary came back empty');
  return summary;
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
