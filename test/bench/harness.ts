// Tiny benchmark harness. Every result is reported as a ratio against a baseline
// measured in the same run, because these machines are shared and noisy: absolute
// times are printed for context only and never asserted.
import { Bench } from 'tinybench';

export interface Row {
  benchmark: string;
  case: string;
  value: string;
  baseline: string;
  ratio: string;
}

/** Median milliseconds per call of each task, measured in one interleaved tinybench run. */
export async function medianMs(tasks: Record<string, () => unknown>, options: { time?: number; iterations?: number } = {}): Promise<Record<string, number>> {
  const bench = new Bench({ time: options.time ?? 300, iterations: options.iterations ?? 10, warmup: true });
  for (const [name, fn] of Object.entries(tasks)) bench.add(name, fn);
  await bench.run();
  const out: Record<string, number> = {};
  for (const task of bench.tasks) {
    const latency = task.result && 'latency' in task.result ? task.result.latency : undefined;
    if (!latency) throw new Error(`benchmark task ${task.name} produced no result`);
    out[task.name] = latency.p50 ?? latency.mean;
  }
  return out;
}

export function fmtMs(ms: number): string {
  if (ms < 0.001) return `${(ms * 1e6).toFixed(0)} ns`;
  if (ms < 1) return `${(ms * 1000).toFixed(1)} µs`;
  return `${ms.toFixed(2)} ms`;
}

export function fmtRatio(ratio: number): string {
  if (!Number.isFinite(ratio)) return String(ratio);
  if (ratio >= 100) return `${ratio.toFixed(0)}×`;
  if (ratio >= 0.01) return `${ratio.toFixed(3)}×`;
  return `${ratio.toExponential(2)}×`;
}

/** Prints rows as a Markdown table, so the output can be pasted into the README. */
export function printTable(title: string, rows: Row[]): void {
  const header: (keyof Row)[] = ['benchmark', 'case', 'value', 'baseline', 'ratio'];
  const widths = header.map((h) => Math.max(h.length, ...rows.map((r) => r[h].length)));
  const line = (cells: string[]) => `| ${cells.map((c, i) => c.padEnd(widths[i] ?? 0)).join(' | ')} |`;
  console.log(`\n### ${title}\n`);
  console.log(line(header));
  console.log(`|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|`);
  for (const row of rows) console.log(line(header.map((h) => row[h])));
}
