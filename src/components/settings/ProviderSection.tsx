import { useState, type Dispatch, type ReactNode } from 'react';
import { resolveModelInfo, thinkingSupport, validThinking, type ProviderId, type ThinkingSetting } from '../../core';
import { DEFAULT_BASE_URLS } from '../../store';
import { Field } from '../Field';
import type { ModelListSlot } from '../ModelList';
import { NumberField } from '../NumberField';
import { ThinkingSelect } from '../ThinkingPicker';
import { KeyDestinationCheck } from './KeyDestinationCheck';
import { ModelField } from './ModelField';
import type { ModelOption, SettingsDraft, SettingsDraftAction, SettingsProblems } from './settingsDraft';
import type { KeyDestination } from './useKeyDestination';

const PROVIDERS: { id: ProviderId; label: string }[] = [
  { id: 'demo', label: 'Demo (no key, runs in this page)' },
  { id: 'anthropic', label: 'Anthropic' },
  { id: 'openai', label: 'OpenAI' },
  { id: 'openai-compatible', label: 'OpenAI-compatible (Ollama, LM Studio, OpenRouter…)' },
];

export interface ProviderSectionProps {
  draft: SettingsDraft;
  models: readonly ModelOption[];
  /** The model shown (see modelShown). */
  model: string;
  problems: SettingsProblems;
  keyDestination: KeyDestination;
  modelList?: (slot: ModelListSlot) => ReactNode;
  dispatch: Dispatch<SettingsDraftAction>;
}

/** Who answers and how: the provider, its key and address, the model and its window, the system prompt and the answer's reserve. */
export function ProviderSection({ draft, models, model, problems, keyDestination, modelList, dispatch }: ProviderSectionProps) {
  const { settings } = draft;
  const { provider } = settings;
  // Here, not in the key field: the key stays shown or masked while the Demo, which has no key field, is chosen in between.
  const [showKey, setShowKey] = useState(false);
  return (
    <section>
      <h3>Provider</h3>
      <Field label="Provider">
        {(id) => (
          <select id={id} value={provider} onChange={(e) => dispatch({ type: 'edit', patch: { provider: e.target.value as ProviderId } })}>
            {PROVIDERS.map((p) => (
              <option key={p.id} value={p.id}>
                {p.label}
              </option>
            ))}
          </select>
        )}
      </Field>
      {provider !== 'demo' && (
        <>
          <ApiKeyField
            provider={provider}
            apiKey={settings.apiKeys[provider] ?? ''}
            shown={showKey}
            onShown={setShowKey}
            onApiKey={(key) => dispatch({ type: 'editForProvider', field: 'apiKeys', value: key })}
          />
          <Field label="Base URL" hint={`Default: ${DEFAULT_BASE_URLS[provider]}`}>
            {(id, hint) => (
              <input
                id={id}
                aria-describedby={hint}
                type="url"
                value={settings.baseUrls[provider] ?? ''}
                placeholder={DEFAULT_BASE_URLS[provider]}
                onChange={(e) => dispatch({ type: 'editForProvider', field: 'baseUrls', value: e.target.value.trim() })}
              />
            )}
          </Field>
          <KeyDestinationCheck {...keyDestination.check} />
        </>
      )}
      <ModelField provider={provider} models={models} model={model} customModel={draft.customModel} error={problems.model} dispatch={dispatch} />
      {provider !== 'demo' &&
        modelList?.({
          target: {
            provider,
            apiKey: keyDestination.apiKeys[provider] ?? '',
            baseUrl: settings.baseUrls[provider],
            keyConfirmedFor: settings.keyConfirmedFor[provider],
          },
          // The saved key must not go to a new host before the user says it may.
          blocked: keyDestination.listingBlocked,
          windows: settings.modelWindows?.[provider] ?? {},
          onWindow: (modelId, tokens) => dispatch({ type: 'setModelWindow', modelId, tokens }),
        })}
      <NumberField
        label="Context window"
        hint="Tokens. 0 uses the model's documented window (or 4,096 for an unknown model)."
        error={problems.contextWindow}
        min={0}
        step={1}
        value={settings.contextWindow}
        onValue={(v) => dispatch({ type: 'edit', patch: { contextWindow: v } })}
      />
      <ThinkingField provider={provider} model={model} value={settings.thinking} onValue={(thinking) => dispatch({ type: 'edit', patch: { thinking } })} />
      <Field label="System prompt">
        {(id) => (
          <textarea id={id} rows={3} value={settings.systemPrompt} onChange={(e) => dispatch({ type: 'edit', patch: { systemPrompt: e.target.value } })} />
        )}
      </Field>
      <NumberField
        label="Max output tokens"
        hint="Reserved for the answer in every request. 0 uses the model's default."
        error={problems.maxOutputTokens}
        min={0}
        step={1}
        value={settings.maxOutputTokens}
        onValue={(v) => dispatch({ type: 'edit', patch: { maxOutputTokens: v } })}
      />
    </section>
  );
}

/** Thinking for new chats, with the choices the model shown takes; nothing for a model whose controls are not known. */
function ThinkingField({
  provider,
  model,
  value,
  onValue,
}: {
  provider: ProviderId;
  model: string;
  value: ThinkingSetting;
  onValue: (v: ThinkingSetting) => void;
}) {
  const info = resolveModelInfo(model, { provider });
  const support = thinkingSupport(provider, info.id);
  if (!support) return null;
  return (
    <Field label="Thinking" hint="For new chats. Each conversation can choose its own beside the token gauge.">
      {(id, hint) => (
        <ThinkingSelect
          id={id}
          aria-describedby={hint}
          support={support}
          maxOutputTokens={info.maxOutputTokens}
          value={validThinking(support, value, info.maxOutputTokens)}
          onChange={onValue}
        />
      )}
    </Field>
  );
}

interface ApiKeyFieldProps {
  provider: ProviderId;
  apiKey: string;
  onApiKey: (key: string) => void;
  /** Whether the key is shown as text rather than masked. */
  shown: boolean;
  onShown: (shown: boolean) => void;
}

/** The provider's API key, masked unless the user asks to see it. */
function ApiKeyField({ provider, apiKey, onApiKey, shown, onShown }: ApiKeyFieldProps) {
  const needsKey = provider === 'anthropic' || provider === 'openai';
  return (
    <Field
      label="API key"
      hint={`Stored only in this browser and sent only to the base URL below.${provider === 'openai-compatible' ? ' Optional for local servers such as Ollama.' : ''}`}
    >
      {(id, hint) => (
        <span className="row">
          <input
            id={id}
            aria-describedby={hint}
            type={shown ? 'text' : 'password'}
            autoComplete="off"
            spellCheck={false}
            value={apiKey}
            placeholder={needsKey ? (provider === 'anthropic' ? 'sk-ant-…' : 'sk-…') : 'not needed for Ollama'}
            onChange={(e) => onApiKey(e.target.value.trim())}
          />
          <button type="button" onClick={() => onShown(!shown)} aria-pressed={shown}>
            {shown ? 'Hide' : 'Show'}
          </button>
        </span>
      )}
    </Field>
  );
}
