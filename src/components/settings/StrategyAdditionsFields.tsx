import { useId } from 'react';
import { ADDITIONS, additionsFor, type Addition, type WindowSettings } from '../../store';

export interface StrategyAdditionsFieldsProps {
  window: WindowSettings;
  onToggle: (addition: Addition, on: boolean) => void;
  /** Turns clearing on the provider's side on or off (shown under the strategy's own clearing, when that is on). */
  onClearOnProvider: (on: boolean) => void;
  onReset: () => void;
}

/** Under the strategy picker: what Windowpane adds to the chosen strategy's rule, each a switch, and a way back to the rule itself. */
export function StrategyAdditionsFields({ window: w, onToggle, onClearOnProvider, onReset }: StrategyAdditionsFieldsProps) {
  const id = useId();
  const values = additionsFor(w);
  const shown = ADDITIONS.filter((a) => values[a.key] !== undefined);
  // A strategy Windowpane adds nothing to (`off`, `provider`) has no switches to show or reset.
  if (shown.length === 0) return null;
  return (
    <fieldset className="strategy-additions" aria-describedby={`${id}-about`}>
      <legend>Added by Windowpane</legend>
      <small id={`${id}-about`} className="muted">
        {w.strategy === 'auto' ? 'The automatic strategy uses all of these by default.' : `Off by default, so ${w.strategy} does exactly what its rule says.`}
      </small>
      {shown.map((a) => (
        <div className="switch-field" key={a.key}>
          <label className="check">
            <input
              type="checkbox"
              role="switch"
              aria-describedby={`${id}-${a.key}`}
              checked={values[a.key] === true}
              onChange={(e) => onToggle(a.key, e.target.checked)}
            />{' '}
            {a.label}
          </label>
          <small id={`${id}-${a.key}`} className="muted">
            {a.hint}
          </small>
          {a.key === 'clearToolResults' && values.clearToolResults === true && (
            <div className="switch-field">
              <label className="check">
                <input
                  type="checkbox"
                  role="switch"
                  aria-describedby={`${id}-provider`}
                  checked={w.clearOnProvider}
                  onChange={(e) => onClearOnProvider(e.target.checked)}
                />{' '}
                Clear on the provider’s side
              </label>
              <small id={`${id}-provider`} className="muted">
                On Anthropic models with context editing, old tool results are sent whole and Anthropic clears them, so its cache of the conversation changes
                only when a clearing is due. Elsewhere they are cleared here.
              </small>
            </div>
          )}
        </div>
      ))}
      <button type="button" onClick={onReset}>
        {w.strategy === 'auto' ? 'Reset to the defaults' : 'Reset to the strategy’s own rule'}
      </button>
    </fieldset>
  );
}
