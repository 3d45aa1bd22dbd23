import { useMemo } from 'react';
import { useShallow } from 'zustand/react/shallow';
import type { ProviderId } from '../core';
import { conversationOverrides, effectiveSettings, modelChoicesFor, type AppState } from '../store';
import { useActions, useApp } from './AppRuntime';
import { ModelList } from './ModelList';
import { SettingsDialog, type ModelOption } from './SettingsDialog';
import { StorageSection } from './StorageSection';
import { SyncSection } from './settings/SyncSection';

/** The Settings dialog's models for a provider: the registry's, then what its endpoint at `baseUrl` listed. */
function modelsIn(state: Pick<AppState, 'modelLists' | 'settings'>) {
  return (provider: ProviderId, baseUrl?: string): ModelOption[] =>
    modelChoicesFor(state, state.settings, provider, baseUrl).map((m) => ({
      id: m.id,
      label: m.label,
      contextWindow: m.contextWindow,
      guess: m.windowSource === 'guess',
    }));
}

/**
 * The Settings dialog over the app's state, with its Storage and Sync sections and the model
 * list: a chunk of its own, which the first screen does not load (see LazySettings.tsx).
 */
export default function AppSettings() {
  const actions = useActions();
  const { settings, modelLists, conversation } = useApp(
    useShallow((s) => ({ settings: s.settings, modelLists: s.modelLists, conversation: s.conversations.find((c) => c.id === s.activeId) })),
  );
  const modelsFor = useMemo(() => modelsIn({ settings, modelLists }), [settings, modelLists]);
  return (
    <SettingsDialog
      settings={conversation ? effectiveSettings(settings, conversationOverrides(conversation)) : settings}
      modelsFor={modelsFor}
      modelList={(slot) => <ModelList {...slot} />}
      storage={<StorageSection />}
      sync={<SyncSection />}
      conversationTitle={conversation?.title}
      onSave={(next, scope) => void actions.saveSettings(next, scope)}
      onClose={actions.closeSettings}
      listMcpTools={actions.listMcpServerTools}
      signInMcp={actions.signInMcpServer}
      signOutMcp={actions.signOutMcpServer}
    />
  );
}
