/**
 * The page's side of run_javascript: one fresh sandbox worker per call, terminated when
 * the snippet finishes, when it passes the time limit, or when the user presses Stop.
 * The limit is enforced here, not in the worker: a snippet stuck in `while (true) {}`
 * never yields to a timer of its own.
 */
import { RUN_MAX_OUTPUT_CHARS, RUN_TIME_LIMIT_MS, type RunOutcome } from '../../core';
import type { SandboxReply, SandboxRequest } from './sandboxProtocol';

/**
 * What one run produced, as the core's `formatRunResult` reads it: printed lines (at most
 * RUN_MAX_OUTPUT_CHARS in all), the last value or the error, and whether the time limit
 * ended it; plus whether the user's Stop ended it, and whether printing passed the cap.
 */
export interface JavascriptRun extends RunOutcome {
  stopped?: boolean;
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
      const logs: string[] = [];
      let chars = 0;
      let truncated = false;
      let worker: SandboxPort | undefined;
      let timer: ReturnType<typeof setTimeout> | undefined = undefined;
      const finish = (end: Omit<JavascriptRun, 'logs' | 'truncated'>) => {
        clearTimeout(timer);
        signal.removeEventListener('abort', onAbort);
        worker?.terminate();
        resolve({ logs, truncated, ...end });
      };
      const onAbort = () => finish({ stopped: true });
      if (signal.aborted) return finish({ stopped: true });
      try {
        worker = spawn();
      } catch (error) {
        return finish({ error: `The sandbox could not start: ${error instanceof Error ? error.message : String(error)}` });
      }
      signal.addEventListener('abort', onAbort, { once: true });
      timer = setTimeout(() => finish({ timedOut: true }), timeLimitMs);
      worker.onmessage = ({ data }) => {
        if (data.type === 'done') return finish(data.error !== undefined ? { error: data.error } : data.result !== undefined ? { result: data.result } : {});
        if (truncated) return;
        // The worker cuts too; this keeps the page's total within the cap whatever it sends.
        const room = RUN_MAX_OUTPUT_CHARS - chars;
        const text = data.text.length > room ? data.text.slice(0, Math.max(0, room)) : data.text;
        logs.push(text);
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
