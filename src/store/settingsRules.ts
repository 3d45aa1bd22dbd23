/**
 * What each setting may hold, as one rule per knob and one per combination of knobs. The
 * Settings dialog shows a rule's reason beside its field as the user types (and refuses to
 * save while there is one); the store drops a stored value a rule refuses and names it.
 * Both read these rules, so a value the dialog accepts is one planning can use.
 */
import { IMAGE_LIMITS, getStrategy } from '../core';
import type { Settings, ToolSettings, WindowSettings } from './settings';
import { additionsProblem } from './strategyAdditions';

/** Why `value` cannot be used for a knob, in words shown beside its field; null when it can. */
export type Rule = (value: unknown) => string | null;

/** The tool round limit a user may set: at least one round, and few enough that a looping model cannot run up a large bill. */
export const TOOL_ROUNDS_RANGE = { min: 1, max: 200 } as const;

/** The most messages the rolling strategy looks at: its cap on incoming history (`maxHistory`), which the rolling window must fit in. */
export const ROLLING_MAX_LIMIT = 1000;

const MAX_TOKENS = 100_000_000;
const count = (n: number) => n.toLocaleString('en-US');

const whole =
  (min: number, max: number, why = ''): Rule =>
  (value) =>
    typeof value === 'number' && Number.isInteger(value) && value >= min && value <= max
      ? null
      : `Enter a whole number from ${count(min)} to ${count(max)}.${why}`;

/** A share of something (stored as 0–1), typed as a percentage: above 0, at most 100 % (below it when `below`). */
const percentage =
  (below = false, why = ''): Rule =>
  (value) =>
    typeof value === 'number' && Number.isFinite(value) && value > 0 && (below ? value < 1 : value <= 1)
      ? null
      : `Enter a percentage above 0 and ${below ? 'below 100' : 'at most 100'}.${why}`;

const text =
  (max: number): Rule =>
  (value) =>
    typeof value === 'string' && value.length <= max ? null : `Use at most ${count(max)} characters.`;

/** The rules of the knobs outside the window and tools sections. */
export const SETTINGS_RULES = {
  contextWindow: whole(0, MAX_TOKENS),
  maxOutputTokens: whole(0, MAX_TOKENS),
  model: text(200),
} satisfies Record<string, Rule>;

/** The rule of each window knob. */
export const WINDOW_RULES: Record<keyof WindowSettings, Rule> = {
  strategy: (value) => (typeof value === 'string' && getStrategy(value) !== undefined ? null : 'Choose one of the listed strategies.'),
  summarize: (value) => (typeof value === 'boolean' ? null : 'Turn it on or off.'),
  maxMessages: whole(0, 1_000_000),
  preserveFirst: whole(0, 10_000),
  preserveLast: whole(0, 10_000),
  rollingMax: whole(1, ROLLING_MAX_LIMIT, ` The rolling strategy looks at the newest ${count(ROLLING_MAX_LIMIT)} messages at most.`),
  triggerRatio: percentage(),
  targetRatio: percentage(),
  // At 100 % a trim would end as soon as it began, and every request would evict a turn: no prompt cache would last.
  lowWater: percentage(true, ' At 100 % every request would trim.'),
  budgetTokens: whole(0, MAX_TOKENS),
  budgetUsd: (value) => (typeof value === 'number' && Number.isFinite(value) && value >= 0 ? null : 'Enter an amount of 0 or more.'),
  summaryModel: text(200),
  summaryMaxTokens: whole(1, 1_000_000),
  preserveRecentFiles: whole(0, 1000),
  additions: additionsProblem,
  // Anthropic reads images up to 8000 px, but only up to 2000 px once a request holds more than
  // 20; stored images keep up to 2576 px, so a request carries at most 20.
  keepImages: whole(0, IMAGE_LIMITS.anthropic.manyImages!.threshold),
  clearOnProvider: (value) => (typeof value === 'boolean' ? null : 'Turn it on or off.'),
};

/** The rule of each tool setting. */
export const TOOL_RULES: Record<Exclude<keyof ToolSettings, 'mcpServers'>, Rule> = {
  readAttachment: (value) => (typeof value === 'boolean' ? null : 'Turn it on or off.'),
  runJavascript: (value) => (typeof value === 'boolean' ? null : 'Turn it on or off.'),
  maxRounds: whole(TOOL_ROUNDS_RANGE.min, TOOL_ROUNDS_RANGE.max),
};

/**
 * What is wrong with a combination of window knobs that are each valid, by the knob to fix:
 * "trim down to" must stay below "trim above", or a trim could never end.
 */
export function windowCombinationProblems(w: Pick<WindowSettings, 'triggerRatio' | 'targetRatio'>): Partial<Record<keyof WindowSettings, string>> {
  if (WINDOW_RULES.triggerRatio(w.triggerRatio) || WINDOW_RULES.targetRatio(w.targetRatio)) return {};
  if (w.targetRatio < w.triggerRatio) return {};
  return { targetRatio: `Must be below “Trim above” (${Math.round(w.triggerRatio * 1000) / 10} %): a trim cuts the request down to this share.` };
}

/** A knob of the Settings dialog that has a rule. */
export type Knob = keyof typeof SETTINGS_RULES | keyof WindowSettings | keyof typeof TOOL_RULES;

/** Every problem of `settings`, by knob (combinations under the knob to fix); empty when all of it can be saved and planned with. */
export function settingsProblems(settings: Settings): Partial<Record<Knob, string>> {
  const problems: Partial<Record<Knob, string>> = {};
  const check = <K extends string>(rules: Record<K, Rule>, values: Record<K, unknown>) => {
    for (const key of Object.keys(rules) as K[]) {
      const problem = rules[key](values[key]);
      if (problem) (problems as Record<string, string>)[key] = problem;
    }
  };
  check(SETTINGS_RULES, { contextWindow: settings.contextWindow, maxOutputTokens: settings.maxOutputTokens, model: settings.models[settings.provider] ?? '' });
  check(WINDOW_RULES, settings.window);
  check(TOOL_RULES, settings.tools);
  return { ...windowCombinationProblems(settings.window), ...problems };
}
