/**
 * The counts the sync status shows ("Sending 1,240 of 20,101…", "Receiving 300 of 900…"),
 * from three sources that move at their own pace: the engine sealing this device's records,
 * the replication pushing and pulling documents, and the engine applying what arrived.
 *
 * - **Sending** counts documents the server has taken since sending began; its total is the
 *   larger of what the engine set out to send and what the replication still has to push.
 * - **Receiving** counts records applied to this device since receiving began; its total is
 *   what the replication pulled since then plus what it says is still on the server.
 *
 * Both count from where records began to move (since the status last rested: synced, paused,
 * stopped), so a count never goes back while they move, even as the status turns from one
 * direction to the other; a device's own writes coming back in its replicated copy are never
 * counted as received.
 */
import type { SyncStatus } from './types';

type Progress = NonNullable<SyncStatus['progress']>;

export interface ProgressTally {
  /** The engine set out to send `total` records (a first sync, or after a restart). */
  sealing(total: number): Progress;
  /** The replication pushed `written` more documents; `pending` are still to push, when it says. */
  pushed(written: number, pending: number | undefined): Progress;
  /** The replication pulled `written` more documents; `pending` are still on the server, when it says. */
  pulled(written: number, pending: number | undefined): Progress;
  /** The engine applied `count` more records that came from other devices. */
  applied(count: number): Progress;
  /** The status left sending and receiving (synced, paused, stopped): the next stretch counts afresh. */
  rest(): void;
}

export function createProgressTally(): ProgressTally {
  const sums = { pushed: 0, pulled: 0, applied: 0 };
  const pending = { push: 0, pull: 0 };
  let sealTotal = 0;
  /** Where each direction's stretch began; absent until it moves. */
  let from: { pushed: number; pulled: number; applied: number } | undefined;
  const base = () => (from ??= { ...sums });

  function sending(): Progress {
    const done = sums.pushed - base().pushed;
    return { done, total: Math.max(sealTotal, done + pending.push) };
  }

  function receiving(): Progress {
    const done = sums.applied - base().applied;
    return { done, total: Math.max(done, sums.pulled - base().pulled + pending.pull) };
  }

  return {
    sealing(total) {
      base();
      sealTotal = Math.max(sealTotal, total);
      return sending();
    },
    pushed(written, still) {
      base();
      sums.pushed += written;
      if (still !== undefined) pending.push = still;
      return sending();
    },
    pulled(written, still) {
      base();
      sums.pulled += written;
      if (still !== undefined) pending.pull = still;
      return receiving();
    },
    applied(count) {
      base();
      sums.applied += count;
      return receiving();
    },
    rest() {
      from = undefined;
      sealTotal = 0;
    },
  };
}
