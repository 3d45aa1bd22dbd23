/**
 * What the next request of a conversation sends: the context in force (settings, model,
 * counter), the plan the windowing module makes of its history, that plan as the
 * provider's request, and what the user is told about it. The gauge reads the same plan.
 */
import type { AnthropicWireMessage, CalibrationState, ContextPlan, Conversation, OpenAIWireMessage, StoredMessage } from '../core';
import { keepValidThinking, placeCacheBreakpoints, planContext, requestFileBudget, thinkingPrefixStart, thinkingSupport, toolNamesCalled } from '../core';
import type { ChatRequest } from '../providers';
import type { Runtime } from './runtime';
import { conversationOverrides } from './storedSettings';
import { shownBranch } from './branches';
import { buildHistory, type MediaOptions } from './history';
import { planReport } from './planReport';
import type { Settings } from './settings';
import { settingsProblems } from './settingsRules';
import { turnContext, withoutImages, withoutTools, type TurnContext } from './turn';
import type { ModelListState } from './state';

/** What a conversation's request context is made from, all of it store state. */
export interface ContextInputs {
  settings: Settings;
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
  );
  const sure = inputs.imagesRefused?.includes(toolsKey(ctx)) ? withoutImages(ctx) : ctx;
  return sure.tools.length > 0 && inputs.toolsRefused.includes(toolsKey(sure)) ? withoutTools(sure) : sure;
}

/** The context in force for a conversation now (`null`: a new chat). */
export function contextFor(rt: Runtime, conversationId: string | null, windowLimit?: number): TurnContext {
  const state = rt.store.getState();
  return contextOf(
    {
      settings: state.settings,
      conversation: conversationId ? state.conversations.find((c) => c.id === conversationId) : undefined,
      messages: shownBranch(state, conversationId),
      hasAttachments: conversationId !== null && ((state.attachments[conversationId]?.length ?? 0) > 0 || holdsPdfs(shownBranch(state, conversationId))),
      calibration: state.calibration,
      toolsRefused: state.toolsRefused,
      imagesRefused: state.imagesRefused,
      modelLists: state.modelLists,
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
  };
}

/** The plan for the next request of a conversation (pure; the gauge reads the same one). */
export function planFor(ctx: TurnContext, messages: readonly StoredMessage[], draftTokens = 0): ContextPlan {
  return planContext({
    history: buildHistory(messages, ctx.wireShape, ctx.settings.systemPrompt, mediaOf(ctx)),
    policy: ctx.policy,
    model: { contextWindow: ctx.model.contextWindow, maxOutputTokens: ctx.model.maxOutputTokens, maxInputTokens: ctx.model.maxInputTokens },
    counter: ctx.counter,
    system: fixedText(ctx),
    draftTokens,
  });
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

/** A request to send, and the key of its prefix for the answer to store (models with preserved thinking). */
export interface PlannedRequest {
  request: ChatRequest;
  thinkingPrefix?: string;
}

/**
 * The plan's messages as the provider's request, with Anthropic cache breakpoints on the
 * stable prefix. On a model with preserved thinking, earlier answers' thinking goes back only
 * where nothing before it changed since it was written (`keepValidThinking`);
 * `thinkingPrefixOf` gives the key each stored answer kept.
 */
export function toRequest(
  ctx: TurnContext,
  plan: ContextPlan,
  signal?: AbortSignal,
  thinkingPrefixOf: (messageId: string) => string | undefined = () => undefined,
): PlannedRequest {
  const system = ctx.settings.systemPrompt.trim() ? ctx.settings.systemPrompt : undefined;
  if (ctx.wireShape === 'anthropic') {
    let items = plan.messages;
    let slot = plan.slot?.index;
    let thinkingPrefix: string | undefined;
    let staleInToolLoop = false;
    if (thinkingSupport(ctx.provider, ctx.model.id)?.preservesThinking) {
      const valid = keepValidThinking(
        items.map((item) => item.message as AnthropicWireMessage),
        thinkingPrefixStart(system, ctx.toolsText),
        (index) => thinkingPrefixOf(items[index]!.id),
      );
      const original = items;
      items = valid.kept.map((index, j) => ({ ...original[index]!, message: valid.messages[j]! }));
      if (slot !== undefined) slot = valid.kept.findLastIndex((index) => index <= slot!);
      thinkingPrefix = valid.prefixKey;
      staleInToolLoop = valid.staleInToolLoop;
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
      thinking: staleInToolLoop && ctx.thinking.thinking?.type === 'adaptive' ? { ...ctx.thinking, dropMismatched: true } : ctx.thinking,
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
    },
  };
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
