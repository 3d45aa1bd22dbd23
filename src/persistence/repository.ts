/**
 * The storage API the app uses: conversations, messages, settings, calibration, the
 * summary cache and attachments. Every call is one transaction through `withTransaction`;
 * every committed write is announced to the other tabs. A failed write throws a
 * WindowpaneError and leaves storage as it was; the caller keeps its in-memory copy.
 */
import type { Conversation, ImportBatch, MessageKind, MessageStatus, StoredMessage } from '../core';
import { WindowpaneError, branchCount, buildTree, isWindowpaneError, readStoredConversation, storedMessageProblem } from '../core';
import type { IDBPObjectStore } from 'idb';
import { base64ToBlob } from './base64';
import { conversationRange, eachRequest, withTransaction, type AttachmentRecord, type FileRecord, type WindowpaneDb, type WindowpaneSchema } from './db';
import { measureStorage, type StorageReport } from './storageReport';
import { createSearchEngine, type SearchClient, type SearchHit } from './searchIndex';
import type { StorageChange, SyncChannel } from './sync';

export type { SearchHit } from './searchIndex';

/**
 * A message to append: `seq` is assigned in storage; `id`, `createdAt`, `status`, `kind` have
 * defaults, and so does a message's `parentId` (see `Repository.appendMessage`).
 */
export type NewMessage = Omit<StoredMessage, 'id' | 'seq' | 'createdAt' | 'status' | 'kind'> & {
  id?: string;
  createdAt?: number;
  /** Defaults to `complete`; a reply being streamed is appended as `streaming`. */
  status?: MessageStatus;
  kind?: MessageKind;
};

/** Fields of a stored message that can change; a field set to `undefined` is removed. */
export type MessagePatch = Partial<Omit<StoredMessage, 'id' | 'conversationId' | 'seq'>>;

/** Everything `deleteConversation` removed, for `restoreConversation` (undo). */
export interface DeletedConversation {
  conversation: Conversation;
  messages: StoredMessage[];
  attachments: AttachmentRecord[];
  /** The images its messages carried. */
  files: FileRecord[];
}

/** What an import wrote. */
export interface ImportSummary {
  format: ImportBatch['format'];
  /** Conversations written. */
  imported: number;
  /** Messages written, every branch counted. */
  messages: number;
  /** Conversations already in storage (same id: the same file or export imported before), left untouched. */
  skipped: number;
  /** Branches the written conversations hold beyond one each (regenerated answers, edited prompts), all kept to switch between. */
  branches: number;
  importedIds: string[];
  /** Conversations left out because some of their message ids are stored under another conversation (a hand-edited file). */
  clashing: string[];
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
  onUnreadable?: (notice: string) => void;
  /**
   * The full-text index `searchConversations` asks, told of every write this repository
   * commits. Defaults to one in this page over `db`.
   */
  search?: SearchClient;
}

export interface Repository {
  /** Every conversation's metadata, most recently updated first. Reads no messages. */
  listConversations(): Promise<Conversation[]>;
  getConversation(id: string): Promise<Conversation | undefined>;
  createConversation(input?: { id?: string; title?: string; overrides?: Record<string, unknown> }): Promise<Conversation>;
  /** Sets the title (trimmed; blank becomes "Untitled conversation"); undefined when the conversation is gone. */
  renameConversation(id: string, title: string): Promise<Conversation | undefined>;
  /**
   * Opens the branch ending at `leafId`: stores it as the conversation's `activeLeafId`,
   * leaving `updatedAt` as it is (switching branch is not activity, so the conversation
   * keeps its place in the list). Undefined when the conversation is gone.
   */
  setActiveLeaf(conversationId: string, leafId: string): Promise<Conversation | undefined>;
  /** Replaces the per-conversation settings overrides (`undefined` removes them). */
  setConversationOverrides(id: string, overrides: Record<string, unknown> | undefined): Promise<Conversation | undefined>;
  /** Removes the conversation, its messages and attachments; returns them for undo, or undefined if it was absent. */
  deleteConversation(id: string): Promise<DeletedConversation | undefined>;
  /** Puts back exactly what `deleteConversation` returned. */
  restoreConversation(deleted: DeletedConversation): Promise<void>;
  /** One conversation's messages in `seq` order, read through the `byConversation` index. */
  getMessages(conversationId: string): Promise<StoredMessage[]>;
  /**
   * The `count` messages with the highest `seq` (every branch), in `seq` order: what a long
   * conversation shows first while `getMessages` reads the rest. Two requests, whatever the
   * conversation's length. Messages this version cannot read are left out silently here;
   * `getMessages` reports them.
   */
  getNewestMessages(conversationId: string, count: number): Promise<StoredMessage[]>;
  getMessage(id: string): Promise<StoredMessage | undefined>;
  /**
   * Writes one message with `seq` = the conversation's highest stored seq + 1 (0 for the
   * first), read in the same transaction, so tabs appending at once never collide; bumps the
   * conversation's `updatedAt` and `messageCount` in that transaction. A message (not a
   * summary) without a `parentId` follows the end of the open branch: the conversation's
   * `activeLeafId` when it names one of its messages, else its newest message (null for the
   * first); a given `parentId` (null included) is stored as it is. A message becomes the
   * conversation's `activeLeafId`; a summary moves nothing. No other message is rewritten.
   * Throws `storage` when the conversation no longer exists (deleted in another tab).
   */
  appendMessage(message: NewMessage): Promise<StoredMessage>;
  /** Applies `patch` to one message; undefined when it no longer exists. */
  updateMessage(id: string, patch: MessagePatch): Promise<StoredMessage | undefined>;
  /**
   * Marks every message still `streaming` as `interrupted` (its tab closed mid-stream),
   * except those whose stream is still alive in another tab (`isStreamAlive`). Returns the
   * messages it changed. Reads only the `byStatus` index, never every message.
   */
  markInterruptedStreams(isStreamAlive?: (messageId: string) => boolean): Promise<StoredMessage[]>;
  /**
   * Conversations whose title or messages (every branch, tool results included) hold every
   * word of `query` as a word or word prefix, case and accents ignored; most recently
   * updated first, one hit per conversation (its best match). Asks the search index, so it
   * costs about the same whatever is stored. A message hit names the message, so the branch
   * holding it can be opened. A message still streaming is found once it is complete.
   */
  searchConversations(query: string, options?: { limit?: number }): Promise<SearchHit[]>;
  getSetting<T = unknown>(key: string): Promise<T | undefined>;
  setSetting(key: string, value: unknown): Promise<void>;
  deleteSetting(key: string): Promise<void>;
  /** Calibration for one model id; the shape is the token estimator's. */
  getCalibration<T = unknown>(model: string): Promise<T | undefined>;
  setCalibration(model: string, value: unknown): Promise<void>;
  getCachedSummary(hash: string): Promise<string | undefined>;
  setCachedSummary(hash: string, text: string): Promise<void>;
  /**
   * Stores a text file attached to a conversation. Names are unique within a conversation,
   * because the model reads a file by its name: a name already taken by a different text
   * gets a numbered suffix ("app (2).log"), and the same name with the same text is not
   * stored twice (the stored record is returned). Both are decided in the write's own
   * transaction, so tabs attaching at once never collide. Throws `storage` when the
   * conversation no longer exists, `quota_exceeded` when storage is full.
   */
  addAttachment(input: { id?: string; conversationId: string; name: string; text: string; createdAt?: number }): Promise<AttachmentRecord>;
  /**
   * Stores images about to be sent with a message, all or none. Throws `storage` when the
   * conversation no longer exists, `quota_exceeded` when storage is full.
   */
  addFiles(records: readonly FileRecord[]): Promise<void>;
  /** One stored file, or undefined when it is gone (its conversation or attachments were deleted). */
  getFile(id: string): Promise<FileRecord | undefined>;
  /** Removes every image of a conversation; returns them (for undo). Its messages then say the file was deleted. */
  deleteFiles(conversationId: string): Promise<FileRecord[]>;
  /** Puts back what `deleteFiles` returned (see `addFiles` for when it throws). */
  restoreFiles(records: readonly FileRecord[]): Promise<void>;
  /** The images of the given conversations (all when `ids` is omitted). */
  listFiles(ids?: readonly string[]): Promise<FileRecord[]>;
  /** A conversation's attachments, oldest first (by name among those attached at once). */
  listAttachments(conversationId: string): Promise<AttachmentRecord[]>;
  /** Removes one attachment; returns it (for undo), or undefined if it was absent. */
  removeAttachment(id: string): Promise<AttachmentRecord | undefined>;
  /** Removes every attachment of a conversation; returns them (for undo), none when it had none. */
  deleteAttachments(conversationId: string): Promise<AttachmentRecord[]>;
  /**
   * Puts back what `deleteAttachments` returned, under their ids and names; as in
   * `addAttachment`, a name another file took meanwhile gets a numbered suffix, and a file
   * attached again meanwhile is not stored twice. Throws `storage` when a conversation they
   * belong to no longer exists; then nothing is written.
   */
  restoreAttachments(records: readonly AttachmentRecord[]): Promise<void>;
  /**
   * How much room each conversation takes, largest first: messages and attachments, each
   * record sized as the UTF-8 length of its JSON, an estimate of the stored size. Reads in
   * batches, so memory stays flat however long the history (see storageReport.ts).
   */
  measureStorage(): Promise<StorageReport>;
  /** The given conversations (all when `ids` is omitted) with their messages, read as one consistent snapshot. */
  readForExport(ids?: readonly string[]): Promise<Array<{ conversation: Conversation; messages: StoredMessage[] }>>;
  /**
   * Writes a batch of imported conversations in one transaction, each whole: conversations
   * whose id is already stored are skipped (so importing a file twice duplicates nothing),
   * and so is one with a message id already stored under another conversation (named in
   * `clashing`); the rest are added with their messages. Throws a storage error, and then
   * writes nothing of the batch.
   */
  importBatch(batch: ImportBatch): Promise<ImportSummary>;
}

export function createRepository(db: WindowpaneDb, options: RepositoryOptions = {}): Repository {
  const now = options.now ?? (() => Date.now());
  const newId = options.newId ?? randomUuid;
  const search = options.search ?? createSearchEngine(db);
  const announce = (...changes: StorageChange[]) => {
    for (const change of changes) {
      options.sync?.announce(change);
      search.notify(change);
    }
  };

  async function updateConversation(id: string, action: string, change: (conversation: Conversation) => Conversation): Promise<Conversation | undefined> {
    const updated = await withTransaction(db, ['conversations'], 'readwrite', action, async (tx) => {
      const existing = await tx.store.get(id);
      if (!existing) return undefined;
      const next = change(existing);
      await tx.store.put(next);
      return next;
    });
    if (updated) announce({ type: 'conversation-changed', conversationId: id });
    return updated;
  }

  /** Conversations as the app can show them; reports those repaired or left out. */
  function readableConversations(records: readonly unknown[]): Conversation[] {
    const out: Conversation[] = [];
    let repaired = 0;
    for (const record of records) {
      const read = readStoredConversation(record);
      if (read) out.push(read.conversation);
      if (!read || read.repaired) repaired++;
    }
    if (repaired > 0) {
      options.onUnreadable?.(
        `${repaired} stored conversation${repaired === 1 ? ' has' : 's have'} fields this version cannot read; ${repaired === 1 ? 'it is' : 'they are'} shown with defaults and kept unchanged in storage.`,
      );
    }
    return out;
  }

  /** The messages the app can use; reports those left out (they stay in storage). */
  function readableMessages(records: readonly StoredMessage[]): StoredMessage[] {
    const out = records.filter((record) => storedMessageProblem(record) === undefined);
    const skipped = records.length - out.length;
    if (skipped > 0) {
      options.onUnreadable?.(
        `${skipped} stored message${skipped === 1 ? ' is' : 's are'} in a form this version cannot read, so ${skipped === 1 ? 'it is' : 'they are'} left out here; ${skipped === 1 ? 'it stays' : 'they stay'} in storage unchanged.`,
      );
    }
    return out;
  }

  const repository: Repository = {
    async listConversations() {
      const list = await withTransaction(db, ['conversations'], 'readonly', 'list conversations', (tx) => tx.store.index('byUpdatedAt').getAll());
      return readableConversations(list.reverse());
    },

    async getConversation(id) {
      const record = await withTransaction(db, ['conversations'], 'readonly', 'read the conversation', (tx) => tx.store.get(id));
      return record === undefined ? undefined : readableConversations([record])[0];
    },

    async createConversation(input = {}) {
      const time = now();
      const conversation: Conversation = {
        id: input.id ?? newId(),
        title: input.title?.trim() || 'New conversation',
        createdAt: time,
        updatedAt: time,
        messageCount: 0,
      };
      if (input.overrides) conversation.overrides = input.overrides;
      await withTransaction(db, ['conversations'], 'readwrite', 'create the conversation', (tx) => tx.store.add(conversation));
      announce({ type: 'conversation-changed', conversationId: conversation.id });
      return conversation;
    },

    renameConversation(id, title) {
      return updateConversation(id, 'rename the conversation', (c) => ({ ...c, title: title.trim() || 'Untitled conversation' }));
    },

    setActiveLeaf(conversationId, leafId) {
      return updateConversation(conversationId, 'switch to the branch', (c) => ({ ...c, activeLeafId: leafId }));
    },

    setConversationOverrides(id, overrides) {
      return updateConversation(id, 'save the conversation settings', (c) => {
        const next = { ...c, overrides };
        if (overrides === undefined) delete next.overrides;
        return next;
      });
    },

    async deleteConversation(id) {
      const stores = ['conversations', 'messages', 'attachments', 'files'] as const;
      const deleted = await withTransaction(db, [...stores], 'readwrite', 'delete the conversation', async (tx) => {
        const conversation = await tx.objectStore('conversations').get(id);
        if (!conversation) return undefined;
        const messageIndex = tx.objectStore('messages').index('byConversation');
        const messages = await messageIndex.getAll(conversationRange(id));
        const attachments = await tx.objectStore('attachments').index('byConversation').getAll(id);
        const files = await tx.objectStore('files').index('byConversation').getAll(id);
        await tx.objectStore('conversations').delete(id);
        await eachRequest(messages, (m) => tx.objectStore('messages').delete(m.id));
        await eachRequest(attachments, (a) => tx.objectStore('attachments').delete(a.id));
        await eachRequest(files, (f) => tx.objectStore('files').delete(f.id));
        return { conversation, messages, attachments, files };
      });
      if (deleted) announce({ type: 'conversation-changed', conversationId: id });
      return deleted;
    },

    async restoreConversation(deleted) {
      await withTransaction(db, ['conversations', 'messages', 'attachments', 'files'], 'readwrite', 'restore the conversation', async (tx) => {
        await tx.objectStore('conversations').put(deleted.conversation);
        await eachRequest(deleted.messages, (m) => tx.objectStore('messages').put(m));
        await eachRequest(deleted.attachments, (a) => tx.objectStore('attachments').put(a));
        await eachRequest(deleted.files, (f) => tx.objectStore('files').put(f));
      });
      const conversationId = deleted.conversation.id;
      announce({ type: 'conversation-changed', conversationId }, { type: 'messages-changed', conversationId }, { type: 'attachments-changed', conversationId });
    },

    async getMessages(conversationId) {
      const records = await withTransaction(db, ['messages'], 'readonly', 'read the messages', (tx) =>
        tx.store.index('byConversation').getAll(conversationRange(conversationId)),
      );
      return readableMessages(records);
    },

    async getNewestMessages(conversationId, count) {
      const records = await withTransaction(db, ['messages'], 'readonly', 'read the messages', async (tx) => {
        const index = tx.store.index('byConversation');
        const last = await index.openKeyCursor(conversationRange(conversationId), 'prev');
        if (!last || count < 1) return [];
        return index.getAll(IDBKeyRange.bound([conversationId, last.key[1] - count + 1], [conversationId, Infinity]));
      });
      return records.filter((record) => storedMessageProblem(record) === undefined);
    },

    getMessage(id) {
      return withTransaction(db, ['messages'], 'readonly', 'read the message', (tx) => tx.store.get(id));
    },

    async appendMessage(input) {
      const stored = await withTransaction(db, ['conversations', 'messages'], 'readwrite', 'save the message', async (tx) => {
        const conversations = tx.objectStore('conversations');
        const conversation = await conversations.get(input.conversationId);
        if (!conversation) {
          throw new WindowpaneError(
            'storage',
            'This conversation no longer exists (it may have been deleted in another tab), so the message was not saved. ' +
              'Copy anything you need from the screen before leaving it.',
            { conversationId: input.conversationId },
          );
        }
        const messages = tx.objectStore('messages');
        const last = await messages.index('byConversation').openKeyCursor(conversationRange(input.conversationId), 'prev');
        const seq = last ? last.key[1] + 1 : 0;
        const kind = input.kind ?? 'message';
        const time = now();
        const message: StoredMessage = {
          ...input,
          id: input.id ?? newId(),
          seq,
          kind,
          createdAt: input.createdAt ?? time,
          status: input.status ?? 'complete',
        };
        if (kind === 'message' && input.parentId === undefined) {
          message.parentId = last ? await branchEnd(messages, conversation) : null;
        }
        await messages.add(message);
        const next: Conversation = { ...conversation, messageCount: conversation.messageCount + 1, updatedAt: Math.max(conversation.updatedAt, time) };
        if (kind === 'message') next.activeLeafId = message.id;
        await conversations.put(next);
        return message;
      });
      announce(
        { type: 'messages-changed', conversationId: stored.conversationId, messageId: stored.id },
        { type: 'conversation-changed', conversationId: stored.conversationId },
      );
      return stored;
    },

    async updateMessage(id, patch) {
      const updated = await withTransaction(db, ['messages'], 'readwrite', 'save the message', async (tx) => {
        const existing = await tx.store.get(id);
        if (!existing) return undefined;
        const next: StoredMessage = { ...existing, ...patch, id: existing.id, conversationId: existing.conversationId, seq: existing.seq };
        for (const key of Object.keys(patch) as Array<keyof MessagePatch>) {
          if (patch[key] === undefined) delete next[key];
        }
        await tx.store.put(next);
        return next;
      });
      if (updated) announce({ type: 'messages-changed', conversationId: updated.conversationId, messageId: id });
      return updated;
    },

    async markInterruptedStreams(isStreamAlive = () => false) {
      const changed = await withTransaction(db, ['messages'], 'readwrite', 'recover interrupted answers', async (tx) => {
        const streaming = await tx.store.index('byStatus').getAll('streaming');
        const interrupted = streaming.filter((m) => !isStreamAlive(m.id)).map((m): StoredMessage => ({ ...m, status: 'interrupted' }));
        await eachRequest(interrupted, (m) => tx.store.put(m));
        return interrupted;
      });
      announce(...changed.map((m): StorageChange => ({ type: 'messages-changed', conversationId: m.conversationId, messageId: m.id })));
      return changed;
    },

    async searchConversations(query, { limit = 50 } = {}) {
      if (query.trim() === '') return [];
      return search.search(query, limit);
    },

    async getSetting<T>(key: string) {
      return (await withTransaction(db, ['settings'], 'readonly', 'read settings', (tx) => tx.store.get(key))) as T | undefined;
    },

    async setSetting(key, value) {
      await withTransaction(db, ['settings'], 'readwrite', 'save settings', (tx) => tx.store.put(value, key));
      announce({ type: 'settings-changed', settingKey: key });
    },

    async deleteSetting(key) {
      await withTransaction(db, ['settings'], 'readwrite', 'save settings', (tx) => tx.store.delete(key));
      announce({ type: 'settings-changed', settingKey: key });
    },

    async getCalibration<T>(model: string) {
      return (await withTransaction(db, ['calibration'], 'readonly', 'read calibration', (tx) => tx.store.get(model))) as T | undefined;
    },

    async setCalibration(model, value) {
      await withTransaction(db, ['calibration'], 'readwrite', 'save calibration', (tx) => tx.store.put(value, model));
    },

    async getCachedSummary(hash) {
      const record = await withTransaction(db, ['summaryCache'], 'readonly', 'read the summary cache', (tx) => tx.store.get(hash));
      return record?.text;
    },

    async setCachedSummary(hash, text) {
      await withTransaction(db, ['summaryCache'], 'readwrite', 'cache the summary', (tx) => tx.store.put({ hash, text, createdAt: now() }));
    },

    async addAttachment(input) {
      const stored = await withTransaction(db, ['conversations', 'attachments'], 'readwrite', `save the attachment ${input.name}`, async (tx) => {
        if ((await tx.objectStore('conversations').getKey(input.conversationId)) === undefined) {
          throw new WindowpaneError(
            'storage',
            `This conversation no longer exists (it may have been deleted in another tab), so ${input.name} was not attached.`,
            { conversationId: input.conversationId },
          );
        }
        const attachments = tx.objectStore('attachments');
        const siblings = await attachments.index('byConversation').getAll(input.conversationId);
        const same = siblings.find((a) => a.name === input.name && a.text === input.text);
        if (same) return { record: same, added: false };
        const record: AttachmentRecord = {
          id: input.id ?? newId(),
          conversationId: input.conversationId,
          name: freeName(input.name, new Set(siblings.map((a) => a.name))),
          text: input.text,
          createdAt: input.createdAt ?? now(),
        };
        await attachments.add(record);
        return { record, added: true };
      });
      if (stored.added) announce({ type: 'attachments-changed', conversationId: input.conversationId });
      return stored.record;
    },

    async addFiles(records) {
      if (records.length === 0) return;
      const kind = records.some((r) => r.mediaType === 'application/pdf') ? 'file' : 'image';
      const what = records.length === 1 ? `save the ${kind} ${records[0]!.name}` : `save ${records.length} ${kind}s`;
      await withTransaction(db, ['conversations', 'files'], 'readwrite', what, async (tx) => {
        for (const owner of new Set(records.map((r) => r.conversationId))) {
          if ((await tx.objectStore('conversations').getKey(owner)) === undefined) {
            throw new WindowpaneError(
              'storage',
              `This conversation no longer exists (it may have been deleted in another tab), so the ${kind}s were not saved.`,
              {
                conversationId: owner,
              },
            );
          }
        }
        await eachRequest(records, (r) => tx.objectStore('files').put(r));
      });
    },

    async getFile(id) {
      return withTransaction(db, ['files'], 'readonly', 'read the image', (tx) => tx.store.get(id));
    },

    async deleteFiles(conversationId) {
      const removed = await withTransaction(db, ['files'], 'readwrite', 'delete the images', async (tx) => {
        const records = await tx.store.index('byConversation').getAll(conversationId);
        await eachRequest(records, (f) => tx.store.delete(f.id));
        return records;
      });
      if (removed.length > 0) announce({ type: 'attachments-changed', conversationId });
      return removed;
    },

    async listFiles(ids) {
      return withTransaction(db, ['files'], 'readonly', 'read the images', async (tx) => {
        if (ids === undefined) return tx.store.getAll();
        const lists = await Promise.all(ids.map((id) => tx.store.index('byConversation').getAll(id)));
        return lists.flat();
      });
    },

    async restoreFiles(records) {
      await this.addFiles(records);
      for (const conversationId of new Set(records.map((r) => r.conversationId))) announce({ type: 'attachments-changed', conversationId });
    },

    async listAttachments(conversationId) {
      const list = await withTransaction(db, ['attachments'], 'readonly', 'read attachments', (tx) => tx.store.index('byConversation').getAll(conversationId));
      return list.sort((a, b) => a.createdAt - b.createdAt || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    },

    async removeAttachment(id) {
      const removed = await withTransaction(db, ['attachments'], 'readwrite', 'remove the attachment', async (tx) => {
        const existing = await tx.store.get(id);
        if (existing) await tx.store.delete(id);
        return existing;
      });
      if (removed) announce({ type: 'attachments-changed', conversationId: removed.conversationId });
      return removed;
    },

    async deleteAttachments(conversationId) {
      const removed = await withTransaction(db, ['attachments'], 'readwrite', 'delete the attached files', async (tx) => {
        const records = await tx.store.index('byConversation').getAll(conversationId);
        await eachRequest(records, (a) => tx.store.delete(a.id));
        return records;
      });
      if (removed.length > 0) announce({ type: 'attachments-changed', conversationId });
      return removed;
    },

    async restoreAttachments(records) {
      const owners = [...new Set(records.map((a) => a.conversationId))];
      await withTransaction(db, ['conversations', 'attachments'], 'readwrite', 'put the attached files back', async (tx) => {
        const attachments = tx.objectStore('attachments');
        for (const owner of owners) {
          if ((await tx.objectStore('conversations').getKey(owner)) === undefined) {
            throw new WindowpaneError(
              'storage',
              'This conversation no longer exists (it may have been deleted in another tab), so its files were not put back.',
              {
                conversationId: owner,
              },
            );
          }
          const siblings = await attachments.index('byConversation').getAll(owner);
          const taken = new Set(siblings.map((a) => a.name));
          const back = records
            .filter((a) => a.conversationId === owner && !siblings.some((s) => s.name === a.name && s.text === a.text))
            .map((a) => {
              const name = freeName(a.name, taken);
              taken.add(name);
              return { ...a, name };
            });
          await eachRequest(back, (a) => attachments.put(a));
        }
      });
      announce(...owners.map((conversationId): StorageChange => ({ type: 'attachments-changed', conversationId })));
    },

    measureStorage() {
      return measureStorage(db);
    },

    readForExport(ids) {
      return withTransaction(db, ['conversations', 'messages'], 'readonly', 'read conversations for export', async (tx) => {
        const conversations =
          ids === undefined
            ? (await tx.objectStore('conversations').index('byUpdatedAt').getAll()).reverse()
            : (await Promise.all(ids.map((id) => tx.objectStore('conversations').get(id)))).filter((c) => c !== undefined);
        const byConversation = tx.objectStore('messages').index('byConversation');
        return Promise.all(
          conversations.map(async (conversation) => ({
            conversation,
            messages: await byConversation.getAll(conversationRange(conversation.id)),
          })),
        );
      });
    },

    async importBatch(batch) {
      // Written at once, as a message id is almost never stored already; when one is (the add fails and the
      // transaction with it), written again checking every message, to leave out just the conversations holding one.
      const write = (checkMessages: boolean) =>
        withTransaction(db, ['conversations', 'messages', 'files'], 'readwrite', 'import the conversations', async (tx) => {
          const conversations = tx.objectStore('conversations');
          const messages = tx.objectStore('messages');
          const existing = await Promise.all(batch.conversations.map((entry) => conversations.getKey(entry.conversation.id)));
          const fresh = batch.conversations.filter((_, i) => existing[i] === undefined);
          const clashes = checkMessages
            ? await Promise.all(
                fresh.map(async (entry) => (await Promise.all(entry.messages.map((m) => messages.getKey(m.id)))).some((key) => key !== undefined)),
              )
            : fresh.map(() => false);
          const written = fresh.filter((_, i) => !clashes[i]);
          await eachRequest(written, (entry) => conversations.add(entry.conversation));
          await eachRequest(
            written.flatMap((entry) => entry.messages),
            (message) => messages.add(message),
          );
          // Images come with their conversation, in the same transaction: whole or not at all.
          await eachRequest(
            written.flatMap((entry) => entry.files ?? []),
            (file) =>
              tx.objectStore('files').put({
                id: file.id,
                conversationId: file.conversationId,
                name: file.name,
                mediaType: file.mediaType,
                blob: base64ToBlob(file.data, file.mediaType),
                bytes: file.bytes,
                createdAt: file.createdAt,
              }),
          );
          return {
            importedIds: written.map((entry) => entry.conversation.id),
            clashing: fresh.filter((_, i) => clashes[i]).map((entry) => entry.conversation.id),
            messageCount: written.reduce((sum, entry) => sum + entry.messages.length, 0),
          };
        });
      const { importedIds, clashing, messageCount } = await write(false).catch((error: unknown) => {
        if (isWindowpaneError(error) && error.details.cause === 'ConstraintError') return write(true);
        throw error;
      });
      if (importedIds.length > 0) announce({ type: 'conversation-changed' });
      const imported = new Set(importedIds);
      let branches = 0;
      for (const entry of batch.conversations) {
        if (imported.has(entry.conversation.id)) branches += Math.max(0, branchCount(buildTree(entry.messages)) - 1);
      }
      return {
        format: batch.format,
        imported: importedIds.length,
        messages: messageCount,
        skipped: batch.conversations.length - importedIds.length - clashing.length,
        branches,
        importedIds,
        clashing,
      };
    },
  };
  return repository;
}

type MessageStore = IDBPObjectStore<WindowpaneSchema, ['conversations', 'messages'], 'messages', 'readwrite'>;

/**
 * The message a new one follows by default: the conversation's `activeLeafId` when it names
 * one of its messages (not a summary, which is never a parent), else the newest such
 * message, else null. Reads one record when the conversation names its branch.
 */
async function branchEnd(messages: MessageStore, conversation: Conversation): Promise<string | null> {
  if (conversation.activeLeafId !== undefined) {
    const named = await messages.get(conversation.activeLeafId);
    if (named && named.conversationId === conversation.id && named.kind !== 'summary') return named.id;
  }
  const range = conversationRange(conversation.id);
  for (let cursor = await messages.index('byConversation').openCursor(range, 'prev'); cursor; cursor = await cursor.continue()) {
    if (cursor.value.kind !== 'summary') return cursor.value.id;
  }
  return null;
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

/** `name`, or the first of "stem (2).ext", "stem (3).ext"… not in `taken`. */
function freeName(name: string, taken: ReadonlySet<string>): string {
  if (!taken.has(name)) return name;
  const dot = name.lastIndexOf('.');
  const [stem, ext] = dot > 0 ? [name.slice(0, dot), name.slice(dot)] : [name, ''];
  for (let n = 2; ; n++) {
    const candidate = `${stem} (${n})${ext}`;
    if (!taken.has(candidate)) return candidate;
  }
}
