/**
 * What the demo says. Its usual answer is a tour: it tells what Windowpane sent it (how many
 * messages, how full its tiny window is, what was trimmed, summarized or cached) and adds two
 * tips. A summary request gets a plausible summary made from the conversation in the prompt.
 */
import type { AnthropicWireMessage } from '../../core';
import { computeRequest, toolAnswer, toolCallText, toolResultText } from './calculator';
import { DEMO_CONTEXT_WINDOW, messageText, systemText } from './model';
import type { AnthropicCacheOutcome } from './messagesWire';

const TIPS = [
  'The gauge by the composer shows how full my window is. Every request is planned before it is sent: Windowpane keeps your first message and the newest ones, and decides what else fits.',
  'Nothing you write is deleted. Trimming only changes what is sent; the whole conversation stays in this browser, and with the automatic strategy a pinned message is kept in every request.',
  'With summaries on (Settings), trimmed messages are replaced by one short summary, so I still know what we talked about. A summary costs one small extra request; plain trimming costs nothing.',
  'Providers can cache the repeated start of a request, and cached tokens are much cheaper. I report cache reads and writes the way Anthropic does, so you can watch them in the usage details.',
  'You can press Stop at any time: the partial answer is kept and marked as stopped. Try it on one of my answers if you are quick.',
  'When you want a real model, add an Anthropic or OpenAI key in Settings, or point Windowpane at a local server such as Ollama. Your key stays in this browser and goes only to that provider.',
];

function preview(text: string, max: number): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length <= max ? flat : `${flat.slice(0, max - 1).trimEnd()}…`;
}

const SUMMARY_MARK = /^\s*\[conversation summary\]/i;
const TRIM_MARK = /^\s*\[\d+ earlier messages? (?:were )?(?:truncated|trimmed|removed)/i;

function receivedList(messages: readonly AnthropicWireMessage[]): string {
  const lines = messages.map((message, i) => {
    const text = messageText(message);
    const who = SUMMARY_MARK.test(text) ? 'summary' : TRIM_MARK.test(text) ? 'marker' : message.role === 'user' ? 'you' : 'me';
    return `${i + 1}. ${who}: “${preview(text || '(tool call)', 56)}”`;
  });
  if (lines.length <= 10) return lines.join('\n');
  return [...lines.slice(0, 3), `… ${lines.length - 9} more …`, ...lines.slice(-6)].join('\n');
}

function demoReply(messages: readonly AnthropicWireMessage[], usage: AnthropicCacheOutcome, replyNumber: number): string {
  const totalTokens = usage.cacheReadTokens + usage.cacheWriteTokens + usage.uncachedTokens;
  const last = messages[messages.length - 1];
  const lastText = last && last.role === 'user' ? messageText(last) : '';
  const percent = Math.round((totalTokens / DEMO_CONTEXT_WINDOW) * 100);
  const texts = messages.map(messageText);
  const summarized = texts.some((t) => SUMMARY_MARK.test(t));
  const trimmed = texts.some((t) => TRIM_MARK.test(t));

  const opening =
    messages.length === 1
      ? "Hello! I'm the Windowpane demo model. I run inside this page, with no API key and no network, but my answers travel the same code path a real Anthropic model's do, streamed a few words at a time."
      : `You wrote: “${preview(lastText || '…', 80)}”. I'm only a demo, so I can't really answer that, but I can show you what Windowpane sent me.`;

  let window = `This request carried ${messages.length} message${messages.length === 1 ? '' : 's'}, about ${totalTokens.toLocaleString('en-US')} of my ${DEMO_CONTEXT_WINDOW.toLocaleString('en-US')} tokens (${percent} %).`;
  if (summarized) window += ' One of them is a conversation summary standing in for older messages, so I keep the gist without the full text.';
  if (trimmed) window += ' A marker tells me that earlier messages were trimmed to fit.';
  if (!summarized && !trimmed) {
    window +=
      percent < 50
        ? ' My window is deliberately tiny, so after a few more messages Windowpane will trim the oldest ones, or summarize them if summaries are on.'
        : ' We are close to my limit: the next messages will push the oldest ones out of what I see. They stay in your transcript, marked as not sent.';
    const userTurns = Math.max(1, messages.filter((m) => m.role === 'user').length);
    // This answer adds roughly as much as the request holds per turn so far.
    const perExchange = Math.max(150, Math.round(totalTokens / userTurns) + 300);
    const left = Math.floor((0.8 * DEMO_CONTEXT_WINDOW - totalTokens - 300) / perExchange);
    if (left > 0) {
      window += ` At this pace about ${left} more exchange${left === 1 ? '' : 's'} fit before my window is 80 % full, where trimming usually begins.`;
    }
  }
  const cache =
    usage.cacheReadTokens > 0
      ? ` ${usage.cacheReadTokens.toLocaleString('en-US')} of those tokens came from the prompt cache.`
      : usage.cacheWriteTokens > 0
        ? ` ${usage.cacheWriteTokens.toLocaleString('en-US')} tokens were written to the prompt cache for next time.`
        : '';

  // Two tips per answer: the answers are meant to be long enough that the tiny window
  // fills within a few exchanges, so trimming shows up early.
  const tips = `${TIPS[(2 * replyNumber) % TIPS.length]} ${TIPS[(2 * replyNumber + 1) % TIPS.length]}`;
  return `${opening}\n\n${window}${cache}\n\nHere is what I received:\n${receivedList(messages)}\n\n${tips}`;
}

const ROLE_LINE = /^\s*(?:\*\*|\[)?(user|human|you|assistant|ai|me)(?:\*\*|\])?\s*[:-]\s*(.+)$/i;

/** A summary request asks, in its last user message, to summarize a conversation. */
function isSummaryRequest(messages: readonly AnthropicWireMessage[], system: unknown): boolean {
  const last = messages[messages.length - 1];
  if (!last || last.role !== 'user') return false;
  const text = `${systemText(system)}\n${messageText(last)}`;
  return /\bsummar(?:y|ies|ize|ise|izing|ising)\b/i.test(text) && /\bconversation\b/i.test(text);
}

function firstSentence(text: string): string {
  const match = /^(.+?[.!?])(?:\s|$)/.exec(text.trim());
  return preview(match ? (match[1] as string) : text, 70);
}

/** Topics an earlier demo summary quoted, so extending a summary keeps them. */
function previousTopics(prompt: string): string[] {
  const start = prompt.search(/previous summary/i);
  if (start < 0) return [];
  const end = prompt.search(/\nconversation:/i);
  const section = prompt.slice(start, end > start ? end : undefined);
  return [...section.matchAll(/“([^”]+)”/g)].map((m) => m[1] as string);
}

/** A plausible summary made from the conversation text in the prompt (and any previous summary in it). */
function demoSummary(prompt: string): string {
  const userLines: string[] = previousTopics(prompt);
  let assistantLines = 0;
  for (const line of prompt.split('\n')) {
    const match = ROLE_LINE.exec(line);
    if (!match) continue;
    const role = (match[1] as string).toLowerCase();
    const said = (match[2] as string).trim();
    if (role === 'assistant' || role === 'ai' || role === 'me') assistantLines++;
    else if (said && !userLines.includes(firstSentence(said))) userLines.push(firstSentence(said));
  }
  if (userLines.length === 0) {
    const sentences = prompt
      .split(/(?<=[.!?])\s+/)
      .map((s) => s.trim())
      .filter((s) => s.length > 20 && !/summar/i.test(s));
    userLines.push(...sentences.slice(-4).map(firstSentence));
  }
  // The first topic is usually the goal; after it, the newest ones matter most.
  const kept = userLines.length <= 6 ? userLines : [userLines[0] as string, ...userLines.slice(-5)];
  const topics = kept.map((t) => `“${t}”`);
  const parts = [
    topics.length > 0
      ? `The user talked with the Windowpane demo model about ${topics.join(', ')}${userLines.length > 6 ? ', among other things' : ''}.`
      : 'The user and the Windowpane demo model exchanged a few messages.',
    `The demo model${assistantLines > 0 ? ` answered each of its ${assistantLines} turns` : ' answered each message'} by explaining what Windowpane sent it: how many messages, how full its ${DEMO_CONTEXT_WINDOW.toLocaleString('en-US')}-token window was, and how older messages are trimmed or summarized.`,
    'Nothing was decided that later messages depend on.',
  ];
  return parts.join(' ');
}

export interface DemoReply {
  text: string;
  /** The code of a run_javascript call after the text, if the demo calls the tool. */
  code: string | null;
}

/**
 * The answer to an accepted request: a summary when asked for one, a tool call when asked to
 * compute, an answer from the tool's result when it comes back, and otherwise the tour.
 * `nextReplyNumber` is called for the tour only, so the tips move on from one tour to the next.
 */
export function demoAnswer(
  request: { system: unknown; messages: readonly AnthropicWireMessage[]; toolNames: readonly string[] },
  cache: AnthropicCacheOutcome,
  nextReplyNumber: () => number,
): DemoReply {
  const { messages, system } = request;
  if (isSummaryRequest(messages, system)) return { text: demoSummary(messageText(messages[messages.length - 1] as AnthropicWireMessage)), code: null };
  const code = computeRequest(request.toolNames, messages);
  if (code !== null) return { text: toolCallText(code), code };
  const toolResult = toolResultText(messages);
  if (toolResult !== null) return { text: toolAnswer(toolResult), code: null };
  return { text: demoReply(messages, cache, nextReplyNumber()), code: null };
}
