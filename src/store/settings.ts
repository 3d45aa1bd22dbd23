import type { ProviderId } from '../core';

/** The windowing strategies a user can pick; see the README's "Strategies and settings". */
export const STRATEGIES = ['auto', 'count', 'rolling', 'truncate', 'summarize', 'two-tier', 'off'] as const;
export type StrategyName = (typeof STRATEGIES)[number];

export const STRATEGY_LABELS: Record<StrategyName, string> = {
  auto: 'Automatic (recommended): token budget + count cap, cache-friendly',
  count: 'Count: keep first N and last N messages (max 100)',
  rolling: 'Rolling: keep the last N messages (50)',
  truncate: 'Truncate: above 80 % of the window, cut to 70 %',
  summarize: 'Summarize: replace evicted messages with a summary',
  'two-tier': 'Two-tier: heuristic summary above 80k, AI summary above 120k',
  off: 'Off: send everything',
};

/** How the next request's history is chosen. Defaults are the seeds' documented ones. */
export interface WindowSettings {
  strategy: StrategyName;
  /** seed 000 `summarize_on_trim`: replace evicted messages with one summary (off by default). */
  summarize: boolean;
  /** seed 000/001 `max_messages` (0 disables the count cap). */
  maxMessages: number;
  /** seed 000/001 `preserve_first_n`. */
  preserveFirst: number;
  /** seed 000/001 `preserve_last_n`. */
  preserveLast: number;
  /** seed 003 `MaxMessagesPerRequest` for the rolling strategy. */
  rollingMax: number;
  /** seed 004: trim when the request passes this share of the context window. */
  triggerRatio: number;
  /** seed 004: cut down to this share of the context window. */
  targetRatio: number;
  /** auto: after a trim the request falls to this share of its trigger, so the next trims are rare and the cached prefix lasts. */
  lowWater: number;
  /** The user's own cap on input tokens per request (0 = only the window share). */
  budgetTokens: number;
  /** The user's own cap on money per request in USD (0 = none); converted with the model's prices. */
  budgetUsd: number;
  /** Model used for summaries ('' = the chat model). */
  summaryModel: string;
  /** seed 000: summaries are asked for with a small `max_tokens`. */
  summaryMaxTokens: number;
}

/** The built-in tools (issue: tool use). Each can be switched off; the model never sees a tool that is off. */
export interface ToolSettings {
  /** read_attachment: the model lists and reads, by line range, the text files attached to the conversation. */
  readAttachment: boolean;
  /** run_javascript: the model runs snippets in a Web Worker with no network and no DOM, a time limit and an output cap. */
  runJavascript: boolean;
  /** Tool round-trips allowed in one turn; at the limit Windowpane stops the loop and says so. */
  maxRounds: number;
}

/** The tool round limit a user may set: at least one round, and few enough that a looping model cannot run up a large bill. */
export const TOOL_ROUNDS_RANGE = { min: 1, max: 200 } as const;

export const DEFAULT_TOOLS: ToolSettings = {
  readAttachment: true,
  runJavascript: true,
  maxRounds: 25,
};

export interface Settings {
  provider: ProviderId;
  /** Stored only in this browser's IndexedDB; never exported, never logged. */
  apiKeys: Partial<Record<ProviderId, string>>;
  baseUrls: Partial<Record<ProviderId, string>>;
  models: Partial<Record<ProviderId, string>>;
  /** Explicit context window for the selected model (0 = from the registry). seed 004 `max_input_tokens`. */
  contextWindow: number;
  systemPrompt: string;
  /** Output tokens reserved for the answer (0 = the model's default). */
  maxOutputTokens: number;
  window: WindowSettings;
  tools: ToolSettings;
}

export const DEFAULT_WINDOW: WindowSettings = {
  strategy: 'auto',
  summarize: false,
  maxMessages: 100,
  preserveFirst: 1,
  preserveLast: 20,
  rollingMax: 50,
  triggerRatio: 0.8,
  targetRatio: 0.7,
  lowWater: 0.6,
  budgetTokens: 0,
  budgetUsd: 0.5,
  summaryModel: '',
  summaryMaxTokens: 1024,
};

export const DEFAULT_BASE_URLS: Record<ProviderId, string> = {
  anthropic: 'https://api.anthropic.com',
  openai: 'https://api.openai.com/v1',
  'openai-compatible': 'http://localhost:11434/v1',
  demo: '',
};

export const DEFAULT_SETTINGS: Settings = {
  provider: 'demo',
  apiKeys: {},
  baseUrls: {},
  models: {},
  contextWindow: 0,
  systemPrompt: '',
  maxOutputTokens: 0,
  window: DEFAULT_WINDOW,
  tools: DEFAULT_TOOLS,
};

/** Per-conversation overrides stored on the conversation; anything absent follows the global settings. */
export interface ConversationOverrides {
  provider?: ProviderId;
  model?: string;
  contextWindow?: number;
  systemPrompt?: string;
  window?: Partial<WindowSettings>;
}

/** The settings in force for one conversation: global settings with its overrides applied. */
export function effectiveSettings(settings: Settings, overrides: ConversationOverrides | undefined): Settings {
  if (!overrides) return settings;
  const provider = overrides.provider ?? settings.provider;
  return {
    ...settings,
    provider,
    models: overrides.model ? { ...settings.models, [provider]: overrides.model } : settings.models,
    contextWindow: overrides.contextWindow ?? settings.contextWindow,
    systemPrompt: overrides.systemPrompt ?? settings.systemPrompt,
    window: { ...settings.window, ...overrides.window },
  };
}

/** Fills fields missing from settings saved by an older version with today's defaults. */
export function withDefaults(saved: Partial<Settings> | undefined): Settings {
  return {
    ...DEFAULT_SETTINGS,
    ...saved,
    apiKeys: { ...saved?.apiKeys },
    baseUrls: { ...saved?.baseUrls },
    models: { ...saved?.models },
    window: { ...DEFAULT_WINDOW, ...saved?.window },
    tools: { ...DEFAULT_TOOLS, ...saved?.tools },
  };
}
