// Builds real wire-shaped histories (Anthropic blocks or OpenAI tool_calls / role:"tool")
// from one provider-neutral description, so every behaviour is checked on both shapes.
import fc from 'fast-check';
import { contentChars, type PlanItem, type TokenCounter, type WindowMessage } from '../../../src/core';

export type WireShape = 'anthropic' | 'openai';
export const SHAPES: readonly WireShape[] = ['anthropic', 'openai'];

export interface ToolCallSpec {
  name: string;
  input: Record<string, unknown>;
  result: string;
}

/** An assistant step: plain text, or tool calls (parallel when several) answered by their results. */
export type StepSpec = { text: string } | { text?: string; calls: ToolCallSpec[]; resultText?: string };

export interface TurnSpec {
  user: string;
  steps: StepSpec[];
  pinned?: boolean;
}

export interface ConversationSpec {
  turns: TurnSpec[];
  /** OpenAI only: a leading system item, as the wire mapper emits it. */
  system?: string;
  /** A stored summary placed right after the first user message. */
  summary?: { text: string; covers: string[] };
  /**
   * Every answer thought first: Anthropic answers start with a signed thinking block,
   * OpenAI answers that call tools carry a reasoning item (Responses API).
   */
  thinking?: boolean;
}

/** The thinking block an answer `id` starts with when the conversation thinks. */
export const thinkingOf = (id: string) => ({ type: 'thinking', thinking: `Thought before ${id}.`, signature: `sig_${id}_EuYBCkQYAiJA` });

/** The reasoning item an OpenAI answer `id` carries when the conversation thinks. */
export const reasoningOf = (id: string) => [{ id: `rs_${id}`, encrypted_content: `gAAAA_${id}`, summary: `Reasoned before ${id}.`, tokens: 60 }];

/** The wire history of a conversation. Ids are `m0, m1, ...` per stored message; call ids are unique. */
export function buildHistory(spec: ConversationSpec, shape: WireShape): PlanItem[] {
  const items: PlanItem[] = [];
  let seq = 0;
  let callSeq = 0;
  const nextId = () => `m${seq++}`;
  if (shape === 'openai' && spec.system) {
    items.push({ id: 'windowpane:system', message: { role: 'system', content: spec.system }, pinned: true, kind: 'message' });
  }
  spec.turns.forEach((turn, t) => {
    const user: PlanItem = { id: nextId(), message: { role: 'user', content: turn.user } };
    if (turn.pinned) user.pinned = true;
    items.push(user);
    if (t === 0 && spec.summary) {
      items.push({
        id: 'summary-1',
        kind: 'summary',
        covers: spec.summary.covers,
        message: { role: 'assistant', content: `[Conversation Summary]\n${spec.summary.text}` },
      });
    }
    for (const step of turn.steps) {
      if (!('calls' in step)) {
        const id = nextId();
        const thought = spec.thinking && shape === 'anthropic';
        items.push({ id, message: { role: 'assistant', content: thought ? [thinkingOf(id), { type: 'text', text: step.text }] : step.text } });
        continue;
      }
      const callIds = step.calls.map(() => `${shape === 'anthropic' ? 'toolu' : 'call'}_${callSeq++}`);
      const assistantId = nextId();
      const resultId = nextId();
      if (shape === 'anthropic') {
        items.push({
          id: assistantId,
          message: {
            role: 'assistant',
            content: [
              ...(spec.thinking ? [thinkingOf(assistantId)] : []),
              ...(step.text ? [{ type: 'text', text: step.text }] : []),
              ...step.calls.map((call, i) => ({ type: 'tool_use', id: callIds[i], name: call.name, input: call.input })),
            ],
          },
        });
        items.push({
          id: resultId,
          message: {
            role: 'user',
            content: [
              ...step.calls.map((call, i) => ({ type: 'tool_result', tool_use_id: callIds[i], content: call.result })),
              ...(step.resultText ? [{ type: 'text', text: step.resultText }] : []),
            ],
          },
        });
      } else {
        items.push({
          id: assistantId,
          message: {
            role: 'assistant',
            content: step.text ?? null,
            tool_calls: step.calls.map((call, i) => ({
              id: callIds[i] as string,
              type: 'function',
              function: { name: call.name, arguments: JSON.stringify(call.input) },
            })),
            ...(spec.thinking ? { reasoning: reasoningOf(assistantId) } : {}),
          },
        });
        step.calls.forEach((call, i) => items.push({ id: resultId, message: { role: 'tool', tool_call_id: callIds[i], content: call.result } }));
        if (step.resultText) items.push({ id: resultId, message: { role: 'user', content: step.resultText } });
      }
    }
  });
  return items;
}

export const messagesOf = (items: readonly PlanItem[]): WindowMessage[] => items.map((item) => item.message);

/** chars/4 plus a 4-token per-message overhead, like a real counter. */
export const countTokens: TokenCounter = (message) => Math.ceil(contentChars(message) / 4) + 4;

/** A counter memoized by message identity (as callers pass it), counting how often the underlying one ran. */
export function countingCounter(): { counter: TokenCounter; calls: () => number } {
  const cache = new WeakMap<object, number>();
  let calls = 0;
  return {
    counter: (message) => {
      const hit = cache.get(message);
      if (hit !== undefined) return hit;
      calls++;
      const tokens = countTokens(message);
      cache.set(message, tokens);
      return tokens;
    },
    calls: () => calls,
  };
}

/** Freezes a value and everything inside it, so any write during planning throws. */
export function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const key of Object.keys(value)) deepFreeze((value as Record<string, unknown>)[key]);
  }
  return value;
}

/** A simple turn: a question and a text answer. */
export function chatTurn(question: string, answer: string): TurnSpec {
  return { user: question, steps: [{ text: answer }] };
}

// ---------------------------------------------------------------------------
// Arbitraries

const PHRASES = [
  'Read src/core/window/planContext.ts and explain it. ',
  "The budget is the user's, not only the model's. ",
  'Ran `npm test` and two tests failed in test/core/messages.test.ts. ',
  'Let us keep the first user message: it carries the goal. ',
  '$ git status\n',
  'Bonjour, voici le résumé des changements. ',
  '長い会話でもコンテキストに収まります。',
];

const textArb = (maxRepeat: number): fc.Arbitrary<string> =>
  fc.tuple(fc.constantFrom(...PHRASES), fc.integer({ min: 1, max: maxRepeat })).map(([phrase, times]) => phrase.repeat(times).trim());

const toolCallArb: fc.Arbitrary<ToolCallSpec> = fc.oneof(
  fc.record({ name: fc.constant('read_file'), input: fc.record({ path: fc.constantFrom('src/a.ts', 'README.md', 'test/b.test.ts') }), result: textArb(30) }),
  fc.record({ name: fc.constant('bash'), input: fc.record({ command: fc.constantFrom('npm test', 'git diff', 'ls -la') }), result: textArb(10) }),
  fc.record({ name: fc.constant('search'), input: fc.record({ query: textArb(2) }), result: fc.constantFrom('', 'no matches', 'found 3 results') }),
);

const stepArb: fc.Arbitrary<StepSpec> = fc.oneof(
  { weight: 2, arbitrary: fc.record({ text: textArb(25) }) },
  {
    weight: 2,
    arbitrary: fc.record(
      { text: textArb(3), calls: fc.array(toolCallArb, { minLength: 1, maxLength: 3 }), resultText: textArb(3) },
      { requiredKeys: ['calls'] },
    ),
  },
);

const turnArb: fc.Arbitrary<TurnSpec> = fc.record({
  user: textArb(20),
  steps: fc.array(stepArb, { minLength: 0, maxLength: 4 }),
  pinned: fc.integer({ min: 0, max: 9 }).map((n) => n < 2),
});

/** Conversations of 1–24 turns with parallel tool calls, pins, an optional system prompt and stored summary. */
export const conversationArb: fc.Arbitrary<ConversationSpec> = fc.record(
  {
    turns: fc.array(turnArb, { minLength: 1, maxLength: 24 }),
    system: textArb(4),
    summary: fc.record({ text: textArb(8), covers: fc.constant(['old-1', 'old-2', 'old-3']) }),
  },
  { requiredKeys: ['turns'] },
);

/** One more short turn to append to a conversation. */
export const appendedTurnArb: fc.Arbitrary<TurnSpec> = fc.record({ user: textArb(2), steps: fc.array(fc.record({ text: textArb(3) }), { maxLength: 1 }) });

// Tool-heavy conversations: agent loops (a user turn, then many
// assistant tool calls, parallel ones included, each answered by its results).

const lineRangeArb = fc
  .tuple(fc.integer({ min: 1, max: 2000 }), fc.integer({ min: 0, max: 399 }))
  .map(([start, length]) => ({ start_line: start, end_line: start + length }));

/** Calls of the built-in tools: long file reads, snippets with short output, and listings smaller than any placeholder. */
const builtinCallArb: fc.Arbitrary<ToolCallSpec> = fc.oneof(
  {
    weight: 3,
    arbitrary: fc.record({
      name: fc.constant('read_attachment'),
      input: fc.tuple(fc.constantFrom('app.log', 'data.csv', 'notes.md'), lineRangeArb).map(([name, range]) => ({ name, ...range })),
      result: textArb(60),
    }),
  },
  {
    weight: 2,
    arbitrary: fc.record({
      name: fc.constant('run_javascript'),
      input: fc.record({ code: fc.constantFrom('console.log(1 + 1)', 'const rows = data.split("\\n");\nrows.length', '[3, 1, 2].sort()') }),
      result: textArb(12),
    }),
  },
  { weight: 1, arbitrary: fc.record({ name: fc.constant('read_attachment'), input: fc.constant({}), result: fc.constant('app.log (2 KB, 40 lines)') }) },
);

/** One tool step of an agent loop: one call, or up to three in parallel. */
export const toolStepArb: fc.Arbitrary<StepSpec> = fc.record(
  { text: textArb(2), calls: fc.array(builtinCallArb, { minLength: 1, maxLength: 3 }) },
  { requiredKeys: ['calls'] },
);

/** A cheap tool step: a snippet with a line of output. Most appended ones stay under a high-water mark. */
export const smallToolStepArb: fc.Arbitrary<StepSpec> = fc.record({
  calls: fc.tuple(fc.constantFrom('1 + 1', 'Math.max(3, 4)'), textArb(1)).map(([code, result]) => [{ name: 'run_javascript', input: { code }, result }]),
});

const toolTurnArb: fc.Arbitrary<TurnSpec> = fc.record({
  user: textArb(4),
  steps: fc
    .tuple(fc.array(toolStepArb, { minLength: 1, maxLength: 25 }), fc.option(textArb(6), { nil: undefined }))
    .map(([steps, answer]) => (answer === undefined ? steps : [...steps, { text: answer }])),
  pinned: fc.integer({ min: 0, max: 9 }).map((n) => n < 1),
});

/** 1–3 turns of up to 25 tool steps each: histories where tool results are most of the tokens. */
export const toolHeavyArb: fc.Arbitrary<ConversationSpec> = fc.record(
  { turns: fc.array(toolTurnArb, { minLength: 1, maxLength: 3 }), system: textArb(2) },
  { requiredKeys: ['turns'] },
);

/** The conversation with `steps` appended to its last turn, as a tool loop grows. */
export function withSteps(spec: ConversationSpec, steps: readonly StepSpec[]): ConversationSpec {
  const last = spec.turns.at(-1) as TurnSpec;
  return { ...spec, turns: [...spec.turns.slice(0, -1), { ...last, steps: [...last.steps, ...steps] }] };
}
