/**
 * What is attached to conversations: text files the model reads by name (attachments), and
 * the images and PDFs sent with messages (files, stored as Blobs). Every call is one
 * transaction through `withTransaction`; every committed change is announced.
 */
import { eachRequest, withTransaction, type AttachmentRecord, type FileRecord } from './db';
import { conversationGone, type RepositoryContext } from './repositoryContext';
import type { StorageChange } from './sync';

export interface FileRepository {
  /**
   * Stores a text file attached to a conversation. Names are unique within a conversation,
   * because the model reads a file by its name: a name already taken by a different text
   * gets a numbered suffix ("app (2).log"), and the same name with the same text is not
   * stored twice (the stored record is returned). Both are decided in the write's own
   * transaction, so tabs attaching at once never collide. Throws `conversation_gone` when
   * the conversation no longer exists, `quota_exceeded` when storage is full.
   */
  addAttachment(input: { id?: string; conversationId: string; name: string; text: string; createdAt?: number }): Promise<AttachmentRecord>;
  /**
   * Stores images about to be sent with a message, all or none. Throws `conversation_gone`
   * when the conversation no longer exists, `quota_exceeded` when storage is full.
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
   * attached again meanwhile is not stored twice. Throws `conversation_gone` when a
   * conversation they belong to no longer exists; then nothing is written.
   */
  restoreAttachments(records: readonly AttachmentRecord[]): Promise<void>;
}

export function createFileRepository({ db, now, newId, announce }: RepositoryContext): FileRepository {
  const repository: FileRepository = {
    async addAttachment(input) {
      const stored = await withTransaction(db, ['conversations', 'attachments'], 'readwrite', `save the attachment ${input.name}`, async (tx) => {
        if ((await tx.objectStore('conversations').getKey(input.conversationId)) === undefined) {
          throw conversationGone(input.conversationId, 'attachment', input.name);
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
          if ((await tx.objectStore('conversations').getKey(owner)) === undefined) throw conversationGone(owner, kind === 'file' ? 'files' : 'images');
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
          if ((await tx.objectStore('conversations').getKey(owner)) === undefined) throw conversationGone(owner, 'restored attachments');
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
  };
  return repository;
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
