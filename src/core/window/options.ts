/**
 * Readers for strategy knobs: each applies a default and throws a ConfigError naming the
 * knob when the value is out of range, so bad settings fail loudly at planning time.
 */
import { ConfigError } from '../errors';
import type { ModelLimits, StrategyOptions } from './types';

/** A whole number ≥ `min` (default 0). */
export function wholeOption(options: StrategyOptions, field: string, fallback: number, min = 0): number {
  const value = options[field];
  if (value === undefined) return fallback;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < min) {
    throw new ConfigError(field, `${field} must be a whole number ≥ ${min}, got ${String(value)}`);
  }
  return value;
}

/** A ratio in (0, 1]. */
export function ratioOption(options: StrategyOptions, field: string, fallback: number): number {
  const value = options[field];
  if (value === undefined) return fallback;
  if (typeof value !== 'number' || !Number.isFinite(value) || value <= 0 || value > 1) {
    throw new ConfigError(field, `${field} must be a number above 0 and at most 1, got ${String(value)}`);
  }
  return value;
}

/** true or false. */
export function booleanOption(options: StrategyOptions, field: string, fallback: boolean): boolean {
  const value = options[field];
  if (value === undefined) return fallback;
  if (typeof value !== 'boolean') throw new ConfigError(field, `${field} must be true or false, got ${String(value)}`);
  return value;
}

/** Output tokens reserved by default: the model's max output, at most 8,192 and at most a quarter of the window. */
export const DEFAULT_OUTPUT_RESERVE = 8192;

/**
 * Tokens reserved for the answer: the `outputReserve` knob, else the model's max output
 * capped at 8,192 and at a quarter of the window (so a small window still has room for input).
 */
export function resolveOutputReserve(options: StrategyOptions, model: ModelLimits): number {
  const fallback = Math.min(model.maxOutputTokens, DEFAULT_OUTPUT_RESERVE, Math.floor(model.contextWindow / 4));
  return wholeOption(options, 'outputReserve', fallback);
}

/** Throws a ConfigError unless the model limits are usable: window a whole number > 0, max output ≥ 0. */
export function checkModelLimits(model: ModelLimits): void {
  if (!Number.isInteger(model.contextWindow) || model.contextWindow <= 0) {
    throw new ConfigError('contextWindow', `contextWindow must be a whole number of tokens > 0, got ${String(model.contextWindow)}`);
  }
  if (!Number.isInteger(model.maxOutputTokens) || model.maxOutputTokens < 0) {
    throw new ConfigError('maxOutputTokens', `maxOutputTokens must be a whole number of tokens ≥ 0, got ${String(model.maxOutputTokens)}`);
  }
}
