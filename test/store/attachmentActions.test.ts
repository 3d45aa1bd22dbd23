import { IDBFactory, IDBObjectStore as FakeIDBObjectStore } from 'fake-indexeddb';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { openWindowpaneStorage, type WindowpaneStorage } from '../../src/persistence';
import { browserDeps } from '../../src/browserRuntime';
import { createRuntime, type Runtime } from '../../src/store/runtime';
import { ATTACHMENT_MAX_BYTES, attachFiles, readTextFile, removeAttachment } from '../../src/store/attachmentActions';
import { formatBytes, watchAttachments } from '../../src/store/filesShown';
import { deleteConversation, selectConversation, undoDelete } from '../../src/store/conversationActions';
import { hydrate } from '../../src/store/hydrate';

const opened: WindowpaneStorage[] = [];
afterEach(() => {
  for (const storage of opened.splice(0)) storage.close();
});

let channels = 0;
let tabs = 0;
/** A tab of the app on `factory` (one browser profile), hydrated and watching attachments. */
async function openTab(factory = new IDBFactory(), channel = `attachments-test-${++channels}`): Promise<Runtime> {
  // A clock that moves a second per reading, so what is attached later is listed later.
  let time = 1_767_225_600_000;
  const now = () => (time += 1000);
  let ids = 0;
  const tab = `tab${++tabs}`;
  const newId = () => `${tab}-${++ids}`;
  const rt = createRuntime({
    ...browserDeps(),
    session: undefined,
    openStorage: async () => {
      const storage = await openWindowpaneStorage({ factory, channel: { name: channel }, locks: null, rescue: null, now, newId });
      opened.push(storage);
      return storage;
    },
    createProvider: () => Promise.reject(new Error('no provider in these tests')),
    now,
    newId,
  });
  await hydrate(rt);
  watchAttachments(rt);
  return rt;
}

const file = (name: string, content: string | Uint8Array, type = 'text/plain') => new File([content as BlobPart], name, { type });

function shown(rt: Runtime, conversationId: string) {
  return (rt.store.getState().attachments[conversationId] ?? []).map((a) => `${a.name} ${a.size}`);
}

function noticeTexts(rt: Runtime, tone?: 'info' | 'error') {
  return rt.store
    .getState()
    .notices.filter((n) => !tone || n.tone === tone)
    .map((n) => n.text);
}

describe('readTextFile', () => {
  it('reads UTF-8 text of any kind (code, logs, CSV, markdown, JSON), dropping a byte-order mark', async () => {
    expect(await readTextFile(file('app.ts', 'export const π = 3.14;\n'))).toEqual({ ok: true, name: 'app.ts', text: 'export const π = 3.14;\n' });
    expect(await readTextFile(file('data.csv', '\uFEFFa,b\n1,2'))).toEqual({ ok: true, name: 'data.csv', text: 'a,b\n1,2' });
    expect(await readTextFile(file('empty.log', ''))).toEqual({ ok: true, name: 'empty.log', text: '' });
  });

  it('refuses binary data, text that is not UTF-8, and files over the cap, saying why', async () => {
    const png = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0x00, 0x00]);
    expect(await readTextFile(file('photo.png', png, 'image/png'))).toEqual({
      ok: false,
      name: 'photo.png',
      reason: 'photo.png is not a text file (it contains binary data).',
    });
    const latin1 = new Uint8Array([0x63, 0x61, 0x66, 0xe9]); // "café" in Latin-1
    expect(await readTextFile(file('notes.txt', latin1))).toEqual({
      ok: false,
      name: 'notes.txt',
      reason: 'notes.txt is not UTF-8 text. Save it as UTF-8 and attach it again.',
    });
    expect(await readTextFile(file('limit.log', 'x'.repeat(ATTACHMENT_MAX_BYTES)))).toMatchObject({ ok: true });
    expect(await readTextFile(file('huge.log', 'x'.repeat(ATTACHMENT_MAX_BYTES + 1)))).toEqual({
      ok: false,
      name: 'huge.log',
      reason: 'huge.log is over the 5 MB limit for an attachment.',
    });
    expect(await readTextFile(file('dump.log', 'x'.repeat(7_340_032)))).toEqual({
      ok: false,
      name: 'dump.log',
      reason: 'dump.log is 7 MB, over the 5 MB limit for an attachment.',
    });
  });

  it('formats sizes as the chips show them', () => {
    expect([0, 812, 1024, 3500, 12_800, 1_572_864, 7_340_032].map(formatBytes)).toEqual(['0 B', '812 B', '1 KB', '3.4 KB', '12 KB', '1.5 MB', '7 MB']);
    // A browser's quota runs to gigabytes.
    expect([2_300_000_000, 321_987_654_321, 3 * 1024 ** 4].map(formatBytes)).toEqual(['2.1 GB', '299 GB', '3 TB']);
  });
});

describe('attachFiles', () => {
  it('in a new chat, creates the conversation (named after the first file), opens it and stores the files', async () => {
    const rt = await openTab();
    await attachFiles(rt, null, [file('app.log', 'started\nfailed\n'), file('config.json', '{"a":1}')]);
    const { activeId, conversations } = rt.store.getState();
    expect(conversations).toEqual([expect.objectContaining({ id: activeId, title: 'app.log' })]);
    expect(shown(rt, activeId!)).toEqual(['app.log 15', 'config.json 7']);
    const stored = await rt.storage!.repositories.files.listAttachments(activeId!);
    expect(stored.map((a) => [a.name, a.text])).toEqual([
      ['app.log', 'started\nfailed\n'],
      ['config.json', '{"a":1}'],
    ]);
    expect(await rt.storage!.repositories.conversations.getMessages(activeId!)).toEqual([]); // nothing pasted into the conversation
    expect(noticeTexts(rt)).toEqual([]);
  });

  it('leaves out binary, non-UTF-8 and oversized files with one clear alert, and attaches the rest', async () => {
    const rt = await openTab();
    await attachFiles(rt, null, [
      file('photo.png', new Uint8Array([0x89, 0x50, 0x00, 0x01])),
      file('readme.md', '# Read me'),
      file('huge.log', 'x'.repeat(ATTACHMENT_MAX_BYTES + 10)),
    ]);
    const id = rt.store.getState().activeId!;
    expect(shown(rt, id)).toEqual(['readme.md 9']);
    expect(noticeTexts(rt, 'error')).toEqual([
      '2 files were not attached. photo.png is not a text file (it contains binary data). huge.log is over the 5 MB limit for an attachment.',
    ]);
  });

  it('creates no conversation when no file could be attached', async () => {
    const rt = await openTab();
    await attachFiles(rt, null, [file('photo.png', new Uint8Array([0, 1, 2]))]);
    expect(rt.store.getState().conversations).toEqual([]);
    expect(rt.store.getState().activeId).toBeNull();
    expect(noticeTexts(rt, 'error')).toEqual(['One file was not attached. photo.png is not a text file (it contains binary data).']);
  });

  it('attaches a different file under a taken name as "name (2)", and the same file again not at all, saying so', async () => {
    const rt = await openTab();
    await attachFiles(rt, null, [file('app.log', 'monday')]);
    const id = rt.store.getState().activeId!;
    await attachFiles(rt, id, [file('app.log', 'tuesday'), file('app.log', 'monday')]);
    expect(shown(rt, id)).toEqual(['app.log 6', 'app (2).log 7']);
    expect(noticeTexts(rt, 'info')).toEqual(['A different app.log is already attached, so this one was attached as app (2).log. app.log is already attached.']);
  });

  it('when storage is full, keeps what was attached, names every file left out, and attaches once there is room', async () => {
    const rt = await openTab();
    await attachFiles(rt, null, [file('first.txt', 'one')]);
    const id = rt.store.getState().activeId!;
    const add = FakeIDBObjectStore.prototype.add;
    const spy = vi.spyOn(FakeIDBObjectStore.prototype, 'add').mockImplementation(function (this: IDBObjectStore, ...args) {
      if (this.name === 'attachments') throw new DOMException('The quota has been exceeded.', 'QuotaExceededError');
      return add.apply(this, args);
    });
    await attachFiles(rt, id, [file('big.log', 'a'), file('more.log', 'b'), file('last.log', 'c')]);
    spy.mockRestore();
    expect(shown(rt, id)).toEqual(['first.txt 3']);
    const [alert, ...others] = noticeTexts(rt, 'error');
    expect(others).toEqual([]);
    expect(alert).toMatch(/^Browser storage is full, so Windowpane couldn't save the attachment big\.log\. .*more\.log, last\.log were not attached\.$/);

    await attachFiles(rt, id, [file('big.log', 'a')]);
    expect(shown(rt, id)).toEqual(['first.txt 3', 'big.log 1']);
  });

  it('says so when the tab has no storage at all, and stores nothing', async () => {
    const rt = createRuntime({
      ...browserDeps(),
      session: undefined,
      openStorage: () => Promise.reject(new Error('IndexedDB is disabled')),
      createProvider: () => Promise.reject(new Error('unused')),
      now: () => 0,
      newId: () => 'x',
    });
    await hydrate(rt);
    await attachFiles(rt, null, [file('a.txt', 'a'), file('b.txt', 'b')]);
    expect(rt.store.getState().conversations).toEqual([]);
    expect(noticeTexts(rt, 'error').at(-1)).toBe('Attaching files needs browser storage, which is unavailable in this tab. a.txt, b.txt were not attached.');
  });
});

describe('removeAttachment', () => {
  it('removes at once and Undo puts the same file back', async () => {
    const rt = await openTab();
    await attachFiles(rt, null, [file('keep.txt', 'keep'), file('drop.txt', 'drop me')]);
    const id = rt.store.getState().activeId!;
    const before = shown(rt, id);
    const drop = rt.store.getState().attachments[id]!.find((a) => a.name === 'drop.txt')!;
    await removeAttachment(rt, id, drop.id);
    expect(shown(rt, id)).toEqual(['keep.txt 4']);
    expect((await rt.storage!.repositories.files.listAttachments(id)).map((a) => a.name)).toEqual(['keep.txt']);
    const notice = rt.store.getState().notices.find((n) => n.text === 'Removed drop.txt.')!;
    expect(notice.action?.label).toBe('Undo');

    notice.action!.run();
    await vi.waitFor(() => expect(shown(rt, id)).toEqual(before));
    expect((await rt.storage!.repositories.files.listAttachments(id)).find((a) => a.name === 'drop.txt')).toMatchObject({ id: drop.id, text: 'drop me' });
  });
});

describe('the open conversation’s attachments', () => {
  it('are read when a conversation opens, after a reload too, and come back with a deleted conversation’s Undo', async () => {
    const factory = new IDBFactory();
    const first = await openTab(factory);
    await attachFiles(first, null, [file('notes.md', '# Notes')]);
    const id = first.store.getState().activeId!;
    opened.splice(0).forEach((s) => s.close());

    const reloaded = await openTab(factory);
    expect(reloaded.store.getState().attachments[id]).toBeUndefined();
    await selectConversation(reloaded, id);
    await vi.waitFor(() => expect(shown(reloaded, id)).toEqual(['notes.md 7']));

    await deleteConversation(reloaded, id);
    expect(await reloaded.storage!.repositories.files.listAttachments(id)).toEqual([]);
    await undoDelete(reloaded, id);
    await selectConversation(reloaded, id);
    expect((await reloaded.storage!.repositories.files.listAttachments(id)).map((a) => a.name)).toEqual(['notes.md']);
    await vi.waitFor(() => expect(shown(reloaded, id)).toEqual(['notes.md 7']));
  });

  it('follow another tab attaching and removing files', async () => {
    const factory = new IDBFactory();
    const channel = `attachments-two-tabs-${++channels}`;
    const tabA = await openTab(factory, channel);
    const tabB = await openTab(factory, channel);
    await attachFiles(tabA, null, [file('a.txt', 'from A')]);
    const id = tabA.store.getState().activeId!;
    await selectConversation(tabB, id);
    await vi.waitFor(() => expect(shown(tabB, id)).toEqual(['a.txt 6']));

    await attachFiles(tabA, id, [file('b.txt', 'more')]);
    await vi.waitFor(() => expect(shown(tabB, id)).toEqual(['a.txt 6', 'b.txt 4']));
    await removeAttachment(tabB, id, tabB.store.getState().attachments[id]![0]!.id);
    await vi.waitFor(() => expect(shown(tabA, id)).toEqual(['b.txt 4']));
  });
});
