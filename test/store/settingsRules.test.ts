// Each knob has one rule, read by the Settings dialog as the user types and by the store
// when it reads settings back: a stored value the rule refuses falls back to its default,
// is named in a notice, and what is left always plans.
import { IDBFactory } from 'fake-indexeddb';
import { beforeEach, describe, expect, it } from 'vitest';
import { emptyCalibration, listStrategies, type StoredMessage } from '../../src/core';
import { openWindowpaneStorage } from '../../src/persistence';
import { browserDeps } from '../../src/browserRuntime';
import { createRuntime } from '../../src/store/runtime';
import { SETTINGS_KEY } from '../../src/store/storedSettings';
import { hydrate } from '../../src/store/hydrate';
import { planFor } from '../../src/store/planning';
import { DEFAULT_SETTINGS, type Settings } from '../../src/store/settings';
import { readOverrides, readSettings } from '../../src/store/storedSettings';
import { settingsProblems, WINDOW_RULES, windowCombinationProblems } from '../../src/store/settingsRules';
import { turnContext } from '../../src/store/turn';

/** Bad values of each knob as another version, a hand edit or an import could leave them, with where each knob lives. */
const BAD: [knob: string, where: 'top' | 'window' | 'tools', values: unknown[]][] = [
  ['contextWindow', 'top', [-5, 2.5, 1e12, '200000', Number.NaN]],
  ['maxOutputTokens', 'top', [-1, 1.5, 1e9]],
  ['strategy', 'window', ['bogus', 3]],
  ['summarize', 'window', ['yes']],
  ['maxMessages', 'window', [-1, 1.5, 2_000_000]],
  ['preserveFirst', 'window', [-1, 10_001]],
  ['preserveLast', 'window', [-1, 0.5]],
  ['rollingMax', 'window', [0, 1001, 5000, 2.5]],
  ['triggerRatio', 'window', [0, 1.5, -0.2, Number.NaN]],
  ['targetRatio', 'window', [0, 2]],
  ['lowWater', 'window', [0, 1, 3]],
  ['budgetTokens', 'window', [-1, 1.5]],
  ['budgetUsd', 'window', [-0.5, Number.POSITIVE_INFINITY, '1']],
  ['summaryModel', 'window', ['x'.repeat(201), 5]],
  ['summaryMaxTokens', 'window', [0, 2_000_000]],
  ['preserveRecentFiles', 'window', [-1, 1.5, 5000, '10']],
  ['keepImages', 'window', [-1, 2.5, 21]],
  ['clearOnProvider', 'window', ['yes', 1]],
  ['additions', 'window', ['on', [true], { truncate: 'yes' }, { truncate: { clearToolResults: 1 } }, { truncate: { warpDrive: true } }]],
  ['maxRounds', 'tools', [0, 201, 2.5]],
  ['readAttachment', 'tools', ['no']],
];
const CASES = BAD.flatMap(([knob, where, values]) => values.map((value) => [knob, where, value] as const));

function stored(knob: string, where: 'top' | 'window' | 'tools', value: unknown): Record<string, unknown> {
  return where === 'top' ? { [knob]: value } : { [where]: { [knob]: value } };
}

function defaultOf(knob: string, where: 'top' | 'window' | 'tools'): unknown {
  const source = where === 'top' ? DEFAULT_SETTINGS : DEFAULT_SETTINGS[where];
  return (source as unknown as Record<string, unknown>)[knob];
}

function valueOf(settings: Settings, knob: string, where: 'top' | 'window' | 'tools'): unknown {
  const source = where === 'top' ? settings : settings[where];
  return (source as unknown as Record<string, unknown>)[knob];
}

const HISTORY: StoredMessage[] = Array.from({ length: 30 }, (_, i) => ({
  id: `m${i}`,
  conversationId: 'c1',
  seq: i,
  role: i % 2 === 0 ? 'user' : 'assistant',
  kind: 'message',
  content: [{ type: 'text', text: `message ${i} `.repeat(40) }],
  status: 'complete',
  createdAt: i,
  pinned: false,
})) as StoredMessage[];

describe('the rule of each knob', () => {
  it.each(CASES)('refuses %s = %s (in %s) with a reason', (knob, where, value) => {
    const settings = where === 'top' ? { ...DEFAULT_SETTINGS, [knob]: value } : { ...DEFAULT_SETTINGS, [where]: { ...DEFAULT_SETTINGS[where], [knob]: value } };
    expect(settingsProblems(settings as Settings)[knob as keyof ReturnType<typeof settingsProblems>]).toMatch(/\.$/);
  });

  it('accepts the defaults', () => {
    expect(settingsProblems(DEFAULT_SETTINGS)).toEqual({});
  });

  it('says why the rolling window stops at 1,000 messages', () => {
    expect(WINDOW_RULES.rollingMax(1001)).toBe('Enter a whole number from 1 to 1,000. The rolling strategy looks at the newest 1,000 messages at most.');
    expect(WINDOW_RULES.rollingMax(1000)).toBeNull();
  });

  it('puts "trim down to" at or above "trim above" on the field to fix', () => {
    expect(windowCombinationProblems({ triggerRatio: 0.5, targetRatio: 0.5 }).targetRatio).toBe(
      'Must be below “Trim above” (50 %): a trim cuts the request down to this share.',
    );
    expect(windowCombinationProblems({ triggerRatio: 0.5, targetRatio: 0.9 }).targetRatio).toMatch(/^Must be below “Trim above” \(50 %\)/);
    expect(windowCombinationProblems({ triggerRatio: 0.5, targetRatio: 0.45 })).toEqual({});
  });
});

describe('stored settings a rule refuses', () => {
  it.each(CASES)('%s = %s (in %s) falls back to its default and is named', (knob, where, value) => {
    const read = readSettings(stored(knob, where, value));
    expect(valueOf(read.settings, knob, where)).toEqual(defaultOf(knob, where));
    expect(read.ignored.join(', ')).toMatch(new RegExp(`^${knob} `));
    expect(settingsProblems(read.settings)).toEqual({});
  });

  it('keeps "trim above" and drops "trim down to" when they cross, naming both', () => {
    for (const targetRatio of [0.5, 0.9]) {
      const read = readSettings({ window: { triggerRatio: 0.5, targetRatio } });
      expect(read.settings.window).toMatchObject({ triggerRatio: 0.5, targetRatio: 0.25 });
      expect(read.ignored).toEqual([`targetRatio ${targetRatio} (not below triggerRatio 0.5)`]);
    }
  });

  it('leaves settings that plan under every strategy, whatever was stored', () => {
    for (const [knob, where, value] of CASES) {
      for (const strategy of listStrategies()) {
        const { settings } = readSettings({ ...stored(knob, where, value), window: { ...(where === 'window' ? { [knob]: value } : {}), strategy } });
        expect(() => planFor(turnContext(settings, undefined, emptyCalibration()), HISTORY), `${knob} = ${String(value)} with ${strategy}`).not.toThrow();
      }
    }
  });

  it('drops a conversation override a rule refuses, and names it', () => {
    expect(readOverrides({ window: { lowWater: 1 } }).ignored).toEqual(['lowWater 1']);
    expect(readOverrides({ model: 'x'.repeat(201) }).ignored).toEqual([`model "${'x'.repeat(40)}"`]);
    expect(readOverrides({ thinking: { kind: 'effort', effort: 'huge' } }).ignored).toEqual(['thinking a value of the wrong type']);
    expect(readOverrides({ thinking: { kind: 'budget', tokens: 12 } }).overrides).toEqual({});
    expect(readOverrides({ thinking: { kind: 'effort', effort: 'max' } }).overrides).toEqual({ thinking: { kind: 'effort', effort: 'max' } });
  });

  it('reads a stored thinking choice, and falls back to the default for one it cannot use', () => {
    expect(readSettings({ thinking: { kind: 'budget', tokens: 4096 } }).settings.thinking).toEqual({ kind: 'budget', tokens: 4096 });
    const read = readSettings({ thinking: 'deep' });
    expect(read.settings.thinking).toEqual({ kind: 'default' });
    expect(read.ignored).toEqual(['thinking "deep"']);
  });
});

describe('a stored setting of each knob a rule refuses', () => {
  beforeEach(() => {
    globalThis.indexedDB = new IDBFactory();
  });

  it('is named in the notice the app shows when it starts, and the default applies', async () => {
    const raw = { window: {} as Record<string, unknown>, tools: {} as Record<string, unknown> } as Record<string, unknown>;
    for (const [knob, where, values] of BAD) {
      // One bad value per knob; the two ratios separately below, as their combination is checked too.
      if (knob === 'targetRatio') continue;
      if (where === 'top') raw[knob] = values[0];
      else (raw[where] as Record<string, unknown>)[knob] = values[0];
    }
    const storage = await openWindowpaneStorage();
    await storage.repositories.settings.setSetting(SETTINGS_KEY, raw);
    storage.close();
    const rt = createRuntime({ ...browserDeps(), session: undefined });
    await hydrate(rt);
    const { settings, notices } = rt.store.getState();
    expect(settings).toEqual({ ...DEFAULT_SETTINGS, window: { ...DEFAULT_SETTINGS.window }, tools: { ...DEFAULT_SETTINGS.tools } });
    const notice = notices.find((n) => n.id === 'ignored-settings');
    expect(notice?.text).toMatch(/^Some stored settings for all conversations could not be used and were ignored: .*\. The defaults apply instead\.$/);
    for (const [knob, where, values] of BAD) {
      if (knob === 'targetRatio') continue;
      const named = typeof values[0] === 'string' ? `${knob} "${values[0].slice(0, 40)}"` : `${knob} ${String(values[0])}`;
      expect(notice?.text, `${knob} in ${where}`).toContain(named);
    }
  });

  it('names "trim down to" when it is not below "trim above"', async () => {
    const storage = await openWindowpaneStorage();
    await storage.repositories.settings.setSetting(SETTINGS_KEY, { window: { triggerRatio: 0.6, targetRatio: 0.6 } });
    storage.close();
    const rt = createRuntime({ ...browserDeps(), session: undefined });
    await hydrate(rt);
    expect(rt.store.getState().notices.find((n) => n.id === 'ignored-settings')?.text).toContain('targetRatio 0.6 (not below triggerRatio 0.6)');
    expect(rt.store.getState().settings.window.targetRatio).toBeLessThan(0.6);
  });
});
