import type { Dispatch } from 'react';
import type { ProviderId } from '../../core';
import { Field } from '../Field';
import { isUnlisted, type ModelOption, type SettingsDraftAction } from './settingsDraft';

const CUSTOM = '__custom__';

export interface ModelFieldProps {
  provider: ProviderId;
  /** The models listed for the provider, the first one shown when none was chosen. */
  models: readonly ModelOption[];
  /** The model shown (see modelShown). */
  model: string;
  customModel: boolean;
  error?: string;
  dispatch: Dispatch<SettingsDraftAction>;
}

/** The chosen provider's model: picked from its list, or typed ("Custom model…"). */
export function ModelField({ provider, models, model, customModel, error, dispatch }: ModelFieldProps) {
  const setModel = (id: string) => dispatch({ type: 'editForProvider', field: 'models', value: id });
  return (
    <Field label="Model" error={error}>
      {(id, describedBy, invalid) =>
        // A provider with no listed models, or a saved id not in the list, can only be typed: a select would show a model that is not the one saved.
        customModel || isUnlisted(model, models) || models.length === 0 ? (
          <span className="row">
            <input
              id={id}
              aria-describedby={describedBy}
              aria-invalid={invalid}
              value={model}
              autoFocus={customModel}
              placeholder="model id, e.g. llama3.1"
              onChange={(e) => setModel(e.target.value.trim())}
            />
            {models.length > 0 && (
              <button type="button" onClick={() => dispatch({ type: 'switchModelEntry', customModel: false, model: models[0]?.id ?? '' })}>
                From list
              </button>
            )}
          </span>
        ) : (
          <select
            id={id}
            value={model}
            onChange={(e) => {
              if (e.target.value === CUSTOM) dispatch({ type: 'switchModelEntry', customModel: true, model: '' });
              else setModel(e.target.value);
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
  );
}
