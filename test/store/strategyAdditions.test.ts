import { describe, expect, it } from 'vitest';
import { emptyCalibration, listStrategies, type StoredMessage } from '../../src/core';
import { DEFAULT_SETTINGS, DEFAULT_WINDOW, type Settings } from '../../src/store/settings';
import { additionsFor, resetToOwnRule } from '../../src/store/strategyAdditions';
import { planFor } from '../../src/store/planning';
import { turnContext } from '../../src/store/turn';

const HISTORY: StoredMessage[] = Array.from({ length: 12 }, (_, i) => ({
  id: `m${i}`,
  conversationId: 'c1',
  seq: i,
  role: i % 2 === 0 ? 'user' : 'assistant',
  kind: 'message',
  content: [{ type: 'text', text: `message ${i}` }],
  status: 'complete',
  createdAt: i,
  ...(i === 3 ? { pinned: true } : {}),
}));

const withWindow = (window: Partial<Settings['window']>): Settings => ({ ...DEFAULT_SETTINGS, window: { ...DEFAULT_WINDOW, ...window } });

describe('what Windowpane adds to a strategy’s rule', () => {
  it('is off for the classic strategies and on for auto, each strategy offering only what it reads', () => {
    expect(additionsFor({ strategy: 'auto', additions: {} })).toEqual({ clearToolResults: true, keepPinned: true });
    expect(additionsFor({ strategy: 'count', additions: {} })).toEqual({ keepPinned: false });
    expect(additionsFor({ strategy: 'rolling', additions: {} })).toEqual({ keepPinned: false });
    expect(additionsFor({ strategy: 'truncate', additions: {} })).toEqual({ clearToolResults: false, keepPinned: false });
    expect(additionsFor({ strategy: 'summarize', additions: {} })).toEqual({ clearToolResults: false, keepPinned: false });
    expect(additionsFor({ strategy: 'two-tier', additions: {} })).toEqual({
      clearToolResults: false,
      keepPinned: false,
      keepGoal: false,
      scriptAwareCount: false,
    });
    expect(additionsFor({ strategy: 'off', additions: {} })).toEqual({});
  });

  it('follows the user’s choice per strategy, and reaches the strategy as its options', () => {
    const settings = withWindow({ strategy: 'two-tier', additions: { 'two-tier': { keepGoal: true }, truncate: { clearToolResults: true } } });
    expect(additionsFor(settings.window)).toMatchObject({ keepGoal: true, scriptAwareCount: false });
    const options = turnContext(settings, undefined, emptyCalibration()).policy.options;
    expect(options).toMatchObject({ keepGoal: true, scriptAwareCount: false, clearToolResults: false, keepPinned: false });
  });

  it('gives summarize the number of files to keep after its summary', () => {
    const options = turnContext(withWindow({ strategy: 'summarize', preserveRecentFiles: 3 }), undefined, emptyCalibration()).policy.options;
    expect(options).toMatchObject({ preserveRecentFiles: 3 });
  });

  it('resets a strategy to its own rule: its documented knobs, nothing added, the user’s budget and model kept', () => {
    const w = {
      ...DEFAULT_WINDOW,
      strategy: 'truncate',
      triggerRatio: 0.5,
      targetRatio: 0.3,
      budgetUsd: 2,
      summaryModel: 'small',
      additions: { truncate: { clearToolResults: true }, auto: { keepPinned: false } },
    };
    expect(resetToOwnRule(w)).toEqual({
      ...DEFAULT_WINDOW,
      strategy: 'truncate',
      budgetUsd: 2,
      summaryModel: 'small',
      additions: { auto: { keepPinned: false } },
    });
  });

  it('plans under every strategy with every addition on and off', () => {
    for (const strategy of listStrategies()) {
      for (const on of [true, false]) {
        const settings = withWindow({ strategy, additions: { [strategy]: { clearToolResults: on, keepPinned: on, keepGoal: on, scriptAwareCount: on } } });
        const plan = planFor(turnContext(settings, undefined, emptyCalibration()), HISTORY);
        // The Demo cannot compact on its side: `auto` plans in the provider's place.
        expect(plan.strategy).toBe(strategy === 'provider' ? 'auto' : strategy);
      }
    }
  });
});
