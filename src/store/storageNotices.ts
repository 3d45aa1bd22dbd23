/**
 * What the user reads when storage reports a fact rather than a failure of its own:
 * stored records this version cannot use as they are, and a write refused because its
 * conversation was deleted meanwhile. Storage gives the counts and names; the words are here.
 */
import type { ErrorDetails, WindowpaneError } from '../core';
import { isWindowpaneError } from '../core';
import type { UnreadableRecords } from '../persistence';

/** The warning for records another version (or a hand edit) wrote; they stay in storage unchanged. */
export function unreadableNotice({ kind, count }: UnreadableRecords): string {
  const one = count === 1;
  return kind === 'conversations'
    ? `${count} stored conversation${one ? ' has' : 's have'} fields this version cannot read; ${one ? 'it is' : 'they are'} shown with defaults and kept unchanged in storage.`
    : `${count} stored message${one ? ' is' : 's are'} in a form this version cannot read, so ${one ? 'it is' : 'they are'} left out here; ${one ? 'it stays' : 'they stay'} in storage unchanged.`;
}

/** What was not kept, completing "This conversation no longer exists …, so". */
function notKept({ refused, name }: ErrorDetails<'conversation_gone'>): string {
  switch (refused) {
    case 'message':
      return 'the message was not saved. Copy anything you need from the screen before leaving it.';
    case 'attachment':
      return `${name} was not attached.`;
    case 'images':
    case 'files':
      return `the ${refused} were not saved.`;
    case 'restored attachments':
      return 'its files were not put back.';
    default:
      return 'nothing was saved.';
  }
}

/** The message a failure shows the user: its own, or for a write whose conversation is gone, what was not kept. */
export function errorText(error: WindowpaneError): string {
  if (!isWindowpaneError(error, 'conversation_gone')) return error.message;
  return `This conversation no longer exists (it may have been deleted in another tab), so ${notKept(error.details)}`;
}
