/**
 * When the gauge's number is the provider's own count: which providers count exactly, when
 * the next request is close enough to a limit to ask, and the key a count is kept under.
 * The counting itself (exactCount.ts) is loaded with the steps of a turn.
 */
import type { ContextPlan, PlanMetrics, ProviderId, WindowMessage } from '../core';
import { hashString } from '../core';
import type { GaugeView } from './chatView';
import { requestSystem } from './planning';
import type { RequestCount } from './state';
import type { TurnContext } from './turn';

/**
 * How close the estimate of the next request may come to a limit (a share of it) before the
 * provider is asked for its exact count: the trim mark, the context window and the per-request
 * budget. An estimate this close may be on the wrong side of the mark.
 */
export const COUNT_MARGIN = 0.1;

/** How the gauge shows the count of the request as it stands. */
export type ExactCountView =
  { kind: 'exact'; inputTokens: number } | { kind: 'estimate'; canCount: true; busy: boolean; note?: string } | { kind: 'estimate'; canCount: false };

const near = (tokens: number, mark: number) => Number.isFinite(mark) && mark > 0 && Math.abs(tokens - mark) <= COUNT_MARGIN * mark;

/** Whether the estimate is within COUNT_MARGIN of the trim mark, the window or the budget (or over its limits already). */
export function nearALimit(metrics: PlanMetrics): boolean {
  return (
    metrics.overBudget ||
    near(metrics.totalTokens, metrics.triggerTokens) ||
    near(metrics.totalTokens, metrics.contextWindow) ||
    near(metrics.inputTokens, metrics.budgetTokens)
  );
}

const messageKeys = new WeakMap<WindowMessage, string>();

function messageKey(message: WindowMessage): string {
  let key = messageKeys.get(message);
  if (key === undefined) {
    key = hashString(JSON.stringify(message));
    messageKeys.set(message, key);
  }
  return key;
}

/**
 * The key of the request a plan makes: a hash of everything its body is built from (endpoint,
 * model, system prompt, tools, thinking, how files go, and every message as planned). Equal
 * keys are the same request, so a count is never asked twice and is shown only while the
 * request it counted is the one that would be sent. Each message is hashed once.
 */
export function requestKeyOf(ctx: TurnContext, plan: ContextPlan): string {
  const head = JSON.stringify([
    ctx.provider,
    ctx.providerSettings.baseUrl ?? '',
    ctx.modelId,
    ctx.wireShape === 'anthropic' ? (requestSystem(ctx) ?? '') : '',
    ctx.toolsText,
    ctx.thinking,
    ctx.pdfAs,
    ctx.imagesOff === true,
  ]);
  return `r${hashString([head, ...plan.messages.map((item) => messageKey(item.message))].join('\n'))}`;
}

/** The gauge's view of the count: exact, or an estimate the provider can (or cannot) count. */
export function exactCountView(provider: ProviderId, count: RequestCount | undefined): ExactCountView {
  // Anthropic's and OpenAI's own APIs have a count endpoint; compatible servers and the Demo do not.
  if (provider !== 'anthropic' && provider !== 'openai') return { kind: 'estimate', canCount: false };
  if (count?.status === 'counted') return { kind: 'exact', inputTokens: count.tokens };
  if (count?.status === 'waiting' || count?.status === 'failed') return { kind: 'estimate', canCount: true, busy: false, note: count.note };
  return { kind: 'estimate', canCount: true, busy: count?.status === 'counting' };
}

/** The gauge with the provider's count of the input in place of the estimate: the draft and the output reserve stay as planned. */
export function withExactCount(gauge: GaugeView, plan: ContextPlan, view: ExactCountView): GaugeView {
  if (view.kind !== 'exact') return gauge;
  return { ...gauge, total: view.inputTokens + plan.metrics.draftTokens + plan.metrics.outputReserveTokens };
}
