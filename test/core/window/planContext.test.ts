import { describe, expect, it } from 'vitest';
import {
  ConfigError,
  SLOT_ITEM_ID,
  autoLimits,
  autoStrategy,
  contentChars,
  listStrategies,
  planContext,
  registerStrategy,
  strategyChoices,
  type ContextPlan,
  type ContextStrategy,
  type PlanContextInput,
  type PlanItem,
  type StrategyOptions,
  type EvictionReason,
  type TokenCounter,
} from '../../../src/core';
import { validateRequest } from '../validateRequest';
import { buildHistory, countingCounter, SHAPES, type ConversationSpec } from './conversations';

const lengthCounter: TokenCounter = (message) => (typeof message.content === 'string' ? message.content.length : Math.ceil(contentChars(message) / 4));

/** `turns` turns of a 100-token question and a 100-token answer: m0 (the goal), m1, m2, ... */
function turns(count: number): PlanItem[] {
  const items: PlanItem[] = [];
  for (let t = 0; t < count; t++) {
    items.push({ id: `m${2 * t}`, message: { role: 'user', content: `q${t}:`.padEnd(100, '.') } });
    items.push({ id: `m${2 * t + 1}`, message: { role: 'assistant', content: `a${t}:`.padEnd(100, '.') } });
  }
  return items;
}

const model = { contextWindow: 10_000, maxOutputTokens: 1000 };

function auto(history: readonly PlanItem[], options: StrategyOptions = {}, extra: Partial<PlanContextInput> = {}): ContextPlan {
  return planContext({ history, policy: { strategy: 'auto', options }, model, counter: lengthCounter, ...extra });
}

describe('auto: limits', () => {
  it('plans against 80 % of the max input tokens (the window minus the reserve), or the user’s budget minus the reserve', () => {
    const options = autoStrategy.resolveOptions({});
    expect(autoLimits(9_000, 1000, options)).toEqual({ highWaterTokens: 7200, lowWaterTokens: 4320, highWaterMessages: 100, lowWaterMessages: 60 });
    expect(autoLimits(9_000, 1000, { ...options, budgetTokens: 3000 })).toMatchObject({ highWaterTokens: 2000, lowWaterTokens: 1200 });
    expect(autoLimits(991_808, 8192, { ...options, budgetTokens: 100_000, maxMessages: 0 })).toEqual({
      highWaterTokens: 91_808,
      lowWaterTokens: 55_084,
      highWaterMessages: Infinity,
      lowWaterMessages: Infinity,
    });
    expect(auto(turns(2), { budgetTokens: 3000 }).metrics).toMatchObject({ budgetTokens: 2000, maxMessages: 100, outputReserveTokens: 1000 });
  });

  it('leaves a conversation under both high-water marks alone', () => {
    const result = auto(turns(8), { budgetTokens: 3000 });
    expect(result.evicted).toEqual([]);
    expect(result.slot).toBeNull();
    expect(result.metrics).toMatchObject({ inputTokens: 1600, trimmed: false, approachingLimit: false });
  });
});

describe('the plan reports where its strategy trims', () => {
  const plan = (strategy: string, options: StrategyOptions = {}, limits = model) =>
    planContext({ history: turns(3), policy: { strategy, options }, model: limits, counter: lengthCounter }).metrics;

  it('auto: the high- and low-water marks plus the answer’s reserve', () => {
    expect(plan('auto')).toMatchObject({ maxInputTokens: 9000, triggerTokens: 8200, targetTokens: 5320 });
    expect(plan('auto', { budgetTokens: 3000 })).toMatchObject({ triggerTokens: 3000, targetTokens: 2200 });
  });

  it('truncate and summarize: their shares of the max input tokens, plus the reserve', () => {
    expect(plan('truncate')).toMatchObject({ triggerTokens: 8200, targetTokens: 7300 });
    expect(plan('summarize', { triggerRatio: 0.9, targetRatio: 0.5 })).toMatchObject({ triggerTokens: 9100, targetTokens: 5500 });
  });

  it('two-tier: its first tier, never past the window', () => {
    expect(plan('two-tier', {}, { contextWindow: 200_000, maxOutputTokens: 1000 })).toMatchObject({ triggerTokens: 81_000, targetTokens: 81_000 });
    expect(plan('two-tier')).toMatchObject({ triggerTokens: 10_000, targetTokens: 10_000 });
  });

  it('a strategy that counts messages only: the window', () => {
    for (const strategy of ['count', 'rolling', 'off']) expect(plan(strategy)).toMatchObject({ triggerTokens: 10_000, targetTokens: 10_000 });
  });
});

describe('auto: cache-friendly trimming', () => {
  it('trims whole turns at the high-water mark down to the low-water mark, and keeps the prefix between trims', () => {
    const options = { budgetTokens: 3000 }; // high water 2,000 tokens, low water 1,200
    let previous: ContextPlan | null = null;
    let trims = 0;
    for (let count = 1; count <= 40; count++) {
      const result = auto(turns(count), options);
      const sent = result.messages.map((item) => item.message);
      expect(result.metrics.inputTokens).toBeLessThanOrEqual(2000);
      expect(validateRequest(sent, { provider: 'anthropic' }).ok).toBe(true);
      expect(result.messages[0]?.id).toBe('m0');
      if (result.slot) {
        // Whole turns: what follows the marker opens a turn.
        expect(result.messages[result.slot.index + 1]?.message.role).toBe('user');
        expect(result.messages[result.slot.index]?.message.content).toBe(`[${result.evicted.length} earlier messages truncated to fit context window]`);
      }
      if (previous && JSON.stringify(previous.evicted) === JSON.stringify(result.evicted)) {
        expect(result.messages.slice(0, previous.messages.length)).toEqual(previous.messages);
      } else if (previous) {
        trims++;
        // A trim lands at or under the low-water mark (before the new turn is counted) and evicts several turns at once.
        expect(result.evicted.length - previous.evicted.length).toBeGreaterThanOrEqual(6);
      }
      previous = result;
    }
    // 40 turns of 200 tokens against a 2,000-token budget: a trim every few turns, not every request.
    expect(trims).toBeGreaterThanOrEqual(5);
    expect(trims).toBeLessThanOrEqual(10);
  });

  it('depends only on the history: the same history planned cold gives the same plan', () => {
    const history = turns(33);
    expect(JSON.stringify(auto(structuredClone(history), { budgetTokens: 3000 }))).toBe(JSON.stringify(auto(history, { budgetTokens: 3000 })));
  });

  it('uses the message cap as a second limit', () => {
    const small = turns(12).map((item) => ({ ...item, message: { ...item.message, content: String(item.message.content).slice(0, 5) } }));
    const result = auto(small, { maxMessages: 10 });
    expect(result.metrics.keptMessages).toBeLessThanOrEqual(10);
    expect(result.evicted.every((e) => e.reason === 'message-cap')).toBe(true);
    expect(result.metrics.trigger).toContain('or 10 messages');
  });

  it('never evicts pinned messages; they stay in place after the marker', () => {
    const history = turns(20);
    (history[4] as PlanItem).pinned = true;
    const result = auto(history, { budgetTokens: 3000 });
    const position = result.messages.findIndex((item) => item.id === 'm4');
    expect(position).toBeGreaterThan(result.slot?.index ?? Infinity);
    expect(result.evicted.map((e) => e.id)).not.toContain('m4');
  });

  it.each(SHAPES)('cuts inside a current turn too big on its own, keeping its opening user message (%s)', (shape) => {
    const spec: ConversationSpec = {
      turns: [
        { user: 'Set up the project.', steps: [{ text: 'Done.' }] },
        {
          user: 'Now refactor every module.',
          steps: Array.from({ length: 12 }, (_, i) => ({ calls: [{ name: 'read_file', input: { path: `src/m${i}.ts` }, result: 'x'.repeat(400) }] })),
        },
      ],
    };
    const history = buildHistory(spec, shape);
    const result = planContext({ history, policy: { strategy: 'auto', options: { budgetTokens: 2000 } }, model, counter: lengthCounter });
    const sentIds = result.messages.map((item) => item.id);
    expect(sentIds.slice(0, 2)).toEqual(['m0', SLOT_ITEM_ID]);
    expect(sentIds).toContain('m2');
    expect(sentIds.at(-1)).toBe(history.at(-1)?.id);
    expect(result.metrics.overBudget).toBe(false);
    expect(
      validateRequest(
        result.messages.map((item) => item.message),
        { provider: shape },
      ).ok,
    ).toBe(true);
  });

  it('trims ahead for a long draft, so the gauge shows what sending it will do', () => {
    expect(auto(turns(9), { budgetTokens: 3000 }).metrics.trimmed).toBe(false);
    const preview = auto(turns(9), { budgetTokens: 3000 }, { draftTokens: 300 });
    expect(preview.metrics.trimmed).toBe(true);
    expect(preview.metrics.inputTokens).toBeLessThanOrEqual(1200 + 300);
  });
});

describe('the registry is open to new strategies', () => {
  const keepLastTurn: ContextStrategy<{ keep: number }> = {
    description: 'Keeps the first message and the newest `keep` units.',
    defaults: { keep: 1 },
    resolveOptions: (options) => ({ keep: typeof options.keep === 'number' ? options.keep : 1 }),
    select: (view, o) => {
      const evict = new Array<EvictionReason | null>(view.unitCount).fill(null);
      for (let u = view.headEnd; u < view.unitCount - o.keep; u++) evict[u] = 'message-cap';
      return { evict, slot: { kind: 'marker' }, trigger: 'custom', caps: {} };
    },
  };

  it('plans with a registered strategy and keeps the planner’s guarantees', () => {
    registerStrategy('keep-newest-test', keepLastTurn);
    expect(listStrategies()).toContain('keep-newest-test');
    const history = turns(5);
    (history[3] as PlanItem).pinned = true;
    const result = planContext({ history, policy: { strategy: 'keep-newest-test' }, model, counter: lengthCounter });
    expect(result.messages.map((item) => item.id)).toEqual(['m0', SLOT_ITEM_ID, 'm3', 'm9']);
    expect(result.strategy).toBe('keep-newest-test');
  });

  it('offers every registered strategy to pick, the built-ins first, each with its label', () => {
    registerStrategy('keep-newest-labelled', { ...keepLastTurn, label: 'Keep the newest turn' });
    const choices = strategyChoices();
    expect(choices.slice(0, 8).map((c) => c.name)).toEqual(['auto', 'count', 'rolling', 'truncate', 'summarize', 'two-tier', 'provider', 'off']);
    expect(choices.find((c) => c.name === 'truncate')?.label).toBe('Truncate: above 80 % of the window, cut to 70 %');
    expect(choices.at(-1)).toEqual({ name: 'keep-newest-labelled', label: 'Keep the newest turn' });
    expect(choices.find((c) => c.name === 'keep-newest-test')?.label).toBe('keep-newest-test');
  });

  it('refuses a taken or malformed name', () => {
    expect(() => registerStrategy('auto', keepLastTurn)).toThrow(ConfigError);
    expect(() => registerStrategy('Bad Name', keepLastTurn)).toThrow(/lowercase/);
  });
});

describe('linear time', () => {
  const big: ConversationSpec = {
    turns: Array.from({ length: 1500 }, (_, i) => ({
      user: `Question ${i}`,
      steps:
        i % 3 === 0
          ? [
              {
                text: 'Checking.',
                calls: [
                  { name: 'ls', input: { path: 'src' }, result: 'a.ts' },
                  { name: 'cat', input: { path: 'a.ts' }, result: 'x' },
                ],
              },
              { text: 'Done.' },
            ]
          : [{ text: `Answer ${i}` }],
    })),
  };

  it.each(SHAPES)('counts each of thousands of messages once per plan, and not at all when warm (%s)', { timeout: 60_000 }, (shape) => {
    const history = buildHistory(big, shape);
    expect(history.length).toBeGreaterThanOrEqual(4000);
    for (const strategy of listStrategies().filter((name) => !name.endsWith('-test'))) {
      const counting = countingCounter();
      const input = { history, policy: { strategy }, model: { contextWindow: 20_000, maxOutputTokens: 2000 }, counter: counting.counter, system: 'Be brief.' };
      planContext(input);
      expect(counting.calls()).toBeLessThanOrEqual(history.length + 3);
      const cold = counting.calls();
      planContext(input);
      expect(counting.calls() - cold).toBeLessThanOrEqual(3);
    }
  });

  it('does ten times the counting for ten times the history', () => {
    const counts = [1000, 10_000].map((n) => {
      const history = turns(n / 2);
      const counting = countingCounter();
      planContext({ history, policy: { strategy: 'auto' }, model: { contextWindow: 50_000, maxOutputTokens: 4000 }, counter: counting.counter });
      return counting.calls();
    });
    expect((counts[1] as number) / (counts[0] as number)).toBeCloseTo(10, 0);
  });
});
