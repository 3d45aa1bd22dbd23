import { Blob as NodeBlob } from 'node:buffer';
import { zipSync, strToU8 } from 'fflate';
import { IDBObjectStore as FakeIDBObjectStore } from 'fake-indexeddb';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { readImportTexts } from '../../src/persistence/importFileText';
import { importFromFile, type ImportProgress } from '../../src/persistence/transferFiles';
import { chatGptConversation, claudeConversation, generatedList } from '../core/transfer/generatedExports';
import { openTestStorage } from './helpers';

const NOW = 1_767_225_600_000;
const json = (data: unknown) => new NodeBlob([JSON.stringify(data)]);
const zip = (files: Record<string, string | Uint8Array>) =>
  new NodeBlob([zipSync(Object.fromEntries(Object.entries(files).map(([name, body]) => [name, typeof body === 'string' ? strToU8(body) : body])))]);

afterEach(() => vi.restoreAllMocks());

describe('importing every export shape', () => {
  const chatgpt = generatedList(chatGptConversation, 3, 4);
  const claude = generatedList(claudeConversation, 3, 4);
  it.each([
    ['ChatGPT conversations.json', json(chatgpt), 'chatgpt'],
    ['ChatGPT wrapped in { conversations }', json({ conversations: chatgpt }), 'chatgpt'],
    ['ChatGPT data export .zip', zip({ 'conversations.json': JSON.stringify(chatgpt), 'user.json': '{}', 'chat.html': '<html></html>' }), 'chatgpt'],
    ['Claude conversations.json', json(claude), 'claude'],
    ['Claude wrapped in { conversations }', json({ conversations: claude }), 'claude'],
    [
      'Claude data export .zip, in a folder',
      zip({ 'data-2026/users.json': '[]', 'data-2026/conversations.json': JSON.stringify({ conversations: claude }) }),
      'claude',
    ],
  ] as const)('%s', async (_name, file, format) => {
    const { repositories } = await openTestStorage();
    const outcome = await importFromFile(repositories.transfer, file, { now: NOW });
    expect(outcome).toMatchObject({ ok: true, value: { format, total: 3, read: 3, imported: 3, messages: 12, skipped: 0, failed: [], cancelled: false } });
    const listed = await repositories.conversations.listConversations();
    expect(listed).toHaveLength(3);
    for (const c of listed) expect(await repositories.conversations.getMessages(c.id)).toHaveLength(4);
    expect((await repositories.search.searchConversations('message 3')).hits).toHaveLength(3);
    // Again: everything is already here.
    expect(await importFromFile(repositories.transfer, file, { now: NOW })).toMatchObject({ ok: true, value: { imported: 0, skipped: 3 } });
  });

  it('refuses a zip without conversations.json, saying what to choose', async () => {
    const { repositories } = await openTestStorage();
    const outcome = await importFromFile(repositories.transfer, zip({ 'chat.html': '<html></html>', 'notes/conversations.txt': 'no' }), { now: NOW });
    expect(outcome).toMatchObject({
      ok: false,
      error: { code: 'import_invalid', message: expect.stringMatching(/holds no conversations\.json.*ChatGPT or Claude/) },
    });
  });

  it('refuses a damaged or cut-off zip', async () => {
    const { repositories } = await openTestStorage();
    const whole = zipSync({ 'conversations.json': strToU8(JSON.stringify(generatedList(chatGptConversation, 20, 10))) });
    const outcome = await importFromFile(repositories.transfer, new NodeBlob([whole.slice(0, whole.length / 2)]), { now: NOW });
    expect(outcome.ok).toBe(false);
    expect(await repositories.conversations.listConversations()).toEqual([]);
  });

  it('stops a zip bomb at the unpacked-size cap, by the size it states and by the bytes it unpacks', async () => {
    const bomb = zip({ 'conversations.json': new Uint8Array(3 * 1024 * 1024).fill(0x20) });
    expect(bomb.size).toBeLessThan(20_000);
    const stated = await readImportTexts(bomb, { maxUnpackedBytes: 1024 * 1024 });
    expect(stated).toMatchObject({ ok: false, error: { code: 'import_too_large', message: expect.stringMatching(/unpack to more than 1 MB/) } });
    // A zip may lie about its size: the bytes are counted as they come.
    const lying = lyingZip(new Uint8Array(await bomb.arrayBuffer()));
    const counted = await readImportTexts(new NodeBlob([lying]), { maxUnpackedBytes: 1024 * 1024 });
    expect(counted).toMatchObject({ ok: false, error: { code: 'import_too_large' } });
  });
});

/** The same archive with its first entry's local header claiming it unpacks to 100 bytes. */
function lyingZip(bytes: Uint8Array): Uint8Array {
  const out = bytes.slice();
  new DataView(out.buffer).setUint32(22, 100, true);
  return out;
}

describe('importing in batches', () => {
  const file = (count: number, messages = 4) => json(generatedList(chatGptConversation, count, messages));
  const limits = { conversations: 5, messages: 1000 };

  it('reports progress: reading, parsing, then writing N of M conversations', async () => {
    const { repositories } = await openTestStorage();
    const seen: ImportProgress[] = [];
    await importFromFile(repositories.transfer, file(12), { now: NOW, limits, onProgress: (p) => seen.push(p) });
    expect(seen.map((p) => p.phase).filter((p, i, all) => p !== all[i - 1])).toEqual(['reading', 'parsing', 'writing']);
    expect(seen.filter((p) => p.phase === 'writing').map((p) => [p.done, p.total, p.imported])).toEqual([
      [0, 12, 0],
      [5, 12, 5],
      [10, 12, 10],
      [12, 12, 12],
    ]);
  });

  it('a full disk midway keeps the batches written before it whole, and says where it stopped', async () => {
    const { repositories } = await openTestStorage();
    const add = FakeIDBObjectStore.prototype.add;
    let writes = 0;
    // 5 conversations of 4 messages: 25 writes a batch; the third batch fails partway.
    vi.spyOn(FakeIDBObjectStore.prototype, 'add').mockImplementation(function (this: IDBObjectStore, ...args) {
      if (++writes > 60) throw new DOMException('full', 'QuotaExceededError');
      return add.apply(this, args);
    });
    const outcome = await importFromFile(repositories.transfer, file(20), { now: NOW, limits });
    vi.restoreAllMocks();
    expect(outcome).toMatchObject({
      ok: true,
      value: { total: 20, read: 10, imported: 10, messages: 40, stopped: { title: 'ChatGPT conversation 10', code: 'quota_exceeded' } },
    });
    const listed = await repositories.conversations.listConversations();
    expect(listed.map((c) => c.title).sort()).toEqual(generatedList((n) => `ChatGPT conversation ${n}`, 10, 0).sort());
    for (const c of listed) expect(await repositories.conversations.getMessages(c.id)).toHaveLength(4);

    // Importing the file again continues: the first ten are skipped, the rest written.
    const again = await importFromFile(repositories.transfer, file(20), { now: NOW, limits });
    expect(again).toMatchObject({ ok: true, value: { imported: 10, skipped: 10 } });
    expect(await repositories.conversations.listConversations()).toHaveLength(20);
  });

  it('a malformed conversation far down the file is left out and the rest imported', async () => {
    const { repositories } = await openTestStorage();
    const data = generatedList(chatGptConversation, 12, 2) as Array<Record<string, unknown>>;
    data[9] = { ...data[9], create_time: 'yesterday' };
    const outcome = await importFromFile(repositories.transfer, json(data), { now: NOW, limits });
    expect(outcome).toMatchObject({
      ok: true,
      value: { imported: 11, failed: [{ position: 10, title: 'ChatGPT conversation 9', reason: expect.stringMatching(/create_time should be a number/) }] },
    });
  });

  it('Cancel stops after the batch being written and keeps it', async () => {
    const { repositories } = await openTestStorage();
    const cancel = new AbortController();
    const outcome = await importFromFile(repositories.transfer, file(20), {
      now: NOW,
      limits,
      signal: cancel.signal,
      onProgress: (p) => {
        if (p.phase === 'writing' && p.imported === 5) cancel.abort();
      },
    });
    expect(outcome).toMatchObject({ ok: true, value: { cancelled: true, total: 20, read: 5, imported: 5 } });
    const listed = await repositories.conversations.listConversations();
    expect(listed).toHaveLength(5);
    for (const c of listed) expect(await repositories.conversations.getMessages(c.id)).toHaveLength(4);
  });

  it('Cancel while reading writes nothing', async () => {
    const { repositories } = await openTestStorage();
    const cancel = new AbortController();
    cancel.abort();
    const outcome = await importFromFile(repositories.transfer, file(3), { now: NOW, signal: cancel.signal });
    expect(outcome).toMatchObject({ ok: true, value: { cancelled: true, imported: 0 } });
    expect(await repositories.conversations.listConversations()).toEqual([]);
  });
});
