/**
 * Change notices from other tabs and the sync Worker, gathered into batches. A first sync
 * announces every message it saves, hundreds within a frame: applied one by one, each would
 * read storage and update the page on its own. Gathered, the notices heard within a short
 * wait are applied together, and the next batch waits as long again after the last one is
 * applied, so the page always has time between two updates to draw and answer the user.
 */
import type { StorageChange } from '../persistence';

/** How long notices are gathered before a batch is applied, and the least time between two batches. */
export const CHANGE_BATCH_MS = 100;

export interface ChangeBatcher {
  /** Adds a notice to the next batch (a notice already waiting in it is not added twice). */
  add(change: StorageChange): void;
  /** Drops what waits and applies nothing more. */
  close(): void;
}

const keyOf = (change: StorageChange) => `${change.type}\u0000${change.conversationId ?? ''}\u0000${change.messageId ?? ''}\u0000${change.settingKey ?? ''}`;

/**
 * Calls `apply` with the notices gathered `wait` ms after the first of a batch, in the order
 * they were first heard. One batch is applied at a time: notices heard meanwhile form the
 * next, applied `wait` ms after `apply` settles. `apply` reports its own failures.
 */
export function createChangeBatcher(apply: (changes: StorageChange[]) => Promise<void>, wait = CHANGE_BATCH_MS): ChangeBatcher {
  let waiting = new Map<string, StorageChange>();
  let timer: ReturnType<typeof setTimeout> | undefined;
  let applying = false;
  let closed = false;

  function schedule(): void {
    if (closed || timer !== undefined || applying || waiting.size === 0) return;
    timer = setTimeout(run, wait);
  }

  function run(): void {
    timer = undefined;
    const batch = [...waiting.values()];
    waiting = new Map();
    applying = true;
    void apply(batch)
      .catch(() => undefined)
      .finally(() => {
        applying = false;
        schedule();
      });
  }

  return {
    add(change) {
      if (closed) return;
      const key = keyOf(change);
      if (!waiting.has(key)) waiting.set(key, change);
      schedule();
    },
    close() {
      closed = true;
      waiting.clear();
      if (timer !== undefined) clearTimeout(timer);
      timer = undefined;
    },
  };
}
