import { useId, useMemo, useState } from 'react';
import { useShallow } from 'zustand/react/shallow';
import type { ModelChoice } from '../core';
import { modelChoicesFor, modelListKey, type ListTarget } from '../store';
import { useActions, useApp } from './AppRuntime';
import { useAutoListing } from './useAutoListing';

/** What the Settings dialog hands the list: the endpoint as typed (maybe not saved yet) and its windows by model. */
export interface ModelListSlot {
  target: ListTarget;
  /** Why the key may not be sent yet (a question above is unanswered); listing waits for the answer. */
  blocked?: string;
  /** The windows the user gave for this provider's models, by id. */
  windows: Readonly<Record<string, number>>;
  /** Sets (or, with undefined, clears) the window of one model. */
  onWindow: (modelId: string, tokens: number | undefined) => void;
}

const fmt = (n: number) => n.toLocaleString('en-US');

/** "just now", "5 min ago", "3 h ago", else the date. */
function fetchedWhen(at: number, now: number): string {
  const minutes = Math.floor((now - at) / 60_000);
  if (minutes < 1) return 'just now';
  if (minutes < 60) return `${minutes} min ago`;
  if (minutes < 48 * 60) return `${Math.floor(minutes / 60)} h ago`;
  return `on ${new Date(at).toLocaleDateString('en-US', { year: 'numeric', month: 'short', day: 'numeric' })}`;
}

/** The window of one listed model, and where it comes from. */
function WindowNote({ choice }: { choice: ModelChoice }) {
  switch (choice.windowSource) {
    case 'endpoint':
      return <>{fmt(choice.contextWindow)} tokens (stated by the provider)</>;
    case 'registry':
      return <>{fmt(choice.contextWindow)} tokens (documented)</>;
    case 'yours':
      return <>{fmt(choice.contextWindow)} tokens (yours)</>;
    case 'guess':
      return <strong className="model-guess">{fmt(choice.contextWindow)} tokens — a guess; enter the real window</strong>;
  }
}

/** One listed model: its name, id and window; a window nobody knows (or one the user gave) can be typed here. */
function ModelRow({ choice, onWindow }: { choice: ModelChoice; onWindow: ModelListSlot['onWindow'] }) {
  const id = useId();
  const editable = choice.windowSource === 'guess' || choice.windowSource === 'yours';
  return (
    <li className="model-row">
      <span className="model-row-name">
        {choice.label}
        {choice.label !== choice.id && <code> {choice.id}</code>}
      </span>
      <span className="model-row-window">
        <WindowNote choice={choice} />
      </span>
      {editable && (
        <span className="model-row-input">
          <label htmlFor={id}>Window of {choice.id}</label>
          <input
            id={id}
            type="number"
            inputMode="numeric"
            min={1}
            step={1}
            placeholder="tokens"
            defaultValue={choice.windowSource === 'yours' ? choice.contextWindow : ''}
            onChange={(e) => {
              const n = Number(e.target.value);
              onWindow(choice.id, e.target.value.trim() !== '' && Number.isInteger(n) && n > 0 && n <= 100_000_000 ? n : undefined);
            }}
          />
        </span>
      )}
    </li>
  );
}

/**
 * The models the key typed in Settings can use, as its provider lists them, each with its
 * window and where that comes from. Listing starts by itself once the key and base URL
 * look complete and rest a moment (useAutoListing), and again on "List models" or
 * "Refresh"; typing goes on meanwhile, and a failure is said here.
 */
export function ModelList({ target, blocked, windows, onWindow }: ModelListSlot) {
  const actions = useActions();
  const headingId = useId();
  // The dialog is short-lived: "listed 5 min ago" is reckoned from when it opened.
  const [openedAt] = useState(Date.now);
  const key = modelListKey(target.provider, target.baseUrl);
  const { list, modelLists } = useApp(
    useShallow((s) => ({ list: Object.hasOwn(s.modelLists, key) ? s.modelLists[key] : undefined, modelLists: s.modelLists })),
  );
  // In the endpoint's own order (Anthropic lists the newest first).
  const choices = useMemo(() => {
    const order = new Map(list?.models.map((m, i) => [m.id, i]));
    return modelChoicesFor({ modelLists }, { modelWindows: { [target.provider]: { ...windows } } }, target.provider, target.baseUrl)
      .filter((c) => order.has(c.id))
      .sort((a, b) => (order.get(a.id) ?? 0) - (order.get(b.id) ?? 0));
  }, [list, modelLists, windows, target.provider, target.baseUrl]);
  const loading = list?.status === 'loading';
  const needsKey = (target.provider === 'anthropic' || target.provider === 'openai') && !target.apiKey.trim();
  const cannot = needsKey ? 'Enter an API key to list the models it can use.' : blocked;
  useAutoListing(target, { allowed: cannot === undefined, listed: list !== undefined });
  const count = list?.models.length ?? 0;
  const status = loading
    ? 'Listing models…'
    : list?.fetchedAt !== undefined
      ? `${fmt(count)} model${count === 1 ? '' : 's'} listed ${fetchedWhen(list.fetchedAt, openedAt)}${list.truncated ? ' (the list was cut short)' : ''}.`
      : 'Not listed yet.';
  return (
    <section className="model-list" aria-labelledby={headingId}>
      <h4 id={headingId}>Models this key can use</h4>
      <div className="row">
        <button type="button" onClick={() => void actions.refreshModels(target)} disabled={loading || cannot !== undefined}>
          {list?.fetchedAt !== undefined ? 'Refresh' : 'List models'}
        </button>
        <span className="muted" role="status">
          {status}
        </span>
      </div>
      {cannot && <small className="muted">{cannot}</small>}
      {list?.status === 'failed' && list.error && (
        <p className="field-error" role="alert">
          {list.error}
        </p>
      )}
      {choices.length > 0 && (
        <ul className="model-rows" aria-label="Listed models">
          {choices.map((choice) => (
            <ModelRow key={choice.id} choice={choice} onWindow={onWindow} />
          ))}
        </ul>
      )}
    </section>
  );
}
