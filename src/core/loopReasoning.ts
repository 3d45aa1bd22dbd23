/**
 * The reasoning OpenAI's Responses API is sent back inside a tool loop: the encrypted
 * reasoning items of the loop's answers, which the history attaches to the OpenAI-shape
 * messages it plans (`store/history.ts`), so the window counts what is sent. Apart from the
 * wire mapping (`responsesWire.ts`), which only the provider needs when it sends: this is
 * needed wherever the history is planned, the gauge of the first screen included. Pure.
 */
import { isUserTurn } from './branches';
import type { ReasoningItem, StoredMessage, ThinkingBlock } from './conversation';
import type { OpenAIReasoningWire } from './messages';

/**
 * The reasoning items each answer of the current tool loop (the answers after the last
 * message the user wrote) goes back with, by stored message id. Answers of earlier turns
 * get none: the API discards reasoning from before the latest user message, so the app
 * leaves it out and the gauge does not count it. Each item counts the reasoning tokens its
 * answer reported (shared among its items), or, unreported, a quarter of its ciphertext's length.
 */
export function loopReasoning(messages: readonly StoredMessage[]): Map<string, OpenAIReasoningWire[]> {
  const out = new Map<string, OpenAIReasoningWire[]>();
  let start = messages.length;
  while (start > 0 && !isUserTurn(messages[start - 1]!)) start--;
  for (const message of messages.slice(start)) {
    if (message.role !== 'assistant') continue;
    const blocks = message.content.filter(
      (block): block is ThinkingBlock & { reasoningItem: ReasoningItem } => block.type === 'thinking' && block.reasoningItem !== undefined,
    );
    if (blocks.length === 0) continue;
    const reported = message.usage?.reasoningTokens;
    out.set(
      message.id,
      blocks.map((block) => ({
        id: block.reasoningItem.id,
        encrypted_content: block.reasoningItem.encryptedContent,
        summary: block.thinking,
        tokens: reported !== undefined && reported > 0 ? Math.ceil(reported / blocks.length) : Math.ceil(block.reasoningItem.encryptedContent.length / 4),
      })),
    );
  }
  return out;
}
