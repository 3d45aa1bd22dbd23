/**
 * A plan's numbers in the words of the message-window tools people know: the conversation
 * metrics after trimming, what a trim removed and kept, what the rolling window pruned, the
 * compaction event and the message-cap warning. The gauge, the trim notice and the
 * compaction notice all show these lines.
 */
import type { ContextPlan } from '../core';

export interface PlanReport {
  /** "Conversation: 42 messages (~12,345 tokens)": what the next request sends. */
  conversation: string;
  /** "Trimmed conversation: 30 messages removed, 12 kept (~5,000 tokens)", when the strategy trimmed. */
  trimmed: string | null;
  /** The rolling window's pruning, sizes before and after: "Pruning from 60 to 50 messages (~6,000 → ~5,000 tokens)". */
  pruned: string | null;
  /** "[History compacted using truncate strategy]" whenever the request is smaller than the history. */
  compacted: string | null;
  /** "Conversation approaching limit (85/100 messages)" past 80 % of the strategy's message cap. */
  messageCapWarning: string | null;
  /** Where the request had to differ from the strategy's rule to be valid, and why; null when it did not. */
  differs: string | null;
}

const n = (value: number) => value.toLocaleString('en-US');
const messages = (count: number) => `${n(count)} message${count === 1 ? '' : 's'}`;

export function planReport(plan: ContextPlan): PlanReport {
  const m = plan.metrics;
  const trimmed = m.trimmed && m.evictedMessages > 0;
  return {
    conversation: `Conversation: ${messages(m.sentMessages)} (~${n(m.messageTokens)} tokens)`,
    trimmed: trimmed ? `Trimmed conversation: ${n(m.evictedMessages)} messages removed, ${n(m.keptMessages)} kept (~${n(m.messageTokens)} tokens)` : null,
    pruned:
      trimmed && plan.strategy === 'rolling'
        ? `Pruning from ${n(m.totalMessages)} to ${messages(m.keptMessages)} (~${n(m.fullInputTokens)} → ~${n(m.inputTokens)} tokens)`
        : null,
    compacted: trimmed || m.clearedToolResults > 0 ? `[History compacted using ${plan.strategy} strategy]` : null,
    messageCapWarning:
      m.approachingMessageCap && m.maxMessages !== null ? `Conversation approaching limit (${n(m.countedMessages)}/${messages(m.maxMessages)})` : null,
    differs: differences(plan),
  };
}

/** The messages the planner left out beyond the strategy's own choice, so that the APIs accept the request. */
function differences(plan: ContextPlan): string | null {
  const by = plan.metrics.evictedByReason;
  const notes: string[] = [];
  const userFirst = by['user-first'] ?? 0;
  const exchange = by['tool-exchange'] ?? 0;
  if (userFirst > 0)
    notes.push(`${n(userFirst)} more message${userFirst === 1 ? '' : 's'} left out so the request opens with a user message, as the APIs require`);
  if (exchange > 0) notes.push(`${messages(exchange)} left out with the tool call or result they belong to, as a tool exchange is never split`);
  return notes.length > 0 ? `Beyond the ${plan.strategy} strategy's rule: ${notes.join('; ')}.` : null;
}
