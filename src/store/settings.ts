import type { ProviderId } from '../core';
import type { StrategyAdditions } from './strategyAdditions';
import { SETTINGS_RULES, TOOL_ROUNDS_RANGE, TOOL_RULES, WINDOW_RULES, windowCombinationProblems, type Rule } from './settingsRules';

export { TOOL_ROUNDS_RANGE };

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
}

/** The built-in tools the model may call. Each can be switched off; the model never sees a tool that is off. */
export interface ToolSettings {
  /** read_attachment: the model lists and reads, by line range, the text files attached to the conversation. */
  readAttachment: boolean;
  /** run_javascript: the model runs snippets in a Web Worker with no network and no DOM, a time limit and an output cap. */
  runJavascript: boolean;
  /** Tool round-trips allowed in one turn; at the limit Windowpane stops the loop and says so. */
  maxRounds: number;
}

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
  preserveRecentFiles: 10,
  additions: {},
  keepImages: 4,
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
/** A stored value is usable exactly when the Settings dialog would accept it (see settingsRules.ts). */
const accepts =
  (rule: Rule): Check =>
  (value) =>
    rule(value) === null;

const describeValue = (value: unknown) =>
  typeof value === 'string' ? `"${value.slice(0, 40)}"` : typeof value === 'number' || typeof value === 'boolean' ? String(value) : 'a value of the wrong type';

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
    if (!Object.hasOwn(WINDOW_RULES, key)) continue;
    if (WINDOW_RULES[key as keyof WindowSettings](value) === null) out[key] = value;
    else ignored.push(`${key} ${describeValue(value)}`);
  }
  // "Trim down to" must stay below "trim above", or a trim could never end.
  if (
    typeof out.targetRatio === 'number' &&
    typeof out.triggerRatio === 'number' &&
    windowCombinationProblems(out as Pick<WindowSettings, 'triggerRatio' | 'targetRatio'>).targetRatio
  ) {
    ignored.push(`targetRatio ${out.targetRatio} (not below triggerRatio ${out.triggerRatio})`);
    delete out.targetRatio;
  }
  return out as Partial<WindowSettings>;
}

/** The stored tool settings: each missing one takes its default, each a rule refuses too, named in `ignored`. */
function readTools(raw: unknown, ignored: string[]): ToolSettings {
  const saved = isObject(raw) ? raw : {};
  const tools: ToolSettings = { ...DEFAULT_TOOLS };
  for (const key of Object.keys(DEFAULT_TOOLS) as (keyof ToolSettings)[]) {
    const value = saved[key];
    if (value === undefined) continue;
    if (TOOL_RULES[key](value) === null) Object.assign(tools, { [key]: value });
    else ignored.push(`${key} ${describeValue(value)}`);
  }
  return tools;
}

/** Most models a provider's windows are kept for: more is not a list a person typed. */
const MAX_MODEL_WINDOWS = 2000;

/** A window a user may give for a model: a whole number of tokens from 1 to 100,000,000. */
const isModelWindow = (value: unknown): value is number => typeof value === 'number' && Number.isInteger(value) && value >= 1 && value <= 100_000_000;

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
    const valid = Object.entries(windows)
      .filter(([id, value]) => id.length <= 200 && id.trim() !== '' && isModelWindow(value))
      .slice(0, MAX_MODEL_WINDOWS);
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
    isObject(value)
      ? (Object.fromEntries(Object.entries(value).filter(([key, v]) => PROVIDER_IDS.includes(key as ProviderId) && typeof v === 'string')) as Record<
          string,
          string
        >)
      : {};
  const pick = <K extends keyof Settings>(key: K, check: Check): Settings[K] => {
    if (saved[key] === undefined) return DEFAULT_SETTINGS[key];
    if (check(saved[key])) return saved[key] as Settings[K];
    ignored.push(`${key} ${describeValue(saved[key])}`);
    return DEFAULT_SETTINGS[key];
  };
  const window = { ...DEFAULT_WINDOW, ...readWindow(saved.window, ignored) };
  if (windowCombinationProblems(window).targetRatio)
    window.targetRatio = DEFAULT_WINDOW.targetRatio < window.triggerRatio ? DEFAULT_WINDOW.targetRatio : window.triggerRatio / 2;
  const tools = readTools(saved.tools, ignored);
  const settings: Settings = {
    provider: pick('provider', (value) => PROVIDER_IDS.includes(value as ProviderId)),
    apiKeys: strings(saved.apiKeys),
    baseUrls: strings(saved.baseUrls),
    keyConfirmedFor: strings(saved.keyConfirmedFor),
    models: strings(saved.models),
    contextWindow: pick('contextWindow', accepts(SETTINGS_RULES.contextWindow)),
    modelWindows: readModelWindows(saved.modelWindows, ignored),
    systemPrompt: pick('systemPrompt', (value) => typeof value === 'string'),
    maxOutputTokens: pick('maxOutputTokens', accepts(SETTINGS_RULES.maxOutputTokens)),
    window,
    tools,
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
    if (accepts(SETTINGS_RULES.model)(raw.model)) overrides.model = raw.model as string;
    else ignored.push(`model ${describeValue(raw.model)}`);
  }
  if (raw.contextWindow !== undefined) {
    if (accepts(SETTINGS_RULES.contextWindow)(raw.contextWindow)) overrides.contextWindow = raw.contextWindow as number;
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
