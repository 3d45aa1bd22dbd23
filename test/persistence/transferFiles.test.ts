import { Blob as NodeBlob } from 'node:buffer';
import fc from 'fast-check';
import { IDBFactory, IDBObjectStore as FakeIDBObjectStore } from 'fake-indexeddb';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { MAX_IMPORT_BYTES, branchCount, branchMessages, buildTree, exportToJson, exportToMarkdown, utf8Bytes, type StoredMessage } from '../../src/core';
import type { Repositories } from '../../src/persistence/repositories';
import { exportJsonFiles, importFromFile, type ImportOptions } from '../../src/persistence/transferFiles';
import { conversationRecords } from '../core/transfer/arbitraries';
import { brokenFixtures, readFixture } from '../core/transfer/fixtures';
import { openTestStorage } from './helpers';

/** The export as the one file it is under Import's limit. */
async function exportOne(...args: Parameters<typeof exportJsonFiles>): Promise<string> {
  const parts = await exportJsonFiles(...args);
  expect(parts).toHaveLength(1);
  return parts[0]!;
}
const NOW = 1_767_225_600_000;

/** Everything stored, for before/after comparisons. */
async function snapshot(repositories: Repositories) {
  return { records: await repositories.transfer.readForExport(), settings: await repositories.settings.getSetting('settings') };
}

// Node's Blob: jsdom's has no text(), which every browser Windowpane supports does.
const file = (text: string) => new NodeBlob([text], { type: 'application/json' });
const importFromText = (repositories: Repositories, text: string, options?: ImportOptions) => importFromFile(repositories.transfer, file(text), options);

/** What importing each broken file of the corpus must say (the one that still imports is tested on its own below). */
const BROKEN: Record<string, RegExp> = {
  'chatgpt-mapping-not-object.json': /ChatGPT export could not be read.*conversation 1\.mapping should be an object, but is text "node-1,node-2"/,
  'chatgpt-parent-loop.json': /ChatGPT export could not be read.*no starting message \(its messages form a loop\)/,
  'chatgpt-role-not-text.json': /conversation 1\.mapping\["n1"\]\.message\.author\.role should be text, but is a number \(42\)/,
  'chatgpt-time-as-text.json': /conversation 1\.create_time should be a number, but is text "yesterday"/,
  'claude-date-not-a-date.json': /Claude export could not be read.*conversation 1\.created_at should be an ISO-8601 date, but is text "the fourth of March"/,
  'claude-messages-not-list.json': /conversation 1\.chat_messages should be a list, but is an object/,
  'claude-sender-not-text.json': /conversation 1\.chat_messages\[0\]\.sender should be text, but is a number \(1\)/,
  'empty-array.json': /contains no conversations/,
  'empty.json': /The file is empty/,
  'nested-garbage.json': /Windowpane export is damaged.*conversations\[0\] should be an object, but is a list/,
  'not-json.txt': /not valid JSON.*may be truncated or not an export/,
  'null.json': /isn't a format Windowpane can import/,
  'whitespace.json': /The file is empty/,
  'windowpane-content-not-list.json': /conversations\[0\]\.messages\[0\]\.content should be a list, but is text "hi"/,
  'windowpane-message-elsewhere.json': /messages\[0\]\.conversationId should be "c1" \(its conversation's id\), but is text "c2"/,
  'windowpane-newer-version.json': /newer Windowpane \(format version 7\).*Update Windowpane/,
  'windowpane-role-system.json': /messages\[0\]\.role should be "user" or "assistant", but is text "system"/,
  'wrong-format.json': /isn't a format Windowpane can import.*ChatGPT or Claude/,
};

describe('importing export files into storage', () => {
  it('writes a ChatGPT export with all its branches, and a second import duplicates nothing', async () => {
    const { repositories } = await openTestStorage();
    const first = await importFromFile(repositories.transfer, file(readFixture('chatgpt-conversations.json')), { now: NOW });
    expect(first).toMatchObject({ ok: true, value: { format: 'chatgpt', imported: 2, skipped: 0, branches: 2 } });

    const listed = await repositories.conversations.listConversations();
    expect(listed.map((c) => c.title).sort()).toEqual(['Sorting a list of dicts in Python', 'Untitled conversation']);
    const main = listed.find((c) => c.title === 'Sorting a list of dicts in Python')!;
    const messages = await repositories.conversations.getMessages(main.id);
    expect(messages).toHaveLength(10);
    expect(main.messageCount).toBe(10);
    const tree = buildTree(messages);
    expect(branchCount(tree)).toBe(3);
    expect(branchMessages(tree, main.activeLeafId)).toHaveLength(7);

    const before = await snapshot(repositories);
    const second = await importFromFile(repositories.transfer, file(readFixture('chatgpt-conversations.json')), { now: NOW + 1 });
    expect(second).toMatchObject({ ok: true, value: { format: 'chatgpt', imported: 0, skipped: 2, branches: 0, messages: 0, importedIds: [], failed: [] } });
    expect(await snapshot(repositories)).toEqual(before);
  });

  it('writes a Claude export and recognises it the second time', async () => {
    const { repositories } = await openTestStorage();
    expect(await importFromText(repositories, readFixture('claude-conversations.json'), { now: NOW })).toMatchObject({
      ok: true,
      value: { format: 'claude', imported: 2, skipped: 0, branches: 1 },
    });
    expect(await importFromText(repositories, readFixture('claude-conversations.json'), { now: NOW })).toMatchObject({
      ok: true,
      value: { imported: 0, skipped: 2 },
    });
    expect((await repositories.search.searchConversations('dictreader')).hits).toEqual([
      expect.objectContaining({ title: 'Reviewing a CSV import script', matchedIn: 'message' }),
    ]);
  });

  it('counts the extra branches of the conversations it writes, whatever the format', async () => {
    const { repositories } = await openTestStorage();
    const say = (id: string, seq: number, parentId: string | null): StoredMessage => ({
      id,
      conversationId: 'tree',
      seq,
      parentId,
      role: seq % 2 ? 'assistant' : 'user',
      kind: 'message',
      content: [{ type: 'text', text: id }],
      createdAt: seq,
      status: 'complete',
    });
    const messages = [say('q', 0, null), say('a1', 1, 'q'), say('a2', 2, 'q'), say('a3', 3, 'q')];
    const json = exportToJson(
      [{ conversation: { id: 'tree', title: 'Tree', createdAt: 0, updatedAt: 3, messageCount: 4, activeLeafId: 'a1' }, messages }],
      NOW,
    );
    expect(await importFromText(repositories, json)).toMatchObject({ ok: true, value: { format: 'windowpane', imported: 1, branches: 2 } });
    expect((await repositories.conversations.listConversations())[0]!.activeLeafId).toBe('a1');
  });

  it('export, then import into a fresh profile, gives the same conversations (property)', async () => {
    await fc.assert(
      fc.asyncProperty(conversationRecords(3), async (entries) => {
        const source = await openTestStorage();
        const seeded = await importFromText(source.repositories, exportToJson(entries, NOW));
        expect(seeded.ok).toBe(true);
        const exported = await exportOne(source.repositories, undefined, NOW);

        const fresh = await openTestStorage();
        const imported = await importFromText(fresh.repositories, exported);
        expect(imported).toMatchObject({ ok: true, value: { imported: entries.length, skipped: 0 } });
        const byId = (list: typeof entries) => [...list].sort((a, b) => (a.conversation.id < b.conversation.id ? -1 : 1));
        expect(byId(await fresh.repositories.transfer.readForExport())).toStrictEqual(byId(entries));
        expect(await exportOne(fresh.repositories, undefined, NOW)).toBe(exported);
        source.db.close();
        fresh.db.close();
      }),
      { numRuns: 25 },
    );
  });

  it('a history over the limit of one file is exported as several, each under it, that import back to the same (property)', async () => {
    await fc.assert(
      fc.asyncProperty(conversationRecords(6), fc.integer({ min: 300, max: 3000 }), async (entries, maxBytes) => {
        const source = await openTestStorage();
        expect((await importFromText(source.repositories, exportToJson(entries, NOW))).ok).toBe(true);
        const parts = await exportJsonFiles(source.repositories, undefined, NOW, false, maxBytes);
        const conversationsIn = (text: string) => (JSON.parse(text) as { conversations: unknown[] }).conversations.length;
        // Split between conversations only: a file over the limit holds one conversation.
        for (const part of parts) if (utf8Bytes(part) > maxBytes) expect(conversationsIn(part)).toBe(1);
        expect(parts.map(conversationsIn).reduce((a, b) => a + b, 0)).toBe(entries.length);
        if (utf8Bytes(exportToJson(await source.repositories.transfer.readForExport(), NOW)) > maxBytes && entries.length > 1)
          expect(parts.length).toBeGreaterThan(1);

        const fresh = await openTestStorage();
        for (const part of parts) expect((await importFromText(fresh.repositories, part)).ok).toBe(true);
        const byId = (list: typeof entries) => [...list].sort((a, b) => (a.conversation.id < b.conversation.id ? -1 : 1));
        expect(byId(await fresh.repositories.transfer.readForExport())).toStrictEqual(byId(entries));
        source.db.close();
        fresh.db.close();
      }),
      { numRuns: 20 },
    );
  });

  it('has an expectation for every file of the broken corpus', () => {
    expect(brokenFixtures().map((f) => f.name)).toEqual([...Object.keys(BROKEN), 'windowpane-duplicate-conversation.json'].sort());
  });

  it('says what is wrong with each file of the broken corpus, in words a user understands', async () => {
    const { repositories } = await openTestStorage();
    for (const { name, text } of brokenFixtures().filter((f) => f.name in BROKEN)) {
      const outcome = await importFromText(repositories, text, { now: NOW });
      expect(outcome, name).toMatchObject({ ok: false, error: { code: 'import_invalid' } });
      if (!outcome.ok) expect(outcome.error.message, name).toMatch(BROKEN[name]!);
    }
    expect(await repositories.conversations.listConversations()).toEqual([]);
  });

  it('rejects every file of the broken corpus without writing anything', async () => {
    const { repositories } = await openTestStorage();
    await repositories.conversations.createConversation({ id: 'existing', title: 'Already here' });
    await repositories.conversations.appendMessage({ conversationId: 'existing', role: 'user', content: [{ type: 'text', text: 'keep me' }] });
    const before = await snapshot(repositories);
    // A conversation listed twice is the one broken file that still imports: its first copy.
    for (const { name, text } of brokenFixtures().filter((f) => f.name !== 'windowpane-duplicate-conversation.json')) {
      const outcome = await importFromFile(repositories.transfer, file(text), { now: NOW });
      expect(outcome.ok, name).toBe(false);
      if (!outcome.ok) expect(outcome.error.message.length, name).toBeGreaterThan(20);
    }
    expect(await snapshot(repositories)).toEqual(before);
  });

  it('imports the first copy of a conversation listed twice and names the second', async () => {
    const { repositories } = await openTestStorage();
    const [duplicate] = brokenFixtures().filter((f) => f.name === 'windowpane-duplicate-conversation.json');
    const outcome = await importFromText(repositories, duplicate!.text, { now: NOW });
    expect(outcome).toMatchObject({ ok: true, value: { imported: 1, failed: [{ position: 2, reason: 'the file lists this conversation twice' }] } });
    expect(await repositories.conversations.listConversations()).toHaveLength(1);
  });

  it('refuses an oversized file by its size, reading only its first bytes (to tell a zip)', async () => {
    const { repositories } = await openTestStorage();
    const slice = vi.fn((start = 0, end = 4) => new NodeBlob(['[]  '.slice(start, end)]));
    const outcome = await importFromFile(repositories.transfer, { size: MAX_IMPORT_BYTES + 1, slice }, { now: NOW });
    expect(outcome).toMatchObject({ ok: false, error: { code: 'import_too_large' } });
    expect(slice.mock.calls).toEqual([[0, 4]]);
    expect(await repositories.conversations.listConversations()).toEqual([]);
  });

  it('leaves out a conversation whose message id is stored under another conversation, and imports the rest', async () => {
    const { repositories } = await openTestStorage();
    await repositories.conversations.createConversation({ id: 'mine', title: 'Mine' });
    await repositories.conversations.appendMessage({ conversationId: 'mine', id: 'shared-id', role: 'user', content: [] });
    const message: StoredMessage = {
      id: 'shared-id',
      conversationId: 'theirs',
      seq: 0,
      role: 'user',
      kind: 'message',
      content: [],
      createdAt: 1,
      status: 'complete',
    };
    const json = exportToJson(
      [
        { conversation: { id: 'fine', title: 'Fine', createdAt: 1, updatedAt: 1, messageCount: 0 }, messages: [] },
        { conversation: { id: 'theirs', title: 'Theirs', createdAt: 1, updatedAt: 1, messageCount: 1 }, messages: [message] },
      ],
      NOW,
    );
    const outcome = await importFromText(repositories, json);
    expect(outcome).toMatchObject({
      ok: true,
      value: { imported: 1, failed: [{ position: 2, title: 'Theirs', reason: expect.stringMatching(/already stored under a different conversation/) }] },
    });
    expect((await repositories.conversations.listConversations()).map((c) => c.id).sort()).toEqual(['fine', 'mine']);
    expect(await repositories.conversations.getMessage('shared-id')).toMatchObject({ conversationId: 'mine' });
  });

  it('reports a full disk during import and writes nothing', async () => {
    const { repositories } = await openTestStorage();
    const put = FakeIDBObjectStore.prototype.add;
    let writes = 0;
    vi.spyOn(FakeIDBObjectStore.prototype, 'add').mockImplementation(function (this: IDBObjectStore, ...args) {
      if (++writes > 5) throw new DOMException('full', 'QuotaExceededError');
      return put.apply(this, args);
    });
    const outcome = await importFromText(repositories, readFixture('chatgpt-conversations.json'), { now: NOW });
    vi.restoreAllMocks();
    expect(outcome).toMatchObject({ ok: false, error: { code: 'quota_exceeded', message: expect.stringMatching(/Browser storage is full/) } });
    expect(await repositories.conversations.listConversations()).toEqual([]);
    expect(writes).toBeGreaterThan(5);
  });
});

describe('exporting from storage', () => {
  it('exports one conversation or all, and never the API keys or MCP secrets in settings', async () => {
    const { repositories } = await openTestStorage({ factory: new IDBFactory() });
    const SECRET = 'sk-proj-do-not-export-0123456789';
    const MCP_TOKEN = 'mcp-token-do-not-export-42';
    await repositories.settings.setSetting('settings', {
      provider: 'openai',
      apiKeys: { openai: SECRET },
      tools: { mcpServers: [{ id: 's1', label: 'Tracker', url: 'https://mcp.example.com/mcp', enabled: true, auth: { type: 'bearer' }, tools: [] }] },
      mcpSecrets: { s1: MCP_TOKEN },
    });
    const a = await repositories.conversations.createConversation({ title: 'Alpha', overrides: { apiKey: SECRET, model: 'gpt-4.1' } });
    const b = await repositories.conversations.createConversation({ title: 'Beta' });
    await repositories.conversations.appendMessage({ conversationId: a.id, role: 'user', content: [{ type: 'text', text: 'hello alpha' }] });
    await repositories.conversations.appendMessage({ conversationId: b.id, role: 'user', content: [{ type: 'text', text: 'hello beta' }] });

    const one = JSON.parse(await exportOne(repositories, [a.id], NOW));
    expect(one.conversations.map((c: { conversation: { title: string } }) => c.conversation.title)).toEqual(['Alpha']);
    expect(one.conversations[0].conversation.overrides).toEqual({ model: 'gpt-4.1' });

    const all = await exportOne(repositories, undefined, NOW);
    expect(JSON.parse(all).conversations).toHaveLength(2);
    // Markdown is written from the same records, as the Export button does.
    const markdown = exportToMarkdown(await repositories.transfer.readForExport());
    expect(markdown).toContain('hello alpha');
    expect(markdown).toContain('hello beta');
    for (const text of [all, markdown]) {
      expect(text).not.toContain(SECRET);
      expect(text).not.toContain(MCP_TOKEN);
    }
  });
});

describe('a backup with its images', () => {
  afterEach(() => vi.unstubAllGlobals());
  const PNG = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 9, 8, 7]);
  const imageBlock = (fileId: string) =>
    ({ type: 'image', fileId, name: `${fileId}.png`, mediaType: 'image/png', width: 10, height: 10, bytes: PNG.length }) as const;

  async function storedWithImages() {
    const { repositories } = await openTestStorage();
    const { id } = await repositories.conversations.createConversation({ title: 'Pictures' });
    await repositories.files.addFiles(
      ['one', 'two'].map((fileId) => ({
        id: fileId,
        conversationId: id,
        name: `${fileId}.png`,
        mediaType: 'image/png',
        blob: new NodeBlob([PNG], { type: 'image/png' }) as unknown as Blob,
        bytes: PNG.length,
        createdAt: NOW,
      })),
    );
    await repositories.conversations.appendMessage({
      conversationId: id,
      role: 'user',
      content: [imageBlock('one'), imageBlock('two'), { type: 'text', text: 'Compare' }],
    });
    return { repositories, id };
  }

  it('carries the images when asked, and an import into another browser restores them byte for byte', async () => {
    // Node's Blob survives fake IndexedDB's structured clone as a browser's does; jsdom's does not.
    vi.stubGlobal('Blob', NodeBlob);
    const { repositories, id } = await storedWithImages();
    const plain = JSON.parse(await exportOne(repositories, [id], NOW)) as { files?: unknown };
    expect(plain.files).toBeUndefined();
    const text = await exportOne(repositories, [id], NOW, true);
    const backup = JSON.parse(text) as { files: { id: string; data: string; bytes: number }[] };
    expect(backup.files.map((f) => [f.id, f.bytes, f.data])).toEqual([
      ['one', PNG.length, Buffer.from(PNG).toString('base64')],
      ['two', PNG.length, Buffer.from(PNG).toString('base64')],
    ]);

    const other = (await openTestStorage({ factory: new IDBFactory() })).repositories;
    expect(await importFromText(other, text, { now: NOW })).toMatchObject({ ok: true, value: { imported: 1 } });
    const restored = await other.files.getFile('two');
    expect(restored).toMatchObject({ conversationId: id, name: 'two.png', mediaType: 'image/png', bytes: PNG.length });
    expect(new Uint8Array(await restored!.blob.arrayBuffer())).toEqual(PNG);
  });

  it('leaves out an image whose bytes are damaged, and imports everything else', async () => {
    const { repositories, id } = await storedWithImages();
    const backup = JSON.parse(await exportOne(repositories, [id], NOW, true)) as { files: { data: string }[] };
    backup.files[0]!.data = 'not base64!';
    const other = (await openTestStorage({ factory: new IDBFactory() })).repositories;
    expect(await importFromText(other, JSON.stringify(backup), { now: NOW })).toMatchObject({ ok: true, value: { imported: 1 } });
    expect(await other.files.getFile('one')).toBeUndefined();
    expect(await other.files.getFile('two')).toBeDefined();
    expect((await other.conversations.getMessages(id))[0]!.content).toHaveLength(3);
  });
});
