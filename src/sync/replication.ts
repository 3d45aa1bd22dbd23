/**
 * PouchDB on both ends: this device's replicated copy (IndexedDB) and the user's server
 * (CouchDB's HTTP API, with Basic credentials), the passphrase check, and what a failed
 * request means for the user. Only this file imports PouchDB.
 */
import PouchDB, { type Database as PouchDBDatabase } from 'pouchdb-browser';
import { CHECK_ID, createCheck, fromBase64, openCheck, readCheck, unseal } from './crypto';
import type { PouchLike } from './docStore';
import type { ConnectInput, ConnectResult, SyncConfig, SyncKeys, SyncProblem } from './types';

/** The replicated copy's IndexedDB name (PouchDB adds its own prefix). */
export const REPLICA_NAME = 'windowpane-replica';

export type Database = PouchDBDatabase & PouchLike;

export function openReplica(): Database {
  return new PouchDB(REPLICA_NAME, { auto_compaction: true }) as unknown as Database;
}

export function openServer(config: Pick<SyncConfig, 'serverUrl' | 'username' | 'password'>): Database {
  const authorization = config.username || config.password ? `Basic ${btoa(unescape(encodeURIComponent(`${config.username}:${config.password}`)))}` : undefined;
  return new PouchDB(config.serverUrl, {
    skip_setup: true,
    fetch: (url: string | Request, init?: RequestInit) => {
      const headers = new Headers(init?.headers);
      if (authorization) headers.set('Authorization', authorization);
      return fetch(url, { ...init, headers, credentials: 'omit' });
    },
  }) as unknown as Database;
}

/** What a failed request or replication means for the user. */
export function problemOf(error: unknown): SyncProblem {
  const e = (typeof error === 'object' && error !== null ? error : {}) as { status?: number; name?: string; reason?: string; message?: string; error?: string };
  const detail = (e.reason || e.message || '').slice(0, 160) || undefined;
  // PouchDB reports IndexedDB's refusal as `indexed_db_went_bad`, the browser's error in `reason`.
  if (e.name === 'QuotaExceededError' || /quota/i.test(`${e.message ?? ''} ${e.reason ?? ''}`) || (e as { code?: string }).code === 'quota_exceeded')
    return { code: 'quota_exceeded' };
  switch (e.status) {
    case 401:
      return { code: 'unauthorized' };
    case 403:
      return { code: 'forbidden', ...(detail ? { detail } : {}) };
    case 404:
      return { code: 'not_found' };
    case 413:
      return { code: 'too_large', detail: 'HTTP 413' };
    case 507:
      return { code: 'server_full', detail: 'HTTP 507' };
  }
  if (e.status !== undefined && e.status >= 500) return { code: 'server_error', detail: `HTTP ${e.status}` };
  if (e.status === undefined || e.status === 0) return { code: 'offline' };
  return { code: 'server_error', detail: `HTTP ${e.status}${detail ? `: ${detail}` : ''}` };
}

/** Whether this device's storage failed (full, or its connection closed after a failure): the replicated copy must be opened again. */
export function isStorageFailure(error: unknown): boolean {
  const name = typeof error === 'object' && error !== null ? (error as { name?: string }).name : undefined;
  return problemOf(error).code === 'quota_exceeded' || name === 'indexed_db_went_bad' || name === 'InvalidStateError';
}

/**
 * Checks the server and the passphrase: on a database without a passphrase check, this is
 * the first device and it writes one; otherwise the passphrase must open it.
 */
export async function connect(input: ConnectInput): Promise<ConnectResult> {
  const server = openServer(input);
  try {
    const info = (await server.info()) as { db_name?: unknown; error?: unknown };
    if (typeof info.db_name !== 'string') return { ok: false, problem: { code: 'bad_server' } };
    let stored: unknown;
    try {
      stored = await server.get(CHECK_ID);
    } catch (error) {
      if ((error as { status?: number }).status !== 404) throw error;
    }
    if (stored !== undefined) {
      const check = readCheck(stored);
      if (!check) return { ok: false, problem: { code: 'bad_server', detail: 'its passphrase check was written by another app or version' } };
      const keys = await openCheck(check, input.passphrase);
      return keys ? { ok: true, keys, created: false } : { ok: false, problem: { code: 'wrong_passphrase' } };
    }
    const { check, keys } = await createCheck(input.passphrase);
    try {
      await server.put({ _id: CHECK_ID, ...check });
    } catch (error) {
      // Another device wrote its check first: this passphrase must open that one.
      if ((error as { status?: number }).status === 409) return connect(input);
      throw error;
    }
    return { ok: true, keys, created: true };
  } catch (error) {
    return { ok: false, problem: problemOf(error) };
  } finally {
    void server.close().catch(() => undefined);
  }
}

/** Whether the server's passphrase check still opens with these keys (a reset server with a new passphrase does not). */
export async function checkStillOpens(server: Database, keys: SyncKeys): Promise<boolean | SyncProblem> {
  try {
    const check = readCheck(await server.get(CHECK_ID));
    if (!check) return false;
    await unseal(keys, CHECK_ID, check.iv, fromBase64(check.ct));
    return true;
  } catch (error) {
    if ((error as { name?: string }).name === 'SealBroken') return false;
    return problemOf(error);
  }
}
