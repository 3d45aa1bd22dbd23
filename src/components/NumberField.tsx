import { useState, type ComponentProps } from 'react';
import { Field } from './Field';

/** A number box's text as a number, NaN when empty, so the rules can say it is missing. */
export function typedNumber(text: string): number {
  return text.trim() === '' ? Number.NaN : Number(text);
}

/**
 * A labelled number box (see Field) whose hint and error describe it. `onValue` gets the
 * typed number at each keystroke, NaN while the box is empty.
 */
export function NumberField({
  label,
  hint,
  error,
  value,
  onValue,
  ...limits
}: Pick<ComponentProps<'input'>, 'min' | 'max' | 'step'> & {
  label: string;
  hint?: string;
  error?: string | null;
  value: number;
  onValue: (value: number) => void;
}) {
  return (
    <Field label={label} hint={hint} error={error}>
      {(id, describedBy, invalid) => (
        <NumberInput id={id} aria-describedby={describedBy} aria-invalid={invalid} {...limits} value={value} onValue={(text) => onValue(typedNumber(text))} />
      )}
    </Field>
  );
}

/**
 * A number box that can be cleared and retyped: while it has focus it shows what is typed
 * (the draft takes the parsed, clamped value at each keystroke); on blur it shows that value.
 * Showing the clamped value while typing turned "clear, type 512" into 64512.
 */
function NumberInput({
  value,
  onValue,
  ...rest
}: Omit<ComponentProps<'input'>, 'value' | 'onChange' | 'type'> & { value: number; onValue: (text: string) => void }) {
  const [typed, setTyped] = useState<string | null>(null);
  return (
    <input
      {...rest}
      type="number"
      // NaN: the box was left empty, and shows so (its field says what is missing).
      value={typed ?? (Number.isNaN(value) ? '' : value)}
      onChange={(e) => {
        setTyped(e.target.value);
        onValue(e.target.value);
      }}
      onBlur={() => setTyped(null)}
    />
  );
}
