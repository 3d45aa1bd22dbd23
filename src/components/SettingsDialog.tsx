import { useEffect, useId, useRef, useState, type ReactNode } from 'react';
import type { ProviderId } from '../core';
import { RUN_TIME_LIMIT_MS, keyDestinationQuestions, strategyChoices } from '../core';
import { Field } from './Field';
import { KeyDestinationCheck, type KeyMoveChoice } from './settings/KeyDestinationCheck';
import { NumberField, typedNumber } from './NumberField';
import { StrategyAdditionsFields } from './settings/StrategyAdditionsFields';
import type { ModelListSlot } from './ModelList';
import {
  DEFAULT_BASE_URLS,
  TOOL_ROUNDS_RANGE,
  resetToOwnRule,
  settingsProblems,
  type Knob,
  type Settings,
  type ToolSettings,
  type WindowSettings,
} from '../store';

export interface ModelOption {
  id: string;
  label: string;
  contextWindow: number;
  /** Nobody knows this model's window: `contextWindow` is the default, a guess. */
  guess?: boolean;
}

export interface SettingsDialogProps {
  settings: Settings;
  /** Models known for each provider (and, when listed, its endpoint at `baseUrl`), current first. */
  modelsFor: (provider: ProviderId, baseUrl?: string) => ModelOption[];
  /** The models the typed key can use, listed from its endpoint (see ModelList); not shown when absent. */
  modelList?: (slot: ModelListSlot) => ReactNode;
  /** What the browser stores and ways to free room (see StorageSection), after the settings; not shown when absent. */
  storage?: ReactNode;
  /** Whether a conversation is open, so its own overrides can be edited. */
  conversationTitle?: string;
  onSave: (settings: Settings, scope: 'global' | 'conversation') => void;
  onClose: () => void;
}

const PROVIDERS: { id: ProviderId; label: string }[] = [
  { id: 'demo', label: 'Demo (no key, runs in this page)' },
  { id: 'anthropic', label: 'Anthropic' },
  { id: 'openai', label: 'OpenAI' },
  { id: 'openai-compatible', label: 'OpenAI-compatible (Ollama, LM Studio, OpenRouter…)' },
];

const CUSTOM = '__custom__';

/** The fields as the reason Save is unavailable names them, in the dialog's order. */
const KNOB_LABELS: Record<Knob, string> = {
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
  readAttachment: 'read_attachment',
  runJavascript: 'run_javascript',
  maxRounds: 'Tool rounds per turn',
  additions: 'What Windowpane adds',
};

/** Provider, key, model and the windowing knobs. Edits a draft; nothing applies until Save. */
export function SettingsDialog({ settings, modelsFor, modelList, storage, conversationTitle, onSave, onClose }: SettingsDialogProps) {
  const [draft, setDraft] = useState<Settings>(settings);
  const [scope, setScope] = useState<'global' | 'conversation'>('global');
  const [showKey, setShowKey] = useState(false);
  const titleId = useId();
  const dialogRef = useRef<HTMLDivElement>(null);
  const provider = draft.provider;
  const models = modelsFor(provider, draft.baseUrls[provider]);
  const model = draft.models[provider] ?? models[0]?.id ?? '';
  const isCustomModel = model !== '' && !models.some((m) => m.id === model);
  const [customMode, setCustomMode] = useState(isCustomModel || (models.length === 0 && provider !== 'demo'));

  useEffect(() => {
    const first = dialogRef.current?.querySelector<HTMLElement>('select, input, textarea, button');
    first?.focus();
  }, []);

  const setWindow = (patch: Partial<WindowSettings>) => setDraft((d) => ({ ...d, window: { ...d.window, ...patch } }));
  const setTools = (patch: Partial<ToolSettings>) => setDraft((d) => ({ ...d, tools: { ...d.tools, ...patch } }));
  // The round limit is kept as typed, so a bad value can be shown with what is wrong with it instead of silently clamped.
  const [roundsText, setRoundsText] = useState(String(settings.tools.maxRounds));
  const setModel = (id: string) => setDraft((d) => ({ ...d, models: { ...d.models, [d.provider]: id } }));
  const w = draft.window;
  // Numbers are kept as typed (an empty box is NaN) and checked by the store's own rules, so a value shown as
  // accepted here is one the store keeps and planning can use, and each field says what is wrong with it.
  const problems = settingsProblems({
    ...draft,
    models: { ...draft.models, [provider]: model },
    tools: { ...draft.tools, maxRounds: typedNumber(roundsText) },
  });
  const blocked = (Object.keys(KNOB_LABELS) as Knob[]).filter((knob) => problems[knob]).map((knob) => KNOB_LABELS[knob]);
  const saveBlockedId = useId();
  const focusFirstInvalid = () => {
    const field = dialogRef.current?.querySelector<HTMLElement>('[aria-invalid="true"]');
    field?.focus();
    // Centred, so the sticky row of buttons does not hide the field and its reason.
    field?.scrollIntoView?.({ block: 'center' });
  };
  const needsKey = provider === 'anthropic' || provider === 'openai';
  // Where the key would go: asked before saving, never after it has been sent.
  const [keyMove, setKeyMove] = useState<KeyMoveChoice | undefined>();
  const [keyError, setKeyError] = useState<string | undefined>();
  const baseUrlOf = (s: Settings) => s.baseUrls[provider] || DEFAULT_BASE_URLS[provider];
  const keyQuestions =
    provider === 'demo'
      ? {}
      : keyDestinationQuestions(
          { baseUrl: baseUrlOf(settings), apiKey: settings.apiKeys[provider] ?? '' },
          { baseUrl: baseUrlOf(draft), apiKey: draft.apiKeys[provider] ?? '' },
        );
  const insecureConfirmed = keyQuestions.insecureOrigin !== undefined && draft.keyConfirmedFor[provider] === keyQuestions.insecureOrigin;
  /** The unanswered question that stops Save, if any. */
  const keyQuestionOpen = (): string | undefined => {
    if (keyQuestions.moved && !keyMove) return `Choose whether your key may go to ${keyQuestions.moved.to}.`;
    if (keyQuestions.insecureOrigin && keyMove !== 'clear' && !insecureConfirmed)
      return `Confirm that your key may travel unencrypted to ${keyQuestions.insecureOrigin}, or use an https address.`;
    return undefined;
  };

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
          onSubmit={(e) => {
            e.preventDefault();
            if (blocked.length > 0) {
              focusFirstInvalid();
              return;
            }
            const open = keyQuestionOpen();
            setKeyError(open);
            if (open) return;
            const apiKeys = keyMove === 'clear' && keyQuestions.moved ? { ...draft.apiKeys, [provider]: '' } : draft.apiKeys;
            onSave({ ...draft, apiKeys, models: { ...draft.models, [provider]: model }, tools: { ...draft.tools, maxRounds: Number(roundsText) } }, scope);
          }}
        >
          <h2 id={titleId}>Settings</h2>
          {conversationTitle && (
            <fieldset className="scope">
              <legend>Apply to</legend>
              <label>
                <input type="radio" name="scope" checked={scope === 'global'} onChange={() => setScope('global')} /> All conversations (defaults)
              </label>
              <label>
                <input type="radio" name="scope" checked={scope === 'conversation'} onChange={() => setScope('conversation')} /> Only “{conversationTitle}”
              </label>
            </fieldset>
          )}

          <section>
            <h3>Provider</h3>
            <Field label="Provider">
              {(id) => (
                <select id={id} value={provider} onChange={(e) => setDraft((d) => ({ ...d, provider: e.target.value as ProviderId }))}>
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
                <Field
                  label="API key"
                  hint={`Stored only in this browser and sent only to the base URL below.${provider === 'openai-compatible' ? ' Optional for local servers such as Ollama.' : ''}`}
                >
                  {(id, hint) => (
                    <span className="row">
                      <input
                        id={id}
                        aria-describedby={hint}
                        type={showKey ? 'text' : 'password'}
                        autoComplete="off"
                        spellCheck={false}
                        value={draft.apiKeys[provider] ?? ''}
                        placeholder={needsKey ? (provider === 'anthropic' ? 'sk-ant-…' : 'sk-…') : 'not needed for Ollama'}
                        onChange={(e) => setDraft((d) => ({ ...d, apiKeys: { ...d.apiKeys, [provider]: e.target.value.trim() } }))}
                      />
                      <button type="button" onClick={() => setShowKey((s) => !s)} aria-pressed={showKey}>
                        {showKey ? 'Hide' : 'Show'}
                      </button>
                    </span>
                  )}
                </Field>
                <Field label="Base URL" hint={`Default: ${DEFAULT_BASE_URLS[provider]}`}>
                  {(id, hint) => (
                    <input
                      id={id}
                      aria-describedby={hint}
                      type="url"
                      value={draft.baseUrls[provider] ?? ''}
                      placeholder={DEFAULT_BASE_URLS[provider]}
                      onChange={(e) => setDraft((d) => ({ ...d, baseUrls: { ...d.baseUrls, [provider]: e.target.value.trim() } }))}
                    />
                  )}
                </Field>
                <KeyDestinationCheck
                  questions={keyQuestions}
                  confirmed={insecureConfirmed}
                  onConfirm={(yes) =>
                    setDraft((d) => ({ ...d, keyConfirmedFor: { ...d.keyConfirmedFor, [provider]: yes ? keyQuestions.insecureOrigin : undefined } }))
                  }
                  moveChoice={keyMove}
                  onMoveChoice={setKeyMove}
                  error={keyError}
                />
              </>
            )}
            <Field label="Model" error={problems.model}>
              {(id, describedBy, invalid) =>
                // A provider with no listed models, or a saved id not in the list, can only be typed: a select would show a model that is not the one saved.
                customMode || isCustomModel || models.length === 0 ? (
                  <span className="row">
                    <input
                      id={id}
                      aria-describedby={describedBy}
                      aria-invalid={invalid}
                      value={model}
                      autoFocus={customMode}
                      placeholder="model id, e.g. llama3.1"
                      onChange={(e) => setModel(e.target.value.trim())}
                    />
                    {models.length > 0 && (
                      <button
                        type="button"
                        onClick={() => {
                          setCustomMode(false);
                          setModel(models[0]?.id ?? '');
                        }}
                      >
                        From list
                      </button>
                    )}
                  </span>
                ) : (
                  <select
                    id={id}
                    value={model}
                    onChange={(e) => {
                      if (e.target.value === CUSTOM) {
                        setCustomMode(true);
                        setModel('');
                      } else setModel(e.target.value);
                    }}
                  >
                    {models.map((m) => (
                      <option key={m.id} value={m.id}>
                        {m.label} — {m.contextWindow.toLocaleString('en-US')} tokens{m.guess ? ' (a guess)' : ''}
                      </option>
                    ))}
                    {provider !== 'demo' && <option value={CUSTOM}>Custom model…</option>}
                  </select>
                )
              }
            </Field>
            {provider !== 'demo' &&
              modelList?.({
                target: {
                  provider,
                  apiKey: keyMove === 'clear' && keyQuestions.moved ? '' : (draft.apiKeys[provider] ?? ''),
                  baseUrl: draft.baseUrls[provider],
                  keyConfirmedFor: draft.keyConfirmedFor[provider],
                },
                // The saved key must not go to a new host before the user says it may.
                blocked:
                  keyQuestions.moved && !keyMove ? `Choose above whether your key may go to ${keyQuestions.moved.to} before listing its models.` : undefined,
                windows: draft.modelWindows?.[provider] ?? {},
                onWindow: (id, tokens) =>
                  setDraft((d) => {
                    const windows = { ...d.modelWindows?.[d.provider] };
                    if (tokens === undefined) delete windows[id];
                    else windows[id] = tokens;
                    return { ...d, modelWindows: { ...d.modelWindows, [d.provider]: windows } };
                  }),
              })}
            <NumberField
              label="Context window"
              hint="Tokens. 0 uses the model's documented window (or 4,096 for an unknown model)."
              error={problems.contextWindow}
              min={0}
              step={1}
              value={draft.contextWindow}
              onValue={(v) => setDraft((d) => ({ ...d, contextWindow: v }))}
            />
            <Field label="System prompt">
              {(id) => <textarea id={id} rows={3} value={draft.systemPrompt} onChange={(e) => setDraft((d) => ({ ...d, systemPrompt: e.target.value }))} />}
            </Field>
            <NumberField
              label="Max output tokens"
              hint="Reserved for the answer in every request. 0 uses the model's default."
              error={problems.maxOutputTokens}
              min={0}
              step={1}
              value={draft.maxOutputTokens}
              onValue={(v) => setDraft((d) => ({ ...d, maxOutputTokens: v }))}
            />
          </section>

          <section>
            <h3>Context window management</h3>
            <Field label="Strategy" error={problems.strategy}>
              {(id, describedBy, invalid) => (
                <select
                  id={id}
                  aria-describedby={describedBy}
                  aria-invalid={invalid}
                  value={w.strategy}
                  onChange={(e) => setWindow({ strategy: e.target.value })}
                >
                  {strategyChoices().map(({ name, label }) => (
                    <option key={name} value={name}>
                      {label}
                    </option>
                  ))}
                </select>
              )}
            </Field>
            <StrategyAdditionsFields
              window={w}
              onToggle={(addition, on) => setWindow({ additions: { ...w.additions, [w.strategy]: { ...w.additions[w.strategy], [addition]: on } } })}
              onReset={() => setDraft((d) => ({ ...d, window: resetToOwnRule(d.window) }))}
            />
            <label className="check">
              <input type="checkbox" checked={w.summarize} onChange={(e) => setWindow({ summarize: e.target.checked })} /> Summarize evicted messages
            </label>
            <div className="grid">
              <NumberField
                label="Max messages"
                hint="0 disables the count cap."
                error={problems.maxMessages}
                min={0}
                step={1}
                value={w.maxMessages}
                onValue={(v) => setWindow({ maxMessages: v })}
              />
              <NumberField
                label="Preserve first messages"
                error={problems.preserveFirst}
                min={0}
                step={1}
                value={w.preserveFirst}
                onValue={(v) => setWindow({ preserveFirst: v })}
              />
              <NumberField
                label="Preserve last messages"
                error={problems.preserveLast}
                min={0}
                step={1}
                value={w.preserveLast}
                onValue={(v) => setWindow({ preserveLast: v })}
              />
              <NumberField
                label="Rolling window size"
                hint="Messages kept by the rolling strategy."
                error={problems.rollingMax}
                min={1}
                step={1}
                value={w.rollingMax}
                onValue={(v) => setWindow({ rollingMax: v })}
              />
              {/* Shares are typed as percentages, any fraction of one: step="any" keeps the browser from refusing a value the rules accept. */}
              <NumberField
                label="Trim above (% of window)"
                error={problems.triggerRatio}
                min={0}
                max={100}
                step="any"
                value={percentOf(w.triggerRatio)}
                onValue={(v) => setWindow({ triggerRatio: v / 100 })}
              />
              <NumberField
                label="Trim down to (% of window)"
                error={problems.targetRatio}
                min={0}
                max={100}
                step="any"
                value={percentOf(w.targetRatio)}
                onValue={(v) => setWindow({ targetRatio: v / 100 })}
              />
              <NumberField
                label="After a trim, fall to (% of trigger)"
                hint="Automatic strategy: lower means rarer trims and longer-lived prompt caches."
                error={problems.lowWater}
                min={0}
                max={100}
                step="any"
                value={percentOf(w.lowWater)}
                onValue={(v) => setWindow({ lowWater: v / 100 })}
              />
              <NumberField
                label="Token budget per request"
                hint="0 = no cap beyond the window share."
                error={problems.budgetTokens}
                min={0}
                step={1}
                value={w.budgetTokens}
                onValue={(v) => setWindow({ budgetTokens: v })}
              />
              <NumberField
                label="Money budget per request (USD)"
                hint="0 = no cap. Uses the model's input price."
                error={problems.budgetUsd}
                min={0}
                step="any"
                value={w.budgetUsd}
                onValue={(v) => setWindow({ budgetUsd: v })}
              />
              <Field label="Summary model" hint="Empty uses the chat model; a cheaper one saves money." error={problems.summaryModel}>
                {(id, hint, invalid) => (
                  <input
                    id={id}
                    aria-describedby={hint}
                    aria-invalid={invalid}
                    value={w.summaryModel}
                    onChange={(e) => setWindow({ summaryModel: e.target.value.trim() })}
                  />
                )}
              </Field>
              <NumberField
                label="Summary max tokens"
                error={problems.summaryMaxTokens}
                min={1}
                step={1}
                value={w.summaryMaxTokens}
                onValue={(v) => setWindow({ summaryMaxTokens: v })}
              />
              <NumberField
                label="Images and PDFs sent per request"
                hint="The newest images and PDFs, counted together, go with each request; older ones are sent as a one-line note and stay in the conversation. 0 sends none, 20 at most."
                error={problems.keepImages}
                min={0}
                step={1}
                value={w.keepImages}
                onValue={(v) => setWindow({ keepImages: v })}
              />
              {w.strategy === 'summarize' && (
                <NumberField
                  label="Files kept after the summary"
                  hint="The latest result of each of the last N files read or modified stays word for word after the summary. 0 keeps none."
                  error={problems.preserveRecentFiles}
                  min={0}
                  step={1}
                  value={w.preserveRecentFiles}
                  onValue={(v) => setWindow({ preserveRecentFiles: v })}
                />
              )}
            </div>
          </section>

          <section>
            <h3>Tools</h3>
            <p className="muted section-hint">Tools the model may call during a turn. These apply to all conversations.</p>
            <Switch
              label="read_attachment — read attached files"
              hint="The model lists the files attached to a conversation and reads them by line range; they are never pasted into the prompt."
              checked={draft.tools.readAttachment}
              onChange={(on) => setTools({ readAttachment: on })}
            />
            <Switch
              label="run_javascript — run code in a sandbox"
              hint={`The model runs JavaScript in a worker in this browser: no network, no access to the page, stopped after ${RUN_TIME_LIMIT_MS / 1000} seconds.`}
              checked={draft.tools.runJavascript}
              onChange={(on) => setTools({ runJavascript: on })}
            />
            <Field
              label="Tool rounds per turn"
              hint={`From ${TOOL_ROUNDS_RANGE.min} to ${TOOL_ROUNDS_RANGE.max}. At the limit the turn stops and says so.`}
              error={problems.maxRounds}
            >
              {(id, hint, invalid) => (
                <input
                  id={id}
                  aria-describedby={hint}
                  aria-invalid={invalid}
                  type="number"
                  inputMode="numeric"
                  // No min/max/step: the browser's own check would block Save with a bubble, not this field's message.
                  step="any"
                  value={roundsText}
                  onChange={(e) => setRoundsText(e.target.value)}
                />
              )}
            </Field>
          </section>

          {storage}

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

/** A share as the percentage shown, to a tenth (0.7 is 70, not 70.00000000000001). */
function percentOf(share: number): number {
  return Math.round(share * 1000) / 10;
}

/** An on/off switch with a one-line explanation that describes it. */
function Switch({ label, hint, checked, onChange }: { label: string; hint: string; checked: boolean; onChange: (on: boolean) => void }) {
  const id = useId();
  return (
    <div className="switch-field">
      <label className="check">
        <input type="checkbox" role="switch" aria-describedby={`${id}-hint`} checked={checked} onChange={(e) => onChange(e.target.checked)} /> {label}
      </label>
      <small id={`${id}-hint`} className="muted">
        {hint}
      </small>
    </div>
  );
}
