import { useEffect, useRef, type ReactNode, type RefObject } from 'react';

interface ConversationDrawerProps {
  open: boolean;
  /** The drawer closed itself: Escape, a tap outside it. */
  onClose: () => void;
  /** Where focus goes back to once the drawer closes: the header's button that opens it. */
  returnFocus: RefObject<HTMLElement | null>;
  children: ReactNode;
}

/**
 * The conversation list on a phone: a modal `<dialog>` from the left edge. Opened with
 * `showModal`, so the page behind it is inert, focus stays inside and Escape closes it;
 * a tap on the dimmed page beside it closes it too. Closing returns focus to the button
 * that opens it, as a dialog's close does.
 */
export function ConversationDrawer({ open, onClose, returnFocus, children }: ConversationDrawerProps) {
  const ref = useRef<HTMLDialogElement>(null);

  useEffect(() => {
    const dialog = ref.current;
    if (!dialog) return;
    if (open && !dialog.open) dialog.showModal();
    else if (!open && dialog.open) {
      dialog.close();
      returnFocus.current?.focus();
    }
  }, [open, returnFocus]);

  return (
    <dialog
      ref={ref}
      id="conversation-drawer"
      className="drawer"
      aria-label="Conversations"
      // Escape closes the dialog by itself; the state follows, and focus goes back to the button.
      onClose={() => {
        if (!open) return;
        onClose();
        returnFocus.current?.focus();
      }}
      // The list fills the dialog's box: a click whose target is the dialog itself fell on the backdrop.
      onClick={(event) => {
        if (event.target === event.currentTarget) onClose();
      }}
    >
      {children}
    </dialog>
  );
}
