// Exact o200k_base token counts for OpenAI models, through gpt-tokenizer.
//
// The encoder carries a vocabulary of about two megabytes, so it is loaded with a dynamic
// import(): the bundler puts it in its own chunk, fetched the first time an exact count
// is asked for, and never in the initial bundle.
import { ATTACHMENT_TOKENS, TOOL_CALL_OVERHEAD_TOKENS, countedParts, type MessageTokenCounter, type WindowMessage } from '../core';

/**
 * Tokens OpenAI's chat format spends on every message besides its role and content
 * (`<|start|>`, the separator, `<|end|>`), as documented in OpenAI's token-counting guide.
 */
export const OPENAI_TOKENS_PER_MESSAGE = 3;

/** Tokens that prime every reply (`<|start|>assistant<|message|>`): once per request, not per message. */
export const OPENAI_REPLY_PRIMING_TOKENS = 3;

type CountText = (text: string) => number;

let loading: Promise<CountText> | undefined;

function loadEncoder(): Promise<CountText> {
  loading ??= import('gpt-tokenizer/encoding/o200k_base')
    .then(({ countTokens }) => {
      // User text that happens to contain "<|endoftext|>" is plain text to the API, not a
      // control token, so no special token is recognized.
      const options = { disallowedSpecial: new Set<string>(), allowedSpecial: new Set<string>() };
      return (text: string) => countTokens(text, options);
    })
    .catch((error: unknown) => {
      // A failed chunk load (offline) must not poison every later attempt.
      loading = undefined;
      throw error;
    });
  return loading;
}

/**
 * Loads the o200k encoder (once, lazily) and returns an exact per-message counter:
 * OPENAI_TOKENS_PER_MESSAGE + the role + the message's text (both wire shapes: text
 * parts, tool names and JSON arguments, tool results, thinking) + the core's fixed
 * per-tool-call and per-attachment allowances, which the text does not reveal. Add
 * OPENAI_REPLY_PRIMING_TOKENS once per request. Rejects when the encoder chunk cannot
 * be loaded.
 */
export async function loadO200kCounter(): Promise<MessageTokenCounter> {
  const countText = await loadEncoder();
  return (message: WindowMessage) => {
    let total = OPENAI_TOKENS_PER_MESSAGE + countText(message.role);
    if (typeof message.content === 'string' && message.tool_calls == null) return total + countText(message.content);
    const parts = countedParts(message);
    total += parts.toolCalls * TOOL_CALL_OVERHEAD_TOKENS + parts.attachments * ATTACHMENT_TOKENS;
    for (const text of parts.texts) total += countText(text);
    return total;
  };
}
