/**
 * What Windowpane adds on top of a strategy's own rule, as settings: each is a knob the
 * strategy reads, off by default for the classic strategies (so each does exactly what its
 * rule says) and on for `auto`. The Settings dialog shows the ones the chosen strategy
 * reads, under it, with one action that puts the strategy back to its own rule.
 */
import { getStrategy } from '../core';
import { DEFAULT_WINDOW, type Addition, type WindowSettings } from './settings';

/** Each addition, as the Settings dialog names and explains it. */
export const ADDITIONS: readonly { key: Addition; label: string; hint: string }[] = [
  {
    key: 'clearToolResults',
    label: 'Clear old tool results first',
    hint: 'Before leaving any message out, send the output of old tool calls as a short placeholder (the newest 3 stay whole).',
  },
  { key: 'keepPinned', label: 'Keep pinned messages', hint: 'A message you pin is always sent, whatever the strategy would leave out.' },
  {
    key: 'keepGoal',
    label: 'Keep the first message (the goal)',
    hint: 'Send your first message besides the last messages, so the model keeps the task in view.',
  },
  {
    key: 'scriptAwareCount',
    label: "Count with the model's token estimate",
    hint: 'Compare the thresholds with an estimate that knows scripts and code, not characters ÷ 4.',
  },
];

const ADDITION_KEYS: readonly string[] = ADDITIONS.map((a) => a.key);

/** The additions a strategy reads, with their values in `w` (the user's choice, else the strategy's default). */
export function additionsFor(w: Pick<WindowSettings, 'strategy' | 'additions'>): Partial<Record<Addition, boolean>> {
  const defaults = getStrategy(w.strategy)?.defaults ?? {};
  const chosen = w.additions[w.strategy] ?? {};
  const out: Partial<Record<Addition, boolean>> = {};
  for (const { key } of ADDITIONS) {
    if (typeof defaults[key] !== 'boolean') continue;
    out[key] = chosen[key] ?? (defaults[key] as boolean);
  }
  return out;
}

/** Why a stored `additions` cannot be used (null when it can): an object of strategy names to objects of known additions, each true or false. */
export function additionsProblem(value: unknown): string | null {
  const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
  if (!isObject(value)) return 'Not a set of strategy settings.';
  for (const [strategy, chosen] of Object.entries(value)) {
    if (!isObject(chosen)) return `The settings of “${strategy.slice(0, 40)}” are not a set of switches.`;
    for (const [key, on] of Object.entries(chosen)) {
      if (!ADDITION_KEYS.includes(key) || typeof on !== 'boolean') return `“${key.slice(0, 40)}” is not a switch of “${strategy.slice(0, 40)}”.`;
    }
  }
  return null;
}

/** Knobs the user sets whatever the strategy: a reset to a strategy's own rule leaves them as they are. */
const USER_KNOBS = ['strategy', 'budgetTokens', 'budgetUsd', 'summaryModel'] as const;

/** `w` with the chosen strategy back on its own rule: its documented defaults, and nothing added unless it adds it itself. */
export function resetToOwnRule(w: WindowSettings): WindowSettings {
  const additions = { ...w.additions };
  delete additions[w.strategy];
  const kept = Object.fromEntries(USER_KNOBS.map((key) => [key, w[key]]));
  return { ...DEFAULT_WINDOW, ...kept, additions };
}
