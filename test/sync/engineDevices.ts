/**
 * Two devices for the sync engine's tests, each with its own app database and replicated
 * copy (PouchDB over fake IndexedDB), the copies replicated in-process as the server would.
 * `setUpDevices()` registers the set-up and the clean-up of a test file.
 */
import { IDBFactory } from 'fake-indexeddb';
import PouchDB from 'pouchdb-browser';
import { afterEach, beforeEach } from 'vitest';
import { createSyncRepositories, createSyncChannel, openWindowpaneDb, type SyncRepositories, type WindowpaneDb } from '../../src/persistence';
import { deriveKeys } from '../../src/sync/crypto';
import { docStoreOver } from '../../src/sync/docStore';
import { createEngine, type Engine } from '../../src/sync/engine';
import type { Database as Replica } from '../../src/sync/replication';
import type { SyncKeys } from '../../src/sync/types';

export interface Device {
  name: string;
  db: WindowpaneDb;
  repositories: SyncRepositories;
  replica: Replica;
  engine: Engine;
  notices: string[];
}

let clock = 1_700_000_000_000;
const opened: Device[] = [];
let keys: SyncKeys;

export async function device(name: string): Promise<Device> {
  const db = await openWindowpaneDb({ factory: new IDBFactory(), name: `app-${name}` });
  const repositories = createSyncRepositories(db, {
    sync: createSyncChannel({ name: `engine-test-${name}-${Math.random()}` }),
    search: { search: async () => ({ hits: [] }), details: async () => [], notify: () => undefined, close: () => undefined },
  });
  const replica = new PouchDB(`replica-${name}-${Math.random()}`) as unknown as Replica;
  const notices: string[] = [];
  const engine = createEngine({
    keys,
    deviceId: `device-${name}`,
    syncApiKeys: false,
    docs: docStoreOver(replica),
    repositories,
    now: () => (clock += 1000),
    events: { progress: () => undefined, refused: () => undefined, notice: (text) => notices.push(text) },
  });
  const d = { name, db, repositories, replica, engine, notices };
  opened.push(d);
  return d;
}

/** What the server does between two devices: each replicated copy gets the other's documents. */
export function exchange(a: Device, b: Device): Promise<void> {
  return new Promise((resolve, reject) => {
    a.replica
      .sync(b.replica, {})
      .on('complete', () => resolve())
      .on('error', reject);
  });
}

/** One pass of `from`'s engine sending, the server, and one of `to`'s receiving. */
export async function send(from: Device, to: Device): Promise<void> {
  await from.engine.pushAll();
  await exchange(from, to);
  await to.engine.pull();
}

/** Adds a finished message (a question when `parentId` is null, else an answer) and shows it, as a turn does. */
export async function addShown(d: Device, conversationId: string, parentId: string | null, text: string): Promise<{ id: string }> {
  const message = await d.repositories.conversations.appendMessage({
    conversationId,
    parentId,
    role: parentId === null ? 'user' : 'assistant',
    content: [{ type: 'text', text }],
  } as never);
  await d.repositories.conversations.setActiveLeaf(conversationId, message.id);
  return message;
}

/** Fresh PouchDB databases and keys before each test of the file, every device closed after. */
export function setUpDevices(): void {
  beforeEach(async () => {
    globalThis.indexedDB = new IDBFactory(); // PouchDB's own databases
    keys ??= await deriveKeys('correct horse battery staple', new Uint8Array(16), 1000);
  });
  afterEach(async () => {
    for (const d of opened.splice(0)) {
      d.db.close();
      await d.replica.destroy();
    }
  });
}
