import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  CALIBRATION_MAX_FACTOR,
  CALIBRATION_MIN_FACTOR,
  CALIBRATION_MIN_TOKENS,
  calibratedCounter,
  calibrationFactor,
  emptyCalibration,
  estimateMessageTokens,
  observeInputTokens,
  readCalibration,
  reportedInputTokens,
  tightenCalibration,
  type CalibrationState,
} from '../../../src/core';

const MODEL = 'claude-opus-5-5';

describe('calibration from reported input tokens', () => {
  it('starts at 1 and takes the first observation as the factor', () => {
    const empty = emptyCalibration();
    expect(calibrationFactor(empty, MODEL)).toBe(1);
    const state = observeInputTokens(empty, MODEL, 10_000, 11_500);
    expect(calibrationFactor(state, MODEL)).toBeCloseTo(1.15, 10);
    expect(calibrationFactor(state, 'gpt-6-luna')).toBe(1);
    expect(empty.models).toEqual({}); // the input state is not modified
  });

  it('smooths later observations instead of jumping to each one', () => {
    let state = observeInputTokens(emptyCalibration(), MODEL, 10_000, 11_000);
    for (let i = 0; i < 10; i++) state = observeInputTokens(state, MODEL, 10_000, 11_000);
    const settled = calibrationFactor(state, MODEL);
    expect(settled).toBeCloseTo(1.1, 10);
    // One outlier moves the factor toward it, but only part of the way.
    const after = calibrationFactor(observeInputTokens(state, MODEL, 10_000, 15_000), MODEL);
    expect(after).toBeGreaterThan(settled);
    expect(after).toBeLessThan(1.5);
  });

  it('keeps the factor plans use while the learned one wobbles within 5 %, and follows it beyond', () => {
    let state = observeInputTokens(emptyCalibration(), MODEL, 10_000, 11_000); // 1.1
    for (const reported of [11_300, 10_800, 11_200, 10_900]) {
      state = observeInputTokens(state, MODEL, 10_000, reported);
      expect(calibrationFactor(state, MODEL)).toBe(1.1);
    }
    expect(state.models[MODEL]!.factor).not.toBe(1.1);
    for (let i = 0; i < 3; i++) state = observeInputTokens(state, MODEL, 10_000, 13_000);
    expect(calibrationFactor(state, MODEL)).toBe(state.models[MODEL]!.factor);
    expect(calibrationFactor(state, MODEL)).toBeGreaterThan(1.1 * 1.05);
    expect(readCalibration(JSON.parse(JSON.stringify(observeInputTokens(state, MODEL, 10_000, 12_500))))).toEqual(
      observeInputTokens(state, MODEL, 10_000, 12_500),
    );
  });

  it('is bounded to [0.5, 2] whatever the provider reports', () => {
    const high = observeInputTokens(emptyCalibration(), MODEL, 1_000, 50_000);
    expect(calibrationFactor(high, MODEL)).toBe(CALIBRATION_MAX_FACTOR);
    const low = observeInputTokens(emptyCalibration(), MODEL, 50_000, 1_000);
    expect(calibrationFactor(low, MODEL)).toBe(CALIBRATION_MIN_FACTOR);
  });

  it('ignores tiny requests and nonsense counts', () => {
    const state = emptyCalibration();
    expect(observeInputTokens(state, MODEL, CALIBRATION_MIN_TOKENS - 1, 5_000)).toBe(state);
    expect(observeInputTokens(state, MODEL, 1_000, 0)).toBe(state);
    expect(observeInputTokens(state, MODEL, Number.NaN, 1_000)).toBe(state);
  });

  it('tightens after a context-length error to the real count, and never loosens', () => {
    let state = observeInputTokens(emptyCalibration(), MODEL, 100_000, 120_000); // factor 1.2
    state = tightenCalibration(state, MODEL, 180_000, 215_098);
    expect(calibrationFactor(state, MODEL)).toBe(1.2); // 215,098 / 180,000 ≈ 1.195 < 1.2: keep
    state = tightenCalibration(state, MODEL, 150_000, 215_098);
    expect(calibrationFactor(state, MODEL)).toBeCloseTo(215_098 / 150_000, 10);
    expect(Math.ceil(150_000 * calibrationFactor(state, MODEL))).toBeGreaterThanOrEqual(215_098);
  });

  it('keeps every factor in bounds and never lowers one by tightening, for any sequence', () => {
    const step = fc.record({
      tighten: fc.boolean(),
      estimated: fc.integer({ min: 1, max: 2_000_000 }),
      reported: fc.integer({ min: 1, max: 2_000_000 }),
    });
    fc.assert(
      fc.property(fc.array(step, { maxLength: 30 }), (steps) => {
        let state: CalibrationState = emptyCalibration();
        for (const { tighten, estimated, reported } of steps) {
          const before = calibrationFactor(state, MODEL);
          state = tighten ? tightenCalibration(state, MODEL, estimated, reported) : observeInputTokens(state, MODEL, estimated, reported);
          const after = calibrationFactor(state, MODEL);
          expect(after).toBeGreaterThanOrEqual(CALIBRATION_MIN_FACTOR);
          expect(after).toBeLessThanOrEqual(CALIBRATION_MAX_FACTOR);
          if (tighten) expect(after).toBeGreaterThanOrEqual(before);
        }
      }),
      { numRuns: 300 },
    );
  });

  it('is plain JSON that survives a round trip through storage', () => {
    let state = observeInputTokens(emptyCalibration(), MODEL, 10_000, 12_000);
    state = observeInputTokens(state, 'gpt-6-luna', 8_000, 7_000);
    const restored = readCalibration(JSON.parse(JSON.stringify(state)));
    expect(restored).toEqual(state);
  });

  it('drops corrupt entries when reading stored state, clamping the rest', () => {
    const restored = readCalibration({
      version: 1,
      models: {
        good: { factor: 1.3, samples: 4 },
        huge: { factor: 40, samples: 1 },
        negative: { factor: -1, samples: 1 },
        text: { factor: '1.2', samples: 1 },
        fractional: { factor: 1.1, samples: 0.5 },
        nothing: null,
      },
    });
    expect(restored.models).toEqual({ good: { factor: 1.3, samples: 4 }, huge: { factor: CALIBRATION_MAX_FACTOR, samples: 1 } });
    expect(readCalibration('garbage')).toEqual(emptyCalibration());
    expect(readCalibration(null)).toEqual(emptyCalibration());
  });
});

describe('calibratedCounter', () => {
  it('scales each message count by the factor, rounding up', () => {
    const message = { role: 'user', content: 'A message of a few words, counted and then scaled.' };
    const raw = estimateMessageTokens(message);
    expect(calibratedCounter(estimateMessageTokens, 1.25)(message)).toBe(Math.ceil(raw * 1.25));
    expect(calibratedCounter(estimateMessageTokens, 1)).toBe(estimateMessageTokens);
    expect(calibratedCounter(estimateMessageTokens, 99)(message)).toBe(Math.ceil(raw * CALIBRATION_MAX_FACTOR));
  });
});

describe('reportedInputTokens', () => {
  it('adds cache reads and writes back to the uncached input', () => {
    expect(reportedInputTokens({ inputTokens: 1_200, outputTokens: 300, cacheReadTokens: 50_000, cacheWriteTokens: 2_000 })).toBe(53_200);
  });
});
