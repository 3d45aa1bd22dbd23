// Exact o200k_base token counts for OpenAI models, through gpt-tokenizer: the reference the
// estimator is measured against (test/core/tokens, test/bench/estimator.bench.ts). The app
// never counts with it; it estimates (src/core/tokens/estimate.ts) and calibrates against
// the usage the provider reports.
import { countTokens } from 'gpt-tokenizer/encoding/o200k_base';
import { ATTACHMENT_TOKENS, TOOL_CALL_OVERHEAD_TOKENS, countedParts, type MessageTokenCounter, type WindowMessage } from '../../../src/core';

/**
 * Tokens OpenAI's chat format spends on every message besides its role and content
 * (`<|start|>`, the separator, `<|end|>`), as documented in OpenAI's token-counting guide.
 */
export const OPENAI_TOKENS_PER_MESSAGE = 3;

/** Tokens that prime every reply (`<|start|>assistant<|message|>`): once per request, not per message. */
export const OPENAI_REPLY_PRIMING_TOKENS = 3;

// User text that happens to contain "<|endoftext|>" is plain text to the API, not a control
// token, so no special token is recognized.
const PLAIN_TEXT = { disallowedSpecial: new Set<string>(), allowedSpecial: new Set<string>() };

const countText = (text: string) => countTokens(text, PLAIN_TEXT);

/**
 * An exact per-message count: OPENAI_TOKENS_PER_MESSAGE + the role + the message's text
 * (both wire shapes: text parts, tool names and JSON arguments, tool results, thinking) +
 * the core's fixed per-tool-call and per-attachment allowances, which the text does not
 * reveal. Add OPENAI_REPLY_PRIMING_TOKENS once per request.
 */
export const o200kCounter: MessageTokenCounter = (message: WindowMessage) => {
  let total = OPENAI_TOKENS_PER_MESSAGE + countText(message.role);
  if (typeof message.content === 'string' && message.tool_calls == null) return total + countText(message.content);
  const parts = countedParts(message);
  total += parts.toolCalls * TOOL_CALL_OVERHEAD_TOKENS + parts.attachments * ATTACHMENT_TOKENS;
  for (const text of parts.texts) total += countText(text);
  return total;
};
