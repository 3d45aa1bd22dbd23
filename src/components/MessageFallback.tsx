import { messageText, type StoredMessage } from '../core';

/** The text of a message, best effort: a record another version wrote may not have the shape messageText reads. */
function plainTextOf(message: StoredMessage): string {
  try {
    return messageText(message);
  } catch {
    return '';
  }
}

/**
 * What a transcript row shows when rendering its message or summary threw: the plain
 * text, never Markdown, with a note. The rest of the conversation renders as usual.
 */
export function MessageFallback({ message }: { message: StoredMessage }) {
  const isUser = message.role === 'user';
  return (
    <article
      aria-label={isUser ? 'User message' : 'Assistant message'}
      className={`message ${isUser ? 'message-user' : 'message-assistant'}`}
      data-message-id={message.id}
    >
      <div className="message-body">
        <p className="plain">{plainTextOf(message)}</p>
        <p className="render-note muted" role="note">
          This message could not be rendered, so its plain text is shown.
        </p>
      </div>
    </article>
  );
}
