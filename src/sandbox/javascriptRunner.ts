/**
 * The page's side of run_javascript: one fresh sandbox per call, removed when the snippet
 * finishes, when it passes the time limit, when the user presses Stop, or when what comes
 * back breaks the rules. The sandbox is a `<iframe sandbox="allow-scripts">` (an opaque
 * origin: no access to the app's storage or DOM) loading public/sandbox.html, whose
 * Content-Security-Policy allows no request at all; it starts the worker that runs the
 * snippet from a `blob:` URL, so the worker is under the same policy. A file of its own
 * rather than `srcdoc`: a srcdoc (or blob:) frame inherits the app's policy, which has no
 * 'unsafe-eval', and the worker needs eval to run a snippet.
 *
 * Limits are enforced here, not in the sandbox: a snippet stuck in `while (true) {}` never
 * yields to a timer of its own, and a snippet may have subverted the worker's code. Every
 * message from the frame is checked (its source, its origin, its shape) and counted, empty
 * ones too; passing the message cap or the output cap stops the snippet.
 */
import { RUN_MAX_OUTPUT_CHARS, RUN_TIME_LIMIT_MS, type RunOutcome } from '../core';
import type { SandboxLimits, SandboxRequest } from './sandboxProtocol';
import { sandboxWorkerSource } from './sandboxWorker';

/**
 * What one run produced, as the core's `formatRunResult` reads it: printed output (at most
 * RUN_MAX_OUTPUT_CHARS in all), the last value or the error, and whether the time limit
 * ended it; plus whether the user's Stop ended it, and whether printing passed the cap.
 */
export interface JavascriptRun extends RunOutcome {
  stopped?: boolean;
  truncated: boolean;
}

/** Runs a snippet; resolves (never rejects) once it is over. Injected through the runtime deps. */
export type JavascriptRunner = (code: string, signal: AbortSignal) => Promise<JavascriptRun>;

/**
 * The sandbox as the runner uses it. `onmessage` gets only what the sandbox itself sent
 * (the frame adapter drops messages from any other window), as untrusted data.
 */
export interface SandboxPort {
  postMessage(message: SandboxRequest): void;
  terminate(): void;
  onmessage: ((data: unknown) => void) | null;
  onerror: ((message: string) => void) | null;
}

/** Messages a run may receive from its sandbox, all kinds counted; a batched, honest worker sends at most about 125 in 5 s. */
export const RUN_MAX_MESSAGES = 200;

/** The worker's batching: 20 messages back to back, then at most one per 50 ms. */
export const SANDBOX_LIMITS: SandboxLimits = { maxOutputChars: RUN_MAX_OUTPUT_CHARS, flushMs: 50, burst: 20 };

let workerSource: string | undefined;

/** Starts one sandbox frame, hidden, and listens for messages from that frame only. */
export function spawnSandboxFrame(): SandboxPort {
  const frame = document.createElement('iframe');
  frame.setAttribute('sandbox', 'allow-scripts');
  frame.setAttribute('aria-hidden', 'true');
  frame.tabIndex = -1;
  frame.title = 'run_javascript sandbox';
  frame.hidden = true;
  frame.src = `${import.meta.env.BASE_URL}sandbox.html`;
  const onWindowMessage = (event: MessageEvent) => {
    // Only that frame's window, with the opaque origin a sandboxed frame has.
    if (event.source === null || event.source !== frame.contentWindow || event.origin !== 'null') return;
    port.onmessage?.(event.data);
  };
  const port: SandboxPort = {
    onmessage: null,
    onerror: null,
    postMessage(message) {
      // The frame's origin is opaque, so no origin can be named; it is the frame made above.
      frame.contentWindow?.postMessage(message, '*');
    },
    terminate() {
      window.removeEventListener('message', onWindowMessage);
      // Removing the frame ends its document and the worker it started.
      frame.remove();
    },
  };
  window.addEventListener('message', onWindowMessage);
  frame.addEventListener('error', () => port.onerror?.('the sandbox page could not load'));
  document.body.append(frame);
  return port;
}

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null;
const isOptionalString = (value: unknown): value is string | undefined => value === undefined || typeof value === 'string';
const cut = (text: string) => (text.length > RUN_MAX_OUTPUT_CHARS ? text.slice(0, RUN_MAX_OUTPUT_CHARS) : text);
const format = (n: number) => n.toLocaleString('en-US');

/**
 * Why a sandbox never reported ready. Offline that is expected: the browser loads a
 * sandboxed frame from the network, never from the service worker's cache (its opaque
 * origin keeps the worker out), so public/sandbox.html cannot load.
 */
function notStarted(timeLimitMs: number): string {
  const why = `The sandbox did not start within ${timeLimitMs / 1000} seconds.`;
  return navigator.onLine ? why : `${why} This device is offline, and the sandbox's page (sandbox.html) loads only from the network.`;
}

/** A runner that starts one sandbox from `spawn` per call and stops it after `timeLimitMs`. */
export function createWorkerRunner(spawn: () => SandboxPort = spawnSandboxFrame, timeLimitMs = RUN_TIME_LIMIT_MS): JavascriptRunner {
  return (code, signal) =>
    new Promise<JavascriptRun>((resolve) => {
      const logs: string[] = [];
      let chars = 0;
      let messages = 0;
      let truncated = false;
      let sent = false;
      let over = false;
      let sandbox: SandboxPort | undefined;
      let timer: ReturnType<typeof setTimeout> | undefined = undefined;
      const finish = (end: Omit<JavascriptRun, 'logs' | 'truncated'>) => {
        if (over) return;
        over = true;
        clearTimeout(timer);
        signal.removeEventListener('abort', onAbort);
        if (sandbox) {
          sandbox.onmessage = null;
          sandbox.onerror = null;
          sandbox.terminate();
        }
        resolve({ logs, truncated, ...end });
      };
      const onAbort = () => finish({ stopped: true });
      const refuse = (why: string) => finish({ error: `The snippet was stopped: ${why}.` });
      if (signal.aborted) return finish({ stopped: true });
      try {
        sandbox = spawn();
      } catch (error) {
        return finish({ error: `The sandbox could not start: ${error instanceof Error ? error.message : String(error)}` });
      }
      const port = sandbox;
      signal.addEventListener('abort', onAbort, { once: true });
      timer = setTimeout(() => (sent ? finish({ timedOut: true }) : finish({ error: notStarted(timeLimitMs) })), timeLimitMs);
      port.onmessage = (data) => {
        if (++messages > RUN_MAX_MESSAGES) {
          return refuse(`it sent more than ${format(RUN_MAX_MESSAGES)} messages`);
        }
        if (!isRecord(data)) return refuse('the sandbox sent a malformed message');
        switch (data.type) {
          case 'ready':
            if (sent) return;
            sent = true;
            workerSource ??= sandboxWorkerSource(SANDBOX_LIMITS);
            return port.postMessage({ worker: workerSource, code });
          case 'print': {
            if (typeof data.text !== 'string' || typeof data.cut !== 'boolean') return refuse('the sandbox sent a malformed message');
            // Every message costs at least one character, so empty ones add up too.
            chars += data.text.length + 1;
            if (chars > RUN_MAX_OUTPUT_CHARS) {
              truncated = true;
              const room = RUN_MAX_OUTPUT_CHARS - (chars - data.text.length - 1);
              if (room > 0) logs.push(data.text.slice(0, room - 1));
              return refuse(`it printed more than ${format(RUN_MAX_OUTPUT_CHARS)} characters`);
            }
            if (data.text.length > 0 || !data.cut) logs.push(data.text);
            if (data.cut) truncated = true;
            return;
          }
          case 'done':
            if (!isOptionalString(data.result) || !isOptionalString(data.error)) return refuse('the sandbox sent a malformed message');
            if (data.error !== undefined) return finish({ error: cut(data.error) });
            return finish(data.result !== undefined ? { result: cut(data.result) } : {});
          case 'failed':
            return finish({ error: `The sandbox failed: ${typeof data.error === 'string' ? cut(data.error) : 'no reason given'}` });
          default:
            return refuse('the sandbox sent a message of an unknown kind');
        }
      };
      port.onerror = (message) => finish({ error: `The sandbox failed: ${message}` });
    });
}
