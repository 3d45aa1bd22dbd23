import { thinkingChoices, thinkingFromKey, thinkingKey, thinkingLabel, thinkingSupport, type ProviderId, type ThinkingSetting } from '../core';

export interface ThinkingPickerProps {
  provider: ProviderId;
  /** The model in force, as the registry names it. */
  modelId: string;
  maxOutputTokens: number;
  /** The choice in force, already valid for the model. */
  value: ThinkingSetting;
  onChange: (setting: ThinkingSetting) => void;
  /** The label read out; "Thinking for the next message" unless given. */
  label?: string;
}

/** How much the model thinks: the choices its provider documents for it. Nothing is shown for a model whose controls are not known. */
export function ThinkingPicker({ provider, modelId, maxOutputTokens, value, onChange, label = 'Thinking for the next message' }: ThinkingPickerProps) {
  const support = thinkingSupport(provider, modelId);
  if (!support) return null;
  const choices = thinkingChoices(support, maxOutputTokens);
  return (
    <label className="thinking-picker" title="How much the model thinks before it answers">
      <span className="thinking-picker-name">Thinking</span>
      <select
        aria-label={label}
        value={thinkingKey(value)}
        onChange={(event) => {
          const next = thinkingFromKey(event.target.value);
          if (next) onChange(next);
        }}
      >
        {choices.map((choice) => (
          <option key={thinkingKey(choice)} value={thinkingKey(choice)}>
            {thinkingLabel(choice, support)}
          </option>
        ))}
      </select>
    </label>
  );
}
