import { useId, type Dispatch } from 'react';
import type { Theme } from '../../store';
import type { SettingsDraftAction } from './settingsDraft';

const THEME_CHOICES: { theme: Theme; label: string; hint: string }[] = [
  { theme: 'system', label: 'System', hint: 'Light or dark as this device is set, changing when it does.' },
  { theme: 'light', label: 'Light', hint: 'Always light.' },
  { theme: 'dark', label: 'Dark', hint: 'Always dark.' },
];

/** How Windowpane looks: the theme, for every conversation. */
export function AppearanceSection({ theme, dispatch }: { theme: Theme; dispatch: Dispatch<SettingsDraftAction> }) {
  const id = useId();
  return (
    <section>
      <h3>Appearance</h3>
      <p className="muted section-hint">Applies to all conversations once saved.</p>
      <fieldset className="theme-choice">
        <legend>Theme</legend>
        {THEME_CHOICES.map((choice) => (
          <div className="switch-field" key={choice.theme}>
            <label className="check">
              <input
                type="radio"
                name="theme"
                aria-describedby={`${id}-${choice.theme}`}
                checked={theme === choice.theme}
                onChange={() => dispatch({ type: 'edit', patch: { theme: choice.theme } })}
              />{' '}
              {choice.label}
            </label>
            <small id={`${id}-${choice.theme}`} className="muted">
              {choice.hint}
            </small>
          </div>
        ))}
      </fieldset>
    </section>
  );
}
