import { IDBFactory } from 'fake-indexeddb';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { WindowpaneError } from '../../src/core';
import { openWindowpaneStorage, type BrowserStorage } from '../../src/persistence';
import type { ChatProvider } from '../../src/providers';
import type { Runtime } from '../../src/store/runtime';
import { watchAttachments } from '../../src/store/filesShown';
import { deleteConversation, selectConversation } from '../../src/store/conversationActions';
import type { StorageViewState } from '../../src/store/state';
import { deleteAttachmentsOf, keepMyData, loadStorageView } from '../../src/store/storageView';
import { storageViewOf } from '../../src/store/storageRows';
import { scriptedRuntime } from './scriptedStore';

const noProvider = {} as ChatProvider;

/** A browser that reports `usage` of `quota` and answers "Keep my data" with `grants`. */
function browser(options: { usage?: number; quota?: number; persisted?: boolean; grants?: boolean } = {}): BrowserStorage {
  let persisted = options.persisted ?? false;
  return {
    estimate: async () => ({ usage: options.usage ?? 52_000, quota: options.quota ?? 2_000_000_000 }),
    persisted: async () => persisted,
    persist: async () => (persisted = options.grants ?? true),
  };
}

/** Stores conversations as an earlier visit left them: a title, message texts and attached files. */
async function seed(conversations: Array<{ title: string; texts: string[]; files?: Record<string, string> }>): Promise<string[]> {
  const storage = await openWindowpaneStorage({ locks: null, rescue: null });
  try {
    const ids: string[] = [];
    for (const { title, texts, files = {} } of conversations) {
      const { id } = await storage.repositories.conversations.createConversation({ title });
      for (const [i, text] of texts.entries()) {
        await storage.repositories.conversations.appendMessage({
          conversationId: id,
          role: i % 2 === 0 ? 'user' : 'assistant',
          content: [{ type: 'text', text }],
        });
      }
      for (const [name, text] of Object.entries(files)) await storage.repositories.files.addAttachment({ conversationId: id, name, text });
      ids.push(id);
    }
    return ids;
  } finally {
    storage.close();
  }
}

async function openApp(browserStorage: BrowserStorage = browser()): Promise<Runtime> {
  const rt = await scriptedRuntime(noProvider);
  rt.deps = { ...rt.deps, browserStorage };
  watchAttachments(rt);
  return rt;
}

const view = (rt: Runtime) => storageViewOf(rt.store.getState().storageView, rt.store.getState().conversations);
const rows = (rt: Runtime) => view(rt).rows.map((r) => [r.title, r.messages, r.attachments]);
const storageNotices = (rt: Runtime) => rt.store.getState().notices.filter((n) => n.section === 'storage');

beforeEach(() => {
  globalThis.indexedDB = new IDBFactory();
});

describe('the storage view', () => {
  it('measures only when asked, then shows every conversation largest first, the total and what the browser reports', async () => {
    await seed([
      { title: 'Short', texts: ['hi', 'hello'] },
      { title: 'Long', texts: ['tell me everything', 'x'.repeat(5000)] },
      { title: 'With a file', texts: ['read this'], files: { 'notes.md': 'n'.repeat(2000) } },
    ]);
    const rt = await openApp(browser({ usage: 52_000, quota: 2_000_000_000, persisted: false }));
    expect(rt.store.getState().storageView).toBeNull();

    await loadStorageView(rt);

    const shown = view(rt);
    expect(shown.status).toBe('ready');
    expect(rows(rt)).toEqual([
      ['Long', 2, 0],
      ['With a file', 1, 1],
      ['Short', 2, 0],
    ]);
    expect(shown.rows[1]!.attachmentBytes).toBeGreaterThan(2000);
    expect(shown.totalBytes).toBe(shown.rows.reduce((sum, r) => sum + r.messageBytes + r.attachmentBytes, 0));
    expect(shown.more).toBe(0);
    expect(shown.browser).toEqual({ usage: 52_000, quota: 2_000_000_000, persisted: false, canPersist: true });
  });

  it('shows the largest conversations up to a limit and counts the rest', () => {
    const state: StorageViewState = {
      status: 'ready',
      browser: { canPersist: false },
      report: {
        totalBytes: 0,
        conversations: [1, 5, 3, 4, 2].map((n) => ({
          id: `c${n}`,
          title: `stale ${n}`,
          messages: n,
          messageBytes: n * 100,
          attachments: 0,
          attachmentBytes: 0,
          updatedAt: n,
        })),
      },
    };
    const conversations = [1, 2, 3, 5].map((n) => ({ id: `c${n}`, title: `Chat ${n}`, createdAt: 0, updatedAt: n, messageCount: n }));
    const shown = storageViewOf(state, conversations, 2);
    // c4 is no longer in the list (deleted): it is neither shown nor counted.
    expect(shown.rows.map((r) => [r.title, r.bytes])).toEqual([
      ['Chat 5', 500],
      ['Chat 3', 300],
    ]);
    expect(shown.more).toBe(2);
    expect(shown.totalBytes).toBe(1100);
    expect(storageViewOf(null, conversations)).toMatchObject({ status: 'measuring', totalBytes: null, rows: [], more: 0 });
  });

  it('says what a browser without the Storage API does not report, and still measures the history', async () => {
    await seed([{ title: 'Only one', texts: ['hi'] }]);
    const rt = await openApp({});
    await loadStorageView(rt);
    expect(view(rt)).toMatchObject({ status: 'ready', browser: { canPersist: false }, rows: [expect.objectContaining({ title: 'Only one' })] });
  });

  it('says why when measuring fails, and keeps working', async () => {
    const rt = await openApp();
    vi.spyOn(rt.repositories.conversations, 'measureStorage').mockRejectedValueOnce(
      new WindowpaneError('storage', 'Windowpane couldn’t measure storage: the disk is gone.'),
    );
    await loadStorageView(rt);
    expect(view(rt)).toMatchObject({ status: 'failed', problem: 'Windowpane couldn’t measure storage: the disk is gone.', totalBytes: null });
    await loadStorageView(rt);
    expect(view(rt)).toMatchObject({ status: 'ready', problem: undefined, totalBytes: 0 });
  });

  it('asks the browser to keep the data, and shows its answer', async () => {
    const rt = await openApp(browser({ persisted: false, grants: true }));
    await loadStorageView(rt);
    const asked = keepMyData(rt);
    expect(view(rt).persistRequest).toBe('asking');
    await asked;
    expect(view(rt)).toMatchObject({ persistRequest: 'granted', browser: { persisted: true } });

    const refused = await openApp(browser({ persisted: false, grants: false }));
    await loadStorageView(refused);
    await keepMyData(refused);
    expect(view(refused)).toMatchObject({ persistRequest: 'denied', browser: { persisted: false } });
  });
});

describe('freeing room from the storage view', () => {
  it('deletes a conversation’s attached files at once, with an Undo that puts them back', async () => {
    const [id] = await seed([{ title: 'Logs', texts: ['look at these'], files: { 'app.log': 'a'.repeat(3000), 'db.log': 'b'.repeat(1000) } }]);
    const rt = await openApp();
    await selectConversation(rt, id!);
    await vi.waitFor(() => expect(rt.store.getState().attachments[id!]).toHaveLength(2));
    await loadStorageView(rt);
    const before = view(rt).rows[0]!;

    await deleteAttachmentsOf(rt, id!);

    expect(view(rt).rows[0]).toMatchObject({ attachments: 0, attachmentBytes: 0, messageBytes: before.messageBytes });
    expect(view(rt).totalBytes).toBe(before.messageBytes);
    expect(await rt.repositories.files.listAttachments(id!)).toEqual([]);
    expect(rt.store.getState().attachments[id!]).toEqual([]); // the composer's chips follow
    const [notice] = storageNotices(rt);
    expect(notice).toMatchObject({ tone: 'info', text: 'Deleted 2 attached files from “Logs” (4.2 KB).', action: { label: 'Undo' } });

    notice!.action!.run();
    await vi.waitFor(() => expect(view(rt).rows[0]).toMatchObject({ attachments: 2, attachmentBytes: before.attachmentBytes }));
    expect((await rt.repositories.files.listAttachments(id!)).map((a) => a.name)).toEqual(['app.log', 'db.log']);
    await vi.waitFor(() => expect(rt.store.getState().attachments[id!]).toHaveLength(2));
  });

  it('names a single file it deleted, and says nothing when there was none', async () => {
    const [withFile, without] = await seed([
      { title: 'One file', texts: ['a'], files: { 'todo.txt': 'milk' } },
      { title: 'No files', texts: ['b'] },
    ]);
    const rt = await openApp();
    await loadStorageView(rt);
    await deleteAttachmentsOf(rt, without!);
    expect(storageNotices(rt)).toEqual([]);
    await deleteAttachmentsOf(rt, withFile!);
    expect(storageNotices(rt).map((n) => n.text)).toEqual([expect.stringMatching(/^Deleted todo\.txt from “One file” \(\d+ B\)\.$/)]);
  });

  it('deletes a whole conversation with the usual Undo, its row leaving and coming back', async () => {
    const [big, small] = await seed([
      { title: 'Big', texts: ['q', 'y'.repeat(4000)] },
      { title: 'Small', texts: ['q', 'ok'] },
    ]);
    const rt = await openApp();
    await loadStorageView(rt);
    const total = view(rt).totalBytes!;
    const bigBytes = view(rt).rows[0]!.bytes;

    await deleteConversation(rt, big!, 'storage');

    expect(rows(rt)).toEqual([['Small', 2, 0]]);
    expect(view(rt).totalBytes).toBe(total - bigBytes);
    const [notice] = storageNotices(rt);
    expect(notice).toMatchObject({ text: 'Deleted “Big”.', action: { label: 'Undo' } });
    notice!.action!.run();
    rt.notifier.dismiss(notice!.id);
    await vi.waitFor(() => expect(rows(rt).map(([title]) => title)).toEqual(['Big', 'Small']));
    expect(view(rt).totalBytes).toBe(total);
    expect(await rt.repositories.conversations.getMessages(small!)).toHaveLength(2);
  });

  it('shows a failure to delete in the section, where the user is looking', async () => {
    const [id] = await seed([{ title: 'Logs', texts: ['x'], files: { 'a.log': 'a' } }]);
    const rt = await openApp();
    await loadStorageView(rt);
    vi.spyOn(rt.repositories.files, 'deleteAttachments').mockRejectedValueOnce(
      new WindowpaneError('storage', 'Windowpane couldn’t delete the attached files.'),
    );
    await deleteAttachmentsOf(rt, id!);
    expect(storageNotices(rt)).toEqual([expect.objectContaining({ tone: 'error', text: 'Windowpane couldn’t delete the attached files.' })]);
    expect(view(rt).rows[0]).toMatchObject({ attachments: 1 });
  });
});
