/**
 * The settings' shapes and defaults, and how a conversation's overrides apply. What each
 * knob may hold is in settingsRules.ts; how stored settings are read back, in storedSettings.ts.
 */
import { DEFAULT_THINKING, type ProviderId, type ThinkingSetting } from '../core';

/** What Windowpane adds on top of a strategy's own rule (see strategyAdditions.ts). */
export type Addition = 'clearToolResults' | 'keepPinned' | 'keepGoal' | 'scriptAwareCount';

/** Per strategy name, the additions the user turned on or off (the rest follow the strategy's defaults). */
export type StrategyAdditions = Partial<Record<string, Partial<Record<Addition, boolean>>>>;

/** How the next request's history is chosen. Strategy knobs default to the strategies' own defaults. */
export interface WindowSettings {
  /** A registered strategy's name (see the registry in src/core/window). */
  strategy: string;
  /** `summarize_on_trim`: replace evicted messages with one summary (off by default). */
  summarize: boolean;
  /** `max_messages` (0 disables the count cap). */
  maxMessages: number;
  /** `preserve_first_n`: messages the count window keeps from the start. */
  preserveFirst: number;
  /** `preserve_last_n`: messages the count window keeps from the end. */
  preserveLast: number;
  /** `MaxMessagesPerRequest` for the rolling window: keep the last N messages. */
  rollingMax: number;
  /** Trim when the request passes this share of the context window. */
  triggerRatio: number;
  /** Cut down to this share of the context window. */
  targetRatio: number;
  /** auto: after a trim the request falls to this share of its trigger, so the next trims are rare and the cached prefix lasts. */
  lowWater: number;
  /** The user's own cap on input tokens per request (0 = only the window share). */
  budgetTokens: number;
  /** The user's own cap on money per request in USD (0 = none); converted with the model's prices. */
  budgetUsd: number;
  /** Model used for summaries ('' = the chat model). */
  summaryModel: string;
  /** Summaries are asked for with a small `max_tokens`. */
  summaryMaxTokens: number;
  /** summarize: the latest result of each of this many distinct files read or modified stays after the summary (0: none). */
  preserveRecentFiles: number;
  /** What Windowpane adds to each strategy's rule, as the user set it (see strategyAdditions.ts). */
  additions: StrategyAdditions;
  /** Images and PDFs (counted together) each request carries, newest first; older ones are sent as a one-line placeholder (their files stay). */
  keepImages: number;
  /**
   * Old tool results the strategy clears are sent whole for the provider to clear (Anthropic's
   * context editing, on the models that have it), so the history the provider caches changes
   * only where it clears. Elsewhere the browser clears them as before.
   */
  clearOnProvider: boolean;
}

/** The built-in tools the model may call. Each can be switched off; the model never sees a tool that is off. */
export interface ToolSettings {
  /** read_attachment: the model lists and reads, by line range, the text files attached to the conversation. */
  readAttachment: boolean;
  /** run_javascript: the model runs snippets in a Web Worker with no network and no DOM, a time limit and an output cap. */
  runJavascript: boolean;
  /** Tool round-trips allowed in one turn; at the limit Windowpane stops the loop and says so. */
  maxRounds: number;
  /**
   * Remote MCP servers whose tools the model may call (each call asked first unless always
   * allowed); their secrets are `Settings.mcpSecrets`. Kept as stored: whatever uses them
   * reads them with core's `readMcpServers` first, in the chunks that need them, so the first
   * screen does not carry the reader.
   */
  mcpServers: readonly unknown[];
}

export const DEFAULT_TOOLS: ToolSettings = {
  readAttachment: true,
  runJavascript: true,
  maxRounds: 25,
  mcpServers: [],
};

/** How the app looks: as the system says, or always light or dark. Applies to every conversation. */
export type Theme = 'system' | 'light' | 'dark';

export const THEMES: readonly Theme[] = ['system', 'light', 'dark'];

export interface Settings {
  provider: ProviderId;
  /** Stored only in this browser's IndexedDB; never exported, never logged. */
  apiKeys: Partial<Record<ProviderId, string>>;
  baseUrls: Partial<Record<ProviderId, string>>;
  /** The origin the user agreed to send each provider's key to over plain http (not https, not this machine). */
  keyConfirmedFor: Partial<Record<ProviderId, string>>;
  /** Each MCP server's token or header value by server id: kept like the API keys, never exported or synced. */
  mcpSecrets: Record<string, string>;
  models: Partial<Record<ProviderId, string>>;
  /** Explicit context window for the selected model (0 = from the registry); `max_input_tokens` in the token-ratio truncation. */
  contextWindow: number;
  /**
   * Windows the user gave for models by id, per provider: used when `contextWindow` is 0,
   * over the models endpoint and the registry (a model nobody else knows the window of).
   */
  modelWindows: Partial<Record<ProviderId, Record<string, number>>>;
  systemPrompt: string;
  /** Output tokens reserved for the answer (0 = the model's default). */
  maxOutputTokens: number;
  window: WindowSettings;
  tools: ToolSettings;
  theme: Theme;
  /** Thinking for new chats (each conversation may choose its own); made valid for the model before each request. */
  thinking: ThinkingSetting;
}

export const DEFAULT_WINDOW: WindowSettings = {
  strategy: 'provider',
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
  preserveRecentFiles: 10,
  additions: {},
  keepImages: 4,
  clearOnProvider: false,
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
  keyConfirmedFor: {},
  mcpSecrets: {},
  models: {},
  contextWindow: 0,
  modelWindows: {},
  systemPrompt: '',
  maxOutputTokens: 0,
  window: DEFAULT_WINDOW,
  tools: DEFAULT_TOOLS,
  theme: 'system',
  thinking: DEFAULT_THINKING,
};

/** Per-conversation overrides stored on the conversation; anything absent follows the global settings. */
export interface ConversationOverrides {
  provider?: ProviderId;
  model?: string;
  contextWindow?: number;
  systemPrompt?: string;
  window?: Partial<WindowSettings>;
  thinking?: ThinkingSetting;
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
    thinking: overrides.thinking ?? settings.thinking,
  };
}
