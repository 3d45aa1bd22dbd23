/**
 * Settings and per-conversation overrides as read back from storage: another version, a
 * hand edit or a sync may have written them, so each value passes the same rules the
 * Settings dialog applies (settingsRules.ts) or is dropped and named.
 */
import { isThinkingSetting, type Conversation, type ProviderId } from '../core';
import {
  DEFAULT_SETTINGS,
  DEFAULT_TOOLS,
  DEFAULT_WINDOW,
  THEMES,
  type ConversationOverrides,
  type Settings,
  type Theme,
  type ToolSettings,
  type WindowSettings,
} from './settings';
import { SETTINGS_RULES, TOOL_RULES, WINDOW_RULES, windowCombinationProblems, type Rule } from './settingsRules';

/** Settings key in storage. Must not change without a migration. */
export { SETTINGS_KEY } from '../persistence';

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
  // The MCP servers have no rule here: they are read with core's readMcpServers where they are used.
  for (const key of Object.keys(TOOL_RULES) as (keyof typeof TOOL_RULES)[]) {
    const value = saved[key];
    if (value === undefined) continue;
    if (TOOL_RULES[key](value) === null) Object.assign(tools, { [key]: value });
    else ignored.push(`${key} ${describeValue(value)}`);
  }
  if (Array.isArray(saved.mcpServers)) tools.mcpServers = saved.mcpServers;
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
    // Every string kept, by server id; a secret of a server no longer configured is never sent anywhere.
    mcpSecrets: isObject(saved.mcpSecrets)
      ? (Object.fromEntries(Object.entries(saved.mcpSecrets).filter(([, v]) => typeof v === 'string')) as Record<string, string>)
      : {},
    models: strings(saved.models),
    contextWindow: pick('contextWindow', accepts(SETTINGS_RULES.contextWindow)),
    modelWindows: readModelWindows(saved.modelWindows, ignored),
    systemPrompt: pick('systemPrompt', (value) => typeof value === 'string'),
    maxOutputTokens: pick('maxOutputTokens', accepts(SETTINGS_RULES.maxOutputTokens)),
    window,
    tools,
    // Another version may offer a theme this one does not know: it looks as the system says.
    theme: pick('theme', (value) => THEMES.includes(value as Theme)),
    thinking: pick('thinking', isThinkingSetting),
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
  if (raw.thinking !== undefined) {
    if (isThinkingSetting(raw.thinking)) overrides.thinking = raw.thinking;
    else ignored.push(`thinking ${describeValue(raw.thinking)}`);
  }
  const window = readWindow(raw.window, ignored);
  if (Object.keys(window).length > 0) overrides.window = window;
  return { overrides, ignored };
}

/** The conversation's overrides that are valid; the rest is ignored (and the user told, see noticeIgnoredSettings). */
export function conversationOverrides(conversation: Conversation | undefined): ConversationOverrides | undefined {
  return readOverrides(conversation?.overrides).overrides;
}
