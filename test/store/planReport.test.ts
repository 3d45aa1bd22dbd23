import { describe, expect, it } from 'vitest';
import { planContext, type PlanItem, type StrategyOptions, type TokenCounter } from '../../src/core';
import { planReport } from '../../src/store/planReport';

/** One token per character of text: sizes in these tests are exact. */
const counter: TokenCounter = (message) => (typeof message.content === 'string' ? message.content.length : 0);

/** `count` messages alternating user and assistant, 10 tokens each: m0 (the goal), m1, ... */
function history(count: number): PlanItem[] {
  return Array.from({ length: count }, (_, i) => ({
    id: `m${i}`,
    message: { role: i % 2 === 0 ? 'user' : 'assistant', content: `message ${i}`.padEnd(10, '.') },
  }));
}

function report(strategy: string, count: number, options: StrategyOptions = {}, contextWindow = 100_000) {
  return planReport(planContext({ history: history(count), policy: { strategy, options }, model: { contextWindow, maxOutputTokens: 1000 }, counter }));
}

describe('the plan in the words of the message-window tools', () => {
  it('states the conversation sent: its messages and their tokens', () => {
    expect(report('count', 6)).toEqual({
      conversation: 'Conversation: 6 messages (~60 tokens)',
      trimmed: null,
      pruned: null,
      compacted: null,
      messageCapWarning: null,
      differs: null,
    });
  });

  it('warns past 80 % of a message cap with the count and the cap', () => {
    expect(report('count', 9, { maxMessages: 10 }).messageCapWarning).toBe('Conversation approaching limit (9/10 messages)');
    expect(report('count', 8, { maxMessages: 10 }).messageCapWarning).toBeNull();
  });

  it('says what a count trim removed and kept, and names the strategy that compacted', () => {
    const r = report('count', 30, { maxMessages: 10, preserveFirst: 1, preserveLast: 5 });
    expect(r.trimmed).toBe('Trimmed conversation: 20 messages removed, 10 kept (~100 tokens)');
    expect(r.conversation).toBe('Conversation: 10 messages (~100 tokens)');
    expect(r.compacted).toBe('[History compacted using count strategy]');
    expect(r.pruned).toBeNull();
  });

  it('gives the rolling window’s pruning with sizes before and after', () => {
    const r = report('rolling', 60, { rollingMax: 50 });
    expect(r.pruned).toBe('Pruning from 60 to 50 messages (~600 → ~500 tokens)');
    expect(r.compacted).toBe('[History compacted using rolling strategy]');
  });

  it('names truncate on a token trim', () => {
    expect(report('truncate', 30, {}, 300).compacted).toBe('[History compacted using truncate strategy]');
  });

  it('says where the request had to differ from the rule to be valid, and why', () => {
    // rolling keeps the last 5 of 12 messages; the fifth from the end is an answer, and a request opens with a question.
    const r = report('rolling', 12, { rollingMax: 5 });
    expect(r.differs).toBe("Beyond the rolling strategy's rule: 1 more message left out so the request opens with a user message, as the APIs require.");
    expect(report('rolling', 12, { rollingMax: 4 }).differs).toBeNull();
  });
});
