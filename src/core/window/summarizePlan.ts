/**
 * Turns a plan that needs a summary into the request to send: reuses a cached summary
 * or asks the injected model function for one (in batches when the evicted messages are
 * more than the summarizing model can read at once), and falls back to what the plan
 * already holds in the slot (the previous summary, or the truncation marker) when the
 * call fails. Pure apart from the injected function and cache; never throws for a failed summary.
 * Also the focus of a summary written again on request (`summaryFocusOf`). Loaded with the
 * steps of a turn, which alone ask for summaries.
 */
import { toolCallsOf, wireText, type ToolCallInfo, type WindowMessage } from '../messages';
import { summaryMessage, type SyntheticMessage } from '../summary';
import { buildSummaryPrompt, summaryCacheKey, type SummaryCache, type SummaryFocus, type SummaryPromptKind } from '../summaryPrompt';
import { filesNamedBy, PRESERVE_RECENT_FILES } from './recentFiles';
import { SLOT_ITEM_ID, type ContextPlan, type PlanItem, type SummaryRequest } from './types';

/** Writes a summary for a prompt; `maxTokens` is the output cap to request (1,024 for the concise prompt, 2,000 for the structured one). */
export type SummarizeFn = (prompt: string, request: { maxTokens: number }) => Promise<string>;

/** How a plan's summary is written: the model call, where finished summaries are kept, and what the model can read. */
export interface SummaryWriter {
  summarize: SummarizeFn;
  cache?: SummaryCache;
  /**
   * Whether a summary prompt fits the summarizing model's window with room for its answer.
   * Given, the evicted messages are summarized in batches that fit, each extending the
   * summary so far (a prompt of a single message is sent whether it fits or not); absent,
   * in one call.
   */
  fits?: (prompt: string) => boolean;
}

/** A summary produced for a plan, for the caller to store as a message of kind `summary`. */
export interface NewSummary {
  /** The model's text (without the "[Conversation Summary]" prefix). */
  text: string;
  /** The message as sent: store its content verbatim so the next request's prefix is byte-identical. */
  message: SyntheticMessage;
  /** Ids of every stored message it stands for (the previous summary's plus the newly evicted). */
  covers: string[];
  /** Id of the previous summary it extends and replaces, or null. */
  replaces: string | null;
  cacheKey: string;
}

/** A plan with its summary slot filled in (or left as its fallback). */
export interface ResolvedPlan<M extends WindowMessage = WindowMessage> {
  /** The request's messages, the slot filled in. */
  messages: PlanItem<M>[];
  /**
   * - `unchanged`: the plan needed no new summary;
   * - `summarized`: the model wrote one; `cached`: found in the cache;
   * - `fallback`: the call failed or returned nothing; the slot keeps its stand-in (the previous
   *   summary, the marker, or for two-tier the heuristic summary).
   */
  outcome: 'unchanged' | 'summarized' | 'cached' | 'fallback';
  summary: NewSummary | null;
  /** Why the summary failed, for a `fallback`. */
  error?: unknown;
}

/**
 * Fills a plan's summary slot. When `plan.slot.summary.status` is `needed`: looks the
 * summary up in `cache` (keyed by a hash of the evicted messages and the previous summary),
 * else asks `summarize` with the incremental prompt (previous summary + newly evicted
 * messages) and caches the answer. Any other plan is returned as it is.
 */
export async function resolvePlanSummary<M extends WindowMessage>(plan: ContextPlan<M>, options: SummaryWriter): Promise<ResolvedPlan<M>> {
  const slot = plan.slot;
  const request = slot?.summary;
  if (!slot || !request || request.status !== 'needed' || request.prompt === null) {
    return { messages: plan.messages, outcome: 'unchanged', summary: null };
  }
  const focus = { goal: request.goal, preservedFiles: request.preservedFiles };
  const cacheKey = summaryCacheKey(request.prompt, request.messages, request.previous?.text, focus);
  const cachedText = await options.cache?.get(cacheKey);
  const cached = typeof cachedText === 'string' && cachedText.trim() !== '';
  let text: string;
  if (cached) text = cachedText.trim();
  else {
    try {
      text = await writeSummary(request, request.prompt, focus, options);
    } catch (error) {
      return { messages: plan.messages, outcome: 'fallback', summary: null, error };
    }
    await options.cache?.set(cacheKey, text);
  }
  const message = summaryMessage(text, slot.role);
  const messages = plan.messages.slice();
  messages[slot.index] = { id: SLOT_ITEM_ID, message: message as unknown as M, kind: 'summary', covers: request.covers };
  return {
    messages,
    outcome: cached ? 'cached' : 'summarized',
    summary: { text, message, covers: request.covers, replaces: request.previous?.id ?? null, cacheKey },
  };
}

/** The summary of `request.messages`, in as many calls as `options.fits` needs; throws when a call fails or answers nothing. */
async function writeSummary(request: SummaryRequest, kind: SummaryPromptKind, focus: SummaryFocus, options: SummaryWriter): Promise<string> {
  const fits = options.fits ?? (() => true);
  let summary = request.previous?.text;
  let batch: WindowMessage[] = [];
  const write = async () => {
    const text = await options.summarize(buildSummaryPrompt(kind, batch, summary, focus), { maxTokens: request.maxTokens });
    if (typeof text !== 'string' || !text.trim()) throw new Error('the summary came back empty');
    summary = text.trim();
    batch = [];
    return summary;
  };
  for (const message of request.messages) {
    if (batch.length > 0 && !fits(buildSummaryPrompt(kind, [...batch, message], summary, focus))) await write();
    batch.push(message);
  }
  return write();
}

/**
 * The focus of a summary written outside a plan (written again on request): the goal, and
 * the last `limit` distinct files named by tool calls in `after` (the messages sent after
 * the summary), in history order.
 */
export function summaryFocusOf(goal: WindowMessage | undefined, after: readonly WindowMessage[], limit = PRESERVE_RECENT_FILES): SummaryFocus {
  const files: string[] = [];
  for (let i = after.length - 1; i >= 0 && files.length < limit; i--) {
    const calls = toolCallsOf(after[i] as WindowMessage);
    for (let c = calls.length - 1; c >= 0 && files.length < limit; c--) {
      for (const file of filesNamedBy(calls[c] as ToolCallInfo)) if (!files.includes(file) && files.length < limit) files.push(file);
    }
  }
  const text = goal ? wireText(goal).trim() : '';
  return { ...(text ? { goal: text } : {}), ...(files.length > 0 ? { preservedFiles: files.reverse() } : {}) };
}
