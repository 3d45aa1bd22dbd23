// Each built-in strategy, with its defaults, on small histories whose
// token sizes are easy to follow: a text message of n characters costs n tokens here.
import { describe, expect, it } from 'vitest';
import {
  ConfigError,
  SLOT_ITEM_ID,
  STRUCTURED_SUMMARY_MAX_TOKENS,
  autoStrategy,
  contentChars,
  countStrategy,
  getStrategy,
  listStrategies,
  planContext,
  rollingStrategy,
  summarizeStrategy,
  truncateStrategy,
  twoTierStrategy,
  type ContextPlan,
  type ModelLimits,
  type PlanContextInput,
  type PlanItem,
  type StrategyOptions,
  type TokenCounter,
} from '../../../src/core';
import { validateRequest } from '../validateRequest';
import { buildHistory, SHAPES, type ConversationSpec } from './conversations';

/** n characters of string content cost n tokens; anything else its JSON length / 4. */
const lengthCounter: TokenCounter = (message) => (typeof message.content === 'string' ? message.content.length : Math.ceil(contentChars(message) / 4));

/** Alternating user / assistant text messages m0, m1, ... of the given sizes. */
function textHistory(sizes: readonly number[]): PlanItem[] {
  return sizes.map((size, i) => ({ id: `m${i}`, message: { role: i % 2 === 0 ? 'user' : 'assistant', content: `${i % 10}`.repeat(size) } }));
}

const bigModel: ModelLimits = { contextWindow: 1_000_000, maxOutputTokens: 8192 };

function plan(strategy: string, history: readonly PlanItem[], options: StrategyOptions = {}, extra: Partial<PlanContextInput> = {}): ContextPlan {
  return planContext({ history, policy: { strategy, options }, model: bigModel, counter: lengthCounter, ...extra });
}

const ids = (p: ContextPlan) => p.messages.map((item) => item.id);
const range = (from: number, to: number) => Array.from({ length: to - from }, (_, i) => `m${from + i}`);

describe('the strategy registry', () => {
  it('holds every built-in strategy and the default', () => {
    expect(listStrategies().slice(0, 8)).toEqual(['auto', 'count', 'rolling', 'truncate', 'summarize', 'two-tier', 'provider', 'off']);
    expect(getStrategy('rolling')).toBe(rollingStrategy);
    expect(getStrategy('nope')).toBeUndefined();
  });

  it('keeps each strategy’s defaults', () => {
    expect(countStrategy.defaults).toMatchObject({ maxMessages: 100, preserveFirst: 1, preserveLast: 20, summarize: false });
    expect(rollingStrategy.defaults).toEqual({ rollingMax: 50, maxHistory: 1000, keepPinned: false });
    expect(truncateStrategy.defaults).toEqual({
      triggerRatio: 0.8,
      targetRatio: 0.7,
      marker: true,
      clearToolResults: false,
      keepToolResults: 3,
      keepPinned: false,
    });
    expect(summarizeStrategy.defaults).toMatchObject({
      triggerRatio: 0.8,
      targetRatio: 0.7,
      maxMessages: 100,
      summaryMaxTokens: 1024,
      minEvictedForSummary: 10,
    });
    expect(twoTierStrategy.defaults).toEqual({
      heuristicThreshold: 80_000,
      aiThreshold: 120_000,
      keepLast: 8,
      summaryMaxTokens: STRUCTURED_SUMMARY_MAX_TOKENS,
      lowWater: 0.6,
      clearToolResults: false,
      keepToolResults: 3,
      keepPinned: false,
      keepGoal: false,
      scriptAwareCount: false,
    });
    // What Windowpane adds to the classic rules is off for them and on for auto.
    expect(countStrategy.defaults).toMatchObject({ keepPinned: false });
    expect(summarizeStrategy.defaults).toMatchObject({ clearToolResults: false, keepPinned: false });
    expect(autoStrategy.defaults).toMatchObject({
      windowShare: 0.8,
      lowWater: 0.6,
      maxMessages: 100,
      marker: true,
      summarize: false,
      clearToolResults: true,
      keepPinned: true,
    });
    for (const name of listStrategies()) {
      const strategy = getStrategy(name);
      // keepPinned is read by the planner itself, for every strategy.
      const { keepPinned, ...own } = strategy?.defaults ?? {};
      expect(typeof keepPinned === 'boolean' || keepPinned === undefined).toBe(true);
      expect(strategy?.resolveOptions({})).toEqual(expect.objectContaining(own));
    }
  });

  it('rejects unknown strategies and bad knobs with a ConfigError naming the field', () => {
    const history = textHistory([10, 10]);
    const fieldOf = (run: () => unknown) => {
      try {
        run();
      } catch (error) {
        expect(error).toBeInstanceOf(ConfigError);
        return (error as ConfigError).field;
      }
      return 'no error';
    };
    expect(fieldOf(() => plan('nope', history))).toBe('strategy');
    expect(fieldOf(() => plan('rolling', history, { rollingMax: 0 }))).toBe('rollingMax');
    expect(fieldOf(() => plan('rolling', history, { rollingMax: 1001 }))).toBe('rollingMax');
    expect(fieldOf(() => plan('count', history, { maxMessages: -1 }))).toBe('maxMessages');
    expect(fieldOf(() => plan('count', history, { preserveLast: 1.5 }))).toBe('preserveLast');
    expect(fieldOf(() => plan('truncate', history, { triggerRatio: 0.5, targetRatio: 0.6 }))).toBe('targetRatio');
    expect(fieldOf(() => plan('truncate', history, { triggerRatio: 1.2 }))).toBe('triggerRatio');
    expect(fieldOf(() => plan('auto', history, { lowWater: 1 }))).toBe('lowWater');
    expect(fieldOf(() => plan('auto', history, { summarize: 'yes' } as unknown as StrategyOptions))).toBe('summarize');
    expect(fieldOf(() => plan('two-tier', history, { heuristicThreshold: 5, aiThreshold: 4 }))).toBe('aiThreshold');
    expect(fieldOf(() => plan('off', history, {}, { model: { contextWindow: 0, maxOutputTokens: 10 } }))).toBe('contextWindow');
    expect(fieldOf(() => plan('off', history, { outputReserve: -5 }))).toBe('outputReserve');
    expect(fieldOf(() => plan('off', history, {}, { draftTokens: -1 }))).toBe('draftTokens');
  });
});

describe('off', () => {
  it('sends everything and flags a request the window cannot hold', () => {
    const history = textHistory([400, 400, 400]);
    const small = plan('off', history, {}, { model: { contextWindow: 1000, maxOutputTokens: 100 } });
    expect(ids(small)).toEqual(['m0', 'm1', 'm2']);
    expect(small.evicted).toEqual([]);
    expect(small.metrics.overBudget).toBe(true);
    expect(small.metrics.overBudgetReasons).toEqual([
      'the request needs 1200 input tokens, over the budget of 900',
      '1200 input tokens plus 100 reserved for the answer exceed the 1000-token context window',
    ]);
    expect(plan('off', history).metrics.overBudget).toBe(false);
  });
});

describe('count (message-count window)', () => {
  it('keeps the first message and the newest up to max_messages (defaults 100 / 1 / 20)', () => {
    const history = textHistory(Array(150).fill(5));
    const result = plan('count', history);
    expect(ids(result)).toEqual(['m0', ...range(51, 150)]);
    expect(result.evicted).toEqual(range(1, 51).map((id) => ({ id, reason: 'message-cap' })));
    expect(result.slot).toBeNull();
    expect(result.metrics).toMatchObject({
      keptMessages: 100,
      maxMessages: 100,
      trimmed: true,
      trigger: '150 messages > max_messages (100)',
      overBudget: false,
    });
    expect(plan('count', textHistory(Array(100).fill(5))).evicted).toEqual([]);
  });

  it.each(SHAPES)('evicts a tool exchange whole rather than split it (%s)', (shape) => {
    const spec: ConversationSpec = {
      turns: [
        { user: 'start', steps: [] },
        {
          user: 'check',
          steps: [
            {
              calls: [
                { name: 'ls', input: {}, result: 'a' },
                { name: 'ls', input: {}, result: 'b' },
              ],
            },
            { text: 'ok' },
          ],
        },
        { user: 'next', steps: [{ text: 'done' }] },
      ],
    };
    const history = buildHistory(spec, shape);
    // Plain count cut: first 1 + last 4 wire messages; the last 4 start inside the tool exchange.
    const result = plan('count', history, { maxMessages: 5, preserveFirst: 1, preserveLast: 4 });
    expect(ids(result)).toEqual(['m0', 'm4', 'm5', 'm6']);
    expect(result.evicted).toEqual([
      { id: 'm1', reason: 'message-cap' },
      { id: 'm2', reason: 'tool-exchange' },
      { id: 'm3', reason: 'tool-exchange' },
    ]);
    expect(
      validateRequest(
        result.messages.map((m) => m.message),
        { provider: shape },
      ).ok,
    ).toBe(true);
  });

  it('does not count the system prompt, and can summarize or mark what it evicted', () => {
    const history: PlanItem[] = [
      { id: 'windowpane:system', message: { role: 'system', content: 'Be terse.' }, pinned: true },
      ...textHistory(Array(12).fill(5)),
    ];
    const plain = plan('count', history, { maxMessages: 6, preserveFirst: 1, preserveLast: 2 });
    expect(ids(plain)).toEqual(['windowpane:system', 'm0', ...range(7, 12)]);
    const marked = plan('count', history, { maxMessages: 6, preserveFirst: 1, preserveLast: 2, marker: true });
    expect(marked.messages[2]?.message).toEqual({ role: 'assistant', content: '[6 earlier messages truncated to fit context window]' });
    const summarized = plan('count', history, { maxMessages: 6, preserveFirst: 1, preserveLast: 2, summarize: true, minEvictedForSummary: 3 });
    expect(summarized.slot).toMatchObject({
      kind: 'summary',
      index: 2,
      role: 'assistant',
      standsFor: 6,
      summary: { status: 'needed', ids: range(1, 7), prompt: 'concise', maxTokens: 1024 },
    });
  });

  it('with keepPinned, keeps pinned messages and makes room for them in the kept middle', () => {
    const history = textHistory(Array(20).fill(5));
    (history[3] as PlanItem).pinned = true;
    const result = plan('count', history, { maxMessages: 8, preserveFirst: 1, preserveLast: 3, keepPinned: true });
    expect(ids(result)).toEqual(['m0', 'm3', ...range(14, 20)]);
    expect(result.metrics.keptMessages).toBe(8);
  });

  it('by default knows no pins: the first N, the newest middle and the last N, as the rule says', () => {
    const history = textHistory(Array(20).fill(5));
    (history[3] as PlanItem).pinned = true;
    const result = plan('count', history, { maxMessages: 8, preserveFirst: 1, preserveLast: 3 });
    expect(ids(result)).toEqual(['m0', ...range(13, 20)]);
  });
});

describe('rolling (rolling window)', () => {
  it('keeps the last 50 messages by default', () => {
    const history = textHistory(Array(60).fill(3));
    const result = plan('rolling', history);
    expect(ids(result)).toEqual(range(10, 60));
    expect(result.metrics).toMatchObject({ keptMessages: 50, maxMessages: 50, trigger: '60 messages > 50' });
    expect(result.slot).toBeNull();
  });

  it('drops a leading assistant message so the request opens with the user', () => {
    const result = plan('rolling', textHistory(Array(10).fill(3)), { rollingMax: 4 });
    expect(ids(result)).toEqual(['m6', 'm7', 'm8', 'm9']);
    const odd = plan('rolling', textHistory(Array(11).fill(3)), { rollingMax: 4 });
    expect(ids(odd)).toEqual(['m8', 'm9', 'm10']);
    expect(odd.evicted.at(-1)).toEqual({ id: 'm7', reason: 'user-first' });
  });

  it('reports messages beyond the incoming-history cap as history-cap', () => {
    const result = plan('rolling', textHistory(Array(12).fill(3)), { rollingMax: 2, maxHistory: 6 });
    expect(result.evicted.map((e) => e.reason)).toEqual([...Array(6).fill('history-cap'), ...Array(4).fill('message-cap')]);
  });
});

describe('truncate (token-ratio truncation)', () => {
  // 1,100 tokens minus 100 reserved for the answer: 1,000 max input tokens.
  const model = { contextWindow: 1100, maxOutputTokens: 100 };

  it('leaves a request at or under 80 % of the max input tokens alone', () => {
    const result = plan('truncate', textHistory([100, 100, 100, 100, 100, 100, 100, 100]), {}, { model });
    expect(result.evicted).toEqual([]);
    expect(result.metrics).toMatchObject({ maxInputTokens: 1000, budgetTokens: 800, inputTokens: 800, trimmed: false, approachingLimit: true });
  });

  it('over 80 %, keeps the first user message and the newest that fit 70 %, with the truncation marker', () => {
    const history = textHistory(Array(10).fill(100));
    const result = plan('truncate', history, {}, { model });
    // 700 - 100 (goal) - 57 (marker, sized for 999,999) leaves 543: five messages of 100 fit.
    expect(ids(result)).toEqual(['m0', SLOT_ITEM_ID, ...range(5, 10)]);
    expect(result.messages[1]?.message).toEqual({ role: 'assistant', content: '[4 earlier messages truncated to fit context window]' });
    expect(result.slot).toEqual({ kind: 'marker', index: 1, role: 'assistant', standsFor: 4, summary: null });
    expect(result.evicted.map((e) => e.reason)).toEqual(Array(4).fill('token-budget'));
    expect(result.metrics.trigger).toBe('1000 tokens > 80 % of the 1000 max input tokens');
    expect(result.metrics.inputTokens).toBe(100 + 52 + 500);
  });

  it('stops at the first message that does not fit, and always sends the newest', () => {
    const result = plan('truncate', textHistory([100, 100, 100, 300, 100, 900]), {}, { model });
    expect(ids(result)).toEqual(['m0', SLOT_ITEM_ID, 'm5']);
    expect(result.metrics.overBudget).toBe(true);
  });
});

describe('summarize (truncation with a summary)', () => {
  // 11,000 tokens minus 1,000 reserved for the answer: 10,000 max input tokens.
  const model = { contextWindow: 11_000, maxOutputTokens: 1000 };

  it('asks for one summary of the evicted range between the goal and the kept tail, the marker standing in until then', () => {
    const history = textHistory(Array(30).fill(300));
    const result = plan('summarize', history, {}, { model });
    // 7,000 − 300 (goal) − 1,024 (summary) leaves 5,676: the newest 18 messages of 300 fit.
    expect(ids(result)).toEqual(['m0', SLOT_ITEM_ID, ...range(12, 30)]);
    expect(result.slot).toMatchObject({ kind: 'summary', index: 1, role: 'assistant', standsFor: 11 });
    expect(result.slot?.summary).toMatchObject({
      status: 'needed',
      prompt: 'concise',
      maxTokens: 1024,
      ids: range(1, 12),
      covers: range(1, 12),
      previous: null,
    });
    expect(result.slot?.summary?.messages).toEqual(history.slice(1, 12).map((item) => item.message));
    expect(result.messages[1]?.message.content).toBe('[11 earlier messages truncated to fit context window]');
    expect(result.metrics.slotTokens).toBe(1024);
  });

  it('extends the previous summary with the newly evicted messages only', () => {
    const history: PlanItem[] = textHistory(Array(40).fill(300));
    history.splice(1, 0, {
      id: 's1',
      kind: 'summary',
      covers: ['old1', 'old2'],
      message: { role: 'assistant', content: '[Conversation Summary]\nEarlier work.' },
    });
    const result = plan('summarize', history, {}, { model });
    expect(result.slot?.summary).toMatchObject({ status: 'needed', previous: { id: 's1', text: '[Conversation Summary]\nEarlier work.' } });
    expect(result.slot?.summary?.ids[0]).toBe('m1');
    expect(result.slot?.summary?.covers.slice(0, 3)).toEqual(['old1', 'old2', 'm1']);
    // Until the new summary exists, the previous one stands in.
    expect(result.messages[1]).toEqual({ id: SLOT_ITEM_ID, kind: 'summary', message: history[1]?.message });
  });

  it('summarizes at most once per 10 evicted messages: fewer reuse the previous summary or leave the marker', () => {
    const withSummary: PlanItem[] = textHistory(Array(12).fill(300));
    withSummary.splice(1, 0, { id: 's1', kind: 'summary', covers: ['old1'], message: { role: 'assistant', content: '[Conversation Summary]\nEarlier work.' } });
    const result = plan('summarize', withSummary, { maxMessages: 8 }, { model });
    expect(result.slot?.summary?.status).toBe('reused');
    expect(result.messages[1]).toBe(withSummary[1]);
    expect(result.evicted.map((e) => e.id)).not.toContain('s1');
    const fresh = plan('summarize', textHistory(Array(12).fill(300)), { maxMessages: 8 }, { model });
    expect(fresh.slot).toMatchObject({ kind: 'marker', standsFor: 4 });
  });

  it('skips the summary when the evicted messages carry no text', () => {
    const spec: ConversationSpec = {
      turns: [
        { user: 'goal', steps: Array.from({ length: 12 }, () => ({ calls: [{ name: 'ls', input: {}, result: 'x'.repeat(500) }] })) },
        { user: 'now?', steps: [{ text: 'done' }] },
      ],
    };
    const result = plan('summarize', buildHistory(spec, 'openai'), { maxMessages: 6 }, { model });
    expect(result.slot?.kind).toBe('marker');
  });
});

describe('two-tier (two-tier summarization)', () => {
  const spec: ConversationSpec = {
    turns: Array.from({ length: 8 }, (_, i) => ({
      user: `Step ${i}: look at src/file${i}.ts`,
      steps: [{ text: 'Checking.', calls: [{ name: 'read_file', input: { path: `src/file${i}.ts` }, result: 'contents' }] }, { text: `Done with step ${i}.` }],
    })),
  };
  const history = buildHistory(spec, 'anthropic');
  const tokens =
    (each: number): TokenCounter =>
    () =>
      each;

  // Windowpane's additions: the model's own token estimate, and the goal kept besides the last 8.
  const added = { scriptAwareCount: true, keepGoal: true };

  it('does nothing up to 80,000 tokens', () => {
    expect(plan('two-tier', history, added, { counter: tokens(80_000 / history.length) }).evicted).toEqual([]);
  });

  it('with its additions, above 80,000 keeps the goal and the last 8 messages and adds a heuristic summary of the rest', () => {
    const result = plan('two-tier', history, added, { counter: tokens(3000) });
    expect(ids(result)).toEqual(['m0', SLOT_ITEM_ID, ...history.slice(-8).map((item) => item.id)]);
    expect(result.slot?.summary?.status).toBe('heuristic');
    const text = String(result.messages[1]?.message.content);
    expect(text.startsWith('[Conversation Summary]\nCondensed 23 earlier messages without an AI call.')).toBe(true);
    expect(text).toContain('Tools used: read_file (6)');
    expect(text).toContain('Files explored: src/file0.ts, src/file1.ts');
    expect(result.metrics.trigger).toBe(`${3000 * history.length} tokens > 80000 (heuristic summary)`);
  });

  it('above 120,000 asks for an AI summary with the six-part prompt and 2,000 output tokens', () => {
    const result = plan('two-tier', history, added, { counter: tokens(4000) });
    expect(result.slot?.summary).toMatchObject({ status: 'needed', prompt: 'structured', maxTokens: 2000 });
    expect(result.slot?.summary?.ids).toHaveLength(23);
  });

  it('by default counts characters ÷ 4, rounded up, per message, and keeps only the last 8 messages', () => {
    // 31 messages of 12,000 characters: 3,000 tokens each by the rule (93,000 > 80,000), whatever the model's estimate says.
    const long = textHistory(Array(31).fill(12_000));
    const result = plan('two-tier', long, {}, { counter: () => 1 });
    expect(ids(result)).toEqual([SLOT_ITEM_ID, ...range(23, 31)]);
    expect(result.slot?.summary?.status).toBe('heuristic');
    expect(result.metrics.trigger).toBe('93000 tokens > 80000 (heuristic summary)');
    // One character fewer per message: 2,999 + ... rounds up to the same count.
    expect(plan('two-tier', textHistory(Array(31).fill(11_997)), {}, { counter: () => 1 }).metrics.trigger).toBe('93000 tokens > 80000 (heuristic summary)');
    expect(plan('two-tier', textHistory(Array(26).fill(12_000)), {}, { counter: () => 1 }).evicted).toEqual([]);
  });
});

describe('planner rules common to every strategy', () => {
  it.each(listStrategies().filter((name) => !name.endsWith('-test')))('plans an empty conversation as an empty request (%s)', (strategy) => {
    const result = plan(strategy, []);
    expect(result).toMatchObject({ messages: [], evicted: [], slot: null });
    expect(result.metrics).toMatchObject({ totalMessages: 0, inputTokens: 0, overBudget: false, trimmed: false });
  });

  it('drops units that cannot be sent, with their reason, and keeps the request valid', () => {
    const history: PlanItem[] = [
      { id: 'greeting', message: { role: 'assistant', content: 'Hi! How can I help?' } },
      { id: 'u1', message: { role: 'user', content: 'List the files.' } },
      { id: 'a1', message: { role: 'assistant', content: [{ type: 'tool_use', id: 'toolu_1', name: 'ls', input: {} }] } },
      { id: 'u2', message: { role: 'user', content: 'Never mind, stop.' } },
      { id: 'empty', message: { role: 'assistant', content: '' } },
      { id: 'a2', message: { role: 'assistant', content: 'Stopped.' } },
    ];
    const result = plan('off', history);
    expect(ids(result)).toEqual(['u1', 'u2', 'a2']);
    expect(result.evicted).toEqual([
      { id: 'greeting', reason: 'leading' },
      { id: 'a1', reason: 'invalid' },
      { id: 'empty', reason: 'invalid' },
    ]);
    expect(result.metrics.evictedByReason).toEqual({ leading: 1, invalid: 2 });
    expect(
      validateRequest(
        result.messages.map((m) => m.message),
        { provider: 'anthropic' },
      ).ok,
    ).toBe(true);
  });

  it('lets a stored summary open the request, speaking as the user', () => {
    const summary: PlanItem = { id: 's1', kind: 'summary', message: { role: 'assistant', content: '[Conversation Summary]\nEarlier.' } };
    const result = plan('off', [summary, ...textHistory([5, 5])]);
    expect(result.messages[0]).toEqual({ ...summary, message: { role: 'user', content: '[Conversation Summary]\nEarlier.' } });
    expect(summary.message.role).toBe('assistant');
  });

  it('puts a user-role marker first when nothing is kept before it', () => {
    const result = plan('count', textHistory(Array(10).fill(5)), { maxMessages: 4, preserveFirst: 0, preserveLast: 4, marker: true });
    expect(result.messages[0]?.message).toEqual({ role: 'user', content: '[6 earlier messages truncated to fit context window]' });
    expect(result.slot?.role).toBe('user');
    expect(validateRequest(result.messages.map((m) => m.message)).ok).toBe(true);
  });

  it('keeps the newest turn’s user message when no kept message could open the request', () => {
    const spec: ConversationSpec = {
      turns: [{ user: 'Do it all.', steps: Array.from({ length: 6 }, () => ({ calls: [{ name: 'ls', input: {}, result: 'ok' }] })) }],
    };
    const history = buildHistory(spec, 'anthropic');
    const result = plan('rolling', history, { rollingMax: 2 });
    expect(ids(result)).toEqual(['m0', ...history.slice(-2).map((item) => item.id)]);
    expect(result.metrics.overBudget).toBe(true);
    expect(
      validateRequest(
        result.messages.map((m) => m.message),
        { provider: 'anthropic' },
      ).ok,
    ).toBe(true);
  });

  it('counts the separate system prompt and the draft in the request', () => {
    const result = plan('off', textHistory([10, 10]), {}, { system: 'x'.repeat(30), draftTokens: 7 });
    expect(result.metrics).toMatchObject({ systemTokens: 30, messageTokens: 20, draftTokens: 7, inputTokens: 57 });
  });

  it('reserves the model’s max output, at most 8,192 and at most a quarter of the window', () => {
    expect(plan('off', textHistory([1]), {}, { model: { contextWindow: 200_000, maxOutputTokens: 64_000 } }).metrics.outputReserveTokens).toBe(8192);
    expect(plan('off', textHistory([1]), {}, { model: { contextWindow: 4096, maxOutputTokens: 4096 } }).metrics.outputReserveTokens).toBe(1024);
    expect(plan('off', textHistory([1]), {}, { model: { contextWindow: 128_000, maxOutputTokens: 2000 } }).metrics.outputReserveTokens).toBe(2000);
    expect(plan('off', textHistory([1]), { outputReserve: 500 }).metrics.outputReserveTokens).toBe(500);
  });

  it('reports the share of the window and the 80 % warning', () => {
    const result = plan('count', textHistory(Array(81).fill(10)), {}, { model: { contextWindow: 10_000, maxOutputTokens: 1000 } });
    expect(result.metrics).toMatchObject({ approachingLimit: true, windowShare: (810 + 1000) / 10_000, budgetShare: 810 / 9000 });
    expect(plan('count', textHistory(Array(80).fill(10)), {}, { model: { contextWindow: 10_000, maxOutputTokens: 1000 } }).metrics.approachingLimit).toBe(
      false,
    );
  });
});
