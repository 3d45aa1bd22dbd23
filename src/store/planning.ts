/**
 * What the next request of a conversation sends: the context in force (settings, model,
 * counter) and the plan the windowing module makes of its history. The gauge reads the same
 * plan; request.ts makes it the provider's request and tells the user about it.
 */
import type { AnthropicWireMessage, CalibrationState, ContextPlan, Conversation, McpToolOffer, PlanItem, StoredMessage } from '../core';
import { keepValidThinking, planContext, requestFileBudget, thinkingPrefixStart, thinkingSupport, toolNamesCalled } from '../core';
import type { Runtime } from './runtime';
import { conversationOverrides } from './storedSettings';
import { shownBranch } from './branches';
import { buildHistory, type MediaOptions } from './history';
import type { ConversationOverrides, Settings } from './settings';
import { settingsProblems } from './settingsRules';
import { turnContext, withoutImages, withoutTools, type TurnContext } from './turn';
import type { ModelListState } from './state';

/** What a conversation's request context is made from, all of it store state. */
export interface ContextInputs {
  settings: Settings;
  /** The MCP servers' tools switched on (state.mcpTools). */
  mcpTools?: McpToolOffer;
  conversation: Conversation | undefined;
  /** The branch shown: the tools its messages call are still named when no tool is offered. */
  messages: readonly StoredMessage[];
  /** Whether the conversation has files for read_attachment to read. */
  hasAttachments: boolean;
  calibration: CalibrationState;
  toolsRefused: readonly string[];
  /** Endpoints that refused images in this visit (see `toolsKey`). */
  imagesRefused?: readonly string[];
  /** What the endpoints listed (see modelLists.ts): a window an endpoint states is planned with. */
  modelLists?: Readonly<Record<string, ModelListState>>;
}

/**
 * The settings, model and counter in force for a conversation (pure: the chat screen
 * memoizes it on these inputs). `windowLimit` (tokens) stands in for the context window
 * when a provider has stated a smaller one.
 */
export function contextOf(inputs: ContextInputs, windowLimit?: number): TurnContext {
  const overrides = conversationOverrides(inputs.conversation);
  // Read only when no tool is offered (see turnContext): a scan of the history otherwise spared.
  const historyTools = () => toolNamesCalled(inputs.messages);
  const ctx = turnContext(
    inputs.settings,
    windowLimit ? { ...overrides, contextWindow: windowLimit } : overrides,
    inputs.calibration,
    inputs.hasAttachments,
    historyTools,
    inputs.modelLists,
    inputs.mcpTools,
  );
  const sure = inputs.imagesRefused?.includes(toolsKey(ctx)) ? withoutImages(ctx) : ctx;
  return sure.tools.length > 0 && inputs.toolsRefused.includes(toolsKey(sure)) ? withoutTools(sure) : sure;
}

/**
 * The context in force for a conversation now (`null`: a new chat); `pinned` (a turn's own
 * provider, model and thinking) stands over the conversation's choice.
 */
export function contextFor(rt: Runtime, conversationId: string | null, windowLimit?: number, pinned?: ConversationOverrides): TurnContext {
  const state = rt.store.getState();
  const conversation = conversationId ? state.conversations.find((c) => c.id === conversationId) : undefined;
  return contextOf(
    {
      settings: state.settings,
      conversation:
        conversation && pinned
          ? { ...conversation, overrides: { ...conversationOverrides(conversation), ...pinned } as Record<string, unknown> }
          : conversation,
      messages: shownBranch(state, conversationId),
      hasAttachments: conversationId !== null && ((state.attachments[conversationId]?.length ?? 0) > 0 || holdsPdfs(shownBranch(state, conversationId))),
      calibration: state.calibration,
      toolsRefused: state.toolsRefused,
      imagesRefused: state.imagesRefused,
      modelLists: state.modelLists,
      mcpTools: state.mcpTools,
    },
    windowLimit,
  );
}

/** Whether any of `messages` carries a PDF, whose text read_attachment reads. */
export function holdsPdfs(messages: readonly StoredMessage[]): boolean {
  return messages.some((m) => m.content.some((b) => b.type === 'document'));
}

/** The endpoint a context sends to, as remembered when it refuses tools. */
export function toolsKey(ctx: TurnContext): string {
  return `${ctx.provider}\u0000${ctx.providerSettings.baseUrl ?? ''}\u0000${ctx.modelId}`;
}

/** How the context sends images and PDFs (the transcript marks what it leaves out by the same options). */
export function mediaOf(ctx: TurnContext): MediaOptions {
  return {
    keep: ctx.settings.window.keepImages,
    model: ctx.modelId,
    pdfAs: ctx.pdfAs,
    imagesOff: ctx.imagesOff,
    budget: requestFileBudget(ctx.wireShape, ctx.model.contextWindow, ctx.pdfAs),
    // OpenAI's own endpoint is the Responses API, whose tool outputs take images; compatible servers get a line each.
    toolImages: ctx.provider === 'openai',
  };
}

/** The plan for the next request of a conversation (pure; the gauge reads the same one). */
export function planFor(ctx: TurnContext, messages: readonly StoredMessage[], draftTokens = 0): ContextPlan {
  const plan = planContext({
    history: buildHistory(messages, ctx.wireShape, ctx.settings.systemPrompt, mediaOf(ctx), {
      reasoningItems: ctx.provider === 'openai',
      compaction: ctx.compaction?.provider,
    }),
    policy: ctx.policy,
    model: { contextWindow: ctx.model.contextWindow, maxOutputTokens: ctx.model.maxOutputTokens, maxInputTokens: ctx.model.maxInputTokens },
    counter: ctx.counter,
    system: fixedText(ctx),
    draftTokens,
  });
  return withThinkingAsSent(ctx, plan, messages);
}

/** The Anthropic `system` of a context's requests: the system prompt, unless it is blank. */
export function requestSystem(ctx: TurnContext): string | undefined {
  return ctx.settings.systemPrompt.trim() ? ctx.settings.systemPrompt : undefined;
}

/** On a model with preserved thinking, whether the request may ask the API to drop a block that fails its check (adaptive thinking only). */
export function dropsStaleThinking(ctx: TurnContext): boolean {
  return ctx.thinking.thinking?.type === 'adaptive';
}

const carriesThinking = (item: PlanItem) =>
  Array.isArray(item.message.content) && item.message.content.some((block) => block.type === 'thinking' || block.type === 'redacted_thinking');

/**
 * The plan as the request sends it, on a model with preserved thinking: earlier answers'
 * thinking that the API would refuse is left out (`keepValidThinking`, which `toRequest`
 * applies again to the same effect) and no longer counted, so the gauge counts what the
 * provider will. The strategy chose what to keep counting that thinking, so a plan never
 * grows here, only shrinks.
 */
function withThinkingAsSent(ctx: TurnContext, plan: ContextPlan, stored: readonly StoredMessage[]): ContextPlan {
  if (ctx.wireShape !== 'anthropic' || !thinkingSupport(ctx.provider, ctx.model.id)?.preservesThinking || !plan.messages.some(carriesThinking)) return plan;
  const prefixes = new Map<string, string>();
  for (const message of stored) if (typeof message.thinkingPrefix === 'string') prefixes.set(message.id, message.thinkingPrefix);
  const items = plan.messages;
  // Results the provider is to clear go whole, so thinking is checked against them (every model
  // with preserved thinking has context editing; a request that clears in the browser after all
  // checks its thinking again, and only sends less).
  const onProvider = ctx.settings.window.clearOnProvider && ctx.provider === 'anthropic';
  const asSent = (item: PlanItem) => (onProvider && item.cleared ? item.cleared.original : item.message);
  const valid = keepValidThinking(
    items.map((item) => asSent(item) as AnthropicWireMessage),
    thinkingPrefixStart(requestSystem(ctx), ctx.toolsText),
    (index) => prefixes.get(items[index]!.id),
    dropsStaleThinking(ctx),
  );
  if (valid.dropped.length === 0) return plan;
  let saved = 0;
  const sent = valid.kept.map((index, j) => {
    const item = items[index]!;
    const message = valid.messages[j]!;
    if (message === asSent(item)) return item;
    saved += ctx.counter(item.message) - ctx.counter(message);
    return { ...item, message };
  });
  // A message that was only thinking is left out whole.
  const kept = new Set(valid.kept);
  for (const index of valid.dropped) if (!kept.has(index)) saved += ctx.counter(items[index]!.message);
  const m = plan.metrics;
  const inputTokens = m.inputTokens - saved;
  const totalTokens = m.totalTokens - saved;
  const slot = plan.slot ? { ...plan.slot, index: valid.kept.findLastIndex((index) => index <= plan.slot!.index) } : null;
  return {
    ...plan,
    messages: sent,
    slot,
    metrics: {
      ...m,
      keptMessages: m.keptMessages - (items.length - sent.length),
      sentMessages: m.sentMessages - (items.length - sent.length),
      messageTokens: m.messageTokens - saved,
      inputTokens,
      totalTokens,
      windowShare: m.contextWindow > 0 ? totalTokens / m.contextWindow : m.windowShare,
      budgetShare: m.budgetTokens > 0 ? inputTokens / m.budgetTokens : m.budgetShare,
    },
  };
}

/** A plan for the chat screen, and why the next request cannot be planned (null when it can). */
export interface ScreenPlan {
  plan: ContextPlan;
  problem: string | null;
}

const SHOW_EVERYTHING = { strategy: 'off', options: {} } as const;

/**
 * The plan the chat screen shows, which never throws: the screen is drawn while it plans,
 * and a setting planning cannot use must not take the conversation off the screen. Then
 * every message is shown as it stands, nothing trimmed, and `problem` says what is wrong;
 * sends are refused with the same words (see `send`).
 */
export function screenPlan(ctx: TurnContext, messages: readonly StoredMessage[], draftTokens = 0): ScreenPlan {
  try {
    return { plan: planFor(ctx, messages, draftTokens), problem: null };
  } catch (error) {
    return { plan: planFor({ ...ctx, policy: SHOW_EVERYTHING }, messages, draftTokens), problem: cannotPlan(ctx, error) };
  }
}

/** Why planning failed, naming the setting at fault when a rule finds one (an override can cross a global setting). */
function cannotPlan(ctx: TurnContext, error: unknown): string {
  const [knob, reason] = Object.entries(settingsProblems(ctx.settings))[0] ?? [];
  const why = knob ? `${knob}: ${reason}` : error instanceof Error ? error.message : String(error);
  return `The settings in force here cannot be used, so nothing is sent until they are fixed in Settings. ${why.endsWith('.') ? why : `${why}.`}`;
}

/**
 * What every request carries outside its messages, for the planner to count as fixed: the
 * Anthropic system prompt (OpenAI's is the first message) and the tool definitions.
 */
function fixedText(ctx: TurnContext): string | undefined {
  const system = ctx.wireShape === 'anthropic' && ctx.settings.systemPrompt.trim() ? ctx.settings.systemPrompt : '';
  return [system, ctx.toolsText].filter(Boolean).join('\n\n') || undefined;
}
