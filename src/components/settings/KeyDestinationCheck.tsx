import type { KeyDestinationQuestions } from '../../core';

export type KeyMoveChoice = 'keep' | 'clear';

export interface KeyDestinationCheckProps {
  questions: KeyDestinationQuestions;
  /** Whether the user agreed to send the key to `questions.insecureOrigin`. */
  confirmed: boolean;
  onConfirm: (confirmed: boolean) => void;
  moveChoice: KeyMoveChoice | undefined;
  onMoveChoice: (choice: KeyMoveChoice) => void;
  /** Shown when Save was pressed with a question unanswered. */
  error?: string;
}

/**
 * The key's destination, asked before anything is saved: a saved key about to go to a new
 * host (keep it or clear it), and a key about to travel unencrypted over plain http.
 */
export function KeyDestinationCheck({ questions, confirmed, onConfirm, moveChoice, onMoveChoice, error }: KeyDestinationCheckProps) {
  const { insecureOrigin, moved } = questions;
  if (!insecureOrigin && !moved) return null;
  return (
    <div className="key-destination">
      {moved && (
        <fieldset>
          <legend>
            Your saved API key was for {moved.from}. Send it to {moved.to} too?
          </legend>
          <label>
            <input type="radio" name="key-move" checked={moveChoice === 'keep'} onChange={() => onMoveChoice('keep')} /> Keep the key for {moved.to}
          </label>
          <label>
            <input type="radio" name="key-move" checked={moveChoice === 'clear'} onChange={() => onMoveChoice('clear')} /> Clear the key
          </label>
        </fieldset>
      )}
      {insecureOrigin && moveChoice !== 'clear' && (
        <div className="notice notice-error key-warning">
          <p>{insecureOrigin} is plain http on another machine: your key would travel unencrypted, readable by anyone on the way.</p>
          <label>
            <input type="checkbox" checked={confirmed} onChange={(e) => onConfirm(e.target.checked)} /> Send my API key unencrypted to {insecureOrigin}
          </label>
        </div>
      )}
      {error && (
        <p className="field-error" role="alert">
          {error}
        </p>
      )}
    </div>
  );
}
