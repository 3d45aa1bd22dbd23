/**
 * The per-model correction of the token estimate: read once per model per runtime, changed
 * by what each request's reported usage teaches, and saved.
 */
import type { CalibrationState, ContextPlan, WindowMessage } from '../core';
import { observeInputTokens, readCalibration, reportedInputTokens } from '../core';
import type { ChatResult } from '../providers';
import { clearedInputTokens } from './contextEdits';
import type { Runtime } from './runtime';
import { rawCounter, type TurnContext } from './turn';

/** Reads the calibration saved for `modelId` into the state, once per model per runtime. */
export async function loadCalibration(rt: Runtime, modelId: string): Promise<void> {
  if (rt.calibrationLoaded.has(modelId)) return;
  rt.calibrationLoaded.add(modelId);
  const saved = await rt.repositories.settings.getCalibration(modelId).catch(() => undefined);
  if (saved) {
    rt.store.setState(({ calibration }) => ({
      calibration: { version: 1, models: { ...calibration.models, ...readCalibration({ models: { [modelId]: saved } }).models } },
    }));
  }
}

/**
 * Calibrates the estimate of a request (`estimated`, uncalibrated) against what the provider
 * counted for it. The provider counts what is left after its edits, so what it cleared is added
 * back; a request it compacted was answered from its summary and says nothing about the estimate.
 */
export function calibrateOnAnswer(rt: Runtime, ctx: TurnContext, estimated: number, result: ChatResult): void {
  if (result.content.some((block) => block.type === 'compaction')) return;
  const sentTokens = reportedInputTokens(result.usage) + clearedInputTokens(result.contextEdits);
  updateCalibration(rt, ctx.model.id, (c) => observeInputTokens(c, ctx.model.id, estimated, sentTokens));
}

/** Applies what a request taught about the estimate for `modelId`, and saves it. */
export function updateCalibration(rt: Runtime, modelId: string, change: (calibration: CalibrationState) => CalibrationState): void {
  rt.store.setState(({ calibration }) => ({ calibration: change(calibration) }));
  void saveCalibration(rt, modelId);
}

async function saveCalibration(rt: Runtime, modelId: string): Promise<void> {
  const entry = rt.store.getState().calibration.models[modelId];
  if (entry) await rt.repositories.settings.setCalibration(modelId, entry).catch(() => undefined);
}

/**
 * The uncalibrated estimate of everything a plan sends, to compare with what the provider
 * counted. `sent` is the request's messages when they differ from the plan's: earlier
 * answers' thinking the request left out (preserved thinking) was never counted by the
 * provider, so counting it here would teach the estimate to read low.
 */
export function rawEstimate(ctx: TurnContext, plan: ContextPlan, sent: readonly WindowMessage[] = plan.messages.map((item) => item.message)): number {
  let total = 0;
  for (const message of sent) total += rawCounter(message);
  if (plan.metrics.systemTokens > 0 && ctx.calibrationFactor > 0) total += Math.round(plan.metrics.systemTokens / ctx.calibrationFactor);
  return total;
}
