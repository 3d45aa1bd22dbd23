import { getStrategy, type ProviderId } from '../core';

/** How the next request's history is chosen. Defaults are the seeds' documented ones. */
export interface WindowSettings {
  /** A registered strategy's name (see the registry in src/core/window). */
  strategy: string;
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
  /** The origin the user agreed to send each provider's key to over plain http (not https, not this machine). */
  keyConfirmedFor: Partial<Record<ProviderId, string>>;
  models: Partial<Record<ProviderId, string>>;
  /** Explicit context window for the selected model (0 = from the registry). seed 004 `max_input_tokens`. */
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
  keyConfirmedFor: {},
  models: {},
  contextWindow: 0,
  modelWindows: {},
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

/** Fills fields missing from settings saved by an older version with today's defaults; fields that are not valid are dropped (see readSettings). */
export function withDefaults(saved: Partial<Settings> | undefined): Settings {
  return readSettings(saved).settings;
}

const PROVIDER_IDS: readonly ProviderId[] = ['anthropic', 'openai', 'openai-compatible', 'demo'];

type Check = (value: unknown) => boolean;
const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);
const int = (min: number, max: number): Check => (value) => Number.isInteger(value) && (value as number) >= min && (value as number) <= max;
const share: Check = (value) => typeof value === 'number' && value > 0 && value <= 1;
const text = (max: number): Check => (value) => typeof value === 'string' && value.length <= max;
const MAX_TOKENS = 100_000_000;

/** What each stored window setting may hold; planning can count on these ranges. */
const WINDOW_CHECKS: Record<keyof WindowSettings, Check> = {
  strategy: (value) => typeof value === 'string' && getStrategy(value) !== undefined,
  summarize: (value) => typeof value === 'boolean',
  maxMessages: int(0, 1_000_000),
  preserveFirst: int(0, 10_000),
  preserveLast: int(0, 10_000),
  // The rolling strategy caps its incoming history at 1,000 messages.
  rollingMax: int(1, 1000),
  triggerRatio: share,
  targetRatio: share,
  lowWater: share,
  budgetTokens: int(0, MAX_TOKENS),
  budgetUsd: (value) => typeof value === 'number' && Number.isFinite(value) && value >= 0,
  summaryModel: text(200),
  summaryMaxTokens: int(1, 1_000_000),
};

const describeValue = (value: unknown) => (typeof value === 'string' ? `"${value.slice(0, 40)}"` : typeof value === 'number' || typeof value === 'boolean' ? String(value) : 'a value of the wrong type');

/** The valid fields of a stored `window` object, and a note for each one dropped. */
function readWindow(raw: unknown, ignored: string[]): Partial<WindowSettings> {
  if (raw === undefined) return {};
  if (!isObject(raw)) {
    ignored.push('window: not a set of settings');
    return {};
  }
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(raw)) {
    // A setting of another version (or a prototype key such as __proto__) is left alone, never used.
    if (!Object.hasOwn(WINDOW_CHECKS, key)) continue;
    const check = WINDOW_CHECKS[key as keyof WindowSettings];
    if (check(value)) out[key] = value;
    else ignored.push(`${key} ${describeValue(value)}`);
  }
  // "Trim down to" must stay below "trim above", or a trim could never end.
  if (typeof out.targetRatio === 'number' && typeof out.triggerRatio === 'number' && out.targetRatio >= out.triggerRatio) {
    ignored.push(`targetRatio ${out.targetRatio} (not below triggerRatio ${out.triggerRatio})`);
    delete out.targetRatio;
  }
  return out as Partial<WindowSettings>;
}

/** Most models a provider's windows are kept for: more is not a list a person typed. */
const MAX_MODEL_WINDOWS = 2000;

/** The valid windows of a stored `modelWindows`: model ids of settings' length, whole numbers of tokens. */
function readModelWindows(raw: unknown, ignored: string[]): Settings['modelWindows'] {
  if (raw === undefined) return {};
  if (!isObject(raw)) {
    ignored.push('modelWindows: not a set of windows');
    return {};
  }
  const out: Settings['modelWindows'] = {};
  for (const provider of PROVIDER_IDS) {
    const windows = raw[provider];
    if (!Object.hasOwn(raw, provider) || !isObject(windows)) continue;
    const valid = Object.entries(windows).filter(([id, value]) => text(200)(id) && id.trim() !== '' && int(1, MAX_TOKENS)(value)).slice(0, MAX_MODEL_WINDOWS);
    if (valid.length < Object.keys(windows).length) ignored.push(`modelWindows.${provider}: ${Object.keys(windows).length - valid.length} not a window`);
    if (valid.length > 0) out[provider] = Object.fromEntries(valid) as Record<string, number>;
  }
  return out;
}

/**
 * Settings as read back from storage (another version, a hand edit or a sync may have
 * written them): each field that is missing takes today's default, each that is not valid
 * is dropped and named in `ignored`, so the app never plans with a value it cannot use.
 */
export function readSettings(raw: unknown): { settings: Settings; ignored: string[] } {
  const ignored: string[] = [];
  const saved = isObject(raw) ? raw : {};
  const strings = (value: unknown): Record<string, string> =>
    isObject(value) ? (Object.fromEntries(Object.entries(value).filter(([key, v]) => PROVIDER_IDS.includes(key as ProviderId) && typeof v === 'string')) as Record<string, string>) : {};
  const pick = <K extends keyof Settings>(key: K, check: Check): Settings[K] => {
    if (saved[key] === undefined) return DEFAULT_SETTINGS[key];
    if (check(saved[key])) return saved[key] as Settings[K];
    ignored.push(`${key} ${describeValue(saved[key])}`);
    return DEFAULT_SETTINGS[key];
  };
  const window = { ...DEFAULT_WINDOW, ...readWindow(saved.window, ignored) };
  if (window.targetRatio >= window.triggerRatio) window.targetRatio = DEFAULT_WINDOW.targetRatio < window.triggerRatio ? DEFAULT_WINDOW.targetRatio : window.triggerRatio / 2;
  const tools = isObject(saved.tools) ? saved.tools : {};
  const settings: Settings = {
    provider: pick('provider', (value) => PROVIDER_IDS.includes(value as ProviderId)),
    apiKeys: strings(saved.apiKeys),
    baseUrls: strings(saved.baseUrls),
    keyConfirmedFor: strings(saved.keyConfirmedFor),
    models: strings(saved.models),
    contextWindow: pick('contextWindow', int(0, MAX_TOKENS)),
    modelWindows: readModelWindows(saved.modelWindows, ignored),
    systemPrompt: pick('systemPrompt', (value) => typeof value === 'string'),
    maxOutputTokens: pick('maxOutputTokens', int(0, MAX_TOKENS)),
    window,
    tools: {
      readAttachment: typeof tools.readAttachment === 'boolean' ? tools.readAttachment : DEFAULT_TOOLS.readAttachment,
      runJavascript: typeof tools.runJavascript === 'boolean' ? tools.runJavascript : DEFAULT_TOOLS.runJavascript,
      maxRounds: int(TOOL_ROUNDS_RANGE.min, TOOL_ROUNDS_RANGE.max)(tools.maxRounds) ? (tools.maxRounds as number) : DEFAULT_TOOLS.maxRounds,
    },
  };
  return { settings, ignored };
}

/**
 * A conversation's stored overrides, keeping only valid fields: an unknown provider or
 * strategy, or a number out of range, is dropped and named in `ignored`, and the global
 * setting applies instead. Planning reads overrides only through this.
 */
export function readOverrides(raw: unknown): { overrides: ConversationOverrides | undefined; ignored: string[] } {
  if (raw === undefined || raw === null) return { overrides: undefined, ignored: [] };
  if (!isObject(raw)) return { overrides: undefined, ignored: ['overrides: not a set of settings'] };
  const ignored: string[] = [];
  const overrides: ConversationOverrides = {};
  if (raw.provider !== undefined) {
    if (PROVIDER_IDS.includes(raw.provider as ProviderId)) overrides.provider = raw.provider as ProviderId;
    else ignored.push(`provider ${describeValue(raw.provider)}`);
  }
  if (raw.model !== undefined) {
    if (text(200)(raw.model)) overrides.model = raw.model as string;
    else ignored.push(`model ${describeValue(raw.model)}`);
  }
  if (raw.contextWindow !== undefined) {
    if (int(0, MAX_TOKENS)(raw.contextWindow)) overrides.contextWindow = raw.contextWindow as number;
    else ignored.push(`contextWindow ${describeValue(raw.contextWindow)}`);
  }
  if (raw.systemPrompt !== undefined) {
    if (typeof raw.systemPrompt === 'string') overrides.systemPrompt = raw.systemPrompt;
    else ignored.push(`systemPrompt ${describeValue(raw.systemPrompt)}`);
  }
  const window = readWindow(raw.window, ignored);
  if (Object.keys(window).length > 0) overrides.window = window;
  return { overrides, ignored };
}
