/** Small reads of the state for components, to pass to `useApp`. */
import { MODEL_REGISTRY, modelChoices, resolveModelInfo, type ModelChoice, type ProviderId } from '../core';
import type { AppState } from './state';
import { conversationOverrides } from './storedSettings';
import { modelListKey, modelListOf } from './modelLists';
import { effectiveSettings, type Settings } from './settings';
import { defaultModelFor, explicitWindow } from './turn';

/** The provider and model the open conversation (or a new chat) sends to, with the model's display name. */
export function activeModelIn(state: AppState): { provider: ProviderId; label: string } {
  const conversation = state.conversations.find((c) => c.id === state.activeId);
  const settings = effectiveSettings(state.settings, conversationOverrides(conversation));
  const provider = settings.provider;
  const modelId = settings.models[provider] || defaultModelFor(provider) || 'unknown-model';
  return { provider, label: resolveModelInfo(modelId, { provider }).label };
}

/**
 * The models to offer for `provider` sending to `baseUrl`: the registry's for it, then
 * what its endpoint listed, with the windows the user gave by id (see modelChoices).
 */
export function modelChoicesFor(
  state: Pick<AppState, 'modelLists'>,
  settings: Pick<Settings, 'modelWindows'>,
  provider: ProviderId,
  baseUrl: string | undefined,
): ModelChoice[] {
  const key = modelListKey(provider, baseUrl);
  const listed = Object.hasOwn(state.modelLists, key) ? (state.modelLists[key]?.models ?? []) : [];
  const registry = MODEL_REGISTRY.filter((m) => m.provider === provider);
  return modelChoices(registry, listed, settings.modelWindows?.[provider] ?? {});
}

/**
 * What the header's model picker offers: the provider in force for the open conversation
 * (or a new chat), the model it sends to, and the models to choose from, that model
 * included even when no list has it (a custom id), with the window it is planned with.
 */
export function modelPickerIn(state: Pick<AppState, 'settings' | 'conversations' | 'activeId' | 'modelLists'>): {
  provider: ProviderId;
  modelId: string;
  choices: ModelChoice[];
} {
  const conversation = state.conversations.find((c) => c.id === state.activeId);
  const settings = effectiveSettings(state.settings, conversationOverrides(conversation));
  const provider = settings.provider;
  const modelId = settings.models[provider] || defaultModelFor(provider);
  const choices = modelChoicesFor(state, settings, provider, settings.baseUrls[provider]);
  if (modelId && !choices.some((c) => c.id === modelId)) {
    const info = resolveModelInfo(modelId, { provider });
    const own = explicitWindow(settings, modelId);
    const listed = modelListOf(state.modelLists, settings)?.models.find((m) => m.id === modelId);
    const window = own ?? listed?.contextWindow ?? info.contextWindow;
    choices.unshift({
      id: modelId,
      label: info.label,
      contextWindow: window,
      windowSource: own ? 'yours' : listed?.contextWindow ? 'endpoint' : info.known ? 'registry' : 'guess',
      listed: false,
    });
  }
  // A context window set for every model is the one each is planned with.
  if (settings.contextWindow > 0)
    return { provider, modelId, choices: choices.map((c) => ({ ...c, contextWindow: settings.contextWindow, windowSource: 'yours' })) };
  return { provider, modelId, choices };
}
