/**
 * What a request is made of once planned: the plan's messages in the provider's shape, and
 * what the user is told when the plan leaves messages out. Loaded with the steps of a turn.
 */
import type { AnthropicWireMessage, ContextPlan, OpenAIWireMessage, PlanItem, ProviderClearing, ProviderContextManagement } from '../core';
import {
  connectorServers,
  fitsWithProviderClearing,
  keepValidThinking,
  placeCacheBreakpoints,
  providerClearing,
  readMcpServers,
  supportsContextEditing,
  thinkingPrefixStart,
  thinkingSupport,
} from '../core';
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
 * `thinkingPrefixOf` gives the key each stored answer kept. When the context clears on the
 * provider's side, the results the plan cleared go whole, with the edits that make Anthropic
 * clear them (`providerClearing`), if the request then surely fits; else as placeholders.
 */
export function toRequest(
  ctx: TurnContext,
  plan: ContextPlan,
  signal?: AbortSignal,
  thinkingPrefixOf: (messageId: string) => string | undefined = () => undefined,
): PlannedRequest {
  const system = requestSystem(ctx);
  if (ctx.wireShape === 'anthropic') {
    const onProvider = ctx.settings.window.clearOnProvider && supportsContextEditing(ctx.provider, ctx.model.id, ctx.model.providerContextEditing);
    const clearing = onProvider ? providerClearing(plan.messages) : null;
    let sent = anthropicItems(ctx, plan, clearing?.items ?? plan.messages, system, thinkingPrefixOf);
    const cleared = clearing && fitsWithProviderClearing(tokensAsRead(ctx, plan, sent.items), clearing, plan.metrics.maxInputTokens) ? clearing : null;
    if (clearing && !cleared) sent = anthropicItems(ctx, plan, plan.messages, system, thinkingPrefixOf);
    const { items, slot, thinkingPrefix, dropMismatched } = sent;
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
    if (cleared) request.contextManagement = { ...request.contextManagement, ...providerEdits(ctx, cleared) };
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

/**
 * What the request asks the provider to manage on its side: its compaction, and the MCP servers
 * it connects to itself (read back from settings, which may hold anything: `readMcpServers`).
 */
function providerContext(ctx: TurnContext): Pick<ChatRequest, 'contextManagement' | 'mcpConnectors'> {
  const out: Pick<ChatRequest, 'contextManagement' | 'mcpConnectors'> = {};
  if (ctx.compaction) out.contextManagement = { compaction: { triggerTokens: ctx.compaction.triggerTokens } };
  const stored = ctx.settings.tools.mcpServers;
  if (stored.length > 0) {
    const connectors = connectorServers(readMcpServers(stored, []), ctx.settings.mcpSecrets, ctx.provider);
    if (connectors.length > 0) out.mcpConnectors = connectors;
  }
  return out;
}

interface AnthropicItems {
  items: PlanItem[];
  slot: number | undefined;
  thinkingPrefix?: string;
  dropMismatched: boolean;
}

/** The items an Anthropic request sends, with the thinking that may go back (see `toRequest`). */
function anthropicItems(
  ctx: TurnContext,
  plan: ContextPlan,
  planned: readonly PlanItem[],
  system: string | undefined,
  thinkingPrefixOf: (messageId: string) => string | undefined,
): AnthropicItems {
  const slot = plan.slot?.index;
  if (!thinkingSupport(ctx.provider, ctx.model.id)?.preservesThinking) return { items: [...planned], slot, dropMismatched: false };
  const canDrop = dropsStaleThinking(ctx);
  const valid = keepValidThinking(
    planned.map((item) => item.message as AnthropicWireMessage),
    thinkingPrefixStart(system, ctx.toolsText),
    (index) => thinkingPrefixOf(planned[index]!.id),
    canDrop,
  );
  return {
    items: valid.kept.map((index, j) => ({ ...planned[index]!, message: valid.messages[j]! })),
    slot: slot === undefined ? undefined : valid.kept.findLastIndex((index) => index <= slot),
    thinkingPrefix: valid.prefixKey,
    dropMismatched: canDrop && (valid.staleInToolLoop || valid.keptStale.length > 0),
  };
}

/**
 * Input tokens of a request the provider clears, as the model reads it: the plan's count, with
 * each message as sent (the thinking that goes back may differ from what the plan kept) and each
 * result the plan cleared at its placeholder's count.
 */
function tokensAsRead(ctx: TurnContext, plan: ContextPlan, sent: readonly PlanItem[]): number {
  const planned = new Map(plan.messages.map((item) => [item.id, item.message]));
  let tokens = plan.metrics.inputTokens;
  for (const item of plan.messages) tokens -= ctx.counter(item.message);
  for (const item of sent) tokens += ctx.counter(item.cleared ? (planned.get(item.id) ?? item.message) : item.message);
  return tokens;
}

/**
 * The edits that make the provider clear what the plan cleared (`providerClearing`), and, with
 * thinking on, keep every thinking block: the plan counts each one it sends, and thinking
 * cleared on the server would change the cached prefix on every request.
 */
function providerEdits(ctx: TurnContext, clearing: ProviderClearing): ProviderContextManagement {
  const type = ctx.thinking.thinking?.type;
  const thinks = type !== undefined && type !== 'disabled';
  return thinks ? { clearThinking: { keepTurns: 'all' }, clearToolUses: clearing.clearToolUses } : { clearToolUses: clearing.clearToolUses };
}

/**
 * Tells the user when this request leaves earlier messages out, or cannot fit at all; the
 * tool results it clears are sent as placeholders, or, when `providerClears`, left to the
 * provider (whose answer says what it cleared).
 */
export function announcePlan(rt: Runtime, plan: ContextPlan, providerClears = false): void {
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
    const alsoCleared = m.clearedToolResults > 0 ? ` ${clearedPhrase(m.clearedToolResults, providerClears)}.` : '';
    rt.notifier.notify({ id: 'compaction', tone: 'info', text: `${what} ${how}${why}.${alsoCleared} They stay in the conversation. ${event}` });
  } else if (m.clearedToolResults > 0) {
    rt.notifier.notify({
      id: 'compaction',
      tone: 'info',
      text: `${clearedPhrase(m.clearedToolResults, providerClears)} to save about ${m.clearedTokens.toLocaleString('en-US')} tokens. The full output stays in the conversation. ${event}`,
    });
  }
}

function clearedPhrase(n: number, providerClears: boolean): string {
  const results = n === 1 ? '1 older tool result is' : `${n.toLocaleString('en-US')} older tool results are`;
  return providerClears ? `${results} left for the provider to clear` : `${results} sent as ${n === 1 ? 'a short placeholder' : 'short placeholders'}`;
}
