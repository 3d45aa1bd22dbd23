// Estimator error against exact o200k counts, per message, on real text read from the
// installed packages (README prose, TypeScript sources and .d.ts files, package.json and
// data files, Japanese, Chinese and Korean compiler and accessibility messages; see
// test/core/tokens/corpus.ts), or from WINDOWPANE_CORPUS=dir when set, split into
// 1,500-character messages. chars/4 (the simple rule) is the baseline; the ratio column is the
// default estimator's median error divided by chars/4's. A last row times the default
// estimator against one JSON.stringify pass over the same messages.
import { chars4, estimateMessageTokens, type WindowMessage } from '../../src/core';
import { CORPUS_KINDS, PIECE_CHARS, benchCorpusPieces, quantile, relativeError } from '../core/tokens/corpus';
import { o200kCounter as exact } from '../core/tokens/o200kCounter';
import { fmtMs, fmtRatio, medianMs, type Row } from './harness';

export const title = 'Estimator error vs exact o200k counts (per 1,500-character message)';

const pct = (value: number) => `${(value * 100).toFixed(1)} %`;

export async function run(): Promise<Row[]> {
  const rows: Row[] = [];
  const everything: WindowMessage[] = [];
  for (const kind of CORPUS_KINDS) {
    const messages: WindowMessage[] = benchCorpusPieces(kind).map((content) => ({ role: 'user', content }));
    everything.push(...messages);
    const defaultErrors: number[] = [];
    const chars4Errors: number[] = [];
    for (const message of messages) {
      const truth = exact(message);
      defaultErrors.push(relativeError(estimateMessageTokens(message), truth));
      chars4Errors.push(relativeError(chars4(message), truth));
    }
    const defaultMedian = quantile(defaultErrors, 0.5);
    const chars4Median = quantile(chars4Errors, 0.5);
    rows.push({
      benchmark: 'estimator error',
      case: `${kind} (${messages.length.toLocaleString('en-US')} × ${PIECE_CHARS.toLocaleString('en-US')} chars)`,
      value: `default: median ${pct(defaultMedian)}, p95 ${pct(quantile(defaultErrors, 0.95))}`,
      baseline: `chars/4: median ${pct(chars4Median)}, p95 ${pct(quantile(chars4Errors, 0.95))}`,
      ratio: fmtRatio(defaultMedian / chars4Median),
    });
  }
  const t = await medianMs({
    estimate: () => everything.reduce((sum, message) => sum + estimateMessageTokens(message), 0),
    'JSON.stringify': () => JSON.stringify(everything).length,
  });
  const estimate = t.estimate ?? NaN;
  const stringify = t['JSON.stringify'] ?? NaN;
  rows.push({
    benchmark: 'estimator speed',
    case: `all ${everything.length.toLocaleString('en-US')} messages, uncached`,
    value: fmtMs(estimate),
    baseline: `JSON.stringify ${fmtMs(stringify)}`,
    ratio: fmtRatio(estimate / stringify),
  });
  return rows;
}
