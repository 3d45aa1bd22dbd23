import { useId } from 'react';
import { ADDITIONS, additionsFor, type Addition, type WindowSettings } from '../../store';

export interface StrategyAdditionsFieldsProps {
  window: WindowSettings;
  onToggle: (addition: Addition, on: boolean) => void;
  onReset: () => void;
}

/** Under the strategy picker: what Windowpane adds to the chosen strategy's rule, each a switch, and a way back to the rule itself. */
export function StrategyAdditionsFields({ window: w, onToggle, onReset }: StrategyAdditionsFieldsProps) {
  const id = useId();
  const values = additionsFor(w);
  const shown = ADDITIONS.filter((a) => values[a.key] !== undefined);
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
        </div>
      ))}
      <button type="button" onClick={onReset}>
        {w.strategy === 'auto' ? 'Reset to the defaults' : 'Reset to the strategy’s own rule'}
      </button>
    </fieldset>
  );
}
