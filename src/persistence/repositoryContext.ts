/**
 * What every repository shares: the database, the clock, new ids, and the announcement of
 * each committed write to the other tabs and to the search index. Repositories report
 * facts (how many records could not be read, which write found its conversation gone);
 * the store words them for the user.
 */
import type { RefusedWrite } from '../core';
import { WindowpaneError } from '../core';
import type { WindowpaneDb } from './db';
import { lazySearch } from './lazySearch';
import type { SearchClient } from './searchIndex';
import type { StorageChange, SyncChannel } from './sync';

/**
 * Stored records another version (or a hand edit) wrote that cannot be used as they are;
 * the records themselves stay in storage unchanged. `conversations`: shown with defaults
 * for the fields that could not be read. `messages`: left out.
 */
export interface UnreadableRecords {
  kind: 'conversations' | 'messages';
  count: number;
}

export interface RepositoryOptions {
  /** Cross-tab notices; omit for a single tab (tests, workers). */
  sync?: SyncChannel;
  /** Epoch ms; defaults to `Date.now`. */
  now?: () => number;
  /** Ids for new conversations and messages; defaults to random UUIDs. */
  newId?: () => string;
  /**
   * Told when stored records cannot be used as they are (another version or a hand edit
   * wrote them): conversations are shown repaired, unreadable messages are left out. The
   * records themselves stay in storage unchanged.
   */
  onUnreadable?: (found: UnreadableRecords) => void;
  /**
   * The full-text index `searchConversations` asks, told of every write the repositories
   * commit. Defaults to one in this page over `db`.
   */
  search?: SearchClient;
}

/** What each repository is made with (see `createRepositoryContext`). */
export interface RepositoryContext {
  db: WindowpaneDb;
  now: () => number;
  newId: () => string;
  search: SearchClient;
  /** Tells the other tabs and the search index of committed changes; call it only after the transaction has committed. */
  announce: (...changes: StorageChange[]) => void;
  onUnreadable?: (found: UnreadableRecords) => void;
}

export function createRepositoryContext(db: WindowpaneDb, options: RepositoryOptions = {}): RepositoryContext {
  const search = options.search ?? lazySearch(async () => (await import('./searchIndex')).createSearchEngine(db));
  return {
    db,
    now: options.now ?? (() => Date.now()),
    newId: options.newId ?? randomUuid,
    search,
    announce(...changes) {
      for (const change of changes) {
        options.sync?.announce(change);
        search.notify(change);
      }
    },
    onUnreadable: options.onUnreadable,
  };
}

/**
 * The error of a write whose conversation no longer exists (deleted in another tab, say),
 * thrown inside the write's transaction so nothing of it is kept. `name`: the file, for
 * one attachment.
 */
export function conversationGone(conversationId: string, refused: RefusedWrite, name?: string): WindowpaneError<'conversation_gone'> {
  return new WindowpaneError('conversation_gone', `Conversation ${conversationId} no longer exists; the ${refused} write was refused.`, {
    conversationId,
    refused,
    ...(name === undefined ? {} : { name }),
  });
}

/**
 * A random v4 UUID. `crypto.randomUUID` exists only in secure contexts, and Windowpane may
 * be served over plain http on a local network (e.g. next to Ollama), so fall back to
 * `getRandomValues`, which exists everywhere.
 */
export function randomUuid(): string {
  if (typeof crypto.randomUUID === 'function') return crypto.randomUUID();
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  bytes[6] = (bytes[6]! & 0x0f) | 0x40;
  bytes[8] = (bytes[8]! & 0x3f) | 0x80;
  const hex = Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}
