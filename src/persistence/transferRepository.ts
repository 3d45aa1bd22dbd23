/**
 * Export and import: whole conversations read as one snapshot, and imported batches written
 * each in one transaction, whole or not at all.
 */
import type { Conversation, ImportBatch, StoredMessage } from '../core';
import { branchCount, buildTree, isWindowpaneError } from '../core';
import { base64ToBlob } from './base64';
import { conversationRange, eachRequest, withTransaction } from './db';
import type { RepositoryContext } from './repositoryContext';

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

export interface TransferRepository {
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

export function createTransferRepository({ db, announce }: RepositoryContext): TransferRepository {
  return {
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
}
