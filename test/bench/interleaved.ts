// Timing for comparisons on a shared, noisy machine where one side may take seconds per
// call (tinybench always runs 16 warm-up and 10 timed calls, minutes for those). Times
// are this process's CPU time (user + system, microsecond resolution), not wall-clock:
// while other jobs hold the cores a wall-clock sample grows by whatever they took, CPU
// time only by the work done. Tasks are timed in rounds, each running every task once in
// turn, so what load still leaks in (shared caches) hits them alike. A full garbage
// collection runs (untimed) before every sample, so no task pays for collecting another
// task's garbage, which CPU time would otherwise charge to whichever task runs next.
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

setFlagsFromString('--expose-gc');
// Forced collections would otherwise age out the bytecode (and compiled code) of a task
// that only runs once per round, and time its recompilation.
setFlagsFromString('--no-flush-bytecode');
const collectGarbage = runInNewContext('gc') as () => void;

/** CPU milliseconds this process has used. */
function cpuMs(): number {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1000;
}

/** A task: a plain call, or a call whose untimed `prepare` makes its input first (a fresh copy, an empty cache). */
export type TimedTask = (() => unknown) | { prepare: () => unknown; run: (input: never) => unknown };

export interface InterleaveOptions {
  /** Timed rounds; the median of them is reported. */
  rounds: number;
  /** Untimed calls of each task (or per task name) before the first round, also used to size batches; default 2. */
  warmup?: number | Record<string, number>;
  /** A task without `prepare` is called in batches lasting at least this long, so neither the timer's resolution nor the cold caches right after the forced collection matter much; default 20 ms. */
  minBatchMs?: number;
}

/** Median CPU milliseconds per call of each task. */
export async function interleavedMedians(tasks: Record<string, TimedTask>, options: InterleaveOptions): Promise<Record<string, number>> {
  const warmupOf = (name: string) => (typeof options.warmup === 'object' ? (options.warmup[name] ?? 2) : (options.warmup ?? 2));
  const minBatchMs = options.minBatchMs ?? 20;
  const names = Object.keys(tasks);
  const batch: Record<string, number> = {};
  const once = async (task: TimedTask): Promise<number> => {
    if (typeof task === 'function') {
      collectGarbage();
      const start = cpuMs();
      const result = task();
      if (result instanceof Promise) await result;
      return cpuMs() - start;
    }
    const input = task.prepare() as never;
    collectGarbage();
    const start = cpuMs();
    const result = task.run(input);
    if (result instanceof Promise) await result;
    return cpuMs() - start;
  };
  for (const name of names) {
    const task = tasks[name] as TimedTask;
    const warmup = warmupOf(name);
    let last = Infinity;
    for (let i = 0; i < warmup; i++) last = await once(task);
    batch[name] = typeof task === 'function' && warmup > 0 ? Math.max(1, Math.ceil(minBatchMs / Math.max(last, 1e-6))) : 1;
  }
  const samples: Record<string, number[]> = Object.fromEntries(names.map((name) => [name, []]));
  for (let round = 0; round < options.rounds; round++) {
    for (const name of names) {
      const task = tasks[name] as TimedTask;
      const size = batch[name] as number;
      if (typeof task !== 'function' || size === 1) {
        samples[name]?.push(await once(task));
        continue;
      }
      collectGarbage();
      const start = cpuMs();
      for (let i = 0; i < size; i++) {
        // Sync tasks are not awaited: a microtask per call would be timed too.
        const result = task();
        if (result instanceof Promise) await result;
      }
      samples[name]?.push((cpuMs() - start) / size);
    }
  }
  const medians: Record<string, number> = {};
  for (const name of names) {
    const sorted = [...(samples[name] as number[])].sort((a, b) => a - b);
    const mid = sorted.length >> 1;
    medians[name] = sorted.length % 2 ? (sorted[mid] as number) : ((sorted[mid - 1] as number) + (sorted[mid] as number)) / 2;
  }
  return medians;
}
