/**
 * Switching the model from the conversation header: the open conversation (or, with none
 * open, the default for new chats) sends to another model from the next request on. The
 * state changes first, so the next plan, and the gauge that reads it, use the new
 * model's window at once; storage follows.
 */
import { resolveModelInfo, thinkingChanged, thinkingLabel, thinkingSupport, validThinking, type ProviderId, type ThinkingSetting } from '../core';
import type { Runtime } from './runtime';
import { setConversation } from './state';
import { conversationOverrides, SETTINGS_KEY } from './storedSettings';
import { loadCalibration } from './calibration';
import { effectiveSettings, type ConversationOverrides, type Settings } from './settings';
import { defaultModelFor } from './turn';

/** `settings` with `window` kept as the own window of `modelId`, unless the user already gave that model one. */
function keepWindow(settings: Settings, provider: ProviderId, modelId: string, window: number): Settings {
  const windows = settings.modelWindows[provider] ?? {};
  if (Object.hasOwn(windows, modelId)) return settings;
  return { ...settings, modelWindows: { ...settings.modelWindows, [provider]: { ...windows, [modelId]: window } } };
}

/**
 * Makes the open conversation (or new chats) use `modelId` of the provider in force. The
 * "Context window" setting is the window of the model it was set with: on a switch it is
 * kept as that model's own window, and the new model's window applies.
 */
export async function switchModel(rt: Runtime, modelId: string): Promise<void> {
  const id = modelId.trim();
  if (!id || id.length > 200) return;
  const state = rt.store.getState();
  const conversation = state.conversations.find((c) => c.id === state.activeId);
  const overrides = conversationOverrides(conversation);
  const current = effectiveSettings(state.settings, overrides);
  const provider = current.provider;
  const previous = current.models[provider] || defaultModelFor(provider);
  if (previous === id) return;
  const explicit = current.contextWindow > 0;
  const carried = explicit && previous ? keepWindow(state.settings, provider, previous, current.contextWindow) : state.settings;
  // A thinking choice the new model does not take becomes the nearest one it does, and the user is told.
  const thinking = thinkingFor(provider, id, current.thinking);
  try {
    if (conversation) {
      const next: ConversationOverrides = {
        ...overrides,
        provider,
        model: id,
        ...(explicit ? { contextWindow: 0 } : {}),
        ...(thinking ? { thinking: thinking.setting } : {}),
      };
      setConversation(rt.store, { ...conversation, overrides: next as Record<string, unknown> });
      rt.store.setState({ settings: carried });
      await rt.repositories.conversations.setConversationOverrides(conversation.id, next as Record<string, unknown>);
      if (carried !== state.settings) await rt.repositories.settings.setSetting(SETTINGS_KEY, carried);
    } else {
      const settings: Settings = {
        ...carried,
        models: { ...carried.models, [provider]: id },
        contextWindow: explicit ? 0 : carried.contextWindow,
        ...(thinking ? { thinking: thinking.setting } : {}),
      };
      rt.store.setState({ settings });
      await rt.repositories.settings.setSetting(SETTINGS_KEY, settings);
    }
  } catch (error) {
    rt.notifier.reportError(error, 'save the model choice');
  }
  if (thinking) rt.notifier.notify({ tone: 'info', text: thinking.said });
  await loadCalibration(rt, id);
}

/** The choice `modelId` takes instead of `setting`, and how the user is told; undefined when it takes `setting` as it is. */
function thinkingFor(provider: ProviderId, modelId: string, setting: ThinkingSetting): { setting: ThinkingSetting; said: string } | undefined {
  const model = resolveModelInfo(modelId, { provider });
  const support = thinkingSupport(provider, model.id);
  if (!thinkingChanged(support, setting, model.maxOutputTokens)) return undefined;
  const next = validThinking(support, setting, model.maxOutputTokens);
  return {
    setting: next,
    said: `Thinking is now “${thinkingLabel(next, support)}”: ${model.label} does not take “${thinkingLabel(setting, undefined)}”.`,
  };
}

/** Sets thinking for the open conversation (or, with none open, for new chats), from the next request on. */
export async function setThinking(rt: Runtime, setting: ThinkingSetting): Promise<void> {
  const state = rt.store.getState();
  const conversation = state.conversations.find((c) => c.id === state.activeId);
  try {
    if (conversation) {
      const next: ConversationOverrides = { ...conversationOverrides(conversation), thinking: setting };
      setConversation(rt.store, { ...conversation, overrides: next as Record<string, unknown> });
      await rt.repositories.conversations.setConversationOverrides(conversation.id, next as Record<string, unknown>);
    } else {
      const settings: Settings = { ...state.settings, thinking: setting };
      rt.store.setState({ settings });
      await rt.repositories.settings.setSetting(SETTINGS_KEY, settings);
    }
  } catch (error) {
    rt.notifier.reportError(error, 'save the thinking choice');
  }
}
