import {
  thinkingChoices,
  thinkingFromKey,
  thinkingKey,
  thinkingLabel,
  thinkingSupport,
  type ProviderId,
  type ThinkingSetting,
  type ThinkingSupport,
} from '../core';

interface ThinkingSelectProps {
  support: ThinkingSupport;
  maxOutputTokens: number;
  /** The choice in force, already valid for the model. */
  value: ThinkingSetting;
  onChange: (setting: ThinkingSetting) => void;
  id?: string;
  'aria-label'?: string;
  'aria-describedby'?: string;
}

/** The choices a model's provider documents for it, as one `<select>`. */
export function ThinkingSelect({ support, maxOutputTokens, value, onChange, ...attributes }: ThinkingSelectProps) {
  return (
    <select
      {...attributes}
      value={thinkingKey(value)}
      onChange={(event) => {
        const next = thinkingFromKey(event.target.value);
        if (next) onChange(next);
      }}
    >
      {thinkingChoices(support, maxOutputTokens).map((choice) => (
        <option key={thinkingKey(choice)} value={thinkingKey(choice)}>
          {thinkingLabel(choice, support)}
        </option>
      ))}
    </select>
  );
}

export interface ThinkingPickerProps {
  provider: ProviderId;
  /** The model in force, as the registry names it. */
  modelId: string;
  maxOutputTokens: number;
  /** The choice in force, already valid for the model. */
  value: ThinkingSetting;
  onChange: (setting: ThinkingSetting) => void;
}

/** How much the model thinks, beside the gauge. Nothing is shown for a model whose controls are not known. */
export function ThinkingPicker({ provider, modelId, maxOutputTokens, value, onChange }: ThinkingPickerProps) {
  const support = thinkingSupport(provider, modelId);
  if (!support) return null;
  return (
    <label className="thinking-picker" title="How much the model thinks before it answers">
      <span className="thinking-picker-name">Thinking</span>
      <ThinkingSelect aria-label="Thinking for the next message" support={support} maxOutputTokens={maxOutputTokens} value={value} onChange={onChange} />
    </label>
  );
}
