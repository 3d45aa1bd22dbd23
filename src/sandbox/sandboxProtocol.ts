/**
 * Messages between the page, the sandbox frame (public/sandbox.html) and the run_javascript
 * worker it starts (sandboxWorker.ts). The page reads every message from the frame as
 * untrusted input: `javascriptRunner.ts` checks where it came from and what it holds.
 */

/** What the worker is told about its limits. */
export interface SandboxLimits {
  /** Characters of printed output, line breaks included, and of a result or an error. */
  maxOutputChars: number;
  /** Printed output is sent at most once per this many milliseconds once the burst is spent. */
  flushMs: number;
  /** How many print messages may go out back to back before batching starts. */
  burst: number;
}

/** Page → frame: the worker's script and the one snippet to run. The frame passes `code` on to the worker. */
export interface SandboxRequest {
  worker: string;
  code: string;
}

/**
 * Frame → page: `ready` once the frame listens; then from the worker `print` for console
 * output (one or more lines joined by "\n", already cut at the output cap; `cut` once the
 * cap is reached) and one `done` with the last expression's value as text (absent for
 * undefined) or the error it threw; or from the frame `failed` when the worker could not
 * run or sent too many messages.
 */
export type SandboxReply =
  { type: 'ready' } | { type: 'print'; text: string; cut: boolean } | { type: 'done'; result?: string; error?: string } | { type: 'failed'; error: string };
