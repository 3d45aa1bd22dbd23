import { contentChars, type WindowMessage } from '../messages';

/**
 * The seeds' estimate for one message: `ceil(contentChars / 4)` tokens, with no
 * per-message overhead. Kept exact because the seed strategies (count, truncate,
 * two-tier and ConversationWindow.estimateTokens) are specified with it.
 */
export function chars4(message: WindowMessage): number {
  return Math.ceil(contentChars(message) / 4);
}
