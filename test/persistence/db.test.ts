import { IDBFactory } from 'fake-indexeddb';
import { describe, expect, it, vi } from 'vitest';
import { branchMessages, buildTree, isWindowpaneError, type StoredMessage, type WindowpaneError } from '../../src/core';
import { MIGRATIONS, openWindowpaneDb, type Migration } from '../../src/persistence/db';
import { createRepositories } from '../../src/persistence/repositories';
import { rawAll, rawOpen, request } from './helpers';

/** The version the database opens at: the last migration's. */
const LATEST = MIGRATIONS.at(-1)!.version;

/** The v1 schema exactly as v1 wrote it, with the raw API (conversations had no messageCount). */
function createV1(db: IDBDatabase): void {
  db.createObjectStore('conversations', { keyPath: 'id' });
  db.createObjectStore('messages', { keyPath: 'id' }).createIndex('byConversation', ['conversationId', 'seq']);
  db.createObjectStore('settings');
  db.createObjectStore('calibration');
  db.createObjectStore('summaryCache', { keyPath: 'hash' });
}

function addV2(tx: IDBTransaction): void {
  tx.objectStore('conversations').createIndex('byUpdatedAt', 'updatedAt');
}

function addV3(tx: IDBTransaction): void {
  tx.objectStore('messages').createIndex('byStatus', 'status');
}

function addV4(db: IDBDatabase): void {
  db.createObjectStore('attachments', { keyPath: 'id' }).createIndex('byConversation', 'conversationId');
}

const textMessage = (id: string, conversationId: string, seq: number, status = 'complete') => ({
  id,
  conversationId,
  seq,
  role: seq % 2 === 0 ? 'user' : 'assistant',
  kind: 'message',
  content: [{ type: 'text', text: `message ${id}` }],
  createdAt: 1_700_000_000_000 + seq,
  status,
});

/** Records as a v1 tab stored them. */
function seedV1(tx: IDBTransaction): void {
  tx.objectStore('conversations').put({ id: 'old', title: 'From v1', createdAt: 1_700_000_000_000, updatedAt: 1_700_000_500_000 });
  tx.objectStore('conversations').put({ id: 'empty', title: 'Nothing yet', createdAt: 1_700_000_000_000, updatedAt: 1_700_000_100_000 });
  tx.objectStore('messages').put(textMessage('m1', 'old', 0));
  tx.objectStore('messages').put(textMessage('m2', 'old', 1, 'streaming'));
  tx.objectStore('messages').put(textMessage('m3', 'old', 2));
  tx.objectStore('settings').put({ provider: 'anthropic', apiKeys: { anthropic: 'sk-ant-test' } }, 'settings');
  tx.objectStore('calibration').put({ ratio: 1.08, samples: 12 }, 'claude-sonnet-4-5');
  tx.objectStore('summaryCache').put({ hash: 'h1', text: 'cached summary', createdAt: 1_700_000_000_000 });
}

describe('schema', () => {
  it('numbers the named migrations 1..n', () => {
    expect(MIGRATIONS.map((m) => m.version)).toEqual(MIGRATIONS.map((_, i) => i + 1));
    expect(new Set(MIGRATIONS.map((m) => m.name)).size).toBe(MIGRATIONS.length);
  });

  it('builds every store and index in a fresh database', async () => {
    const db = await openWindowpaneDb({ factory: new IDBFactory() });
    expect(db.version).toBe(LATEST);
    expect([...db.objectStoreNames].sort()).toEqual([
      'attachments',
      'calibration',
      'conversations',
      'files',
      'messages',
      'searchIndex',
      'settings',
      'summaryCache',
      'syncState',
    ]);
    const tx = db.transaction(['conversations', 'messages', 'attachments', 'files', 'syncState']);
    expect([...tx.objectStore('conversations').indexNames]).toEqual(['byUpdatedAt']);
    expect([...tx.objectStore('messages').indexNames].sort()).toEqual(['byConversation', 'byStatus']);
    expect(tx.objectStore('messages').index('byConversation').keyPath).toEqual(['conversationId', 'seq']);
    expect([...tx.objectStore('attachments').indexNames]).toEqual(['byConversation']);
    expect([...tx.objectStore('files').indexNames]).toEqual(['byConversation']);
    expect([...tx.objectStore('syncState').indexNames]).toEqual(['byConversation']);
    expect(tx.objectStore('syncState').keyPath).toBe('key');
    db.close();
  });
});

describe('migrations on hand-written databases of older versions', () => {
  it('v1 → latest: counts messages onto conversations, adds the indexes and stores, keeps every record', async () => {
    const factory = new IDBFactory();
    (
      await rawOpen(factory, 1, (db, tx) => {
        createV1(db);
        seedV1(tx);
      })
    ).close();

    const db = await openWindowpaneDb({ factory });
    const repositories = createRepositories(db);
    expect(await repositories.conversations.listConversations()).toEqual([
      { id: 'old', title: 'From v1', createdAt: 1_700_000_000_000, updatedAt: 1_700_000_500_000, messageCount: 3, activeLeafId: 'm3' },
      { id: 'empty', title: 'Nothing yet', createdAt: 1_700_000_000_000, updatedAt: 1_700_000_100_000, messageCount: 0 },
    ]);
    expect((await repositories.conversations.getMessages('old')).map((m) => m.id)).toEqual(['m1', 'm2', 'm3']);
    expect((await repositories.conversations.markInterruptedStreams()).map((m) => m.id)).toEqual(['m2']);
    expect(await repositories.settings.getSetting('settings')).toEqual({ provider: 'anthropic', apiKeys: { anthropic: 'sk-ant-test' } });
    expect(await repositories.settings.getCalibration('claude-sonnet-4-5')).toEqual({ ratio: 1.08, samples: 12 });
    expect(await repositories.settings.getCachedSummary('h1')).toBe('cached summary');
    expect(await repositories.files.listAttachments('old')).toEqual([]);
    db.close();
  });

  it('v2 → latest: indexes messages by status and adds attachments, leaving data as it was', async () => {
    const factory = new IDBFactory();
    (
      await rawOpen(factory, 2, (db, tx) => {
        createV1(db);
        addV2(tx);
        tx.objectStore('conversations').put({ id: 'c', title: 'From v2', createdAt: 1, updatedAt: 2, messageCount: 2 });
        tx.objectStore('messages').put(textMessage('a', 'c', 0, 'streaming'));
        tx.objectStore('messages').put(textMessage('b', 'c', 1, 'error'));
      })
    ).close();

    const db = await openWindowpaneDb({ factory });
    expect(await db.getAllKeysFromIndex('messages', 'byStatus', 'streaming')).toEqual(['a']);
    expect(await db.getAllKeysFromIndex('messages', 'byStatus', 'error')).toEqual(['b']);
    expect(await db.getAll('conversations')).toEqual([{ id: 'c', title: 'From v2', createdAt: 1, updatedAt: 2, messageCount: 2, activeLeafId: 'b' }]);
    expect(db.objectStoreNames.contains('attachments')).toBe(true);
    db.close();
  });

  it('v3 → latest: adds the attachments store, indexed by conversation', async () => {
    const factory = new IDBFactory();
    (
      await rawOpen(factory, 3, (db, tx) => {
        createV1(db);
        addV2(tx);
        addV3(tx);
        tx.objectStore('conversations').put({ id: 'c', title: 'From v3', createdAt: 1, updatedAt: 2, messageCount: 0 });
      })
    ).close();

    const db = await openWindowpaneDb({ factory });
    const repositories = createRepositories(db, { now: () => 5, newId: () => 'att-1' });
    await repositories.files.addAttachment({ conversationId: 'c', name: 'notes.txt', text: 'hello' });
    expect(await repositories.files.listAttachments('c')).toEqual([{ id: 'att-1', conversationId: 'c', name: 'notes.txt', text: 'hello', createdAt: 5 }]);
    expect(await repositories.conversations.getConversation('c')).toEqual({ id: 'c', title: 'From v3', createdAt: 1, updatedAt: 2, messageCount: 0 });
    db.close();
  });

  it('v4 → latest: writes out each message’s parent and each conversation’s newest message, changing nothing else', async () => {
    const summary = (id: string, conversationId: string, seq: number, covers: string[]) => ({
      ...textMessage(id, conversationId, seq),
      role: 'user',
      kind: 'summary',
      covers,
    });
    const conversation = (id: string, messageCount: number) => ({ id, title: `Conversation ${id}`, createdAt: 1, updatedAt: 2, messageCount });
    const messages = [
      // One branch, seq with gaps (as an import leaves them), written out of seq order.
      textMessage('l2', 'linear', 7),
      textMessage('l0', 'linear', 0),
      textMessage('l1', 'linear', 3, 'error'),
      // Summaries follow the message before them and are never a parent; the newest record is a summary.
      textMessage('s0', 'summarized', 0),
      textMessage('s1', 'summarized', 1),
      textMessage('s2', 'summarized', 2),
      textMessage('s3', 'summarized', 3),
      summary('sum1', 'summarized', 4, ['s0', 's1']),
      textMessage('s5', 'summarized', 5),
      textMessage('s6', 'summarized', 6),
      summary('sum2', 'summarized', 7, ['s2', 's3']),
      // Records that already state a parent keep it, even one core would read otherwise (p2's is
      // not stored), in a conversation that keeps the branch it already names.
      textMessage('p0', 'stated', 0),
      { ...textMessage('p1', 'stated', 1), parentId: null },
      { ...textMessage('p2', 'stated', 2), parentId: 'not-stored' },
      textMessage('p3', 'stated', 3),
      // A message whose conversation is gone is no conversation's: left alone.
      textMessage('o0', 'gone', 0),
    ];
    const conversations: Array<ReturnType<typeof conversation> & { activeLeafId?: string; overrides?: object }> = [
      conversation('linear', 3),
      conversation('summarized', 8),
      { ...conversation('stated', 4), activeLeafId: 'p0', overrides: { model: 'o3' } },
      conversation('empty', 0),
    ];
    const factory = new IDBFactory();
    (
      await rawOpen(factory, 4, (db, tx) => {
        createV1(db);
        addV2(tx);
        addV3(tx);
        addV4(db);
        for (const c of conversations) tx.objectStore('conversations').put(c);
        for (const m of messages) tx.objectStore('messages').put(m);
        tx.objectStore('settings').put({ provider: 'anthropic' }, 'settings');
        tx.objectStore('calibration').put({ ratio: 1.08 }, 'claude-sonnet-4-5');
        tx.objectStore('summaryCache').put({ hash: 'h1', text: 'cached summary', createdAt: 1 });
        tx.objectStore('attachments').put({ id: 'att', conversationId: 'linear', name: 'a.txt', text: 'abc', createdAt: 1 });
      })
    ).close();
    const readsBefore = new Map(
      ['linear', 'summarized', 'stated'].map((id) => {
        const own = (messages as unknown as StoredMessage[]).filter((m) => m.conversationId === id);
        return [id, branchMessages(buildTree(own), conversations.find((c) => c.id === id)!.activeLeafId).map((m) => m.id)];
      }),
    );

    const db = await openWindowpaneDb({ factory });
    expect(db.version).toBe(LATEST);
    const storedMessages = new Map((await db.getAll('messages')).map((m) => [m.id, m]));
    const storedConversations = new Map((await db.getAll('conversations')).map((c) => [c.id, c]));
    const parents = Object.fromEntries([...storedMessages].map(([id, m]) => [id, m.parentId]));
    expect(parents).toEqual({
      l0: null,
      l1: 'l0',
      l2: 'l1',
      s0: null,
      s1: 's0',
      s2: 's1',
      s3: 's2',
      sum1: 's3',
      s5: 's3',
      s6: 's5',
      sum2: 's6',
      p0: null,
      p1: null,
      p2: 'not-stored',
      p3: 'p2',
      o0: undefined,
    });
    expect(storedMessages.get('o0')).not.toHaveProperty('parentId');
    expect(Object.fromEntries([...storedConversations].map(([id, c]) => [id, c.activeLeafId]))).toEqual({
      linear: 'l2',
      summarized: 's6',
      stated: 'p0',
      empty: undefined,
    });
    expect(storedConversations.get('empty')).not.toHaveProperty('activeLeafId');

    // Nothing lost, nothing else changed: every record is the old one plus the new field.
    expect(storedMessages.size).toBe(messages.length);
    for (const old of messages) {
      const { parentId: _parentId, ...rest } = storedMessages.get(old.id)!;
      const { parentId: _oldParentId, ...oldRest } = old as Record<string, unknown>;
      expect(rest).toStrictEqual(oldRest);
    }
    expect(storedConversations.size).toBe(conversations.length);
    for (const old of conversations) {
      const { activeLeafId: _activeLeafId, ...rest } = storedConversations.get(old.id)!;
      const { activeLeafId: _oldActiveLeafId, ...oldRest } = old as Record<string, unknown>;
      expect(rest).toStrictEqual(oldRest);
    }
    expect(await db.get('settings', 'settings')).toEqual({ provider: 'anthropic' });
    expect(await db.get('calibration', 'claude-sonnet-4-5')).toEqual({ ratio: 1.08 });
    expect(await db.getAll('summaryCache')).toEqual([{ hash: 'h1', text: 'cached summary', createdAt: 1 }]);
    expect(await db.getAll('attachments')).toEqual([{ id: 'att', conversationId: 'linear', name: 'a.txt', text: 'abc', createdAt: 1 }]);

    // Each conversation shows the same branch as it did before.
    const repositories = createRepositories(db);
    for (const [id, ids] of readsBefore) {
      const tree = buildTree(await repositories.conversations.getMessages(id));
      expect(branchMessages(tree, (await repositories.conversations.getConversation(id))!.activeLeafId).map((m) => m.id)).toEqual(ids);
    }
    db.close();
  });

  it('v5 → latest: adds the search index store, and the first search builds the index from the messages it leaves as they were', async () => {
    const conversation = { id: 'c', title: 'From v5', createdAt: 1, updatedAt: 2, messageCount: 2, activeLeafId: 'm1' };
    const messages = [
      { ...textMessage('m0', 'c', 0), parentId: null, content: [{ type: 'text', text: 'Where do puffins nest?' }] },
      { ...textMessage('m1', 'c', 1), parentId: 'm0' },
    ];
    const factory = new IDBFactory();
    (
      await rawOpen(factory, 5, (db, tx) => {
        createV1(db);
        addV2(tx);
        addV3(tx);
        addV4(db);
        tx.objectStore('conversations').put(conversation);
        for (const m of messages) tx.objectStore('messages').put(m);
      })
    ).close();

    const db = await openWindowpaneDb({ factory });
    expect(db.version).toBe(LATEST);
    expect(await db.getAll('searchIndex')).toEqual([]);
    const { hits } = await createRepositories(db).search.searchConversations('PUFFIN');
    expect(hits.map((h) => [h.conversationId, h.messageId])).toEqual([['c', 'm0']]);
    expect(await db.getAll('messages')).toEqual(messages);
    expect(await db.getAll('conversations')).toEqual([conversation]);
    db.close();
  });

  it('rolls the whole upgrade back when a step fails, so the old data and version stay', async () => {
    const factory = new IDBFactory();
    (
      await rawOpen(factory, 1, (db, tx) => {
        createV1(db);
        seedV1(tx);
      })
    ).close();
    const failing: Migration[] = [
      ...MIGRATIONS.slice(0, 2),
      {
        version: 3,
        name: 'breaks-halfway',
        async up(_db, tx) {
          await tx.objectStore('messages').clear();
          throw new Error('disk said no');
        },
      },
    ];

    const error = await openWindowpaneDb({ factory, migrations: failing }).catch((e: unknown) => e);
    expect(isWindowpaneError(error, 'storage')).toBe(true);
    expect((error as WindowpaneError).message).toMatch(/couldn't upgrade its storage \(step "breaks-halfway"\)/);
    expect((error as WindowpaneError).details).toMatchObject({ migration: 'breaks-halfway' });

    const old = await rawOpen(factory, 1);
    expect(old.version).toBe(1);
    expect(await rawAll(old, 'messages')).toHaveLength(3);
    expect([...old.transaction('conversations').objectStore('conversations').indexNames]).toEqual([]);
    expect(await rawAll(old, 'conversations')).toContainEqual({ id: 'old', title: 'From v1', createdAt: 1_700_000_000_000, updatedAt: 1_700_000_500_000 });
    old.close();
  });
});

describe('several tabs and versions', () => {
  it('reports a blocked upgrade while an old tab keeps v1 open, then continues when it closes', async () => {
    const factory = new IDBFactory();
    const oldTab = await rawOpen(factory, 1, (db) => createV1(db));
    const onBlocked = vi.fn();

    const opening = openWindowpaneDb({ factory, onBlocked });
    await vi.waitFor(() => expect(onBlocked).toHaveBeenCalledTimes(1));
    const blocked = onBlocked.mock.calls[0]![0] as WindowpaneError;
    expect(blocked.code).toBe('storage_blocked');
    expect(blocked.message).toMatch(/another Windowpane tab is still using the old version\. Close or reload the other Windowpane tabs/);
    expect(blocked.details).toEqual({ currentVersion: 1, wantedVersion: LATEST });

    oldTab.close();
    const db = await opening;
    expect(db.version).toBe(LATEST);
    db.close();
  });

  it('closes its connection when another tab upgrades, tells the app to reload, and later writes fail clearly', async () => {
    const factory = new IDBFactory();
    const onVersionChange = vi.fn();
    const db = await openWindowpaneDb({ factory, onVersionChange });
    const repositories = createRepositories(db);

    const newerTab = await rawOpen(factory, LATEST + 1);
    expect(onVersionChange).toHaveBeenCalledTimes(1);
    expect(newerTab.version).toBe(LATEST + 1);

    const error = await repositories.conversations.createConversation({ title: 'too late' }).catch((e: unknown) => e);
    expect(isWindowpaneError(error, 'storage')).toBe(true);
    expect((error as WindowpaneError).message).toMatch(/lost its connection to browser storage.*Reload the page/);
    newerTab.close();
  });

  it('refuses a database a newer version of the app already upgraded, asking for a reload', async () => {
    const factory = new IDBFactory();
    (await rawOpen(factory, LATEST + 5)).close();
    const error = await openWindowpaneDb({ factory }).catch((e: unknown) => e);
    expect(isWindowpaneError(error, 'storage')).toBe(true);
    expect((error as WindowpaneError).message).toMatch(/newer version of Windowpane has upgraded its storage.*Reload the page/);
  });

  it('opens the same database from two tabs at once', async () => {
    const factory = new IDBFactory();
    const [a, b] = await Promise.all([openWindowpaneDb({ factory }), openWindowpaneDb({ factory })]);
    await createRepositories(a).conversations.createConversation({ id: 'common', title: 'Common' });
    expect(await createRepositories(b).conversations.getConversation('common')).toMatchObject({ title: 'Common' });
    a.close();
    b.close();
    await request(factory.deleteDatabase('windowpane'));
  });
});
