// Tiny benchmark harness. Every result is reported as a ratio against a baseline
// measured in the same run, because these machines are shared and noisy: absolute
// times are printed for context only and never asserted.
import { readdirSync } from 'node:fs';
import { Bench } from 'tinybench';
import { guardReads } from '../readGuard';

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

/** Prints rows as a Markdown table, so the output can be pasted into docs/benchmarks.md. */
export function printTable(title: string, rows: Row[]): void {
  const header: (keyof Row)[] = ['benchmark', 'case', 'value', 'baseline', 'ratio'];
  const widths = header.map((h) => Math.max(h.length, ...rows.map((r) => r[h].length)));
  const line = (cells: string[]) => `| ${cells.map((c, i) => c.padEnd(widths[i] ?? 0)).join(' | ')} |`;
  console.log(`\n### ${title}\n`);
  console.log(line(header));
  console.log(`|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|`);
  for (const row of rows) console.log(line(header.map((h) => row[h])));
}

/** What a test/bench/*.bench.ts module exports. */
export interface BenchModule {
  run: () => Promise<Row[]>;
  title?: string;
}

export interface RunBenchesOptions {
  /** How long the process may stay alive after the last bench before what keeps it alive is named and it exits with status 1; default 10 s. */
  exitGraceMs?: number;
}

/**
 * Runs every `*.bench.ts` in `dir` (or those whose name contains one of `wanted`), one
 * after another, and prints one Markdown table each. A bench that throws is reported on
 * stderr and the others still run; the exit status is 1 if any failed. The process is
 * left to end by itself: if a bench left something open (a browser, a server) and it
 * is still alive `exitGraceMs` later, the open resources are named and it exits with
 * status 1 instead of hanging.
 */
export async function runBenches(dir: URL, wanted: readonly string[], options: RunBenchesOptions = {}): Promise<void> {
  // Benchmarks read only the repository, and the corpus folder the user named if any.
  guardReads(process.env.WINDOWPANE_CORPUS ? [process.env.WINDOWPANE_CORPUS] : []);
  const files = readdirSync(dir)
    .filter((f) => f.endsWith('.bench.ts'))
    .filter((f) => wanted.length === 0 || wanted.some((w) => f.includes(w)))
    .sort();
  if (files.length === 0) {
    console.error(`No benchmark matches ${wanted.join(', ')}`);
    process.exitCode = 1;
    return;
  }
  const failed: string[] = [];
  for (const file of files) {
    const name = file.replace('.bench.ts', '');
    try {
      const mod = (await import(new URL(file, dir).href)) as BenchModule;
      printTable(mod.title ?? name, await mod.run());
    } catch (error) {
      failed.push(name);
      console.error(`\nBenchmark ${name} failed:`, error);
    }
  }
  if (failed.length > 0) console.error(`\n${failed.length} of ${files.length} benchmarks failed: ${failed.join(', ')}`);
  process.exitCode = failed.length > 0 ? 1 : 0;
  const graceMs = options.exitGraceMs ?? 10_000;
  // Unref'd, so it keeps nothing alive itself: it fires only if something else does.
  setTimeout(() => {
    const open = process.getActiveResourcesInfo().join(', ') || 'nothing Node can name';
    console.error(`Still running ${graceMs} ms after the last benchmark, kept alive by: ${open}. A bench must close what it opens.`);
    process.exit(1);
  }, graceMs).unref();
}

/** Registers how to close something a bench opened. */
export type Defer = (close: () => unknown) => void;

/**
 * Runs `body`, which registers with `defer` how to close each thing it opens right after
 * opening it; when `body` returns or throws, closes them all, the last opened first, each
 * even if an earlier close failed. Throws what `body` threw (with any close failures, as
 * an AggregateError), or a close failure if only closing failed: something left open can
 * keep the process alive, so it fails the bench.
 */
export async function withCleanup<T>(body: (defer: Defer) => Promise<T>): Promise<T> {
  const closers: (() => unknown)[] = [];
  const errors: unknown[] = [];
  let result: T | undefined;
  try {
    result = await body((close) => closers.push(close));
  } catch (error) {
    errors.push(error);
  }
  for (const close of closers.reverse()) {
    try {
      await close();
    } catch (error) {
      errors.push(error);
    }
  }
  if (errors.length === 1) throw errors[0];
  if (errors.length > 1) throw new AggregateError(errors, `${errors.length} failures, see errors: the bench's own first, then those of closing what it opened`);
  return result as T;
}
