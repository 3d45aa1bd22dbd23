// Clearing old tool results before evicting turns, on agent loops that read an attached
// log with read_attachment (the results are the tool's real output).
import { describe, expect, it } from 'vitest';
import {
  ConfigError,
  estimateTextTokens,
  planContext,
  readAttachment,
  type AttachmentText,
  type ContextPlan,
  type PlanItem,
  type StrategyOptions,
  type TokenCounter,
  type WindowMessage,
  messageShape,
} from '../../../src/core';
import { validateRequest } from '../validateRequest';
import {
  buildHistory,
  countTokens,
  countingCounter,
  deepFreeze,
  SHAPES,
  type ConversationSpec,
  type StepSpec,
  type ToolCallSpec,
  type WireShape,
} from './conversations';

const appLog: AttachmentText = {
  name: 'app.log',
  text: Array.from(
    { length: 3000 },
    (_, i) => `10:${String(i % 60).padStart(2, '0')}:07 GET /api/items/${i} ${i % 7 === 0 ? 500 : 200} ${(i * 37) % 900}ms`,
  ).join('\n'),
};

/** A read_attachment call reading `lines` lines of app.log from `start`, answered by the tool itself. */
function readCall(start: number, lines = 30): ToolCallSpec {
  const input = { name: 'app.log', start_line: start, end_line: start + lines - 1 };
  return { name: 'read_attachment', input, result: readAttachment(input, [appLog]).content };
}

function readStep(start: number, lines = 30, text?: string): StepSpec {
  return { ...(text ? { text } : {}), calls: [readCall(start, lines)] };
}

/** One user turn, then `steps` reads of 30 lines each, in order through the log. */
function loop(steps: number, text?: string): ConversationSpec {
  return { turns: [{ user: 'Find why requests fail in app.log.', steps: Array.from({ length: steps }, (_, i) => readStep(i * 30 + 1, 30, text)) }] };
}

const model = { contextWindow: 100_000, maxOutputTokens: 1000 };

function plan(strategy: string, history: readonly PlanItem[], options: StrategyOptions, counter: TokenCounter = countTokens): ContextPlan {
  return planContext({ history, policy: { strategy, options }, model, counter });
}

const sent = (p: ContextPlan) => p.messages.map((item) => item.message);
const clearedIds = (p: ContextPlan) => p.messages.flatMap((item) => item.cleared?.toolCallIds ?? []);
const allResultIds = (items: readonly PlanItem[]) => items.flatMap((item) => messageShape(item.message).resultIds);

/** The content of each tool result a message carries (either wire shape). */
function resultTexts(message: WindowMessage): string[] {
  if (message.role === 'tool') return [String(message.content)];
  return Array.isArray(message.content)
    ? (message.content as Array<Record<string, unknown>>).filter((b) => b.type === 'tool_result').map((b) => String(b.content))
    : [];
}

/** Every placeholder's text starts with this. */
const PLACEHOLDER = '[tool result cleared to save context: ';

describe.each(SHAPES)('the placeholder (%s)', (shape: WireShape) => {
  it('names the call, its arguments (cut to 200 characters) and the size of what was cleared', () => {
    const code = 'x'.repeat(1000);
    const output = Array.from({ length: 200 }, (_, i) => `row ${i}: ok`).join('\n');
    const ran = { name: 'run_javascript', input: { code }, result: output };
    const steps = [readStep(1, 100), { calls: [ran] }, ...Array.from({ length: 12 }, (_, i) => readStep(i * 30 + 101))];
    const result = plan('auto', buildHistory({ turns: [{ user: 'Find why requests fail in app.log.', steps }] }, shape), { budgetTokens: 5000 });
    const [read, javascript] = result.messages.filter((item) => item.cleared).map((item) => resultTexts(item.message));
    const tokens = estimateTextTokens(readAttachment({ name: 'app.log', start_line: 1, end_line: 100 }, [appLog]).content);
    expect(tokens).toBeGreaterThan(1000);
    // OpenAI's arguments arrive as JSON text: the same placeholder.
    expect(read).toEqual([`${PLACEHOLDER}read_attachment {"name":"app.log","start_line":1,"end_line":100} — ${tokens.toLocaleString('en-US')} tokens]`]);
    expect(javascript).toEqual([`${PLACEHOLDER}run_javascript {"code":"${'x'.repeat(191)}… — ${estimateTextTokens(output).toLocaleString('en-US')} tokens]`]);
  });
});

describe.each(SHAPES)('auto clears old tool results before evicting turns (%s)', (shape: WireShape) => {
  // High water 4,000 tokens (a 5,000 budget less 1,000 for the answer), low water 2,400.
  const options = { budgetTokens: 5000 };

  it('sends the oldest results as placeholders, keeps the newest 3 whole, evicts nothing and stays valid', () => {
    const history = deepFreeze(buildHistory(loop(14), shape));
    const stored = JSON.stringify(history);
    const result = plan('auto', history, options);
    expect(JSON.stringify(history)).toBe(stored);
    expect(result.evicted).toEqual([]);
    expect(result.metrics.trimmed).toBe(false);
    expect(result.metrics.inputTokens).toBeLessThanOrEqual(result.metrics.budgetTokens);
    expect(validateRequest(sent(result), { provider: shape }).violations).toEqual([]);

    const ids = allResultIds(history);
    const cleared = clearedIds(result);
    // Oldest first, in one run from the start; the newest three results untouched.
    expect(cleared).toEqual(ids.slice(0, cleared.length));
    expect(cleared.length).toBeGreaterThan(5);
    expect(cleared.length).toBeLessThanOrEqual(ids.length - 3);
    expect(result.metrics.clearedToolResults).toBe(cleared.length);

    const first = result.messages.find((item) => item.cleared) as PlanItem;
    const original = history.find((item) => item.id === first.id && allResultIds([item]).length > 0) as PlanItem;
    const read = readAttachment({ name: 'app.log', start_line: 1, end_line: 30 }, [appLog]).content;
    expect(resultTexts(first.message)).toEqual([
      `[tool result cleared to save context: read_attachment {"name":"app.log","start_line":1,"end_line":30} — ${estimateTextTokens(read).toLocaleString('en-US')} tokens]`,
    ]);
    expect(resultTexts(original.message)).toEqual([read]);
    expect(first.cleared?.savedTokens).toBe(countTokens(original.message) - countTokens(first.message));
    const saved = result.messages.reduce((sum, item) => sum + (item.cleared?.savedTokens ?? 0), 0);
    expect(result.metrics.clearedTokens).toBe(saved);
    // The view counts the placeholders, not what they replaced.
    expect(result.metrics.inputTokens).toBe(sent(result).reduce((sum, message) => sum + countTokens(message), 0));

    // Without clearing, the same request fits only by evicting.
    const evicting = plan('auto', history, { ...options, clearToolResults: false });
    expect(evicting.metrics.trimmed).toBe(true);
    expect(evicting.metrics.clearedToolResults).toBe(0);
  });

  it('clears in bulk at the high-water mark, so the sent prefix holds between clearings', () => {
    const history = buildHistory(loop(60), shape);
    let previous: ContextPlan | null = null;
    let clearings = 0;
    for (let end = 2; end <= history.length; end++) {
      const part = history.slice(0, end);
      if (allResultIds(part.slice(-1)).length === 0) continue; // plan where a request is made: after each result
      const result = plan('auto', part, options);
      expect(validateRequest(sent(result), { provider: shape }).ok).toBe(true);
      expect(result.metrics.overBudget).toBe(false);
      if (previous) {
        const before = clearedIds(previous);
        const now = clearedIds(result);
        if (JSON.stringify(now) === JSON.stringify(before) && JSON.stringify(result.evicted) === JSON.stringify(previous.evicted)) {
          expect(JSON.stringify(result.messages.slice(0, previous.messages.length))).toBe(JSON.stringify(previous.messages));
        } else if (result.evicted.length === previous.evicted.length) {
          clearings++;
          // A clearing takes several results at once, never one per request.
          expect(now.length - before.length).toBeGreaterThanOrEqual(3);
        }
      }
      previous = result;
    }
    expect(clearings).toBeGreaterThanOrEqual(2);
    expect(clearings).toBeLessThanOrEqual(15);
  });

  it('counts each placeholder once, however many plans are made', () => {
    const history = buildHistory(loop(30), shape);
    const counted = new Set<object>();
    const counting = countingCounter();
    const counter: TokenCounter = (message) => {
      const calls = counting.calls();
      const tokens = counting.counter(message);
      if (counting.calls() > calls) {
        expect(counted.has(message)).toBe(false);
        counted.add(message);
      }
      return tokens;
    };
    const quiet = { ...options, marker: false };
    let result: ContextPlan | null = null;
    for (let end = 1; end <= history.length; end++) result = plan('auto', history.slice(0, end), quiet, counter);
    expect(result?.metrics.clearedToolResults).toBeGreaterThan(0);
    const cold = counting.calls();
    plan('auto', history, quiet, counter);
    expect(counting.calls()).toBe(cold);
  });

  it('never clears a pinned exchange, the newest exchange or a result shorter than its placeholder', () => {
    const spec = loop(10);
    const turn = spec.turns[0] as ConversationSpec['turns'][number];
    turn.steps.splice(3, 0, { calls: [{ name: 'read_attachment', input: {}, result: readAttachment({}, [appLog]).content }] });
    const history = buildHistory(spec, shape);
    const calls = history.filter((item) => item.message.role === 'assistant');
    (calls[1] as PlanItem).pinned = true;
    const result = plan('auto', history, { budgetTokens: 4000, keepToolResults: 0 });
    const byId = new Map(result.messages.map((item) => [item.id, item]));
    const resultIdOf = (call: PlanItem) => history[history.indexOf(call) + 1] as PlanItem;
    expect(byId.get(resultIdOf(calls[1] as PlanItem).id)?.cleared).toBeUndefined(); // pinned
    expect(byId.get(resultIdOf(calls[3] as PlanItem).id)?.cleared).toBeUndefined(); // the listing
    expect(byId.get(resultIdOf(calls.at(-1) as PlanItem).id)?.cleared).toBeUndefined(); // the newest
    expect(byId.get(resultIdOf(calls.at(-1) as PlanItem).id)).toBeDefined();
    expect(result.metrics.clearedToolResults).toBeGreaterThan(0);
  });
});

describe('parallel calls', () => {
  const spec: ConversationSpec = {
    turns: [
      {
        user: 'Compare the start and the end of app.log.',
        steps: [
          { calls: [readCall(1), readCall(2971), { name: 'read_attachment', input: {}, result: 'app.log (120 KB, 3,000 lines)' }] },
          ...Array.from({ length: 8 }, (_, i) => readStep(31 + i * 30)),
        ],
      },
    ],
  };

  it.each(SHAPES)('clears each long result of a parallel batch and keeps a short one (%s)', (shape) => {
    const history = buildHistory(spec, shape);
    const result = plan('auto', history, { budgetTokens: 4000 });
    const batch = allResultIds(history).slice(0, 3);
    expect(clearedIds(result).slice(0, 2)).toEqual(batch.slice(0, 2));
    expect(clearedIds(result)).not.toContain(batch[2]);
    expect(validateRequest(sent(result), { provider: shape }).ok).toBe(true);
    if (shape === 'anthropic') {
      // One user message answers the three calls: two placeholders and the listing as it was.
      const carrier = result.messages.find((item) => item.cleared && messageShape(item.message).resultIds.length === 3) as PlanItem;
      expect(carrier.cleared?.toolCallIds).toEqual(batch.slice(0, 2));
      const texts = resultTexts(carrier.message);
      expect(texts.map((text) => text.startsWith(PLACEHOLDER))).toEqual([true, true, false]);
      expect(texts[2]).toBe('app.log (120 KB, 3,000 lines)');
    }
  });
});

describe('the token-based strategies clear before they evict', () => {
  const window = { contextWindow: 10_000, maxOutputTokens: 1000 };
  const planWith = (strategy: string, history: readonly PlanItem[], options: StrategyOptions) =>
    planContext({ history, policy: { strategy, options }, model: window, counter: countTokens });

  it.each([
    ['truncate', { clearToolResults: true }],
    ['summarize', { maxMessages: 0, clearToolResults: true }],
    ['two-tier', { heuristicThreshold: 6000, scriptAwareCount: true, clearToolResults: true }],
  ] as const)('%s: with clearing on, a tool loop past the trigger fits by clearing alone; without clearing it evicts', (strategy, options) => {
    for (const shape of SHAPES) {
      const history = buildHistory(loop(30), shape);
      const result = planWith(strategy, history, options);
      expect(result.evicted).toEqual([]);
      expect(result.slot).toBeNull();
      expect(result.metrics.clearedToolResults).toBeGreaterThan(0);
      expect(validateRequest(sent(result), { provider: shape }).ok).toBe(true);
      const evicting = planWith(strategy, history, { ...options, clearToolResults: false });
      expect(evicting.evicted.length).toBeGreaterThan(0);
    }
  });

  it.each(['truncate', 'summarize', 'two-tier'])('%s: by default clears nothing, as its own rule evicts messages and nothing else', (strategy) => {
    const history = buildHistory(loop(30), 'anthropic');
    const result = planWith(strategy, history, strategy === 'two-tier' ? { heuristicThreshold: 6000, scriptAwareCount: true } : { maxMessages: 0 });
    expect(result.metrics.clearedToolResults).toBe(0);
    expect(result.evicted.length).toBeGreaterThan(0);
  });

  it('summarize: when clearing is not enough, the summary is asked about the original results, not the placeholders', () => {
    const history = buildHistory(loop(120, 'Reading on.'), 'anthropic');
    const result = planWith('summarize', history, { maxMessages: 0, minEvictedForSummary: 0, clearToolResults: true });
    const request = result.slot?.summary;
    expect(request?.status).toBe('needed');
    const asked = JSON.stringify(request?.messages);
    expect(asked).not.toContain(PLACEHOLDER);
    expect(asked).toContain(JSON.stringify(readAttachment({ name: 'app.log', start_line: 1, end_line: 30 }, [appLog]).content));
  });
});

describe('clearing knobs', () => {
  it('rejects bad values with a ConfigError naming the knob', () => {
    const history = buildHistory(loop(1), 'openai');
    for (const [options, field] of [
      [{ keepToolResults: -1 }, 'keepToolResults'],
      [{ keepToolResults: 1.5 }, 'keepToolResults'],
      [{ clearToolResults: 'yes' }, 'clearToolResults'],
    ] as const) {
      for (const strategy of ['auto', 'truncate', 'summarize', 'two-tier']) {
        expect(() => plan(strategy, history, options as StrategyOptions)).toThrow(ConfigError);
        try {
          plan(strategy, history, options as StrategyOptions);
        } catch (error) {
          expect((error as ConfigError).field).toBe(field);
        }
      }
    }
  });
});
