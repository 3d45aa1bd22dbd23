import type { Usage } from '../conversation';
import type { MessageTokenCounter } from './types';

// Providers report the real input count after every response, and after a context-length
// error they report it in the error message. Calibration turns those reports into one
// multiplicative factor per model, applied on top of the estimator, so an estimator that
// runs 10 % low for a model's tokenizer (Anthropic's differs from o200k) stops
// under-counting after the first few replies.

/** Lowest factor calibration ever applies: an estimate is never cut by more than half. */
export const CALIBRATION_MIN_FACTOR = 0.5;
/** Highest factor calibration ever applies: an estimate is never more than doubled. */
export const CALIBRATION_MAX_FACTOR = 2;
/**
 * Weight of a new observation once a model has a few samples (exponential smoothing in
 * log space, so a 2× over-count and a 2× under-count pull equally hard).
 */
export const CALIBRATION_SMOOTHING = 0.3;
/**
 * Requests estimated below this many tokens are not used for calibration: framing the
 * estimate cannot see (tool definitions, system prompt wrappers) dominates them.
 */
export const CALIBRATION_MIN_TOKENS = 256;

/**
 * How far the learned factor may drift from the one plans use before plans follow it. The
 * learned factor moves a little with every answer; planned with as it is, each wobble would
 * move where the window cuts and break the provider's prompt cache for nothing.
 */
export const CALIBRATION_PLAN_BAND = 0.05;

/** One model's learned correction. */
export interface ModelCalibration {
  /** reported ÷ estimated input tokens, smoothed; within [CALIBRATION_MIN_FACTOR, CALIBRATION_MAX_FACTOR]. */
  factor: number;
  /** Observations folded into `factor` (tightenings included). */
  samples: number;
  /** The factor plans use, when it differs from `factor`: it follows `factor` once that is more than CALIBRATION_PLAN_BAND away. */
  planned?: number;
}

/** Calibration for every model seen, as plain JSON so it can be persisted as is. */
export interface CalibrationState {
  version: 1;
  /** Keyed by model id as resolved by the model registry. */
  models: Record<string, ModelCalibration>;
}

/** A state with no observations: every model's factor is 1. */
export function emptyCalibration(): CalibrationState {
  return { version: 1, models: {} };
}

/** The factor to apply for `modelId`: 1 when the model has never been observed. */
/** The factor plans for `modelId` are made with (1 when nothing was learned yet). */
export function calibrationFactor(state: CalibrationState, modelId: string): number {
  const model = state.models[modelId];
  return model?.planned ?? model?.factor ?? 1;
}

/** A model's calibration after its learned factor became `factor`: plans keep their factor while it stays within the band. */
function settled(previous: ModelCalibration | undefined, factor: number, samples: number): ModelCalibration {
  const planned = previous ? (previous.planned ?? previous.factor) : factor;
  return Math.abs(factor / planned - 1) > CALIBRATION_PLAN_BAND || planned === factor ? { factor, samples } : { factor, samples, planned };
}

function clampFactor(factor: number): number {
  return Math.min(CALIBRATION_MAX_FACTOR, Math.max(CALIBRATION_MIN_FACTOR, factor));
}

function isCount(value: number): boolean {
  return Number.isFinite(value) && value > 0;
}

function withModel(state: CalibrationState, modelId: string, calibration: ModelCalibration): CalibrationState {
  return { version: 1, models: { ...state.models, [modelId]: calibration } };
}

/**
 * Folds one response into the model's factor and returns the new state (the input is
 * not modified). `estimatedTokens` is the uncalibrated estimate of everything sent
 * (system prompt and tools included); `reportedTokens` is what the provider counted,
 * cached tokens included (see `reportedInputTokens`). The first observation sets the
 * factor, the next ones average in with weight max(CALIBRATION_SMOOTHING, 1 / (samples + 1)).
 * Observations below CALIBRATION_MIN_TOKENS or with non-positive counts change nothing.
 */
export function observeInputTokens(
  state: CalibrationState,
  modelId: string,
  estimatedTokens: number,
  reportedTokens: number,
  smoothing: number = CALIBRATION_SMOOTHING,
): CalibrationState {
  if (!isCount(estimatedTokens) || !isCount(reportedTokens) || estimatedTokens < CALIBRATION_MIN_TOKENS) return state;
  const ratio = clampFactor(reportedTokens / estimatedTokens);
  const previous = state.models[modelId];
  if (previous === undefined) return withModel(state, modelId, { factor: ratio, samples: 1 });
  const weight = Math.min(1, Math.max(smoothing, 1 / (previous.samples + 1)));
  const factor = clampFactor(Math.exp((1 - weight) * Math.log(previous.factor) + weight * Math.log(ratio)));
  return withModel(state, modelId, settled(previous, factor, previous.samples + 1));
}

/**
 * After a context-length error: raises the model's factor so that `estimatedTokens`
 * calibrates to at least `actualTokens`, the count the API reported in the error. Never
 * lowers the factor (an error proves the estimate was too low, not too high), and stays
 * within the bounds, so a request still estimated low after tightening is the
 * planner's to handle with its margin.
 */
export function tightenCalibration(state: CalibrationState, modelId: string, estimatedTokens: number, actualTokens: number): CalibrationState {
  if (!isCount(estimatedTokens) || !isCount(actualTokens)) return state;
  const previous = state.models[modelId];
  const current = previous?.factor ?? 1;
  const factor = Math.max(current, clampFactor(actualTokens / estimatedTokens));
  // An error proves the plan's count was too low: plans take the tightened factor at once.
  const planned = Math.max(factor, previous?.planned ?? 0);
  return withModel(
    state,
    modelId,
    planned === factor ? { factor, samples: (previous?.samples ?? 0) + 1 } : { factor, samples: (previous?.samples ?? 0) + 1, planned },
  );
}

/**
 * All input tokens a provider counted for one response, in the Usage convention
 * (Anthropic's: `inputTokens` excludes cache reads and writes), so cached tokens are
 * added back. This is the number to compare with an estimate of the whole request.
 */
export function reportedInputTokens(usage: Usage): number {
  return usage.inputTokens + usage.cacheReadTokens + usage.cacheWriteTokens;
}

/**
 * A counter that scales `counter` by `factor`, rounding each message up so a calibrated
 * plan errs on the side of trimming. Apply it outside a count cache, so changing the
 * factor keeps the cached raw counts valid.
 */
export function calibratedCounter(counter: MessageTokenCounter, factor: number): MessageTokenCounter {
  if (factor === 1) return counter;
  const safeFactor = clampFactor(Number.isFinite(factor) ? factor : 1);
  return (message) => Math.ceil(counter(message) * safeFactor);
}

/**
 * Reads persisted calibration (parsed JSON of any shape). Entries that are not a finite
 * factor with a whole sample count are dropped and factors are clamped, so corrupt
 * storage costs the learned factors, never a crash.
 */
export function readCalibration(value: unknown): CalibrationState {
  const state = emptyCalibration();
  if (typeof value !== 'object' || value === null) return state;
  const models = (value as { models?: unknown }).models;
  if (typeof models !== 'object' || models === null) return state;
  for (const [modelId, entry] of Object.entries(models as Record<string, unknown>)) {
    if (typeof entry !== 'object' || entry === null) continue;
    const { factor, samples, planned } = entry as { factor?: unknown; samples?: unknown; planned?: unknown };
    if (typeof factor !== 'number' || !Number.isFinite(factor) || factor <= 0) continue;
    if (typeof samples !== 'number' || !Number.isInteger(samples) || samples < 0) continue;
    const usable = typeof planned === 'number' && Number.isFinite(planned) && planned > 0;
    state.models[modelId] =
      usable && clampFactor(planned) !== clampFactor(factor)
        ? { factor: clampFactor(factor), samples, planned: clampFactor(planned) }
        : { factor: clampFactor(factor), samples };
  }
  return state;
}
