/** Small reads of the state for components, to pass to `useApp`. */
import { resolveModelInfo, type ProviderId } from '../core';
import { conversationOverrides, type AppState } from './appStore';
import { effectiveSettings } from './settings';
import { defaultModelFor } from './turn';

/** The provider and model the open conversation (or a new chat) sends to, with the model's display name. */
export function activeModelIn(state: AppState): { provider: ProviderId; label: string } {
  const conversation = state.conversations.find((c) => c.id === state.activeId);
  const settings = effectiveSettings(state.settings, conversationOverrides(conversation));
  const provider = settings.provider;
  const modelId = settings.models[provider] || defaultModelFor(provider) || 'unknown-model';
  return { provider, label: resolveModelInfo(modelId, { provider }).label };
}
