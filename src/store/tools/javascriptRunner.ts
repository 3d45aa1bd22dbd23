/**
 * The page's side of run_javascript: one fresh sandbox worker per call, terminated when
 * the snippet finishes, when it passes the time limit, or when the user presses Stop.
 * The limit is enforced here, not in the worker: a snippet stuck in `while (true) {}`
 * never yields to a timer of its own.
 */
import { RUN_MAX_OUTPUT_CHARS, RUN_TIME_LIMIT_MS } from '../../core';
import type { SandboxReply, SandboxRequest } from './sandboxProtocol';

/** What one run produced. */
export interface JavascriptRun {
  /** What it printed with console.log / console.error, one call per line, cut at RUN_MAX_OUTPUT_CHARS. */
  output: string;
  /** The value of its last expression (awaited), as text; absent when undefined. */
  result?: string;
  /** What it threw, as "Name: message". */
  error?: string;
  /** Why it did not finish by itself: the time limit or the user's Stop. */
  ended?: 'time_limit' | 'stopped';
  /** The output reached the cap and was cut. */
  truncated: boolean;
}

/** Runs a snippet; resolves (never rejects) once it is over. Injected through the runtime deps. */
export type JavascriptRunner = (code: string, signal: AbortSignal) => Promise<JavascriptRun>;

/** The worker's port as the runner uses it (a real Worker in the browser). */
export interface SandboxPort {
  postMessage(message: SandboxRequest): void;
  terminate(): void;
  onmessage: ((event: MessageEvent<SandboxReply>) => void) | null;
  onerror: ((event: ErrorEvent) => void) | null;
}

function spawnWorker(): SandboxPort {
  return new Worker(new URL('./sandbox.worker.ts', import.meta.url), { type: 'module', name: 'run_javascript' });
}

/** A runner that starts one worker from `spawn` per call and stops it after `timeLimitMs`. */
export function createWorkerRunner(spawn: () => SandboxPort = spawnWorker, timeLimitMs = RUN_TIME_LIMIT_MS): JavascriptRunner {
  return (code, signal) =>
    new Promise<JavascriptRun>((resolve) => {
      const lines: string[] = [];
      let chars = 0;
      let truncated = false;
      let worker: SandboxPort | undefined;
      let timer: ReturnType<typeof setTimeout> | undefined = undefined;
      const finish = (end: Omit<JavascriptRun, 'output' | 'truncated'>) => {
        clearTimeout(timer);
        signal.removeEventListener('abort', onAbort);
        worker?.terminate();
        resolve({ output: lines.join('\n'), truncated, ...end });
      };
      const onAbort = () => finish({ ended: 'stopped' });
      if (signal.aborted) return finish({ ended: 'stopped' });
      try {
        worker = spawn();
      } catch (error) {
        return finish({ error: `The sandbox could not start: ${error instanceof Error ? error.message : String(error)}` });
      }
      signal.addEventListener('abort', onAbort, { once: true });
      timer = setTimeout(() => finish({ ended: 'time_limit' }), timeLimitMs);
      worker.onmessage = ({ data }) => {
        if (data.type === 'done') return finish({ result: data.result, error: data.error });
        if (truncated) return;
        // The worker cuts too; this keeps the page's total within the cap whatever it sends.
        const room = RUN_MAX_OUTPUT_CHARS - chars;
        const text = data.text.length > room ? data.text.slice(0, Math.max(0, room)) : data.text;
        lines.push(text);
        chars += text.length + 1;
        truncated = data.cut || text.length < data.text.length;
      };
      worker.onerror = (event) => {
        event.preventDefault();
        finish({ error: `The sandbox failed: ${event.message || 'the worker script could not run'}` });
      };
      worker.postMessage({ code });
    });
}
