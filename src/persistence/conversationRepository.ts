/**
 * Conversations and their messages: the aggregate the chat reads and writes. Deleting a
 * conversation takes its attachments and images with it in the same transaction, and
 * undoing it puts them back the same way; for the same reach, the room each conversation
 * takes (its records in every store) is measured here. Every call is one transaction through
 * `withTransaction`; every committed write is announced. A failed write throws a
 * WindowpaneError and leaves storage as it was; the caller keeps its in-memory copy.
 */
import type { Conversation, MessageKind, MessageStatus, StoredMessage } from '../core';
import { readStoredConversation, readStoredMessage } from '../core';
import type { IDBPObjectStore } from 'idb';
import { conversationRange, eachRequest, withTransaction, type AttachmentRecord, type FileRecord, type WindowpaneSchema } from './db';
import { conversationGone, type RepositoryContext } from './repositoryContext';
import type { StorageReport } from './storageReport';
import type { StorageChange } from './sync';

/**
 * A message to append: `seq` is assigned in storage; `id`, `createdAt`, `status`, `kind` have
 * defaults, and so does a message's `parentId` (see `ConversationRepository.appendMessage`).
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

export interface ConversationRepository {
  /** Every conversation's metadata, most recently updated first. Reads no messages. */
  listConversations(): Promise<Conversation[]>;
  getConversation(id: string): Promise<Conversation | undefined>;
  /** Several conversations in one read, in the order asked; undefined for one that is gone. */
  getConversations(ids: readonly string[]): Promise<Array<Conversation | undefined>>;
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
  /**
   * Removes the conversation, its messages and attachments; returns them for undo, or undefined
   * if it was absent. With `onlyIf`, removes nothing (and returns undefined) unless it approves
   * what is stored, read in the same transaction: a caller that decided on an earlier read
   * (sync, deciding whether a deletion stands) does not remove what was added meanwhile.
   */
  deleteConversation(id: string, onlyIf?: (stored: DeletedConversation) => boolean): Promise<DeletedConversation | undefined>;
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
  /** Several messages in one read, those that are here and this version can use, in the order asked. */
  getMessagesById(ids: readonly string[]): Promise<StoredMessage[]>;
  /**
   * Writes one message with `seq` = the conversation's highest stored seq + 1 (0 for the
   * first), read in the same transaction, so tabs appending at once never collide; bumps the
   * conversation's `updatedAt` and `messageCount` in that transaction. A message (not a
   * summary) without a `parentId` follows the end of the open branch: the conversation's
   * `activeLeafId` when it names one of its messages, else its newest message (null for the
   * first); a given `parentId` (null included) is stored as it is. A message becomes the
   * conversation's `activeLeafId`; a summary moves nothing. No other message is rewritten.
   * Throws `conversation_gone` when the conversation no longer exists (deleted in another tab).
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
   * How much room each conversation takes, largest first: messages and attachments, each
   * record sized as the UTF-8 length of its JSON, an estimate of the stored size. Reads in
   * batches, so memory stays flat however long the history (see storageReport.ts).
   */
  measureStorage(): Promise<StorageReport>;
}

export function createConversationRepository({ db, now, newId, announce, onUnreadable }: RepositoryContext): ConversationRepository {
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
    if (repaired > 0) onUnreadable?.({ kind: 'conversations', count: repaired });
    return out;
  }

  /** The messages the app can use, each without a bad fact it can do without; reports those left out (they stay in storage). */
  function readableMessages(records: readonly StoredMessage[]): StoredMessage[] {
    const out = usableMessages(records);
    const skipped = records.length - out.length;
    if (skipped > 0) onUnreadable?.({ kind: 'messages', count: skipped });
    return out;
  }

  function usableMessages(records: readonly StoredMessage[]): StoredMessage[] {
    return records.flatMap((record) => readStoredMessage(record) ?? []);
  }

  return {
    async listConversations() {
      const list = await withTransaction(db, ['conversations'], 'readonly', 'list conversations', (tx) => tx.store.index('byUpdatedAt').getAll());
      return readableConversations(list.reverse());
    },

    async getConversation(id) {
      const record = await withTransaction(db, ['conversations'], 'readonly', 'read the conversation', (tx) => tx.store.get(id));
      return record === undefined ? undefined : readableConversations([record])[0];
    },

    async getConversations(ids) {
      const records = await withTransaction(db, ['conversations'], 'readonly', 'read the conversations', (tx) =>
        Promise.all(ids.map((id) => tx.store.get(id))),
      );
      const read = readableConversations(records.filter((record) => record !== undefined));
      const byId = new Map(read.map((conversation) => [conversation.id, conversation]));
      return ids.map((id) => byId.get(id));
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

    async deleteConversation(id, onlyIf) {
      const stores = ['conversations', 'messages', 'attachments', 'files'] as const;
      const deleted = await withTransaction(db, [...stores], 'readwrite', 'delete the conversation', async (tx) => {
        const conversation = await tx.objectStore('conversations').get(id);
        if (!conversation) return undefined;
        const messageIndex = tx.objectStore('messages').index('byConversation');
        const messages = await messageIndex.getAll(conversationRange(id));
        const attachments = await tx.objectStore('attachments').index('byConversation').getAll(id);
        const files = await tx.objectStore('files').index('byConversation').getAll(id);
        if (onlyIf && !onlyIf({ conversation, messages, attachments, files })) return undefined;
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
      return usableMessages(records);
    },

    getMessage(id) {
      return withTransaction(db, ['messages'], 'readonly', 'read the message', (tx) => tx.store.get(id));
    },

    async getMessagesById(ids) {
      const records = await withTransaction(db, ['messages'], 'readonly', 'read the messages', (tx) => Promise.all(ids.map((id) => tx.store.get(id))));
      return readableMessages(records.filter((record) => record !== undefined));
    },

    async appendMessage(input) {
      const stored = await withTransaction(db, ['conversations', 'messages'], 'readwrite', 'save the message', async (tx) => {
        const conversations = tx.objectStore('conversations');
        const conversation = await conversations.get(input.conversationId);
        if (!conversation) throw conversationGone(input.conversationId, 'message');
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

    async measureStorage() {
      // Only Settings → Storage measures: the code loads when it first does.
      const { measureStorage } = await import('./storageReport');
      return measureStorage(db);
    },
  };
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
