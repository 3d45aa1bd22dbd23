/**
 * The provider's exact count of the next request (Anthropic `POST /v1/messages/count_tokens`,
 * OpenAI `POST /v1/responses/input_tokens`), loaded with the steps of a turn (turnSteps.ts).
 *
 * Counts run in the background and never hold a send up. They go one at a time, at most one
 * every COUNT_INTERVAL_MS (20 a minute, a fifth of the 100 a minute Anthropic's lowest usage
 * tier allows its count endpoint), the one the user asked for first. A 429 pauses counting
 * quietly for as long as the provider asks, or for a backoff that doubles from
 * FIRST_BACKOFF_MS up to MAX_BACKOFF_MS, and the request is counted after. A request is counted
 * once: its count is kept under its key (requestKeyOf), and a newer request of the same
 * conversation takes the place of one still waiting. Each count calibrates the model's
 * estimate as an answer's reported input does: the count against the estimate of the same request.
 */
import type { ContextPlan } from '../core';
import { isWindowpaneError, observeInputTokens } from '../core';
import type { ChatRequest } from '../providers';
import type { Runtime } from './runtime';
import { shownBranch } from './branches';
import { loadCalibration, rawEstimate, updateCalibration } from './calibration';
import { toRequest } from './request';
import { withFiles } from './requestFiles';
import type { RequestCount } from './state';
import type { TurnContext } from './turn';

export const COUNT_INTERVAL_MS = 3000;
export const FIRST_BACKOFF_MS = 30_000;
export const MAX_BACKOFF_MS = 5 * 60_000;
/** Counts kept in the state; the oldest go first. */
export const KEPT_COUNTS = 64;

/** One request to count: the plan the gauge shows for a conversation, in the context it was made in. */
export interface CountJob {
  conversationId: string;
  ctx: TurnContext;
  plan: ContextPlan;
  /** `requestKeyOf(ctx, plan)`. */
  key: string;
  /** The user asked (Count exactly), rather than the estimate coming near a limit. */
  asked: boolean;
}

interface Pacing {
  /** The request waiting per conversation: only the newest is worth a count. */
  waiting: Map<string, CountJob>;
  busy: boolean;
  /** No count starts before this time (the runtime's clock). */
  notBefore: number;
  backoffMs: number;
  timer: ReturnType<typeof setTimeout> | undefined;
}

const pacings = new WeakMap<Runtime, Pacing>();

function pacingOf(rt: Runtime): Pacing {
  let pacing = pacings.get(rt);
  if (!pacing) {
    pacing = { waiting: new Map(), busy: false, notBefore: 0, backoffMs: FIRST_BACKOFF_MS, timer: undefined };
    pacings.set(rt, pacing);
  }
  return pacing;
}

function setCount(rt: Runtime, key: string, count: RequestCount | undefined): void {
  rt.store.setState(({ requestCounts }) => {
    const next = { ...requestCounts };
    delete next[key];
    if (count) next[key] = count;
    const keys = Object.keys(next);
    for (const old of keys.slice(0, Math.max(0, keys.length - KEPT_COUNTS))) delete next[old];
    return { requestCounts: next };
  });
}

/**
 * Asks the provider for its count of `job`'s request, unless it is counted, being counted or
 * waiting already (a failed count is asked again only when the user asks).
 */
export function countRequest(rt: Runtime, job: CountJob): void {
  const pacing = pacingOf(rt);
  const known = rt.store.getState().requestCounts[job.key];
  if (known && (known.status !== 'failed' || !job.asked)) return pump(rt, pacing);
  const replaced = pacing.waiting.get(job.conversationId);
  if (replaced && replaced.key !== job.key) setCount(rt, replaced.key, undefined);
  pacing.waiting.set(job.conversationId, { ...job, asked: job.asked || replaced?.asked === true });
  setCount(rt, job.key, { status: 'counting' });
  pump(rt, pacing);
}

/** Starts the next count when the pace allows one, or sets a timer for when it will. */
function pump(rt: Runtime, pacing: Pacing): void {
  if (pacing.busy || pacing.waiting.size === 0) return;
  const wait = pacing.notBefore - rt.deps.now();
  if (wait > 0) {
    pacing.timer ??= setTimeout(() => {
      pacing.timer = undefined;
      pump(rt, pacing);
    }, wait);
    return;
  }
  clearTimeout(pacing.timer);
  pacing.timer = undefined;
  const jobs = [...pacing.waiting.values()];
  const job = jobs.find((j) => j.asked) ?? jobs[0]!;
  pacing.waiting.delete(job.conversationId);
  pacing.busy = true;
  pacing.notBefore = rt.deps.now() + COUNT_INTERVAL_MS;
  void count(rt, pacing, job).finally(() => {
    pacing.busy = false;
    pump(rt, pacing);
  });
}

/** The request as `send` would build it now from the plan, files and all. */
async function requestOf(rt: Runtime, job: CountJob): Promise<ChatRequest> {
  const prefixes = new Map(shownBranch(rt.store.getState(), job.conversationId).map((m) => [m.id, m.thinkingPrefix]));
  const { request } = toRequest(job.ctx, job.plan, undefined, (id) => {
    const key = prefixes.get(id);
    return typeof key === 'string' ? key : undefined;
  });
  return withFiles(rt, request);
}

async function count(rt: Runtime, pacing: Pacing, job: CountJob): Promise<void> {
  const { ctx, plan, key } = job;
  try {
    await loadCalibration(rt, ctx.model.id);
    const provider = await rt.deps.createProvider(ctx.providerSettings);
    if (!provider.countTokens) return setCount(rt, key, { status: 'failed', note: 'This server cannot count exactly; the estimate stands.' });
    const request = await requestOf(rt, job);
    const tokens = await provider.countTokens(request);
    pacing.backoffMs = FIRST_BACKOFF_MS;
    setCount(rt, key, { status: 'counted', tokens });
    updateCalibration(rt, ctx.model.id, (c) => observeInputTokens(c, ctx.model.id, rawEstimate(ctx, plan, request.messages), tokens));
  } catch (error) {
    if (isWindowpaneError(error, 'rate_limit')) {
      const delay = Math.min(MAX_BACKOFF_MS, Math.max(pacing.backoffMs, (error.details.retryAfterSeconds ?? 0) * 1000));
      pacing.backoffMs = Math.min(MAX_BACKOFF_MS, pacing.backoffMs * 2);
      pacing.notBefore = rt.deps.now() + delay;
      // Counted later, unless a newer request of the conversation took its place meanwhile.
      if (!pacing.waiting.has(job.conversationId)) pacing.waiting.set(job.conversationId, job);
      const note = `The provider's rate limit paused counting; counting again in about ${Math.ceil(delay / 1000)} s. The estimate stands until then.`;
      if (pacing.waiting.get(job.conversationId) === job) setCount(rt, key, { status: 'waiting', note });
      else setCount(rt, key, undefined);
      return;
    }
    const why = error instanceof Error ? error.message : String(error);
    setCount(rt, key, { status: 'failed', note: `The provider could not count this request (${why.replace(/\.$/, '')}); the estimate stands.` });
  }
}
