// The tool-loop criterion at the planner level: "a task with 50+ tool calls completes
// successfully with max_messages: 30 without context errors". One user turn, then the
// agent loop — assistant tool calls (some in parallel) answered by the tools' real output —
// planned before every request as it grows: every plan must be one the API accepts.
import { describe, expect, it } from 'vitest';
import {
  createCountCache,
  estimateMessageTokens,
  formatRunResult,
  planContext,
  readAttachment,
  type AttachmentText,
  type ContextPlan,
  type ContextPolicy,
  type ModelLimits,
  type PlanItem,
  messageShape,
} from '../../../src/core';
import { validateRequest } from '../validateRequest';
import { buildHistory, SHAPES, type ConversationSpec, type StepSpec, type ToolCallSpec, type WireShape } from './conversations';

const files: AttachmentText[] = [
  {
    name: 'app.log',
    text: Array.from(
      { length: 2000 },
      (_, i) => `2026-11-22T10:${String(i % 60).padStart(2, '0')}:00Z ${i % 9 === 0 ? 'ERROR' : 'INFO'} request ${i} took ${(i * 53) % 700}ms`,
    ).join('\n'),
  },
  { name: 'config.yml', text: Array.from({ length: 120 }, (_, i) => `key_${i}: value ${i}`).join('\n') },
];

function read(name: string, start: number, lines: number): ToolCallSpec {
  const input = { name, start_line: start, end_line: start + lines - 1 };
  return { name: 'read_attachment', input, result: readAttachment(input, files).content };
}

function run(code: string, logs: string[], result?: string): ToolCallSpec {
  return { name: 'run_javascript', input: { code }, result: formatRunResult({ logs, result }).content };
}

/** 40 steps, every fourth three calls in parallel: 60 tool calls in one user turn. */
const task: ConversationSpec = {
  turns: [
    {
      user: 'Find out why requests got slow in app.log, and which config key explains it.',
      steps: Array.from({ length: 40 }, (_, s): StepSpec => {
        if (s % 4 === 3) {
          return {
            text: 'Checking three things at once.',
            calls: [read('app.log', s * 25 + 1, 25), read('config.yml', (s % 100) + 1, 10), run(`rows.slice(${s}).length`, [], String(2000 - s))],
          };
        }
        return s % 2 === 0
          ? { calls: [read('app.log', s * 25 + 1, 25)] }
          : { calls: [run(`const slow = rows.filter((r) => r.ms > ${s * 10});\nconsole.log(slow.length)`, [String(700 - s * 10)])] };
      }),
    },
  ],
};

/** The history before each request of the task: after the user message and after each round of results. */
function requests(history: readonly PlanItem[]): PlanItem[][] {
  const out: PlanItem[][] = [];
  history.forEach((item, i) => {
    const next = history[i + 1];
    const endsRound = item.message.role === 'user' || item.message.role === 'tool';
    if (endsRound && (!next || next.message.role === 'assistant')) out.push(history.slice(0, i + 1));
  });
  return out;
}

function planEach(shape: WireShape, policy: ContextPolicy, model: ModelLimits): ContextPlan[] {
  const history = buildHistory(task, shape);
  // The app's own counter: the script-aware estimate, cached per message.
  const counter = createCountCache(estimateMessageTokens);
  return requests(history).map((part) => planContext({ history: part, policy, model, counter }));
}

function expectAccepted(result: ContextPlan, shape: WireShape): void {
  const sent = result.messages.map((item) => item.message);
  expect(validateRequest(sent, { provider: shape }).violations).toEqual([]);
  expect(result.messages[0]?.id).toBe('m0'); // the task itself is always sent
}

describe('a task with 50+ tool calls', () => {
  it('has over 50 tool calls, parallel ones included, in one user turn', () => {
    for (const shape of SHAPES) {
      const history = buildHistory(task, shape);
      const calls = history.map((item) => messageShape(item.message).callIds.length);
      expect(calls.reduce((a, b) => a + b, 0)).toBe(60);
      expect(Math.max(...calls)).toBe(3);
      expect(history.filter((item) => item.message.role === 'user' && typeof item.message.content === 'string')).toHaveLength(1);
    }
  });

  it.each(SHAPES)('count, max_messages 30 (first 1, last 20): every request is valid and at most 30 messages (%s)', (shape) => {
    const plans = planEach(
      shape,
      { strategy: 'count', options: { maxMessages: 30, preserveFirst: 1, preserveLast: 20 } },
      { contextWindow: 200_000, maxOutputTokens: 8192 },
    );
    expect(plans).toHaveLength(41);
    for (const result of plans) {
      expectAccepted(result, shape);
      expect(result.messages.length).toBeLessThanOrEqual(30);
      expect(result.metrics.overBudget).toBe(false);
    }
    // The window did slide: the last requests left most of the loop out.
    expect(plans.at(-1)?.metrics.totalMessages).toBeGreaterThan(80);
    expect(plans.at(-1)?.metrics.trimmed).toBe(true);
  });

  it.each(SHAPES)('auto in a 6,000-token window: every request is valid and fits, old results cleared before any turn is evicted (%s)', (shape) => {
    const model = { contextWindow: 6000, maxOutputTokens: 1024 };
    const plans = planEach(shape, { strategy: 'auto' }, model);
    for (const result of plans) {
      expectAccepted(result, shape);
      expect(result.metrics.overBudget).toBe(false);
      expect(result.metrics.inputTokens).toBeLessThanOrEqual(result.metrics.budgetTokens);
      expect(result.metrics.totalTokens).toBeLessThanOrEqual(model.contextWindow);
    }
    const firstCleared = plans.findIndex((result) => result.metrics.clearedToolResults > 0);
    const firstEvicted = plans.findIndex((result) => result.evicted.length > 0);
    expect(firstCleared).toBeGreaterThan(0);
    expect(firstEvicted === -1 || firstCleared < firstEvicted).toBe(true);
    // Without clearing, the loop had to give up whole exchanges sooner.
    const withoutClearing = planEach(shape, { strategy: 'auto', options: { clearToolResults: false } }, model);
    expect(withoutClearing.findIndex((result) => result.evicted.length > 0)).toBeLessThan(firstEvicted === -1 ? plans.length : firstEvicted);
  });
});
