/**
 * A message's thinking as a person reads it: its text, and the one-line label the
 * transcript and the Markdown export give it ("Thinking · 1,240 words · 8 s"). Length is
 * counted in words of the text shown: tokens are known only for the whole output, and what
 * a provider shows (Anthropic's and OpenAI's summaries) is shorter than what it billed.
 */
import type { StoredMessage } from './conversation';

/** The text of a message's thinking blocks in order, a blank line between, and how many blocks the provider redacted (kept encrypted). */
export function thinkingOf(message: Pick<StoredMessage, 'content'>): { text: string; redacted: number } {
  const parts: string[] = [];
  let redacted = 0;
  for (const block of message.content) {
    if (block.type === 'thinking' && block.thinking !== '') parts.push(block.thinking);
    else if (block.type === 'redacted_thinking') redacted++;
  }
  return { text: parts.join('\n\n'), redacted };
}

/** Words in `text`: runs of characters between white space. */
export function countWords(text: string): number {
  const words = text.trim();
  return words === '' ? 0 : words.split(/\s+/u).length;
}

/** A thinking time in ms as shown: "0 s", "8 s", "1 min 5 s", "12 min" (whole seconds, rounded down). */
export function formatThinkingTime(ms: number): string {
  const seconds = Math.max(0, Math.floor(ms / 1000));
  if (seconds < 60) return `${seconds} s`;
  const minutes = Math.floor(seconds / 60);
  const rest = seconds % 60;
  return rest === 0 || minutes >= 10 ? `${minutes} min` : `${minutes} min ${rest} s`;
}

/**
 * "Thinking · 1,240 words · 8 s": the label of a message's thinking. Redacted blocks are
 * named ("redacted by the provider" when nothing else is shown, else "2 parts redacted"); the
 * time only when known.
 */
export function thinkingSummary(thinking: { text: string; redacted: number }, thinkingMs?: number): string {
  const facts: string[] = [];
  const words = countWords(thinking.text);
  if (words > 0) facts.push(`${words.toLocaleString('en-US')} ${words === 1 ? 'word' : 'words'}`);
  if (thinking.redacted > 0) {
    facts.push(words > 0 ? `${thinking.redacted} ${thinking.redacted === 1 ? 'part' : 'parts'} redacted` : 'redacted by the provider');
  }
  if (thinkingMs !== undefined) facts.push(formatThinkingTime(thinkingMs));
  return ['Thinking', ...facts].join(' · ');
}
