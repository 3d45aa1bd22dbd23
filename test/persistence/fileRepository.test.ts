import { IDBFactory, IDBObjectStore as FakeIDBObjectStore } from 'fake-indexeddb';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { isWindowpaneError, type WindowpaneError } from '../../src/core';
import { openWindowpaneDb } from '../../src/persistence/db';
import { createRepositories } from '../../src/persistence/repositories';
import { createSyncChannel, type StorageChange } from '../../src/persistence/sync';
import { openTestStorage } from './helpers';

const T0 = 1_767_225_600_000;

afterEach(() => vi.restoreAllMocks());

describe('attachments', () => {
  it('stores text files per conversation and lists them oldest first, by name within one pick', async () => {
    const { repositories } = await openTestStorage();
    const { id } = await repositories.conversations.createConversation();
    const other = await repositories.conversations.createConversation();
    const log = await repositories.files.addAttachment({ conversationId: id, name: 'app.log', text: 'line 1\nline 2' });
    await repositories.files.addAttachment({ conversationId: other.id, name: 'elsewhere.txt', text: 'x' });
    const zeta = await repositories.files.addAttachment({ conversationId: id, name: 'zeta.csv', text: 'a,b', createdAt: T0 + 60_000 });
    const alpha = await repositories.files.addAttachment({ conversationId: id, name: 'alpha.md', text: '# A', createdAt: T0 + 60_000 });
    expect(log).toEqual({ id: expect.any(String), conversationId: id, name: 'app.log', text: 'line 1\nline 2', createdAt: expect.any(Number) });
    expect((await repositories.files.listAttachments(id)).map((a) => a.name)).toEqual(['app.log', 'alpha.md', 'zeta.csv']);
    expect(await repositories.files.listAttachments(id)).toEqual([log, alpha, zeta]);
  });

  it('gives a different file under a name already taken a numbered name, so the model can tell them apart', async () => {
    const { repositories } = await openTestStorage();
    const { id } = await repositories.conversations.createConversation();
    await repositories.files.addAttachment({ conversationId: id, name: 'app.log', text: 'monday' });
    const second = await repositories.files.addAttachment({ conversationId: id, name: 'app.log', text: 'tuesday' });
    const third = await repositories.files.addAttachment({ conversationId: id, name: 'app.log', text: 'wednesday' });
    const noExtension = await repositories.files.addAttachment({ conversationId: id, name: 'Makefile', text: 'all:' });
    const noExtensionAgain = await repositories.files.addAttachment({ conversationId: id, name: 'Makefile', text: 'all: build' });
    const dotfile = await repositories.files.addAttachment({ conversationId: id, name: '.env', text: 'A=1' });
    const dotfileAgain = await repositories.files.addAttachment({ conversationId: id, name: '.env', text: 'A=2' });
    expect([second.name, third.name, noExtension.name, noExtensionAgain.name, dotfile.name, dotfileAgain.name]).toEqual([
      'app (2).log',
      'app (3).log',
      'Makefile',
      'Makefile (2)',
      '.env',
      '.env (2)',
    ]);
    expect((await repositories.files.listAttachments(id)).map((a) => a.text)).toEqual(['monday', 'tuesday', 'wednesday', 'all:', 'all: build', 'A=1', 'A=2']);
  });

  it('does not store the same file twice: the same name and text return the stored record', async () => {
    const { repositories } = await openTestStorage();
    const { id } = await repositories.conversations.createConversation();
    const first = await repositories.files.addAttachment({ conversationId: id, name: 'data.csv', text: 'a,b\n1,2' });
    const again = await repositories.files.addAttachment({ id: 'new-id', conversationId: id, name: 'data.csv', text: 'a,b\n1,2' });
    expect(again).toEqual(first);
    expect(await repositories.files.listAttachments(id)).toEqual([first]);
  });

  it('removes one attachment and returns it, so adding it back restores it under its id, name and time', async () => {
    const { repositories } = await openTestStorage();
    const { id } = await repositories.conversations.createConversation();
    const keep = await repositories.files.addAttachment({ conversationId: id, name: 'keep.txt', text: 'keep' });
    const drop = await repositories.files.addAttachment({ conversationId: id, name: 'drop.txt', text: 'drop' });
    const removed = await repositories.files.removeAttachment(drop.id);
    expect(removed).toEqual(drop);
    expect(await repositories.files.listAttachments(id)).toEqual([keep]);
    expect(await repositories.files.removeAttachment(drop.id)).toBeUndefined();

    expect(await repositories.files.addAttachment(removed!)).toEqual(drop);
    expect(await repositories.files.listAttachments(id)).toEqual([keep, drop]);
  });

  it('refuses to attach to a conversation deleted in the meantime, naming the file', async () => {
    const { repositories } = await openTestStorage();
    const { id } = await repositories.conversations.createConversation();
    await repositories.conversations.deleteConversation(id);
    const error = await repositories.files.addAttachment({ conversationId: id, name: 'late.txt', text: 'x' }).catch((e: unknown) => e);
    expect(isWindowpaneError(error, 'conversation_gone')).toBe(true);
    expect((error as WindowpaneError).details).toEqual({ conversationId: id, refused: 'attachment', name: 'late.txt' });
    expect(await repositories.files.listAttachments(id)).toEqual([]);
  });

  it('throws quota_exceeded naming the file when storage is full, and stores nothing', async () => {
    const { repositories } = await openTestStorage();
    const { id } = await repositories.conversations.createConversation();
    vi.spyOn(FakeIDBObjectStore.prototype, 'add').mockImplementation(() => {
      throw new DOMException('The quota has been exceeded.', 'QuotaExceededError');
    });
    const error = await repositories.files.addAttachment({ conversationId: id, name: 'big.log', text: 'x'.repeat(1000) }).catch((e: unknown) => e);
    vi.restoreAllMocks();
    expect(isWindowpaneError(error, 'quota_exceeded')).toBe(true);
    expect((error as WindowpaneError).message).toMatch(/^Browser storage is full, so Windowpane couldn't save the attachment big\.log\./);
    expect(await repositories.files.listAttachments(id)).toEqual([]);
  });

  it('tells the other tabs when a file is attached or removed, when a deleted conversation comes back with its files, and when a conversation’s files are deleted and put back', async () => {
    const name = `windowpane-sync-attachments-${Date.now()}`;
    const [syncA, syncB] = [createSyncChannel({ name }), createSyncChannel({ name })];
    const seenByB: StorageChange[] = [];
    syncB.subscribe((change) => seenByB.push(change));
    const db = await openWindowpaneDb({ factory: new IDBFactory() });
    try {
      const tabA = createRepositories(db, { sync: syncA });
      const { id } = await tabA.conversations.createConversation();
      const file = await tabA.files.addAttachment({ conversationId: id, name: 'notes.md', text: '# Notes' });
      await tabA.files.addAttachment({ conversationId: id, name: 'notes.md', text: '# Notes' }); // already there: nothing changed
      await tabA.files.removeAttachment(file.id);
      const deleted = await tabA.conversations.deleteConversation(id);
      await tabA.conversations.restoreConversation(deleted!);
      await tabA.files.addAttachment({ conversationId: id, name: 'notes.md', text: '# Notes' });
      const removed = await tabA.files.deleteAttachments(id);
      await tabA.files.deleteAttachments(id); // nothing left: nothing changed
      await tabA.files.restoreAttachments(removed);
      await vi.waitFor(() => expect(seenByB).toHaveLength(10));
      expect(seenByB).toEqual([
        { type: 'conversation-changed', conversationId: id },
        { type: 'attachments-changed', conversationId: id },
        { type: 'attachments-changed', conversationId: id },
        { type: 'conversation-changed', conversationId: id },
        { type: 'conversation-changed', conversationId: id },
        { type: 'messages-changed', conversationId: id },
        { type: 'attachments-changed', conversationId: id },
        { type: 'attachments-changed', conversationId: id },
        { type: 'attachments-changed', conversationId: id },
        { type: 'attachments-changed', conversationId: id },
      ]);
    } finally {
      syncA.close();
      syncB.close();
      db.close();
    }
  });
});

describe('deleting and restoring a conversation’s attachments', () => {
  it('removes every file of one conversation, returns them, and puts them back as they were', async () => {
    const { repositories } = await openTestStorage();
    const { id } = await repositories.conversations.createConversation();
    const other = await repositories.conversations.createConversation();
    const files = [
      await repositories.files.addAttachment({ conversationId: id, name: 'app.log', text: 'line 1' }),
      await repositories.files.addAttachment({ conversationId: id, name: 'data.csv', text: 'a,b' }),
    ];
    const elsewhere = await repositories.files.addAttachment({ conversationId: other.id, name: 'app.log', text: 'other' });

    const removed = await repositories.files.deleteAttachments(id);
    expect(removed).toEqual(expect.arrayContaining(files));
    expect(removed).toHaveLength(2);
    expect(await repositories.files.listAttachments(id)).toEqual([]);
    expect(await repositories.files.listAttachments(other.id)).toEqual([elsewhere]);
    expect(await repositories.files.deleteAttachments(id)).toEqual([]);

    await repositories.files.restoreAttachments(removed);
    expect(await repositories.files.listAttachments(id)).toEqual(files);
  });

  it('puts a file back under a numbered name when another took its name meanwhile, and does not store one attached again twice', async () => {
    const { repositories } = await openTestStorage();
    const { id } = await repositories.conversations.createConversation();
    await repositories.files.addAttachment({ conversationId: id, name: 'app.log', text: 'first' });
    await repositories.files.addAttachment({ conversationId: id, name: 'same.txt', text: 'same' });
    const removed = await repositories.files.deleteAttachments(id);
    await repositories.files.addAttachment({ conversationId: id, name: 'app.log', text: 'a newer log' });
    await repositories.files.addAttachment({ conversationId: id, name: 'same.txt', text: 'same' });
    await repositories.files.restoreAttachments(removed);
    expect((await repositories.files.listAttachments(id)).map((a) => `${a.name}: ${a.text}`).sort()).toEqual([
      'app (2).log: first',
      'app.log: a newer log',
      'same.txt: same',
    ]);
  });

  it('refuses to put files back into a conversation deleted meanwhile, writing nothing', async () => {
    const { repositories } = await openTestStorage();
    const { id } = await repositories.conversations.createConversation();
    await repositories.files.addAttachment({ conversationId: id, name: 'a.txt', text: 'a' });
    const removed = await repositories.files.deleteAttachments(id);
    await repositories.conversations.deleteConversation(id);
    const error = await repositories.files.restoreAttachments(removed).catch((e: unknown) => e);
    expect(isWindowpaneError(error, 'conversation_gone')).toBe(true);
    expect((error as WindowpaneError).details).toEqual({ conversationId: id, refused: 'restored attachments' });
    expect(await repositories.files.listAttachments(id)).toEqual([]);
  });
});
