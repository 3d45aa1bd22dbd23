/**
 * Sync in the user's words: the sidebar's status line, what stopped a sync, and what
 * Settings → Sync asks of a server and a passphrase. Turning sync on and off and starting it
 * again at startup (syncActions.ts) are loaded on first use.
 */
import { isLocalHostname } from '../core';
import type { SyncProblem, SyncStatus } from '../sync/types';

/** The passphrase's shortest length: it is the only secret between the server and every record. */
export const MIN_PASSPHRASE_LENGTH = 10;

/** A plain-http server on another machine: the question Settings → Sync asks before Turn on sync. */
export function needsPlainHttpConfirmation(serverUrl: string): string | undefined {
  try {
    const url = new URL(serverUrl.trim());
    return url.protocol === 'http:' && !isLocalHostname(url.hostname) ? url.origin : undefined;
  } catch {
    return undefined;
  }
}

/** What stopped a sync, in the user's words. */
export function syncProblemText(problem: SyncProblem): string {
  const detail = problem.detail ? ` (${problem.detail})` : '';
  switch (problem.code) {
    case 'offline':
      return 'The server cannot be reached; sync goes on by itself when it can.';
    case 'wrong_passphrase':
      return 'Wrong passphrase: it does not open the records on this server. Use the passphrase of your first device.';
    case 'unauthorized':
      return 'The server refused the username or password.';
    case 'forbidden':
      return 'This user may not use that database; add it to the database’s members on the server.';
    case 'server_full':
      return `The server is full or over its quota; nothing more can be sent until it has room${detail}.`;
    case 'too_large':
      return `The server refused a record as too large${detail}; raise its document size limit.`;
    case 'server_error':
      return `The server failed${detail}; sync retries by itself.`;
    case 'not_found':
      return 'There is no database at this URL; create it on the server first.';
    case 'quota_exceeded':
      return 'This device’s storage is full: records from the server cannot be saved. Free some space (Settings → Storage); sync retries.';
    case 'tampered':
      return 'A record on the server failed its integrity check and was not applied.';
    case 'bad_server':
      return `This URL does not answer like a CouchDB database${detail}.`;
  }
}

const count = (n: number) => n.toLocaleString('en-US');

/** The sidebar's one line: what sync is doing, when it last finished, or why it stopped. */
export function syncStatusText(status: SyncStatus | undefined, formatTime: (ms: number) => string): string {
  if (!status) return 'Sync is starting…';
  const of = (verb: string) => {
    const progress = status.progress;
    if (!progress) return `${verb}…`;
    return progress.total !== undefined ? `${verb} ${count(progress.done)} of ${count(progress.total)}…` : `${verb} ${count(progress.done)}…`;
  };
  switch (status.phase) {
    case 'starting':
      return 'Sync is starting…';
    case 'sending':
      return of('Sending');
    case 'receiving':
      return of('Receiving');
    case 'paused':
      return 'Sync paused.';
    case 'synced':
      return status.lastSyncedAt !== undefined ? `Synced ${formatTime(status.lastSyncedAt)}` : 'Synced';
    case 'stopped':
      return `Sync stopped: ${status.problem ? syncProblemText(status.problem) : 'it will retry.'}`;
  }
}

/**
 * The formats of `syncTime`, made once: each `toLocaleTimeString` with options makes a new
 * formatter, which costs milliseconds, and the status is drawn again with every batch synced.
 */
let formats: { time: Intl.DateTimeFormat; day: Intl.DateTimeFormat } | undefined;

/** "Synced 16:42" today, "Synced 26 Nov, 16:42" before. */
export function syncTime(ms: number, now: number): string {
  formats ??= {
    time: new Intl.DateTimeFormat([], { hour: '2-digit', minute: '2-digit' }),
    day: new Intl.DateTimeFormat([], { day: 'numeric', month: 'short' }),
  };
  const at = new Date(ms);
  const time = formats.time.format(at);
  return new Date(now).toDateString() === at.toDateString() ? `at ${time}` : `on ${formats.day.format(at)}, ${time}`;
}
