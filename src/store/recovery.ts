/**
 * What a turn does when a request fails before any text arrived: the next attempt, or
 * null to give up (the caller then reports the error). Three failures are recovered from:
 * an endpoint that refuses tools (sent again without them), one that refuses images (sent
 * again with a note for each), and a context-length error
 * (once per answer: the calibration is tightened, a smaller window the provider states is
 * kept for the rest of the turn, and the history is planned again).
 */
import type { ContextPlan } from '../core';
import { fileRefsIn, isWindowpaneError, tightenCalibration } from '../core';
import { rawEstimate, updateCalibration } from './calibration';
import { contextFor, planFor, toolsKey } from './planning';
import { ensureSummary } from './summaries';
import { turnHistory, withoutImages, withoutTools, type Turn, type TurnContext } from './turn';

/** One request of a turn: the context it is sent in, its plan, and whether it already retried after a context-length error. */
export interface Attempt {
  ctx: TurnContext;
  plan: ContextPlan;
  contextRetried: boolean;
}

/** The attempt to make after `error`, or null to give up. `answerId` is the answer being written (left out of the history). */
export async function recover(turn: Turn, attempt: Attempt, error: unknown, answerId: string): Promise<Attempt | null> {
  if (attempt.ctx.tools.length > 0 && isToolsRefusal(error)) return resendWithout(TOOLS, turn, attempt, error, answerId);
  if (isImagesRefusal(error) && fileRefsIn(attempt.plan.messages.map((item) => item.message)).length > 0)
    return resendWithout(IMAGES, turn, attempt, error, answerId);
  if (!attempt.contextRetried && isWindowpaneError(error, 'context_length')) {
    const { promptTokens = 0, limit = 0 } = error.details;
    return smallerAfter(turn, attempt, { promptTokens, limit }, answerId);
  }
  return null;
}

function isImagesRefusal(error: unknown): error is Error {
  return isWindowpaneError(error, 'bad_request') && error.details.imagesUnsupported === true;
}

function isToolsRefusal(error: unknown): error is Error {
  return isWindowpaneError(error, 'bad_request') && error.details.toolsUnsupported === true;
}

/** Something a model refused, and how the turn goes on without it. */
interface Refusal {
  /** Names the list that remembers the refusal for the rest of the visit (`imagesRefused`, `toolsRefused`) and the notice. */
  kind: 'images' | 'tools';
  /** The context sent again, without what was refused. */
  without: (ctx: TurnContext) => TurnContext;
  /** The notice: `error` refused `refused`, and `ctx` is sent instead. */
  text: (error: Error, ctx: TurnContext, refused: Attempt) => string;
}

/**
 * A model that cannot read images or PDFs: say so, naming it, and send the turn again with
 * a note for each image and each PDF's text.
 */
const IMAGES: Refusal = {
  kind: 'images',
  without: withoutImages,
  text: (error, ctx, refused) =>
    fileRefsIn(refused.plan.messages.map((item) => item.message)).some((ref) => ref.pdf)
      ? `${error.message} Windowpane sent the message again with each PDF's text instead of the file (and a note for each image), and will send ${ctx.modelId} only text in this visit; the files stay in the conversation.`
      : `${error.message} Windowpane sent the message again without its images, and will send ${ctx.modelId} none in this visit; they stay in the conversation. Pick a model that reads images to send them.`,
};

/** A local model without tool support: say so once, and carry on without tools. */
const TOOLS: Refusal = {
  kind: 'tools',
  without: withoutTools,
  text: (error, ctx) =>
    `${error.message} Windowpane sent the message again without tools, and will not offer tools to ${ctx.modelId} again in this visit. Pick a model that supports tools, or switch the tools off in Settings.`,
};

/** Remember that this model refused, say so, and plan the turn again without what it refused. */
function resendWithout(refusal: Refusal, turn: Turn, attempt: Attempt, error: Error, answerId: string): Attempt {
  const { rt } = turn;
  const key = `${refusal.kind}Refused` as const;
  rt.store.setState((state) => ({ [key]: [...state[key], toolsKey(attempt.ctx)] }));
  const ctx = refusal.without(attempt.ctx);
  rt.notifier.notify({ id: `${refusal.kind}-refused-${toolsKey(ctx)}`, tone: 'warning', text: refusal.text(error, ctx, attempt) });
  return { ...attempt, ctx, plan: planFor(ctx, turnHistory(turn, answerId)) };
}

/**
 * The provider counted more than the plan estimated: learn from its count, and plan again.
 * A limit below the window we planned for means the window setting is too large (or the
 * server's smaller): only a plan within the stated limit can succeed.
 */
async function smallerAfter(turn: Turn, attempt: Attempt, counted: { promptTokens: number; limit: number }, answerId: string): Promise<Attempt | null> {
  const { rt } = turn;
  const { promptTokens, limit } = counted;
  const { ctx: failed, plan: tooLarge } = attempt;
  if (promptTokens > 0) {
    updateCalibration(rt, failed.model.id, (calibration) => tightenCalibration(calibration, failed.model.id, rawEstimate(failed, tooLarge), promptTokens));
  }
  const statedLimit = limit > 0 && limit < failed.model.contextWindow ? limit : undefined;
  // A refusal that states no counts (OpenAI's Responses API says only that the input exceeds
  // the window): the estimate was short by an unknown amount, so plan within 90 % of it.
  const guessedLimit = !statedLimit && promptTokens <= 0 && limit <= 0 ? Math.floor(failed.model.contextWindow * 0.9) : undefined;
  if (statedLimit ?? guessedLimit) turn.windowLimit = statedLimit ?? guessedLimit;
  const ctx = contextFor(rt, turn.conversationId, turn.windowLimit, turn.pinned);
  const history = () => turnHistory(turn, answerId);
  const plan = await ensureSummary(turn, ctx, planFor(ctx, history()), history);
  const trimmed = Math.max(0, plan.metrics.evictedMessages - tooLarge.metrics.evictedMessages);
  // The same messages again would be refused again (`off` sends everything): give up, and the error says why.
  if (sameMessages(plan, tooLarge)) return null;
  rt.notifier.notify({
    id: 'context-retry',
    tone: 'warning',
    text: guessedLimit
      ? `The provider said this request was too long for its window, without counts. Windowpane trimmed ${trimmed} more message(s) to plan within ${guessedLimit.toLocaleString('en-US')} tokens and retried.`
      : `The provider counted ${promptTokens > 0 ? promptTokens.toLocaleString('en-US') : 'more'} tokens${limit > 0 ? `, over its ${limit.toLocaleString('en-US')} limit` : ''}. Windowpane recalibrated its estimate, trimmed ${trimmed} more message(s) and retried.${statedLimit ? ` Set the Context window in Settings to ${statedLimit.toLocaleString('en-US')} or less to avoid this.` : ''}`,
  });
  return { ctx, plan, contextRetried: true };
}

/** The two plans make the same request: the same window and answer reserve, messages, stand-in and cleared results. */
function sameMessages(a: ContextPlan, b: ContextPlan): boolean {
  if (a.metrics.contextWindow !== b.metrics.contextWindow || a.metrics.outputReserveTokens !== b.metrics.outputReserveTokens) return false;
  if (a.slot?.kind !== b.slot?.kind || a.slot?.standsFor !== b.slot?.standsFor) return false;
  if (a.metrics.clearedToolResults !== b.metrics.clearedToolResults) return false;
  return a.messages.length === b.messages.length && a.messages.every((item, i) => item.id === b.messages[i]?.id);
}
