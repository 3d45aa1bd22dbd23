import { contentChars, type WindowMessage } from '../messages';

/**
 * The characters / 4 estimate for one message: `ceil(contentChars / 4)` tokens, with no
 * per-message overhead. Kept exact because the rules of count, truncate, two-tier and
 * ConversationWindow.estimateTokens are stated with it.
 */
export function chars4(message: WindowMessage): number {
  return Math.ceil(contentChars(message) / 4);
}
