/**
 * The IndexedDB database: its schema, the named migrations that build it, opening it,
 * and the one transaction helper every read and write goes through.
 */
import { wrap, type DBSchema, type IDBPDatabase, type IDBPTransaction, type StoreNames } from 'idb';
import type { Conversation, StoredMessage } from '../core';
import { WindowpaneError, buildTree, withExplicitParents } from '../core';
import { storageBlockedError, toStorageError } from './storageErrors';

/** A summary the provider wrote, cached by the hash of what it summarizes. */
export interface SummaryCacheRecord {
  /** Cache key: hash of the evicted range and the previous summary (see core/summary). */
  hash: string;
  text: string;
  createdAt: number;
}

/** A text file the user attached to a conversation; the model reads it by `name` (unique per conversation). */
export interface AttachmentRecord {
  id: string;
  conversationId: string;
  name: string;
  text: string;
  createdAt: number;
}

/**
 * A file sent with a message (an image), stored as a Blob and never inlined in the
 * message record: the message's block refers to it by `id`, and its bytes are encoded
 * only when a request is built.
 */
export interface FileRecord {
  id: string;
  conversationId: string;
  name: string;
  mediaType: string;
  blob: Blob;
  /** Bytes of `blob`, kept so sizes can be summed without reading any blob. */
  bytes: number;
  createdAt: number;
  /** A PDF's extracted text, one string per page, so it is read by page without parsing the file again (absent: images, and PDFs stored without it). */
  pageTexts?: string[];
}

/**
 * The saved full-text search index (see searchIndex.ts), in parts: derived from the
 * messages, so it may be dropped at any time and is rebuilt from them. This record, under
 * `SEARCH_INDEX_KEY`, lists the parts; each part is a `SearchIndexPartRecord` under its
 * own key. (Before format 2 this key held the whole index in one record: another format
 * means rebuild.)
 */
export interface SearchIndexRecord {
  /** `SEARCH_INDEX_FORMAT` when saved; another value means rebuild. */
  format: number;
  savedAt: number;
  /** Messages the index covers (all stored but those still streaming, when saved). */
  messageCount: number;
  /** Each part's key, when its newest conversation was last updated (epoch ms) and how many messages it holds. */
  parts: Array<{ key: string; newest: number; messageCount: number }>;
}

/** One part of the saved search index: some conversations, and MiniSearch's own JSON of their documents. */
export interface SearchIndexPartRecord {
  /** Each of the part's conversations' title and dates, and the ids of its indexed messages. */
  conversations: Record<string, { title: string; createdAt: number; updatedAt: number; messageIds: string[] }>;
  index: string;
}

// The store and index names below are written into every user's browser. They must not
// change without a migration that moves the data; renaming one here silently orphans it.
export interface WindowpaneSchema extends DBSchema {
  /** Conversation metadata only, so listing conversations never reads a message. */
  conversations: { key: string; value: Conversation; indexes: { byUpdatedAt: number } };
  /** One record per message, so appending never rewrites a conversation. */
  messages: { key: string; value: StoredMessage; indexes: { byConversation: [string, number]; byStatus: string } };
  /** Global settings and API keys, one record per key (out-of-line keys). */
  settings: { key: string; value: unknown };
  /** Token-estimator calibration, one record per model id (out-of-line keys). */
  calibration: { key: string; value: unknown };
  summaryCache: { key: string; value: SummaryCacheRecord };
  attachments: { key: string; value: AttachmentRecord; indexes: { byConversation: string } };
  /** The saved search index: the list of its parts (out-of-line key `SEARCH_INDEX_KEY`) and each part under its own key. */
  searchIndex: { key: string; value: SearchIndexRecord | SearchIndexPartRecord };
  /** Images sent with messages, as Blobs. */
  files: { key: string; value: FileRecord; indexes: { byConversation: string } };
  /** What sync last sent or applied of each record (see syncRepository.ts): derived, dropped when sync is turned off. */
  syncState: { key: string; value: SyncedRecord; indexes: { byConversation: string } };
}

/** The hash of a record as sync last sent or applied it, under the record's sync key ("m:<id>"). */
export interface SyncedRecord {
  key: string;
  /** The record's document id on the server. */
  docId: string;
  hash: string;
  conversationId?: string;
  /** Per field, its canonical value and stamp as last synced (conversations, settings, messages). */
  fields?: { values: Record<string, string>; stamps: Record<string, readonly [number, string]> };
}

export type WindowpaneDb = IDBPDatabase<WindowpaneSchema>;
export type StoreName = StoreNames<WindowpaneSchema>;
export type UpgradeTransaction = IDBPTransaction<WindowpaneSchema, StoreName[], 'versionchange'>;

/** The database name, shared by every tab of the app's origin. */
export const DB_NAME = 'windowpane';

/**
 * One schema step. `up` may only await IndexedDB requests on `tx` (any other await would
 * let the upgrade transaction commit early). All steps of one upgrade share one
 * transaction: if any throws, the whole upgrade rolls back and the data stays as it was.
 * A step that deletes or rewrites data destructively must first copy what it drops into a
 * backup store in the same transaction; none of the steps so far does.
 */
export interface Migration {
  version: number;
  name: string;
  up(db: WindowpaneDb, tx: UpgradeTransaction): Promise<void> | void;
}

/** All messages of one conversation, in seq order, as a `byConversation` key range. */
export function conversationRange(conversationId: string): IDBKeyRange {
  return IDBKeyRange.bound([conversationId, -Infinity], [conversationId, Infinity]);
}

// Schema version history. Each version is one named migration in MIGRATIONS, and the
// database opens at the last one's version.
//   v1 2026-11-22 initial-schema: conversations, messages (byConversation), settings,
//                 calibration, summaryCache.
//   v2 2026-11-22 conversation-recency-and-counts: conversations.byUpdatedAt; backfills
//                 messageCount so the conversation list never counts messages.
//   v3 2026-11-22 index-messages-by-status: messages.byStatus, so startup finds streams a
//                 closed tab left behind without reading every message.
//   v4 2026-11-22 add-attachments-store: attachments (byConversation) for the tool feature.
//   v5 2026-11-25 messages-form-a-tree: writes out each message's parentId as records
//                 without one were read (the message before it in seq order) and each
//                 conversation's activeLeafId (its newest message). Adds fields only.
//   v6 2026-11-25 add-search-index-store: searchIndex, where the full-text index is saved
//                 so a reload need not rebuild it. Derived data: messages are untouched.
//   v7 2026-11-25 add-files-store: files (byConversation), the Blobs of images sent with
//                 messages. Adds a store only.
//   v8 2026-11-27 add-sync-state-store: syncState (byConversation), what sync last sent or
//                 applied of each record. Adds a store only.

export const MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    name: 'initial-schema',
    up(db) {
      db.createObjectStore('conversations', { keyPath: 'id' });
      const messages = db.createObjectStore('messages', { keyPath: 'id' });
      messages.createIndex('byConversation', ['conversationId', 'seq']);
      db.createObjectStore('settings');
      db.createObjectStore('calibration');
      db.createObjectStore('summaryCache', { keyPath: 'hash' });
    },
  },
  {
    version: 2,
    name: 'conversation-recency-and-counts',
    async up(_db, tx) {
      const conversations = tx.objectStore('conversations');
      conversations.createIndex('byUpdatedAt', 'updatedAt');
      const byConversation = tx.objectStore('messages').index('byConversation');
      for (let cursor = await conversations.openCursor(); cursor; cursor = await cursor.continue()) {
        const messageCount = await byConversation.count(conversationRange(cursor.value.id));
        await cursor.update({ ...cursor.value, messageCount });
      }
    },
  },
  {
    version: 3,
    name: 'index-messages-by-status',
    up(_db, tx) {
      tx.objectStore('messages').createIndex('byStatus', 'status');
    },
  },
  {
    version: 4,
    name: 'add-attachments-store',
    up(db) {
      const attachments = db.createObjectStore('attachments', { keyPath: 'id' });
      attachments.createIndex('byConversation', 'conversationId');
    },
  },
  {
    version: 5,
    name: 'messages-form-a-tree',
    // Conversations became trees (core/branches.ts). Records without a parentId already
    // read as one branch; this writes that reading out, so later writes can add siblings.
    // A record that has a parentId, and every other field, is left as it is.
    async up(_db, tx) {
      const conversations = tx.objectStore('conversations');
      const messages = tx.objectStore('messages');
      const byConversation = messages.index('byConversation');
      for (let cursor = await conversations.openCursor(); cursor; cursor = await cursor.continue()) {
        const stored = await byConversation.getAll(conversationRange(cursor.value.id));
        const explicit = withExplicitParents(stored);
        await eachRequest(
          explicit.filter((m, i) => stored[i]!.parentId === undefined && m !== stored[i]),
          (m) => messages.put(m),
        );
        const newest = buildTree(stored).newest;
        if (cursor.value.activeLeafId === undefined && newest) await cursor.update({ ...cursor.value, activeLeafId: newest.id });
      }
    },
  },
  {
    version: 6,
    name: 'add-search-index-store',
    up(db) {
      db.createObjectStore('searchIndex');
    },
  },
  {
    version: 7,
    name: 'add-files-store',
    up(db) {
      const files = db.createObjectStore('files', { keyPath: 'id' });
      files.createIndex('byConversation', 'conversationId');
    },
  },
  {
    version: 8,
    name: 'add-sync-state-store',
    up(db) {
      const state = db.createObjectStore('syncState', { keyPath: 'key' });
      state.createIndex('byConversation', 'conversationId');
    },
  },
];

export interface OpenDbOptions {
  /** Defaults to the page's `indexedDB`; tests pass a fresh fake factory per test. */
  factory?: IDBFactory;
  /** Defaults to `DB_NAME`. */
  name?: string;
  /** Defaults to `MIGRATIONS`; the database opens at the last one's version. */
  migrations?: readonly Migration[];
  /**
   * Another tab still has the old version open, so the upgrade waits. Show the error's
   * message; opening resumes by itself once the other tabs close or reload.
   */
  onBlocked?: (error: WindowpaneError) => void;
  /**
   * Another tab opened a newer version: this connection has been closed so the upgrade can
   * proceed, and this tab must reload to keep saving.
   */
  onVersionChange?: () => void;
  /** The browser closed the connection abnormally (e.g. storage cleared); reload. */
  onTerminated?: () => void;
}

/**
 * Opens the database, running every migration newer than the stored version in one
 * upgrade transaction. Rejects with a WindowpaneError (`storage`, or `quota_exceeded`)
 * when storage is unavailable or an upgrade fails; a failed upgrade leaves the old data
 * untouched.
 */
export function openWindowpaneDb(options: OpenDbOptions = {}): Promise<WindowpaneDb> {
  const migrations = options.migrations ?? MIGRATIONS;
  const version = migrations.at(-1)?.version ?? 1;
  const factory = options.factory ?? globalThis.indexedDB;
  if (!factory) {
    return Promise.reject(
      new WindowpaneError(
        'storage',
        'This browser offers no IndexedDB storage (some private-browsing modes disable it), so Windowpane cannot save ' +
          'conversations. Open it in a normal window.',
      ),
    );
  }

  let request: IDBOpenDBRequest;
  try {
    request = factory.open(options.name ?? DB_NAME, version);
  } catch (error) {
    return Promise.reject(toStorageError(error, 'open its storage'));
  }

  let failedMigration: { name: string; error: unknown } | undefined;
  request.addEventListener('upgradeneeded', (event) => {
    const db = wrap(request.result) as unknown as WindowpaneDb;
    const tx = wrap(request.transaction!) as unknown as UpgradeTransaction;
    tx.done.catch(() => undefined); // an aborted upgrade is reported through the open request
    void (async () => {
      for (const migration of migrations) {
        if (migration.version <= event.oldVersion || migration.version > version) continue;
        try {
          await migration.up(db, tx);
        } catch (error) {
          failedMigration = { name: migration.name, error };
          tx.abort();
          return;
        }
      }
    })();
  });
  request.addEventListener('blocked', (event) => options.onBlocked?.(storageBlockedError(event.oldVersion, version)));

  return (wrap(request) as unknown as Promise<WindowpaneDb>).then(
    (db) => {
      db.addEventListener('versionchange', () => {
        db.close();
        options.onVersionChange?.();
      });
      db.addEventListener('close', () => options.onTerminated?.());
      return db;
    },
    (error: unknown) => {
      if (failedMigration) {
        const cause = toStorageError(failedMigration.error, `upgrade its storage (step "${failedMigration.name}")`);
        throw new WindowpaneError(cause.code, cause.message, { ...cause.details, migration: failedMigration.name });
      }
      throw toStorageError(error, 'open its storage');
    },
  );
}

/**
 * Issues one request per item and resolves when all have succeeded. If issuing one throws,
 * the requests already issued are marked handled before rethrowing: the transaction is
 * about to abort and their rejections must not surface as unhandled.
 */
export async function eachRequest<T>(items: Iterable<T>, issue: (item: T) => Promise<unknown>): Promise<void> {
  const issued: Promise<unknown>[] = [];
  try {
    for (const item of items) issued.push(issue(item));
  } catch (error) {
    for (const request of issued) request.catch(() => undefined);
    throw error;
  }
  await Promise.all(issued);
}

/**
 * Runs `work` in one transaction over `stores` and resolves once it has committed. If
 * `work` throws or any request fails, the transaction is aborted, so nothing it wrote is
 * kept, and the error is rethrown as a WindowpaneError (`action` completes "couldn't …").
 * `work` may only await requests of `tx`: awaiting anything else lets the transaction
 * commit early.
 */
export async function withTransaction<const Names extends readonly StoreName[], Mode extends IDBTransactionMode, T>(
  db: WindowpaneDb,
  stores: Names,
  mode: Mode,
  action: string,
  work: (tx: IDBPTransaction<WindowpaneSchema, Names, Mode>) => Promise<T>,
): Promise<T> {
  let tx: IDBPTransaction<WindowpaneSchema, Names, Mode> | undefined;
  try {
    tx = db.transaction(stores, mode);
    const done = tx.done;
    done.catch(() => undefined); // observed below; this only keeps an abort from surfacing as unhandled
    const result = await work(tx);
    await done;
    return result;
  } catch (error) {
    try {
      tx?.abort();
    } catch {
      // Already committed or aborted: nothing left to undo.
    }
    throw toStorageError(error, action);
  }
}
