import type { FallbackProps } from 'react-error-boundary';

export interface ConversationFailureProps extends Pick<FallbackProps, 'error'> {
  onExport: () => void;
  onNewChat: () => void;
}

/**
 * What the conversation pane shows when it cannot render the open conversation: the
 * sidebar stays usable, the conversation can still be saved as JSON, and a new chat is one
 * click away. Nothing stored is changed.
 */
export function ConversationFailure({ error, onExport, onNewChat }: ConversationFailureProps) {
  const detail = error instanceof Error ? error.message : String(error);
  return (
    <section className="render-failure" role="alert" aria-label="Conversation could not be shown">
      <h2>This conversation could not be shown</h2>
      <p>Something in it could not be displayed. It is still stored in this browser, unchanged: export it, or open another conversation from the list.</p>
      <p className="muted">{detail.slice(0, 300)}</p>
      <div className="row">
        <button type="button" onClick={onExport}>
          Export this conversation as JSON
        </button>
        <button type="button" onClick={onNewChat}>
          Start a new chat
        </button>
      </div>
    </section>
  );
}
