/**
 * What asking a model for a summary of evicted messages takes: the prompts (a concise one
 * and a structured six-part one), the transcript they are asked about, what to keep in view
 * besides it, and the cache key of a finished summary. Apart from the summaries the planner
 * places (`summary.ts`), so it loads only when a summary is asked for. Pure: the model call
 * itself is injected by whoever asks for a summary.
 */
import { hashString } from './hash';
import { toolCallsOf, wireText, type WindowMessage } from './messages';
import { summaryBody, toolResultTexts } from './summary';
import { toolArgumentsText } from './tools/toolArguments';

/** The concise summarization prompt (summarize-on-trim and the `summarize` strategy), verbatim. */
export const CONCISE_SUMMARY_PROMPT =
  'Summarize the following conversation history concisely. Focus on: what files were read/written, what decisions were made, what problems were encountered, and what the current state of the task is. Be factual and brief.';

/** The structured six-part prompt (two-tier's AI summary), verbatim. */
export const STRUCTURED_SUMMARY_PROMPT = `Create a detailed, structured summary that includes:
1. Task Progress: What has been accomplished so far?
2. Key Decisions: Important choices made and why
3. Files & Changes: What files were created, modified, or read?
4. Errors & Solutions: Any errors and how they were resolved
5. Current Focus: What was the agent working on most recently?
6. Important Context: Domain-specific knowledge discovered`;

/** `concise`: {@link CONCISE_SUMMARY_PROMPT}. `structured`: the six-part {@link STRUCTURED_SUMMARY_PROMPT}. */
export type SummaryPromptKind = 'concise' | 'structured';

/** Characters of one tool call or tool result quoted into a summary prompt; file dumps add little to a summary. */
const MAX_QUOTED_CHARS = 2000;

function quote(text: string, max = MAX_QUOTED_CHARS): string {
  return text.length <= max ? text : `${text.slice(0, max)}… [${text.length - max} more characters]`;
}

/**
 * The messages as plain text for a summary prompt, one line group per message:
 * `[role]: text`, `[assistant called name]: arguments`, `[tool result]: output`
 * (tool arguments and outputs quoted up to 2,000 characters each).
 */
export function summaryTranscript(messages: readonly WindowMessage[]): string {
  const lines: string[] = [];
  for (const message of messages) {
    const text = wireText(message);
    if (text.trim()) lines.push(`[${message.role}]: ${text}`);
    for (const call of toolCallsOf(message)) {
      lines.push(`[${message.role} called ${call.name || 'a tool'}]: ${quote(toolArgumentsText(call.input))}`);
    }
    for (const result of toolResultTexts(message)) lines.push(`[tool result]: ${quote(result)}`);
  }
  return lines.join('\n');
}

/**
 * What a summary should keep in view besides the transcript (the `summarize` strategy's):
 * the conversation's goal, and the files whose latest tool results are sent verbatim after
 * the summary, which it therefore need not repeat.
 */
export interface SummaryFocus {
  goal?: string;
  preservedFiles?: readonly string[];
}

/** Characters of the goal quoted into a summary prompt. */
const MAX_GOAL_CHARS = 2000;

function focusParts(focus: SummaryFocus | undefined): string[] {
  const parts: string[] = [];
  const goal = focus?.goal?.trim();
  if (goal) parts.push(`The user's goal: ${quote(goal, MAX_GOAL_CHARS)}`);
  const files = focus?.preservedFiles ?? [];
  if (files.length > 0) {
    parts.push(
      `Files whose latest results are kept verbatim after this summary: ${files.join(', ')}. Focus on what happened — what was done with these files and why — and do not repeat their contents.`,
    );
  }
  return parts;
}

/**
 * The prompt for a summary of `messages`: the chosen instructions, then what to keep in
 * view (`focus`: the goal and the files kept verbatim, when given), then (for an
 * incremental summary) the previous summary to extend, then the transcript. Never
 * re-sends what the previous summary already covers.
 */
export function buildSummaryPrompt(kind: SummaryPromptKind, messages: readonly WindowMessage[], previousSummary?: string, focus?: SummaryFocus): string {
  const instructions = kind === 'structured' ? STRUCTURED_SUMMARY_PROMPT : CONCISE_SUMMARY_PROMPT;
  const previous = previousSummary ? summaryBody(previousSummary) : '';
  const parts = [instructions, ...focusParts(focus)];
  if (previous) {
    parts.push(`Previous summary (extend it with the conversation below; keep what still matters):\n${previous}`);
  }
  parts.push(`Conversation:\n${summaryTranscript(messages)}`);
  return parts.join('\n\n');
}

/** Where finished summaries are kept between plans: a `Map` will do, or a store that answers with promises. */
export interface SummaryCache {
  get(key: string): string | undefined | Promise<string | undefined>;
  set(key: string, summary: string): unknown;
}

/**
 * Cache key of a summary: the prompt kind plus a hash of the previous summary and the
 * exact messages it condenses (and the focus, when the prompt has one, since it changes
 * what is asked). Same evicted range, previous summary and focus, same key.
 */
export function summaryCacheKey(kind: SummaryPromptKind, messages: readonly WindowMessage[], previousSummary?: string, focus?: SummaryFocus): string {
  const parts = focusParts(focus);
  const input = parts.length > 0 ? [previousSummary ?? null, messages, parts] : [previousSummary ?? null, messages];
  return `${kind}:${hashString(JSON.stringify(input))}`;
}
