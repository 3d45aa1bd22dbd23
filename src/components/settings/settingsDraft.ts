import { isMcpCallTimeout, MCP_CALL_TIMEOUT_RANGE, readMcpServers, type McpServerConfig } from '../../core';
import type { Knob, Settings, ToolSettings, WindowSettings } from '../../store';
import { typedNumber } from '../NumberField';
import type { KeyMoveChoice } from './KeyDestinationCheck';

export interface ModelOption {
  id: string;
  label: string;
  contextWindow: number;
  /** Nobody knows this model's window: `contextWindow` is the default, a guess. */
  guess?: boolean;
}

export type SettingsScope = 'global' | 'conversation';

/** A field of the dialog that can block Save: a knob with a store rule, or an MCP server's time limit per call as typed. */
export type DialogKnob = Knob | 'mcpCallTimeout';

/** What is wrong with each field of the draft, as the store's rules say it (see settingsProblems) and draftProblems adds. */
export type SettingsProblems = Partial<Record<DialogKnob, string>>;

/** Everything the dialog holds while it is open. Nothing of it applies until Save. */
export interface SettingsDraft {
  /** The settings as edited; a number box left empty is NaN, so the rules can say it is missing. */
  settings: Settings;
  /** "Tool rounds per turn" as typed, so a bad value is shown with what is wrong with it instead of silently clamped. */
  roundsText: string;
  /** Each MCP server's "Time limit per call" as typed, by server id, once edited: a bad value blocks Save instead of being dropped. */
  mcpTimeoutTexts: Record<string, string>;
  /** The model is typed, not picked from the list. */
  customModel: boolean;
  /** Whether a saved key may follow its base URL to another host; unset until the user answers. */
  keyMove?: KeyMoveChoice;
  scope: SettingsScope;
}

/** The maps of the settings that hold one value per provider; the dialog edits the chosen provider's. */
type PerProvider = 'apiKeys' | 'baseUrls' | 'keyConfirmedFor' | 'models';

export type SettingsDraftAction =
  | { type: 'edit'; patch: Partial<Pick<Settings, 'provider' | 'contextWindow' | 'systemPrompt' | 'maxOutputTokens' | 'theme' | 'thinking'>> }
  | { type: 'editForProvider'; field: PerProvider; value: string | undefined }
  | { type: 'editWindow'; patch: Partial<WindowSettings> }
  | { type: 'editTools'; patch: Partial<Omit<ToolSettings, 'maxRounds'>> }
  /** The MCP servers and their secrets, as Settings → Tools edits them together. */
  | { type: 'editMcp'; servers: McpServerConfig[]; secrets: Record<string, string> }
  | { type: 'typeRounds'; text: string }
  | { type: 'typeMcpTimeout'; serverId: string; text: string }
  /** The Model field turns into a typed id (or back into the list), starting from `model`. */
  | { type: 'switchModelEntry'; customModel: boolean; model: string }
  /** The window the user gave a listed model; undefined forgets it. */
  | { type: 'setModelWindow'; modelId: string; tokens: number | undefined }
  | { type: 'answerKeyMove'; choice: KeyMoveChoice }
  | { type: 'chooseScope'; scope: SettingsScope };

/** The model the dialog shows for the chosen provider: the one saved or picked, else the first listed. */
export function modelShown(settings: Settings, models: readonly ModelOption[]): string {
  return settings.models[settings.provider] ?? models[0]?.id ?? '';
}

/** A model id the list does not offer: only a typed field can show it. */
export function isUnlisted(model: string, models: readonly ModelOption[]): boolean {
  return model !== '' && !models.some((m) => m.id === model);
}

/** The draft of `settings` as the dialog opens, given the models listed for its provider. */
export function initialDraft(settings: Settings, models: readonly ModelOption[]): SettingsDraft {
  return {
    settings,
    roundsText: String(settings.tools.maxRounds),
    mcpTimeoutTexts: {},
    customModel: isUnlisted(modelShown(settings, models), models) || (models.length === 0 && settings.provider !== 'demo'),
    scope: 'global',
  };
}

/**
 * The settings the draft stands for, with `model` (the one shown) for its provider and the
 * round limit as typed: what the store's rules check as the user types, and what Save stores.
 */
export function settingsOf(draft: SettingsDraft, model: string): Settings {
  const { settings } = draft;
  return {
    ...settings,
    models: { ...settings.models, [settings.provider]: model },
    tools: { ...settings.tools, maxRounds: typedNumber(draft.roundsText) },
  };
}

/** A time limit per call as typed: empty is the default (undefined); anything else must be whole seconds in range (else NaN). */
export function typedCallTimeout(text: string): number | undefined {
  if (text.trim() === '') return undefined;
  const seconds = Number(text);
  return isMcpCallTimeout(seconds) ? seconds : Number.NaN;
}

/** What the store's rules do not see: a time limit per call typed for a server still listed that is not whole seconds in range. */
export function draftProblems(draft: SettingsDraft): SettingsProblems {
  const listed = readMcpServers(draft.settings.tools.mcpServers, []);
  const bad = listed.some((server) => Number.isNaN(typedCallTimeout(draft.mcpTimeoutTexts[server.id] ?? '')));
  return bad ? { mcpCallTimeout: `Whole seconds from ${MCP_CALL_TIMEOUT_RANGE.min} to ${MCP_CALL_TIMEOUT_RANGE.max}.` } : {};
}

export function settingsDraftReducer(draft: SettingsDraft, action: SettingsDraftAction): SettingsDraft {
  const s = draft.settings;
  const edited = (settings: Settings): SettingsDraft => ({ ...draft, settings });
  switch (action.type) {
    case 'edit':
      return edited({ ...s, ...action.patch });
    case 'editForProvider':
      return edited({ ...s, [action.field]: { ...s[action.field], [s.provider]: action.value } });
    case 'editWindow':
      return edited({ ...s, window: { ...s.window, ...action.patch } });
    case 'editTools':
      return edited({ ...s, tools: { ...s.tools, ...action.patch } });
    case 'editMcp':
      return edited({ ...s, tools: { ...s.tools, mcpServers: action.servers }, mcpSecrets: action.secrets });
    case 'typeRounds':
      return { ...draft, roundsText: action.text };
    case 'typeMcpTimeout':
      return { ...draft, mcpTimeoutTexts: { ...draft.mcpTimeoutTexts, [action.serverId]: action.text } };
    case 'switchModelEntry':
      return { ...edited({ ...s, models: { ...s.models, [s.provider]: action.model } }), customModel: action.customModel };
    case 'setModelWindow': {
      const windows = { ...s.modelWindows?.[s.provider] };
      if (action.tokens === undefined) delete windows[action.modelId];
      else windows[action.modelId] = action.tokens;
      return edited({ ...s, modelWindows: { ...s.modelWindows, [s.provider]: windows } });
    }
    case 'answerKeyMove':
      return { ...draft, keyMove: action.choice };
    case 'chooseScope':
      return { ...draft, scope: action.scope };
  }
}
