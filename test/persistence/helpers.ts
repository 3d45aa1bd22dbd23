// Test plumbing for persistence: an isolated fake IndexedDB per test, a clock, ids, and
// the raw IndexedDB API for hand-writing databases of older schema versions.
import { IDBFactory } from 'fake-indexeddb';
import { openWindowpaneDb, type OpenDbOptions, type WindowpaneDb } from '../../src/persistence/db';
import type { NewMessage } from '../../src/persistence/conversationRepository';
import { createSyncRepositories, type SyncRepositories } from '../../src/persistence/syncRepositories';
import type { RepositoryOptions } from '../../src/persistence/repositoryContext';

/** A clock that starts at `start` and moves `step` ms each time it is read. */
export function steppingClock(start = 1_767_225_600_000, step = 1000): () => number {
  let time = start - step;
  return () => (time += step);
}

export function idSequence(prefix: string): () => string {
  let n = 0;
  return () => `${prefix}-${++n}`;
}

/** A user's text message for `conversationId`; `extra` sets any other field (a role, a parent). */
export function userText(conversationId: string, text: string, extra: Partial<NewMessage> = {}): NewMessage {
  return { conversationId, role: 'user', content: [{ type: 'text', text }], ...extra };
}

export interface TestStorage {
  factory: IDBFactory;
  db: WindowpaneDb;
  repositories: SyncRepositories;
}

/** A fresh, empty database at the current schema in its own fake IndexedDB. */
export async function openTestStorage(options: { factory?: IDBFactory; db?: OpenDbOptions; repositories?: RepositoryOptions } = {}): Promise<TestStorage> {
  const factory = options.factory ?? new IDBFactory();
  const db = await openWindowpaneDb({ factory, ...options.db });
  const repositories = createSyncRepositories(db, { now: steppingClock(), newId: idSequence('id'), ...options.repositories });
  return { factory, db, repositories };
}

export function request<T>(req: IDBRequest<T>): Promise<T> {
  return new Promise((resolve, reject) => {
    req.onsuccess = () => resolve(req.result);
    req.onerror = () => reject(req.error);
  });
}

/**
 * Opens `name` at `version` with the raw API; `upgrade` hand-writes the schema and any
 * records inside the version-change transaction.
 */
export function rawOpen(
  factory: IDBFactory,
  version: number,
  upgrade: (db: IDBDatabase, tx: IDBTransaction) => void = () => undefined,
  name = 'windowpane',
): Promise<IDBDatabase> {
  const req = factory.open(name, version);
  req.onupgradeneeded = () => upgrade(req.result, req.transaction!);
  return request(req);
}

/** Every record of one store, read with the raw API. */
export async function rawAll(db: IDBDatabase, store: string): Promise<unknown[]> {
  return request(db.transaction(store).objectStore(store).getAll());
}
