import type { Usage } from '../core';
import { reasoningTokensOf } from '../core';
import type { ExactCountView, GaugePart, PlanReport } from '../store';

export interface TokenGaugeProps {
  /** Estimated tokens of the next request: system + window + draft + output reserve. */
  total: number;
  /** The model's context window, in tokens. */
  contextWindow: number;
  /** The most input a request may hold (the window minus the answer's reserve); every trim ratio is a share of it. */
  maxInputTokens?: number;
  /** Where a trim starts (tokens). */
  trigger: number;
  /** Where a trim cuts down to (tokens). */
  target: number;
  /** The breakdown of `total` (head, summary, newest, draft, reserve…). */
  parts: GaugePart[];
  approachingLimit: boolean;
  lastUsage?: Usage;
  /** What the provider cleared from the last request, in words. */
  providerCleared?: string;
  /** USD spent in this conversation so far, when prices are known. */
  costSoFar?: number;
  /** Output tokens reported in this conversation so far, and the part that was reasoning where the provider itemized it. */
  outputSoFar?: { tokens: number; reasoningTokens?: number };
  /** USD the next request would cost at most, when prices are known. */
  nextRequestCost?: number;
  /** The per-request budget in tokens, when it is smaller than the window share. */
  budgetTokens?: number;
  /** The plan's metrics and warnings in words. */
  report?: PlanReport;
  /** Who manages the context beyond the plan (the provider's compaction), shown under the gauge. */
  contextNote?: string;
  /** Why the provider's compaction is not used for this model, shown in the details (the default strategy falls back on most models). */
  fallbackNote?: string;
  /** What was given up so the MCP tools' definitions fit the window, shown under the gauge: the user can switch tools off. */
  toolsNote?: string;
  /** The conversation is still being read: nothing is counted yet. */
  counting?: boolean;
  /** The provider's count of the request as it stands (`total` is then that count, the draft and the reserve), or why there is none. */
  exactCount?: ExactCountView;
  /** Asks the provider to count the request as it stands (the panel's Count exactly). */
  onCountExactly?: () => void;
}

const fmt = (n: number) => Math.round(n).toLocaleString('en-US');
const pct = (n: number, of: number) => (of > 0 ? Math.min(100, (n / of) * 100) : 0);
export const formatUsd = (usd: number) => (usd < 0.01 && usd > 0 ? `$${usd.toFixed(4)}` : `$${usd.toFixed(2)}`);

/** How full the next request is, against the model's context window, with the trim marks. */
export function TokenGauge(props: TokenGaugeProps) {
  const {
    total,
    contextWindow,
    maxInputTokens,
    trigger,
    target,
    parts,
    approachingLimit,
    lastUsage,
    providerCleared,
    costSoFar,
    outputSoFar,
    nextRequestCost,
    budgetTokens,
    report,
    contextNote,
    fallbackNote,
    toolsNote,
    exactCount,
    onCountExactly,
  } = props;
  const exact = exactCount?.kind === 'exact';
  const lastReasoning = reasoningTokensOf(lastUsage);
  if (props.counting) {
    return (
      <div className="gauge">
        <div className="gauge-counting-row">
          <div
            role="meter"
            aria-label="Context usage"
            aria-busy="true"
            aria-valuemin={0}
            aria-valuemax={contextWindow}
            aria-valuenow={0}
            aria-valuetext="Counting tokens…"
            className="gauge-bar gauge-counting"
          />
          <span className="gauge-label muted">Counting tokens…</span>
        </div>
      </div>
    );
  }
  const share = pct(total, contextWindow);
  const level = total >= trigger ? 'over' : approachingLimit ? 'warn' : 'ok';
  return (
    <div className="gauge">
      <details className="gauge-details">
        <summary>
          <div
            role="meter"
            aria-label="Context usage"
            aria-valuemin={0}
            aria-valuemax={contextWindow}
            aria-valuenow={Math.round(total)}
            aria-valuetext={`${fmt(total)} of ${fmt(contextWindow)} tokens (${share.toFixed(share < 1 ? 1 : 0)} %)${exact ? ', exact' : ''}`}
            className={`gauge-bar gauge-${level}`}
          >
            <div className="gauge-fill" style={{ width: `${share}%` }} />
            <div className="gauge-mark gauge-target" style={{ left: `${pct(target, contextWindow)}%` }} title={`Trim down to ${fmt(target)} tokens`} />
            <div className="gauge-mark gauge-trigger" style={{ left: `${pct(trigger, contextWindow)}%` }} title={`Trim above ${fmt(trigger)} tokens`} />
          </div>
          <span className="gauge-label">
            {fmt(total)} / {fmt(contextWindow)} tokens
            {exact && <span className="gauge-exact"> exact</span>}
            {nextRequestCost !== undefined && <span className="muted"> · next ≤ {formatUsd(nextRequestCost)}</span>}
          </span>
        </summary>
        <div className="gauge-panel">
          <table>
            <caption>Next request (estimated)</caption>
            <tbody>
              {parts.map((part) => (
                <tr key={part.label}>
                  <th scope="row">{part.label}</th>
                  <td>{fmt(part.tokens)}</td>
                </tr>
              ))}
              {exactCount?.kind === 'exact' && (
                <tr>
                  <th scope="row">Input counted by the provider (exact)</th>
                  <td>{fmt(exactCount.inputTokens)}</td>
                </tr>
              )}
              <tr className="total">
                <th scope="row">Total</th>
                <td>{fmt(total)}</td>
              </tr>
              {maxInputTokens !== undefined && (
                <tr>
                  <th scope="row">Max input tokens (window − reserve)</th>
                  <td>{fmt(maxInputTokens)}</td>
                </tr>
              )}
              <tr>
                <th scope="row">Trim above / down to</th>
                <td>
                  {fmt(trigger)} / {fmt(target)}
                </td>
              </tr>
              {budgetTokens !== undefined && (
                <tr>
                  <th scope="row">Your per-request budget</th>
                  <td>{fmt(budgetTokens)}</td>
                </tr>
              )}
            </tbody>
          </table>
          {exactCount && <ExactCount view={exactCount} onCountExactly={onCountExactly} />}
          {lastUsage && (
            <table>
              <caption>Last request (reported by the provider)</caption>
              <tbody>
                <tr>
                  <th scope="row">Input</th>
                  <td>{fmt(lastUsage.inputTokens)}</td>
                </tr>
                <tr>
                  <th scope="row">Cache read / write</th>
                  <td>
                    {fmt(lastUsage.cacheReadTokens)} / {fmt(lastUsage.cacheWriteTokens)}
                  </td>
                </tr>
                <tr>
                  <th scope="row">Output</th>
                  <td>
                    {fmt(lastUsage.outputTokens)}
                    {lastReasoning ? `, of which ${fmt(lastReasoning)} reasoning` : ''}
                  </td>
                </tr>
              </tbody>
            </table>
          )}
          {providerCleared && <p className="gauge-provider-cleared">{providerCleared}.</p>}
          {fallbackNote && <p className="gauge-note gauge-fallback">{fallbackNote}</p>}
          {(report || costSoFar !== undefined || outputSoFar) && (
            <div className="gauge-metrics">
              {report && <p>{report.conversation}</p>}
              {report?.trimmed && <p>{report.trimmed}</p>}
              {report?.pruned && <p>{report.pruned}</p>}
              {costSoFar !== undefined && <p>This conversation so far: {formatUsd(costSoFar)}</p>}
              {outputSoFar?.reasoningTokens !== undefined && (
                <p>
                  Output so far: {fmt(outputSoFar.tokens)} tokens, of which {fmt(outputSoFar.reasoningTokens)} reasoning (billed as output)
                </p>
              )}
            </div>
          )}
        </div>
      </details>
      {contextNote && <p className="gauge-note">{contextNote}</p>}
      {toolsNote && <p className="gauge-note gauge-tools">{toolsNote}</p>}
      {approachingLimit && (
        <p className="gauge-warning" role="status">
          Approaching the limit: older messages will be trimmed on a coming request.
          {report?.messageCapWarning && <span> {report.messageCapWarning}.</span>}
        </p>
      )}
    </div>
  );
}

/** Why the number is an estimate, and the button that asks the provider to count where it can (an exact count shows in the table). */
function ExactCount({ view, onCountExactly }: { view: ExactCountView; onCountExactly?: () => void }) {
  if (view.kind === 'exact') return null;
  if (!view.canCount) return <p className="gauge-count muted">Estimate; this server cannot count exactly.</p>;
  return (
    <p className="gauge-count">
      <span className="muted">{view.note ?? 'Estimate.'} </span>
      <button type="button" onClick={onCountExactly} disabled={view.busy || !onCountExactly}>
        {view.busy ? 'Counting…' : 'Count exactly'}
      </button>
    </p>
  );
}
