/** Messages between the page and the run_javascript worker (sandbox.worker.ts). */

/** Page → worker: the one snippet to run. */
export interface SandboxRequest {
  code: string;
}

/**
 * Worker → page: `print` for each console call, log and error alike (text already cut at
 * the output cap; `cut` once the cap is reached), then one `done` with the last
 * expression's value as text (absent for undefined) or the error it threw.
 */
export type SandboxReply =
  | { type: 'print'; text: string; cut: boolean }
  | { type: 'done'; result?: string; error?: string };
