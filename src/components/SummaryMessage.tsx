import { memo, Suspense } from 'react';
import type { StoredMessage } from '../core';
import { messageText } from '../core';
import { LazyMarkdown } from './LazyMarkdown';

export interface SummaryMessageProps {
  message: StoredMessage;
  onRegenerate?: (id: string) => void;
  busy?: boolean;
}

/**
 * The inline "[Conversation Summary]": stands in for the messages it covers in every
 * request from now on. Collapsed by default; says what it covers; can be redone.
 */
export const SummaryMessage = memo(function SummaryMessage({ message, onRegenerate, busy }: SummaryMessageProps) {
  const covers = message.covers?.length ?? 0;
  const body = messageText(message).replace(/^\[Conversation Summary\]\s*/, '');
  return (
    <article aria-label="Conversation summary" className="summary-message" data-message-id={message.id}>
      <details>
        <summary>
          <strong>[Conversation Summary]</strong>{' '}
          <span className="muted">
            covers {covers} earlier message{covers === 1 ? '' : 's'}, sent in their place
          </span>
        </summary>
        <Suspense fallback={<p className="plain">{body}</p>}>
          <LazyMarkdown text={body} />
        </Suspense>
      </details>
      {onRegenerate && (
        <button type="button" className="link-button" disabled={busy} onClick={() => onRegenerate(message.id)}>
          Regenerate summary
        </button>
      )}
    </article>
  );
});
