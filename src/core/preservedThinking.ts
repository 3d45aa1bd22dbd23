/**
 * Anthropic's “preserved thinking” (Claude Platform Docs: “Preserved thinking” and “Prefix
 * checks on thinking blocks”, read 2026-11-29): from Claude Fable 5.1 on, a thinking block sent
 * back is checked against what came before it when it was written, and a request whose block
 * follows a changed prefix is refused. Which models run the check is `preservesThinking` in
 * thinking.ts. Applied to every plan (store/planning.ts), so the gauge counts what the request sends.
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
  /**
   * Indexes of earlier answers whose thinking goes back although its prefix changed, because
   * a later answer was written after a request that sent it so (see {@link keepValidThinking});
   * the request must ask the API to drop what fails its check, as for `staleInToolLoop`.
   */
  keptStale: number[];
  /** The key of the whole request's prefix: the answer to it stores it, to be checked when its thinking is sent back. */
  prefixKey: string;
}

/** The request continues a tool loop: it ends with a user turn of tool results. */
function answersToolResults(messages: readonly AnthropicWireMessage[]): boolean {
  const last = messages.at(-1);
  return last?.role === 'user' && Array.isArray(last.content) && last.content.some((block: AnthropicWireBlock) => block.type === 'tool_result');
}

const hasThinking = (message: AnthropicWireMessage) => message.role === 'assistant' && Array.isArray(message.content) && message.content.some(isThinkingBlock);

/** An answer whose thinking failed its check, sent as it is or without its thinking once a later answer says which. */
interface Undecided {
  index: number;
  /** Its place in the output. */
  at: number;
  /** The message without its thinking, or null when nothing is left. */
  without: AnthropicWireMessage | null;
  /** The prefix key so far with its thinking sent, and without. */
  keyWith: string;
  keyWithout: string;
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
 * meanwhile (the window trimmed mid-loop), `staleInToolLoop` says so, and the API is asked
 * to drop it. The answers written after that request were written after its thinking as
 * sent, so with `keepStale` (the request may ask the API to drop blocks) an answer whose
 * check fails goes back as it is when the next answer with thinking was written after it
 * so (`keptStale`): leaving it out would fail every later answer's check in turn, and the
 * rest of the loop would lose its thinking.
 */
export function keepValidThinking(
  messages: readonly AnthropicWireMessage[],
  start: string,
  writtenAfter: (index: number) => string | undefined,
  keepStale = false,
): ValidThinking {
  const out: Array<AnthropicWireMessage | null> = [];
  const kept: Array<number | null> = [];
  const dropped: number[] = [];
  const keptStale: number[] = [];
  const loopAnswer = answersToolResults(messages) ? messages.length - 2 : -1;
  let staleInToolLoop = false;
  let key = start;
  let undecided: Undecided | null = null;

  /** Settles the undecided answer: sent as it is when `next` was written after it so. */
  const settle = (next: string | undefined) => {
    if (!undecided) return;
    if (next === undecided.keyWith) {
      keptStale.push(undecided.index);
      key = undecided.keyWith;
    } else {
      dropped.push(undecided.index);
      out[undecided.at] = undecided.without;
      if (!undecided.without) kept[undecided.at] = null;
      key = undecided.keyWithout;
    }
    undecided = null;
  };
  const append = (message: AnthropicWireMessage, index: number) => {
    out.push(message);
    kept.push(index);
    if (undecided) {
      undecided.keyWith = nextKey(undecided.keyWith, message);
      undecided.keyWithout = nextKey(undecided.keyWithout, message);
    } else {
      key = nextKey(key, message);
    }
  };

  messages.forEach((message, index) => {
    if (!hasThinking(message)) return append(message, index);
    const written = writtenAfter(index);
    settle(written);
    if (written === key) return append(message, index);
    if (index === loopAnswer) {
      staleInToolLoop = true;
      return append(message, index);
    }
    const rest = (message.content as AnthropicWireBlock[]).filter((block) => !isThinkingBlock(block));
    const without = rest.length > 0 ? { ...message, content: rest } : null;
    if (keepStale) {
      undecided = { index, at: out.length, without, keyWith: nextKey(key, message), keyWithout: without ? nextKey(key, without) : key };
      out.push(message);
      kept.push(index);
      return;
    }
    dropped.push(index);
    if (without) append(without, index);
  });
  settle(undefined);
  const sent = out.flatMap((message, i) => (message && kept[i] !== null ? [{ message, index: kept[i] as number }] : []));
  return {
    messages: sent.map((entry) => entry.message),
    kept: sent.map((entry) => entry.index),
    dropped: dropped.sort((a, b) => a - b),
    staleInToolLoop,
    keptStale,
    prefixKey: key,
  };
}
