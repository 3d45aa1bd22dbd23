import { contentChars, type WindowMessage } from '../messages';

/**
 * Tokens for `chars` characters by the characters / 4 rule, rounded up: the one rounding
 * every chars/4 count uses, whether per message ({@link chars4}) or over a whole list
 * (ConversationWindow.estimateTokens).
 */
export function tokensForChars(chars: number): number {
  return Math.ceil(chars / 4);
}

/**
 * The characters / 4 estimate for one message: `ceil(contentChars / 4)` tokens, with no
 * per-message overhead. Kept exact because the rules of count, truncate and two-tier are
 * stated with it.
 */
export function chars4(message: WindowMessage): number {
  return tokensForChars(contentChars(message));
}
