/**
 * What sync reads and writes of the app's records. It reads every record in pages (the
 * first sync of a long history never holds it all), keeps the hash of each record as it
 * was last sent or applied (so only what changed travels), and applies records that arrived
 * from other devices: a conversation's metadata keeping this device's count, messages
 * appended with the next `seq` in the order given (parents first; one that arrived before
 * its parent moves after it), files and attachments as they are. Every write is one
 * transaction and is announced like any other, message by message, so the tabs and the
 * search index follow what arrives.
 */
import type { Conversation, StoredMessage } from '../core';
import { conversationRange, withTransaction, type AttachmentRecord, type FileRecord, type SyncedRecord } from './db';
import type { RepositoryContext } from './repositoryContext';
import type { StorageChange } from './sync';

/** A message as it travels: everything but its place (`seq`), which each device assigns. */
export type PortableMessage = Omit<StoredMessage, 'seq'>;

/** A conversation's metadata as it travels: the count is each device's own. */
export type PortableConversation = Omit<Conversation, 'messageCount'>;

/**
 * Whether the record stored now (undefined: none) is still the one a merge was computed
 * from. Sync reads a record, merges it with what arrived and writes the result some time
 * later; a tab may change the record in between (a branch switched, a pin, a message sent).
 * Given this check, a write finds that in its own transaction and is skipped rather than
 * putting back the older version; the tab's change is announced and settled next.
 */
export type StillAsRead<T> = (stored: T | undefined) => boolean;

/** What `putMessages` did: how many messages it added, and which it left because they changed meanwhile. */
export interface PutMessagesResult {
  added: number;
  changedMeanwhile: string[];
}

export interface SyncRepository {
  /** Every record's last synced hash, by key. */
  syncedRecords(): Promise<Map<string, SyncedRecord>>;
  markSynced(records: readonly SyncedRecord[]): Promise<void>;
  forgetSynced(keys: readonly string[]): Promise<void>;
  /** Forgets every hash (sync turned off): the next sync compares every record again. */
  clearSynced(): Promise<void>;
  /** Up to `limit` messages after `afterId` in id order (every conversation). */
  messagePage(afterId: string | undefined, limit: number): Promise<StoredMessage[]>;
  /** The messages with these ids that are here, by id (one read for a batch). */
  messagesById(ids: readonly string[]): Promise<Map<string, StoredMessage>>;
  /** Which of these conversations are here. */
  existingConversations(ids: readonly string[]): Promise<Set<string>>;
  /** Every conversation's metadata, unchecked (sync sends what is stored). */
  allConversations(): Promise<Conversation[]>;
  /** One conversation's messages, attachments and files, for a revival or a deletion. */
  conversationRecords(conversationId: string): Promise<{ messages: StoredMessage[]; attachments: AttachmentRecord[]; files: FileRecord[] }>;
  /** Every attachment and file (ids and metadata; files' Blobs are read one by one with `getFile`). */
  allAttachments(): Promise<AttachmentRecord[]>;
  allFileIds(): Promise<Array<{ id: string; conversationId: string }>>;
  /**
   * Creates or replaces a conversation's metadata, keeping this device's message count.
   * False when `asRead` finds the stored one changed since it was read: nothing written.
   */
  putConversation(conversation: PortableConversation, asRead?: StillAsRead<Conversation>): Promise<boolean>;
  /**
   * Adds the messages this device does not have (each gets the next `seq`, in the order
   * given, so give parents first) and updates the ones it has (everything but `seq`).
   * Skips messages whose conversation is gone, and those `asRead` finds changed since
   * they were read (named in the result).
   */
  putMessages(messages: readonly PortableMessage[], asRead?: (id: string) => StillAsRead<StoredMessage>): Promise<PutMessagesResult>;
  putAttachment(record: AttachmentRecord): Promise<void>;
  putFile(record: FileRecord): Promise<void>;
}

export function createSyncRepository({ db, announce }: RepositoryContext): SyncRepository {
  return {
    async syncedRecords() {
      const all = await withTransaction(db, ['syncState'], 'readonly', 'read what was synced', (tx) => tx.store.getAll());
      return new Map(all.map((record) => [record.key, record]));
    },

    async markSynced(records) {
      if (records.length === 0) return;
      await withTransaction(db, ['syncState'], 'readwrite', 'remember what was synced', async (tx) => {
        await Promise.all(records.map((record) => tx.store.put(record)));
      });
    },

    async forgetSynced(keys) {
      if (keys.length === 0) return;
      await withTransaction(db, ['syncState'], 'readwrite', 'remember what was synced', async (tx) => {
        await Promise.all(keys.map((key) => tx.store.delete(key)));
      });
    },

    async clearSynced() {
      await withTransaction(db, ['syncState'], 'readwrite', 'forget what was synced', (tx) => tx.store.clear());
    },

    messagePage(afterId, limit) {
      const range = afterId === undefined ? undefined : IDBKeyRange.lowerBound(afterId, true);
      return withTransaction(db, ['messages'], 'readonly', 'read messages to sync', (tx) => tx.store.getAll(range, limit));
    },

    async messagesById(ids) {
      const found = await withTransaction(db, ['messages'], 'readonly', 'read messages to sync', (tx) => Promise.all(ids.map((id) => tx.store.get(id))));
      return new Map(found.filter((m) => m !== undefined).map((m) => [m.id, m]));
    },

    async existingConversations(ids) {
      const keys = await withTransaction(db, ['conversations'], 'readonly', 'read conversations to sync', (tx) =>
        Promise.all(ids.map((id) => tx.store.getKey(id))),
      );
      return new Set(keys.filter((k) => k !== undefined));
    },

    allConversations() {
      return withTransaction(db, ['conversations'], 'readonly', 'read conversations to sync', (tx) => tx.store.getAll());
    },

    conversationRecords(conversationId) {
      return withTransaction(db, ['messages', 'attachments', 'files'], 'readonly', 'read a conversation to sync', async (tx) => ({
        messages: await tx.objectStore('messages').index('byConversation').getAll(conversationRange(conversationId)),
        attachments: await tx.objectStore('attachments').index('byConversation').getAll(conversationId),
        files: await tx.objectStore('files').index('byConversation').getAll(conversationId),
      }));
    },

    allAttachments() {
      return withTransaction(db, ['attachments'], 'readonly', 'read attachments to sync', (tx) => tx.store.getAll());
    },

    async allFileIds() {
      return withTransaction(db, ['files'], 'readonly', 'read files to sync', async (tx) => {
        const out: Array<{ id: string; conversationId: string }> = [];
        const index = tx.store.index('byConversation');
        for (let cursor = await index.openKeyCursor(); cursor; cursor = await cursor.continue()) {
          out.push({ id: cursor.primaryKey, conversationId: cursor.key });
        }
        return out;
      });
    },

    async putConversation(conversation, asRead) {
      const written = await withTransaction(db, ['conversations', 'messages'], 'readwrite', 'save a synced conversation', async (tx) => {
        const conversations = tx.objectStore('conversations');
        const existing = await conversations.get(conversation.id);
        if (asRead && !asRead(existing)) return false;
        const messageCount = existing
          ? existing.messageCount
          : await tx.objectStore('messages').index('byConversation').count(conversationRange(conversation.id));
        await conversations.put({ ...conversation, messageCount });
        return true;
      });
      if (written) announce({ type: 'conversation-changed', conversationId: conversation.id });
      return written;
    },

    async putMessages(incoming, asRead) {
      const changedMeanwhile: string[] = [];
      if (incoming.length === 0) return { added: 0, changedMeanwhile };
      const touched = new Set<string>();
      const written: StorageChange[] = [];
      const added = await withTransaction(db, ['conversations', 'messages'], 'readwrite', 'save synced messages', async (tx) => {
        const conversations = tx.objectStore('conversations');
        const messages = tx.objectStore('messages');
        const next = new Map<string, { conversation: Conversation; seq: number; held?: StoredMessage[] }>();
        let count = 0;
        for (const message of incoming) {
          let place = next.get(message.conversationId);
          if (!place) {
            const conversation = await conversations.get(message.conversationId);
            if (!conversation) continue;
            const last = await messages.index('byConversation').openKeyCursor(conversationRange(message.conversationId), 'prev');
            place = { conversation, seq: last ? last.key[1] + 1 : 0 };
            next.set(message.conversationId, place);
          }
          const existing = await messages.get(message.id);
          if (existing && existing.conversationId !== message.conversationId) continue;
          if (asRead && !asRead(message.id)(existing)) {
            changedMeanwhile.push(message.id);
            continue;
          }
          const stored = { ...message, seq: existing ? existing.seq : place.seq };
          await messages.put(stored);
          if (!existing) {
            place.seq++;
            count++;
            // A message that came before its parent moves after it (with what follows it): each place stays above its parent's.
            place.held ??= await messages.index('byConversation').getAll(conversationRange(message.conversationId));
            place.held.push(stored);
            const parents = [stored];
            for (let i = 0; i < parents.length; i++) {
              for (const child of place.held.filter((m) => m.parentId === parents[i]!.id && m.seq < parents[i]!.seq).sort((a, b) => a.seq - b.seq)) {
                child.seq = place.seq++;
                await messages.put(child);
                parents.push(child);
              }
            }
            // Moved: the tabs re-read the conversation in its new order.
            if (parents.length > 1) written.push({ type: 'messages-changed', conversationId: message.conversationId });
            place.conversation = {
              ...place.conversation,
              messageCount: place.conversation.messageCount + 1,
              updatedAt: Math.max(place.conversation.updatedAt, message.createdAt),
            };
          }
          touched.add(message.conversationId);
          written.push({ type: 'messages-changed', conversationId: message.conversationId, messageId: message.id });
        }
        for (const { conversation } of next.values()) await conversations.put(conversation);
        return count;
      });
      // One notice per message, parents first, as a tab announces its own: a tab showing the branch an arrival continues follows it.
      announce(...written, ...[...touched].map((conversationId): StorageChange => ({ type: 'conversation-changed', conversationId })));
      return { added, changedMeanwhile };
    },

    async putAttachment(record) {
      await withTransaction(db, ['attachments'], 'readwrite', `save the synced attachment ${record.name}`, (tx) => tx.store.put(record));
      announce({ type: 'attachments-changed', conversationId: record.conversationId });
    },

    async putFile(record) {
      await withTransaction(db, ['files'], 'readwrite', `save the synced file ${record.name}`, (tx) => tx.store.put(record));
      announce({ type: 'attachments-changed', conversationId: record.conversationId });
    },
  };
}
