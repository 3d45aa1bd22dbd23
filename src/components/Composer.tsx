import { forwardRef, useState, type FormEvent, type KeyboardEvent } from 'react';

interface ComposerProps {
  /** Returns false when the message was not taken (e.g. another answer is still streaming); the draft is then kept. */
  onSend: (text: string) => boolean | void;
  /** While an answer streams: shows Stop instead of Send, and Esc stops. */
  streaming?: boolean;
  onStop?: () => void;
  onDraftChange?: (text: string) => void;
  disabled?: boolean;
  placeholder?: string;
}

/** The message box: Enter sends, Shift+Enter adds a line, Esc stops a streaming answer. */
export const Composer = forwardRef<HTMLTextAreaElement, ComposerProps>(function Composer(
  { onSend, streaming = false, onStop, onDraftChange, disabled = false, placeholder = 'Message' },
  ref,
) {
  const [draft, setDraft] = useState('');
  const canSend = !disabled && !streaming && draft.trim().length > 0;

  function update(text: string) {
    setDraft(text);
    onDraftChange?.(text);
  }

  function submit(event?: FormEvent) {
    event?.preventDefault();
    if (!canSend) return;
    if (onSend(draft) === false) return;
    update('');
  }

  function onKeyDown(event: KeyboardEvent<HTMLTextAreaElement>) {
    if (event.key === 'Enter' && !event.shiftKey && !event.nativeEvent.isComposing) {
      event.preventDefault();
      submit();
    } else if (event.key === 'Escape' && streaming) {
      event.preventDefault();
      onStop?.();
    }
  }

  return (
    <form className="composer" onSubmit={submit}>
      <textarea
        ref={ref}
        aria-label="Message"
        placeholder={placeholder}
        rows={Math.min(10, Math.max(2, draft.split('\n').length))}
        value={draft}
        onChange={(event) => update(event.target.value)}
        onKeyDown={onKeyDown}
      />
      {streaming ? (
        <button type="button" onClick={onStop} title="Stop (Esc)">
          Stop
        </button>
      ) : (
        <button type="submit" disabled={!canSend}>
          Send
        </button>
      )}
    </form>
  );
});
