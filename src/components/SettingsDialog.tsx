import { useEffect, useId, useReducer, useRef, useState, type ReactNode } from 'react';
import { flushSync } from 'react-dom';
import type { ProviderId } from '../core';
import { settingsProblems, type Settings } from '../store';
import type { ModelListSlot } from './ModelList';
import { AppearanceSection } from './settings/AppearanceSection';
import { ContextWindowSection } from './settings/ContextWindowSection';
import { ProviderSection } from './settings/ProviderSection';
import {
  draftProblems,
  initialDraft,
  modelShown,
  settingsDraftReducer,
  settingsOf,
  type DialogKnob,
  type ModelOption,
  type SettingsProblems,
  type SettingsScope,
} from './settings/settingsDraft';
import { SettingsTabs, type SettingsTab } from './settings/SettingsTabs';
import { ToolsSection, type ToolsSectionProps } from './settings/ToolsSection';
import { useKeyDestination } from './settings/useKeyDestination';

export type { ModelOption } from './settings/settingsDraft';

export interface SettingsDialogProps {
  settings: Settings;
  /** Models known for each provider (and, when listed, its endpoint at `baseUrl`), current first. */
  modelsFor: (provider: ProviderId, baseUrl?: string) => ModelOption[];
  /** The models the typed key can use, listed from its endpoint (see ModelList); not shown when absent. */
  modelList?: (slot: ModelListSlot) => ReactNode;
  /** What the browser stores and ways to free room (see StorageSection), rendered when its section is first shown; no section when absent. */
  storage?: ReactNode;
  /** Sync with the user's CouchDB server (see SyncSection); no section when absent. */
  sync?: ReactNode;
  /** Whether a conversation is open, so its own overrides can be edited. */
  conversationTitle?: string;
  onSave: (settings: Settings, scope: SettingsScope) => void;
  onClose: () => void;
  /** Connects to an MCP server and lists its tools; without it the MCP servers section offers no Connect. */
  listMcpTools?: ToolsSectionProps['listMcpTools'];
  /** Signs in to an MCP server with OAuth; without it the MCP servers section offers no Sign in. */
  signInMcp?: ToolsSectionProps['signInMcp'];
  /** Signs out of an MCP server at once. */
  signOutMcp?: ToolsSectionProps['signOutMcp'];
}

/** The fields as the reason Save is unavailable names them, in the dialog's order. */
const KNOB_LABELS: Record<DialogKnob, string> = {
  model: 'Model',
  contextWindow: 'Context window',
  maxOutputTokens: 'Max output tokens',
  strategy: 'Strategy',
  summarize: 'Summarize evicted messages',
  maxMessages: 'Max messages',
  preserveFirst: 'Preserve first messages',
  preserveLast: 'Preserve last messages',
  rollingMax: 'Rolling window size',
  triggerRatio: 'Trim above',
  targetRatio: 'Trim down to',
  lowWater: 'After a trim, fall to',
  budgetTokens: 'Token budget per request',
  budgetUsd: 'Money budget per request',
  summaryModel: 'Summary model',
  summaryMaxTokens: 'Summary max tokens',
  preserveRecentFiles: 'Files kept after the summary',
  keepImages: 'Images and PDFs sent per request',
  clearOnProvider: 'Clear on the provider’s side',
  readAttachment: 'read_attachment',
  runJavascript: 'run_javascript',
  maxRounds: 'Tool rounds per turn',
  mcpCallTimeout: 'Time limit per call (seconds)',
  additions: 'What Windowpane adds',
};

/**
 * Provider, key and model, the windowing knobs, the tools and the appearance, one section
 * each over one draft, shown one at a time as tabs; nothing of them applies until Save.
 * Storage and Sync, whose buttons act at once, are sections too. Save and Cancel stay in view.
 */
export function SettingsDialog({
  settings,
  modelsFor,
  modelList,
  storage,
  sync,
  conversationTitle,
  onSave,
  onClose,
  listMcpTools,
  signInMcp,
  signOutMcp,
}: SettingsDialogProps) {
  const [draft, dispatch] = useReducer(settingsDraftReducer, settings, (opened) =>
    initialDraft(opened, modelsFor(opened.provider, opened.baseUrls[opened.provider])),
  );
  const titleId = useId();
  const saveBlockedId = useId();
  const dialogRef = useRef<HTMLDivElement>(null);
  const [section, setSection] = useState('model');
  const { scope } = draft;
  const { provider } = draft.settings;
  const models = modelsFor(provider, draft.settings.baseUrls[provider]);
  const model = modelShown(draft.settings, models);
  // Where the key would go: asked before saving, never after it has been sent.
  const keyDestination = useKeyDestination(settings, draft, dispatch);
  // Numbers are kept as typed (an empty box is NaN) and checked by the store's own rules, so a value shown as
  // accepted here is one the store keeps and planning can use, and each field says what is wrong with it.
  // Save stores this very object.
  const toSave: Settings = { ...settingsOf(draft, model), apiKeys: keyDestination.apiKeys };
  const problems: SettingsProblems = { ...settingsProblems(toSave), ...draftProblems(draft) };
  const blocked = (Object.keys(KNOB_LABELS) as DialogKnob[]).filter((knob) => problems[knob]).map((knob) => KNOB_LABELS[knob]);

  useEffect(() => {
    // The first field (the scope, when it is asked, else the provider), not the row of tabs before the section.
    const first = dialogRef.current?.querySelector<HTMLElement>('select, input, textarea');
    first?.focus();
  }, []);

  const chooseScope = (choice: SettingsScope) => dispatch({ type: 'chooseScope', scope: choice });
  const focusFirstInvalid = () => {
    const field = dialogRef.current?.querySelector<HTMLElement>('[aria-invalid="true"]');
    if (!field) return;
    // The field may be in a section not shown: show it first, or the field could not take focus.
    const holder = field.closest<HTMLElement>('[role="tabpanel"]')?.dataset.section;
    if (holder && holder !== section) flushSync(() => setSection(holder));
    field.focus();
    // Centred in its section, so the reason below it is in view too.
    field.scrollIntoView?.({ block: 'center' });
  };

  const tabs: SettingsTab[] = [
    {
      id: 'model',
      label: 'Model and key',
      content: (
        <ProviderSection
          draft={draft}
          models={models}
          model={model}
          problems={problems}
          keyDestination={keyDestination}
          modelList={modelList}
          dispatch={dispatch}
        />
      ),
    },
    { id: 'context', label: 'Context', content: <ContextWindowSection window={draft.settings.window} problems={problems} dispatch={dispatch} /> },
    {
      id: 'tools',
      label: 'Tools',
      content: (
        <ToolsSection
          tools={draft.settings.tools}
          roundsText={draft.roundsText}
          mcpTimeoutTexts={draft.mcpTimeoutTexts}
          problems={problems}
          dispatch={dispatch}
          mcpSecrets={draft.settings.mcpSecrets}
          provider={provider}
          {...(listMcpTools ? { listMcpTools } : {})}
          {...(signInMcp ? { signInMcp } : {})}
          {...(signOutMcp ? { signOutMcp } : {})}
        />
      ),
    },
    ...(storage ? [{ id: 'storage', label: 'Storage', lazy: true, content: storage }] : []),
    ...(sync ? [{ id: 'sync', label: 'Sync', content: sync }] : []),
    { id: 'appearance', label: 'Appearance', content: <AppearanceSection theme={draft.settings.theme} dispatch={dispatch} /> },
  ];

  return (
    <div className="dialog-backdrop" onMouseDown={(e) => e.target === e.currentTarget && onClose()}>
      <div
        ref={dialogRef}
        role="dialog"
        aria-modal="true"
        aria-labelledby={titleId}
        className="dialog"
        onKeyDown={(e) => {
          if (e.key === 'Escape') {
            e.stopPropagation();
            onClose();
          }
        }}
      >
        <form
          className="settings-form"
          onSubmit={(e) => {
            e.preventDefault();
            if (blocked.length > 0) {
              focusFirstInvalid();
              return;
            }
            if (keyDestination.confirmSave()) {
              onSave(toSave, scope);
              return;
            }
            // The open question is in the first section: show it there, at its first answer.
            flushSync(() => setSection('model'));
            dialogRef.current?.querySelector<HTMLElement>('.key-destination input')?.focus();
          }}
        >
          <h2 id={titleId}>Settings</h2>
          {conversationTitle && (
            <fieldset className="scope">
              <legend>Apply to</legend>
              <label>
                <input type="radio" name="scope" checked={scope === 'global'} onChange={() => chooseScope('global')} /> All conversations (defaults)
              </label>
              <label>
                <input type="radio" name="scope" checked={scope === 'conversation'} onChange={() => chooseScope('conversation')} /> Only “{conversationTitle}”
              </label>
            </fieldset>
          )}

          <SettingsTabs tabs={tabs} selected={section} onSelect={setSection} />

          <div className="dialog-actions">
            {blocked.length > 0 && (
              <small id={saveBlockedId} className="field-error save-blocked">
                Save is unavailable until {blocked.length === 1 ? 'this field is' : 'these fields are'} fixed: {blocked.join(', ')}.
              </small>
            )}
            <button type="button" onClick={onClose}>
              Cancel
            </button>
            {/* aria-disabled, not disabled: Save stays focusable so its reason is read, and pressing it goes to the first field to fix
                (before the browser's own checks, whose bubble would say less than the field does). */}
            <button
              type="submit"
              className="primary"
              aria-disabled={blocked.length > 0 ? true : undefined}
              aria-describedby={blocked.length > 0 ? saveBlockedId : undefined}
              onClick={(e) => {
                if (blocked.length === 0) return;
                e.preventDefault();
                focusFirstInvalid();
              }}
            >
              Save
            </button>
          </div>
        </form>
      </div>
    </div>
  );
}
