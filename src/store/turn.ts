/**
 * Everything one request needs, resolved from settings: the provider, the model's facts
 * (explicit setting > registry > default), the windowing policy, and the token counter
 * (estimate × the model's calibration, counts cached per message).
 */
import type {
  CalibrationState,
  ContextPolicy,
  ModelPrices,
  ResolvedModelInfo,
  McpToolOffer,
  NamedToolDefinition,
  PdfSentAs,
  StrategyOptions,
  StoredMessage,
} from '../core';
import {
  DEMO_MODEL_ID,
  MODEL_REGISTRY,
  calibratedCounter,
  calibrationFactor,
  compactionTrigger,
  compactsOnProvider,
  costOfUsage,
  createCountCache,
  estimateMessageTokens,
  getStrategy,
  MIN_COMPACTION_TRIGGER,
  openAiTakesImages,
  pricesForPrompt,
  reportedInputTokens,
  resolveModelInfo,
  standInToolDefinitions,
  thinkingRequest,
  thinkingSupport,
  tokensForBudget,
  validThinking,
  type ProviderId,
  type ThinkingRequest,
  type ThinkingSetting,
} from '../core';
import type { ChatProvider, ProviderSettings } from '../providers';
import type { Runtime } from './runtime';
import { shownBranch } from './branches';
import type { WireShape } from './history';
import { DEFAULT_BASE_URLS, DEFAULT_WINDOW, effectiveSettings, type ConversationOverrides, type Settings, type WindowSettings } from './settings';
import { offeredTools } from './tools/enabledTools';
import { listedInfosFor } from './modelLists';
import type { ModelListState } from './state';
import { additionsFor } from './strategyAdditions';

/**
 * One turn in progress: the conversation being answered, the provider asked, Stop's signal,
 * and what the turn's earlier requests learned (a smaller window the provider stated).
 */
export interface Turn {
  rt: Runtime;
  conversationId: string;
  provider: ChatProvider;
  signal: AbortSignal;
  /** Rounds of tool calls allowed in this turn (settings.tools.maxRounds, at least 1). */
  maxRounds: number;
  windowLimit?: number;
  /**
   * The provider, model and thinking the turn began with. Every request of the turn keeps them:
   * a tool loop is one turn, which Anthropic asks to keep one thinking configuration and OpenAI
   * to keep a model that takes its reasoning items; a switch made meanwhile applies from the
   * next message.
   */
  pinned: Pick<ConversationOverrides, 'provider' | 'model' | 'thinking'>;
}

/** The branch the turn adds to as it stands, without the answer being written (`without`). */
export function turnHistory(turn: Turn, without?: string): StoredMessage[] {
  return shownBranch(turn.rt.store.getState(), turn.conversationId).filter((m) => m.id !== without);
}

/** One shared cache of raw (uncalibrated) counts: calibration is applied on top, so a new factor keeps it valid. */
export const rawCounter = createCountCache(estimateMessageTokens);

/** The first model of the registry for each provider: the current flagship the docs list first. */
export function defaultModelFor(provider: ProviderId): string {
  if (provider === 'demo') return DEMO_MODEL_ID;
  const registryProvider = provider === 'openai-compatible' ? 'openai' : provider;
  if (provider === 'openai-compatible') return '';
  return MODEL_REGISTRY.find((m) => m.provider === registryProvider)?.id ?? '';
}

export interface TurnContext {
  settings: Settings;
  provider: ProviderId;
  modelId: string;
  model: ResolvedModelInfo;
  wireShape: WireShape;
  providerSettings: ProviderSettings;
  policy: ContextPolicy;
  /** Output tokens reserved and requested as max_tokens: the answer's reserve, plus a thinking budget where one is set. */
  outputReserve: number;
  /** The thinking choice in force, made valid for the model. */
  thinkingSetting: ThinkingSetting;
  /** The request fields that carry it. */
  thinking: ThinkingRequest;
  /** The user's per-request input budget in tokens (Infinity when none applies). */
  budgetTokens: number;
  prices: ModelPrices | undefined;
  counter: (m: Parameters<typeof estimateMessageTokens>[0]) => number;
  calibrationFactor: number;
  /** The tools offered in each request (see `enabledTools`, then the MCP servers' tools; none when the endpoint refused tools). */
  tools: NamedToolDefinition[];
  /**
   * The tool definitions as text, '' when none: sent with every request outside the
   * messages, so the planner counts them with the system prompt, as a fixed cost.
   */
  toolsText: string;
  /** How PDFs go: as the file where the provider and model read PDFs, else as their extracted text with page markers. */
  pdfAs: PdfSentAs;
  /** The endpoint refused images in this visit: each goes as its one-line note, and PDFs as text. */
  imagesOff?: boolean;
  /**
   * The provider compacts on its side (the `provider` strategy on a model that can): requests
   * open with its newest compaction and ask for the next one past `triggerTokens` input tokens.
   */
  compaction?: { provider: 'anthropic' | 'openai'; triggerTokens: number };
  /** Why the strategy chosen is not the one planning (`provider` where the provider cannot compact: `auto` plans instead). */
  strategyFallback?: string;
  /** What was given up so the MCP tools' definitions fit the window (core's fitMcpDefinitions), in words; absent when they went whole. */
  toolsNote?: string;
}

/**
 * How a PDF reaches `modelId` on `provider`: Anthropic's models all read PDFs ("PDF
 * support"); OpenAI's take them as `file` parts where they see images ("File inputs");
 * compatible servers and the Demo get the text, which any model reads.
 */
export function pdfSentAs(provider: ProviderId, modelId: string): PdfSentAs {
  if (provider === 'anthropic') return 'file';
  if (provider === 'openai') return openAiTakesImages(modelId) ? 'file' : 'text';
  return 'text';
}

function toolsTextOf(tools: readonly NamedToolDefinition[]): string {
  return tools.length > 0 ? JSON.stringify(tools) : '';
}

/** The same turn without tools, for an endpoint that refuses them. */
export function withoutTools(ctx: TurnContext): TurnContext {
  return { ...ctx, tools: [], toolsText: '' };
}

/** The same context sending no images: each goes as its one-line note, and each PDF as its text (a model that cannot read them). */
export function withoutImages(ctx: TurnContext): TurnContext {
  return { ...ctx, imagesOff: true, pdfAs: 'text' };
}

const MAX_DEFAULT_RESERVE = 8192;

/** `hasAttachments`: the conversation has files for read_attachment to read. */
/** `modelLists`: what the endpoints listed, for the windows they state. `mcpTools`: the MCP servers' tools switched on (`state.mcpTools`). */
/**
 * `historyTools`: the tools the conversation's messages call, read only when no tool is
 * offered. Then the Anthropic shape still names them (see standInToolDefinitions), and the
 * plan counts that.
 */
export function turnContext(
  globalSettings: Settings,
  overrides: ConversationOverrides | undefined,
  calibration: CalibrationState,
  hasAttachments = false,
  historyTools: () => readonly string[] = () => [],
  modelLists: Readonly<Record<string, ModelListState>> = {},
  mcpTools?: McpToolOffer,
): TurnContext {
  const settings = effectiveSettings(globalSettings, overrides);
  const provider = settings.provider;
  const modelId = settings.models[provider] || defaultModelFor(provider) || 'unknown-model';
  const window = explicitWindow(settings, modelId);
  // The window the endpoint listed wins over the registry's; the user's own wins over both.
  const model = resolveModelInfo(modelId, { explicit: window ? { contextWindow: window } : undefined, provider, custom: listedInfosFor(modelLists, settings) });
  const support = thinkingSupport(provider, model.id);
  const thinkingSetting = validThinking(support, settings.thinking, model.maxOutputTokens);
  const thinking = thinkingRequest(provider, support, thinkingSetting);
  // A budget is thinking the model may do before the answer: max_tokens holds both.
  const outputReserve = Math.min(model.maxOutputTokens, outputReserveFor(settings, model) + thinking.extraOutput);
  const w = settings.window;
  const prices = model.prices;
  const moneyBudget = w.budgetUsd > 0 && prices ? tokensForBudget(w.budgetUsd, prices, outputReserve) : Number.POSITIVE_INFINITY;
  const tokenBudget = w.budgetTokens > 0 ? w.budgetTokens : Number.POSITIVE_INFINITY;
  const budgetTokens = Math.min(moneyBudget, tokenBudget);
  const options = strategyOptions(w, model, outputReserve, budgetTokens);
  let strategy = w.strategy === 'count' && w.summarize ? 'count' : w.strategy;
  const provided = strategy === 'provider' ? providerCompaction(provider, model, outputReserve) : undefined;
  if (provided && 'fallback' in provided) strategy = 'auto';
  const factor = calibrationFactor(calibration, model.id);
  const { tools, counted, toolsNote } = offeredTools(settings, hasAttachments, mcpTools, model.maxInputTokens ?? model.contextWindow - outputReserve);
  const wireShape: WireShape = provider === 'anthropic' || provider === 'demo' ? 'anthropic' : 'openai';
  return {
    settings,
    provider,
    modelId,
    model,
    wireShape,
    providerSettings: {
      provider,
      apiKey: settings.apiKeys[provider] ?? '',
      baseUrl: settings.baseUrls[provider] || (provider === 'openai-compatible' ? DEFAULT_BASE_URLS['openai-compatible'] : undefined),
      keyConfirmedFor: settings.keyConfirmedFor[provider],
      model: modelId,
    },
    policy: { strategy, options },
    outputReserve,
    thinkingSetting,
    thinking,
    budgetTokens,
    prices,
    counter: calibratedCounter(rawCounter, factor),
    calibrationFactor: factor,
    tools,
    toolsText: toolsTextOf(counted.length === 0 && wireShape === 'anthropic' ? standInToolDefinitions(historyTools()) : counted),
    pdfAs: pdfSentAs(provider, modelId),
    ...(provided ? ('fallback' in provided ? { strategyFallback: provided.fallback } : { compaction: provided }) : {}),
    ...(toolsNote ? { toolsNote } : {}),
  };
}

/** Compaction on the provider's side for this model and window, or why there is none (then `auto` plans). */
function providerCompaction(
  provider: ProviderId,
  model: ResolvedModelInfo,
  outputReserve: number,
): { provider: 'anthropic' | 'openai'; triggerTokens: number } | { fallback: string } {
  if ((provider !== 'anthropic' && provider !== 'openai') || !compactsOnProvider(provider, model.id, model.providerCompaction)) {
    return { fallback: `${model.label} cannot compact on the provider's side, so Windowpane trims the context itself (as Auto does).` };
  }
  const triggerTokens = compactionTrigger(model.maxInputTokens ?? model.contextWindow - outputReserve);
  if (triggerTokens === undefined) {
    return {
      fallback: `The provider compacts only past ${MIN_COMPACTION_TRIGGER.toLocaleString('en-US')} input tokens, more than this window holds, so Windowpane trims the context itself (as Auto does).`,
    };
  }
  return { provider, triggerTokens };
}

/** The window the user set: "Context window" for the selected model, else the one given for this model by id. */
export function explicitWindow(settings: Settings, modelId: string): number | undefined {
  if (settings.contextWindow > 0) return settings.contextWindow;
  const windows = settings.modelWindows?.[settings.provider];
  return windows && Object.hasOwn(windows, modelId) ? windows[modelId] : undefined;
}

/** Output tokens reserved and requested: the user's setting, else the model's limit up to 8,192, never over a quarter of the window. */
function outputReserveFor(settings: Settings, model: ResolvedModelInfo): number {
  const wanted = settings.maxOutputTokens > 0 ? settings.maxOutputTokens : Math.min(model.maxOutputTokens, MAX_DEFAULT_RESERVE);
  return Math.max(1, Math.min(wanted, model.maxOutputTokens, Math.floor(model.contextWindow / 4)));
}

/** The window settings as the strategies' options. */
function strategyOptions(w: WindowSettings, model: ResolvedModelInfo, outputReserve: number, budgetTokens: number): StrategyOptions {
  const options: StrategyOptions = {
    maxMessages: w.maxMessages,
    preserveFirst: w.preserveFirst,
    preserveLast: w.preserveLast,
    rollingMax: w.rollingMax,
    triggerRatio: w.triggerRatio,
    targetRatio: w.targetRatio,
    windowShare: w.triggerRatio,
    lowWater: w.lowWater,
    outputReserve,
    summarize: w.summarize,
    preserveRecentFiles: w.preserveRecentFiles,
    ...additionsFor(w),
    // Each strategy keeps its own default summary length unless the user changed it (two-tier:
    // 2,000); a summary is one answer of the model, so never more than it may write.
    summaryMaxTokens: Math.min(
      w.summaryMaxTokens === DEFAULT_WINDOW.summaryMaxTokens
        ? Number(getStrategy(w.strategy)?.defaults.summaryMaxTokens ?? w.summaryMaxTokens)
        : w.summaryMaxTokens,
      model.maxOutputTokens,
    ),
  };
  if (Number.isFinite(budgetTokens)) options.budgetTokens = Math.max(1, budgetTokens);
  return options;
}

/** Conversation cost so far, each answer priced with its own model's prices. */
export function conversationCost(messages: readonly StoredMessage[]): number | undefined {
  let total = 0;
  let priced = false;
  for (const m of messages) {
    if (!m.usage || !m.model) continue;
    const info = resolveModelInfo(m.model, { provider: m.provider });
    if (!info.prices) continue;
    priced = true;
    const prices = pricesForPrompt(info, reportedInputTokens(m.usage)) ?? info.prices;
    total += costOfUsage(m.usage, prices);
  }
  return priced ? total : undefined;
}
