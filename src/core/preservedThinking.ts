/**
 * Anthropic's “preserved thinking” (Claude Platform Docs: “Preserved thinking” and “Prefix
 * checks on thinking blocks”, read 2026-11-29): from Claude Fable 5.1 on, a thinking block sent
 * back is checked against what came before it when it was written, and a request whose block
 * follows a changed prefix is refused. Which models run the check is `preservesThinking` in
 * thinking.ts. Used only when a request is built, so it loads with the steps of a turn.
 */
import { hashString } from './hash';
import type { AnthropicWireBlock, AnthropicWireMessage } from './messages';

/** The beta header that `thinking.block_binding` needs (“Fix a thinking block bound to a different conversation”). */
export const THINKING_BINDING_BETA = 'thinking-binding-controls-2026-08-01';

const isThinkingBlock = (block: unknown) =>
  typeof block === 'object' &&
  block !== null &&
  ((block as { type?: unknown }).type === 'thinking' || (block as { type?: unknown }).type === 'redacted_thinking');

/** The key of a request's prefix before its first message: the system prompt and the tools. */
export function thinkingPrefixStart(system: string | undefined, toolsText: string): string {
  return hashString(JSON.stringify([system ?? '', toolsText]));
}

function nextKey(key: string, message: AnthropicWireMessage): string {
  return hashString(`${key}\u0000${JSON.stringify(message)}`);
}

export interface ValidThinking {
  /** The messages to send: those left with nothing once their thinking is out are left out too. */
  messages: AnthropicWireMessage[];
  /** For each message sent, its index in the messages given. */
  kept: number[];
  /** Indexes (in the messages given) of those whose thinking blocks were left out. */
  dropped: number[];
  /**
   * The tool loop's last answer kept thinking whose prefix changed: the request must ask the
   * API to drop what fails its check (`block_binding`), not refuse it.
   */
  staleInToolLoop: boolean;
  /** The key of the whole request's prefix: the answer to it stores it, to be checked when its thinking is sent back. */
  prefixKey: string;
}

/** The request continues a tool loop: it ends with a user turn of tool results. */
function answersToolResults(messages: readonly AnthropicWireMessage[]): boolean {
  const last = messages.at(-1);
  return last?.role === 'user' && Array.isArray(last.content) && last.content.some((block: AnthropicWireBlock) => block.type === 'tool_result');
}

/**
 * Anthropic's preserved thinking, applied before sending: an assistant message's thinking
 * blocks go back only when the prefix they were written after (system, tools and every
 * earlier message, as sent then) is the one this request sends. Otherwise that message's
 * thinking is left out, as the API would refuse it: a trim, a summary, a cleared tool
 * result, a changed system prompt or tool list all change the prefix. A later answer
 * written after that change (its prefix already sent without what is left out) keeps its
 * thinking; one written before it fails its own check, its prefix having changed too.
 * `writtenAfter(i)` is the key the answer at index `i` stored (undefined when it stored
 * none: its thinking is left out). The rest of each message goes as it is; a message that
 * was only thinking is left out (the API joins the turns around it).
 *
 * One answer is never changed: the one whose tool calls this request answers. Its thinking
 * goes back byte for byte before its calls, as a tool loop requires; if its prefix changed
 * meanwhile (the window trimmed mid-loop), `staleInToolLoop` says so.
 */
export function keepValidThinking(
  messages: readonly AnthropicWireMessage[],
  start: string,
  writtenAfter: (index: number) => string | undefined,
): ValidThinking {
  const out: AnthropicWireMessage[] = [];
  const kept: number[] = [];
  const dropped: number[] = [];
  const loopAnswer = answersToolResults(messages) ? messages.length - 2 : -1;
  let staleInToolLoop = false;
  let key = start;
  messages.forEach((message, index) => {
    let sent = message;
    if (message.role === 'assistant' && Array.isArray(message.content) && message.content.some(isThinkingBlock)) {
      if (writtenAfter(index) !== key) {
        if (index === loopAnswer) {
          staleInToolLoop = true;
        } else {
          dropped.push(index);
          const rest = message.content.filter((block: AnthropicWireBlock) => !isThinkingBlock(block));
          if (rest.length === 0) return;
          sent = { ...message, content: rest };
        }
      }
    }
    out.push(sent);
    kept.push(index);
    key = nextKey(key, sent);
  });
  return { messages: out, kept, dropped, staleInToolLoop, prefixKey: key };
}
