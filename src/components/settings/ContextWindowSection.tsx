import type { Dispatch } from 'react';
import { getStrategy, STRATEGY_DESCRIPTIONS, strategyChoices } from '../../core';
import { resetToOwnRule, type WindowSettings } from '../../store';
import { Field } from '../Field';
import { NumberField } from '../NumberField';
import type { SettingsDraftAction, SettingsProblems } from './settingsDraft';
import { StrategyAdditionsFields } from './StrategyAdditionsFields';

export interface ContextWindowSectionProps {
  window: WindowSettings;
  problems: SettingsProblems;
  dispatch: Dispatch<SettingsDraftAction>;
}

/** What each request carries of the conversation: the strategy, what Windowpane adds to it, its knobs and budgets, summaries. */
export function ContextWindowSection({ window: w, problems, dispatch }: ContextWindowSectionProps) {
  const setWindow = (patch: Partial<WindowSettings>) => dispatch({ type: 'editWindow', patch });
  return (
    <section>
      <h3>Context window management</h3>
      <Field label="Strategy" hint={STRATEGY_DESCRIPTIONS[w.strategy] ?? getStrategy(w.strategy)?.description} error={problems.strategy}>
        {(id, describedBy, invalid) => (
          <select id={id} aria-describedby={describedBy} aria-invalid={invalid} value={w.strategy} onChange={(e) => setWindow({ strategy: e.target.value })}>
            {strategyChoices().map(({ name, label }) => (
              <option key={name} value={name}>
                {label}
              </option>
            ))}
          </select>
        )}
      </Field>
      <StrategyAdditionsFields
        window={w}
        onToggle={(addition, on) => setWindow({ additions: { ...w.additions, [w.strategy]: { ...w.additions[w.strategy], [addition]: on } } })}
        onClearOnProvider={(on) => setWindow({ clearOnProvider: on })}
        onReset={() => setWindow(resetToOwnRule(w))}
      />
      <label className="check">
        <input type="checkbox" checked={w.summarize} onChange={(e) => setWindow({ summarize: e.target.checked })} /> Summarize evicted messages
      </label>
      <div className="grid">
        <NumberField
          label="Max messages"
          hint="0 disables the count cap."
          error={problems.maxMessages}
          min={0}
          step={1}
          value={w.maxMessages}
          onValue={(v) => setWindow({ maxMessages: v })}
        />
        <NumberField
          label="Preserve first messages"
          error={problems.preserveFirst}
          min={0}
          step={1}
          value={w.preserveFirst}
          onValue={(v) => setWindow({ preserveFirst: v })}
        />
        <NumberField
          label="Preserve last messages"
          error={problems.preserveLast}
          min={0}
          step={1}
          value={w.preserveLast}
          onValue={(v) => setWindow({ preserveLast: v })}
        />
        <NumberField
          label="Rolling window size"
          hint="Messages kept by the rolling strategy."
          error={problems.rollingMax}
          min={1}
          step={1}
          value={w.rollingMax}
          onValue={(v) => setWindow({ rollingMax: v })}
        />
        {/* Shares are typed as percentages, any fraction of one: step="any" keeps the browser from refusing a value the rules accept. */}
        <NumberField
          label="Trim above (% of window)"
          error={problems.triggerRatio}
          min={0}
          max={100}
          step="any"
          value={percentOf(w.triggerRatio)}
          onValue={(v) => setWindow({ triggerRatio: v / 100 })}
        />
        <NumberField
          label="Trim down to (% of window)"
          error={problems.targetRatio}
          min={0}
          max={100}
          step="any"
          value={percentOf(w.targetRatio)}
          onValue={(v) => setWindow({ targetRatio: v / 100 })}
        />
        <NumberField
          label="After a trim, fall to (% of trigger)"
          hint="Automatic strategy: lower means rarer trims and longer-lived prompt caches."
          error={problems.lowWater}
          min={0}
          max={100}
          step="any"
          value={percentOf(w.lowWater)}
          onValue={(v) => setWindow({ lowWater: v / 100 })}
        />
        <NumberField
          label="Token budget per request"
          hint="0 = no cap beyond the window share."
          error={problems.budgetTokens}
          min={0}
          step={1}
          value={w.budgetTokens}
          onValue={(v) => setWindow({ budgetTokens: v })}
        />
        <NumberField
          label="Money budget per request (USD)"
          hint="0 = no cap. Uses the model's input price."
          error={problems.budgetUsd}
          min={0}
          step="any"
          value={w.budgetUsd}
          onValue={(v) => setWindow({ budgetUsd: v })}
        />
        <Field label="Summary model" hint="Empty uses the chat model; a cheaper one saves money." error={problems.summaryModel}>
          {(id, hint, invalid) => (
            <input
              id={id}
              aria-describedby={hint}
              aria-invalid={invalid}
              value={w.summaryModel}
              onChange={(e) => setWindow({ summaryModel: e.target.value.trim() })}
            />
          )}
        </Field>
        <NumberField
          label="Summary max tokens"
          error={problems.summaryMaxTokens}
          min={1}
          step={1}
          value={w.summaryMaxTokens}
          onValue={(v) => setWindow({ summaryMaxTokens: v })}
        />
        <NumberField
          label="Images and PDFs sent per request"
          hint="The newest images and PDFs, counted together, go with each request; older ones are sent as a one-line note and stay in the conversation. 0 sends none, 20 at most."
          error={problems.keepImages}
          min={0}
          step={1}
          value={w.keepImages}
          onValue={(v) => setWindow({ keepImages: v })}
        />
        {w.strategy === 'summarize' && (
          <NumberField
            label="Files kept after the summary"
            hint="The latest result of each of the last N files read or modified stays word for word after the summary. 0 keeps none."
            error={problems.preserveRecentFiles}
            min={0}
            step={1}
            value={w.preserveRecentFiles}
            onValue={(v) => setWindow({ preserveRecentFiles: v })}
          />
        )}
      </div>
    </section>
  );
}

/** A share as the percentage shown, to a tenth (0.7 is 70, not 70.00000000000001). */
function percentOf(share: number): number {
  return Math.round(share * 1000) / 10;
}
