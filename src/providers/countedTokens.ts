/**
 * A count endpoint's answer, read as untrusted: only a whole, non-negative number of tokens
 * is a count. Anything else is the provider's failure, never a number to plan with.
 */
import { WindowpaneError, type ProviderId } from '../core';

export function countedTokens(answer: unknown, provider: ProviderId): number {
  const tokens = typeof answer === 'object' && answer !== null ? (answer as { input_tokens?: unknown }).input_tokens : undefined;
  if (typeof tokens === 'number' && Number.isSafeInteger(tokens) && tokens >= 0) return tokens;
  throw new WindowpaneError('provider', 'The provider answered the token count without a number of tokens.', { provider });
}
