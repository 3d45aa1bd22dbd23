/**
 * What a request is made of once planned: the plan's messages in the provider's shape, and
 * what the user is told when the plan leaves messages out. Loaded with the steps of a turn.
 */
import type { AnthropicWireMessage, ContextPlan, OpenAIWireMessage } from '../core';
import { keepValidThinking, placeCacheBreakpoints, thinkingPrefixStart, thinkingSupport } from '../core';
import type { ChatRequest } from '../providers';
import type { Runtime } from './runtime';
import { planReport } from './planReport';
import { dropsStaleThinking, requestSystem } from './planning';
import type { TurnContext } from './turn';

/** A request to send, and the key of its prefix for the answer to store (models with preserved thinking). */
export interface PlannedRequest {
  request: ChatRequest;
  thinkingPrefix?: string;
}

/**
 * The plan's messages as the provider's request, with Anthropic cache breakpoints on the
 * stable prefix. On a model with preserved thinking, earlier answers' thinking goes back only
 * where nothing before it changed since it was written, or, with adaptive thinking, where a
 * later answer was written after it was sent so (`keepValidThinking`);
 * `thinkingPrefixOf` gives the key each stored answer kept.
 */
export function toRequest(
  ctx: TurnContext,
  plan: ContextPlan,
  signal?: AbortSignal,
  thinkingPrefixOf: (messageId: string) => string | undefined = () => undefined,
): PlannedRequest {
  const system = requestSystem(ctx);
  if (ctx.wireShape === 'anthropic') {
    let items = plan.messages;
    let slot = plan.slot?.index;
    let thinkingPrefix: string | undefined;
    let dropMismatched = false;
    const canDrop = dropsStaleThinking(ctx);
    if (thinkingSupport(ctx.provider, ctx.model.id)?.preservesThinking) {
      const valid = keepValidThinking(
        items.map((item) => item.message as AnthropicWireMessage),
        thinkingPrefixStart(system, ctx.toolsText),
        (index) => thinkingPrefixOf(items[index]!.id),
        canDrop,
      );
      const original = items;
      items = valid.kept.map((index, j) => ({ ...original[index]!, message: valid.messages[j]! }));
      if (slot !== undefined) slot = valid.kept.findLastIndex((index) => index <= slot!);
      thinkingPrefix = valid.prefixKey;
      dropMismatched = canDrop && (valid.staleInToolLoop || valid.keptStale.length > 0);
    }
    const boundaries = slot !== undefined && slot >= 0 ? [slot] : [];
    const cacheBreakpoints = placeCacheBreakpoints(items, boundaries, { system: Boolean(system) });
    const request: ChatRequest = {
      model: ctx.modelId,
      system,
      messages: items.map((item) => item.message as AnthropicWireMessage),
      maxTokens: ctx.outputReserve,
      signal,
      cacheBreakpoints,
      tools: ctx.tools,
      thinking: dropMismatched ? { ...ctx.thinking, dropMismatched: true } : ctx.thinking,
      ...providerContext(ctx),
    };
    return thinkingPrefix === undefined ? { request } : { request, thinkingPrefix };
  }
  return {
    request: {
      model: ctx.modelId,
      messages: plan.messages.map((item) => item.message as OpenAIWireMessage),
      maxTokens: ctx.outputReserve,
      signal,
      tools: ctx.tools,
      thinking: ctx.thinking,
      ...providerContext(ctx),
    },
  };
}

/** What the request asks the provider to manage on its side. */
function providerContext(ctx: TurnContext): Pick<ChatRequest, 'contextManagement'> {
  return ctx.compaction ? { contextManagement: { compaction: { triggerTokens: ctx.compaction.triggerTokens } } } : {};
}

/** Tells the user when this request leaves earlier messages out, or cannot fit at all. */
export function announcePlan(rt: Runtime, plan: ContextPlan): void {
  const m = plan.metrics;
  const report = planReport(plan);
  const event = [report.pruned ? `${report.pruned}.` : '', report.differs ?? '', report.compacted ?? ''].filter(Boolean).join(' ');
  if (m.overBudget) {
    const after = m.trimmed ? ' even after trimming' : '';
    rt.notifier.notify({ id: 'over-budget', tone: 'warning', text: `This request is over its limit${after}: ${m.overBudgetReasons.join('; ')}.` });
  }
  const count = m.evictedMessages;
  if (m.trimmed && count > 0) {
    const what = `${count.toLocaleString('en-US')} earlier message${count === 1 ? ' is' : 's are'} left out of this request`;
    const how = plan.slot?.kind === 'summary' ? 'and a summary is sent in their place' : 'to keep it within its limits';
    // The user-set strategies' triggers name the user's own settings ("42 messages > max_messages (30)");
    // the default's high- and low-water marks are internal and leave out the output reserve the gauge shows.
    const why = m.trigger && plan.strategy !== 'auto' ? `: ${m.trigger}` : '';
    const alsoCleared = m.clearedToolResults > 0 ? ` ${clearedPhrase(m.clearedToolResults)}.` : '';
    rt.notifier.notify({ id: 'compaction', tone: 'info', text: `${what} ${how}${why}.${alsoCleared} They stay in the conversation. ${event}` });
  } else if (m.clearedToolResults > 0) {
    rt.notifier.notify({
      id: 'compaction',
      tone: 'info',
      text: `${clearedPhrase(m.clearedToolResults)} to save about ${m.clearedTokens.toLocaleString('en-US')} tokens. The full output stays in the conversation. ${event}`,
    });
  }
}

function clearedPhrase(n: number): string {
  return n === 1 ? '1 older tool result is sent as a short placeholder' : `${n.toLocaleString('en-US')} older tool results are sent as short placeholders`;
}
