import { IDBFactory } from 'fake-indexeddb';
import { afterEach, describe, expect, it } from 'vitest';
import { openWindowpaneStorage, type FileRecord, type WindowpaneStorage } from '../../src/persistence';
import { browserDeps } from '../../src/browserRuntime';
import { attachFiles } from '../../src/store/attachmentActions';
import { hydrate } from '../../src/store/hydrate';
import { appendMessage } from '../../src/store/messageWrites';
import { createRuntime, type Runtime } from '../../src/store/runtime';
import { unreadableNotice } from '../../src/store/storageNotices';

const GONE = 'This conversation no longer exists (it may have been deleted in another tab), so';

const opened: WindowpaneStorage[] = [];
afterEach(() => {
  for (const storage of opened.splice(0)) storage.close();
});

/** A hydrated tab, and a conversation of it that another tab has just deleted. */
async function tabWithDeletedConversation(): Promise<{ rt: Runtime; id: string }> {
  const factory = new IDBFactory();
  let ids = 0;
  const newId = () => `id-${++ids}`;
  const rt = createRuntime({
    ...browserDeps(),
    session: undefined,
    openStorage: async () => {
      const storage = await openWindowpaneStorage({ factory, channel: { name: `storage-notices-${Math.random()}` }, locks: null, rescue: null, newId });
      opened.push(storage);
      return storage;
    },
    createProvider: () => Promise.reject(new Error('no provider in these tests')),
    newId,
  });
  await hydrate(rt);
  const { id } = await rt.repositories.conversations.createConversation({ title: 'Soon gone' });
  await rt.repositories.conversations.deleteConversation(id);
  return { rt, id };
}

const errorTexts = (rt: Runtime) =>
  rt.store
    .getState()
    .notices.filter((n) => n.tone === 'error')
    .map((n) => n.text);

describe('records this version cannot read', () => {
  it('says how many conversations are shown with defaults and how many messages are left out, all kept in storage', () => {
    expect(unreadableNotice({ kind: 'conversations', count: 1 })).toBe(
      '1 stored conversation has fields this version cannot read; it is shown with defaults and kept unchanged in storage.',
    );
    expect(unreadableNotice({ kind: 'conversations', count: 3 })).toBe(
      '3 stored conversations have fields this version cannot read; they are shown with defaults and kept unchanged in storage.',
    );
    expect(unreadableNotice({ kind: 'messages', count: 1 })).toBe(
      '1 stored message is in a form this version cannot read, so it is left out here; it stays in storage unchanged.',
    );
    expect(unreadableNotice({ kind: 'messages', count: 2 })).toBe(
      '2 stored messages are in a form this version cannot read, so they are left out here; they stay in storage unchanged.',
    );
  });
});

describe('a write whose conversation another tab deleted', () => {
  it('says the message was not saved, and to copy what is on screen', async () => {
    const { rt, id } = await tabWithDeletedConversation();
    await appendMessage(rt, { conversationId: id, role: 'user', content: [{ type: 'text', text: 'Too late' }] });
    expect(errorTexts(rt)).toEqual([`${GONE} the message was not saved. Copy anything you need from the screen before leaving it.`]);
  });

  it('names the file that was not attached', async () => {
    const { rt, id } = await tabWithDeletedConversation();
    await attachFiles(rt, id, [new File(['notes'], 'late.txt', { type: 'text/plain' })]);
    expect(errorTexts(rt)).toEqual([`${GONE} late.txt was not attached.`]);
  });

  it('says which files were not saved or put back', async () => {
    const { rt, id } = await tabWithDeletedConversation();
    const record = (mediaType: string): FileRecord => ({ id: 'f', conversationId: id, name: 'f', mediaType, blob: new Blob(['x']), bytes: 1, createdAt: 1 });
    const refused = (write: Promise<unknown>) =>
      write.then(
        () => expect.unreachable('the write was kept'),
        (error: unknown) => error,
      );

    const images = await refused(rt.repositories.files.addFiles([record('image/png')]));
    expect(rt.notifier.reportError(images, 'save the images')).toBe(`${GONE} the images were not saved.`);
    const pdfs = await refused(rt.repositories.files.addFiles([record('image/png'), record('application/pdf')]));
    expect(rt.notifier.reportError(pdfs, 'save the files')).toBe(`${GONE} the files were not saved.`);
    const attachments = await refused(rt.repositories.files.restoreAttachments([{ id: 'a', conversationId: id, name: 'a.txt', text: 'a', createdAt: 1 }]));
    expect(rt.notifier.reportError(attachments, 'put the attached files back')).toBe(`${GONE} its files were not put back.`);
  });
});
