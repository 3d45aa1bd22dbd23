import MiniSearch from 'minisearch';
import { describe, expect, it, vi } from 'vitest';
import type { StoredMessage } from '../../src/core';
import type { SearchIndexRecord, WindowpaneDb } from '../../src/persistence/db';
import { createRepositories } from '../../src/persistence/repositories';
import {
  createSearchEngine,
  SEARCH_INDEX_KEY,
  type SearchAnswer,
  type SearchClient,
  type SearchEngine,
  type SearchHit,
} from '../../src/persistence/searchIndex';
import { openTestStorage } from './helpers';

const deaf: SearchClient = { search: async () => ({ hits: [] }), details: async () => [], notify: () => undefined, close: () => undefined };

const WORDS = (
  'falcon otter harbour ferry lantern quarry meadow glacier walnut saffron copper violin orchard ' +
  'tunnel compass pepper marble beacon willow canyon ember thistle puffin harvest anchor'
).split(' ');

/**
 * Stores `count` conversations of 3 to 24 messages of mixed lengths, from a seeded generator
 * (the same history each time), without indexing them; conversation i is updated at i, so
 * the last is the most recent. A few words are written in one message only.
 */
async function seedHistory(db: WindowpaneDb, count: number): Promise<void> {
  let state = 11;
  const random = () => (state = (state * 1_103_515_245 + 12_345) % 2_147_483_648) / 2_147_483_648;
  const conversations = [];
  for (let c = 0; c < count; c++) {
    const id = `c${String(c).padStart(3, '0')}`;
    const size = 3 + Math.floor(random() * 22);
    const messages: StoredMessage[] = [];
    for (let seq = 0; seq < size; seq++) {
      const words = Array.from({ length: 3 + Math.floor(random() * 60) }, () => WORDS[Math.floor(random() * WORDS.length)]!);
      if (c in RARE && seq === 1) words.push(RARE[c]!);
      messages.push({
        id: `${id}-m${String(seq).padStart(3, '0')}`,
        conversationId: id,
        seq,
        parentId: seq === 0 ? null : messages[seq - 1]!.id,
        role: seq % 2 === 0 ? 'user' : 'assistant',
        kind: 'message',
        content: [{ type: 'text', text: `${words.join(' ')}.` }],
        createdAt: 1_000 + c * 100 + seq,
        status: 'complete',
      });
    }
    const title = `${WORDS[c % WORDS.length]} notes ${c}`;
    conversations.push({ conversation: { id, title, createdAt: 1_000 + c * 100, updatedAt: 1_000 + c * 100 + size, messageCount: size }, messages });
  }
  await createRepositories(db, { search: deaf }).transfer.importBatch({ format: 'windowpane', conversations });
}

/** Words written once, in conversation 3 (among the oldest) and 40. */
const RARE: Record<number, string> = { 3: 'quokkaphile', 40: 'narwhalian' };

const QUERIES = ['falcon', 'fal', 'otter harbour', 'pepper marble beacon', 'notes', 'copper notes', 'quokkaphile', 'narwhal', 'w', 'glacier wil', 'nothing'];

/**
 * What `engine` answers to each query once loaded (or built): the hits of a list of 5, and
 * of 100: each hit's conversation, in order, whether it came detailed or pending, and where its best match is once detailed (the
 * pending ones asked for their details). A message hit's snippet must highlight a word of
 * the query in that conversation's message; which of its messages scores best is left out:
 * MiniSearch scores a part with its own statistics (documents, lengths, how many hold a
 * word), so among a conversation's near-equal messages a part may prefer another.
 */
async function answers(engine: SearchEngine): Promise<Array<{ query: string; few: unknown[]; hits: unknown[] }>> {
  await engine.start();
  const out = [];
  for (const query of QUERIES) {
    const { hits, loading } = await engine.search(query, 100);
    expect(loading).toBeUndefined();
    const pending = hits.filter((h) => h.matchedIn === 'pending').map((h) => h.conversationId);
    const filled = new Map((await engine.details(query, pending)).map((h) => [h.conversationId, h]));
    const words = query.split(' ');
    // A short list: the parts of the newest conversations are enough for it.
    const few = (await engine.search(query, 5)).hits.map((h) => [h.conversationId, h.matchedIn]);
    out.push({
      query,
      few,
      hits: hits.map((h) => {
        const full: SearchHit = h.matchedIn === 'pending' ? filled.get(h.conversationId)! : h;
        const marked = full.snippet.slice(full.matchStart, full.matchStart! + full.matchLength!).toLowerCase();
        expect(words.some((word) => marked.startsWith(word))).toBe(true);
        if (full.matchedIn === 'message') expect(full.messageId!.startsWith(`${full.conversationId}-`)).toBe(true);
        return [h.conversationId, h.title, h.matchedIn === 'pending' ? 'pending' : 'detailed', full.matchedIn];
      }),
    });
  }
  return out;
}

async function partKeys(db: WindowpaneDb): Promise<string[]> {
  return ((await db.getAllKeys('searchIndex')) as string[]).filter((key) => key !== SEARCH_INDEX_KEY).sort();
}

const CONVERSATIONS = 60;

/** The history, indexed and saved in parts of about 100 documents, and repositories that keep the index up to date. */
async function savedInParts() {
  const { db } = await openTestStorage();
  await seedHistory(db, CONVERSATIONS);
  const engine = createSearchEngine(db, { partDocuments: 100 });
  const repositories = createRepositories(db, { search: engine });
  await engine.start();
  await engine.flush();
  return { db, engine, repositories };
}

describe('the search index in parts', () => {
  it('answers as one index over the same messages does, built and then loaded from its saved parts', async () => {
    const whole = await openTestStorage();
    await seedHistory(whole.db, CONVERSATIONS);
    const one = createSearchEngine(whole.db, { partDocuments: Infinity });
    const expected = await answers(one);
    await one.flush();
    expect(await partKeys(whole.db)).toEqual(['part:0']);
    // The queries find something, several conversations for most, past the first rows for some.
    expect(expected.map((a) => a.hits.length)).toEqual([60, 60, 58, 59, 60, 2, 1, 1, 60, 60, 0]);
    expect(expected.some((a) => a.hits.length > 20)).toBe(true);
    expect(expected.find((a) => a.query === 'narwhal')!.hits).toEqual([['c040', 'pepper notes 40', 'detailed', 'message']]);

    const split = await openTestStorage();
    await seedHistory(split.db, CONVERSATIONS);
    const built = createSearchEngine(split.db, { partDocuments: 100 });
    expect(await answers(built)).toEqual(expected);
    await built.flush();
    built.close();
    const keys = await partKeys(split.db);
    expect(keys.length).toBeGreaterThan(5);
    const list = (await split.db.get('searchIndex', SEARCH_INDEX_KEY)) as SearchIndexRecord;
    expect(list.parts.map((p) => p.key).sort()).toEqual(keys);
    expect(list.messageCount).toBe((await split.db.count('messages')) as number);

    const loaded = createSearchEngine(split.db, { partDocuments: 100 });
    await loaded.start();
    expect(await answers(loaded)).toEqual(expected);
    loaded.close();
    one.close();
  });

  it('answers from the newest parts while older ones load, says so, and in full once all are loaded', async () => {
    const { db } = await openTestStorage();
    await seedHistory(db, CONVERSATIONS);
    const built = createSearchEngine(db, { partDocuments: 100 });
    const full = (await built.search('notes', 100)).hits.map((h) => h.conversationId);
    await built.flush();
    built.close();
    expect(full).toHaveLength(CONVERSATIONS);
    const total = (await partKeys(db)).length;

    const engine = createSearchEngine(db, { partDocuments: 100 });
    const first = await engine.search('notes', 100);
    expect(first.loading).toEqual({ loaded: 1, total });
    // The most recently updated conversations, in order, and none older.
    const shown = first.hits.map((h) => h.conversationId);
    expect(shown.length).toBeGreaterThan(0);
    expect(shown.length).toBeLessThan(CONVERSATIONS);
    expect(shown).toEqual(full.slice(0, shown.length));
    // The word written once, in an old conversation, is not loaded yet.
    expect((await engine.search('quokkaphile', 100)).hits).toEqual([]);

    let answer = first;
    const seen = [first.loading!.loaded];
    while (answer.loading) {
      answer = await engine.search('notes', 100, { after: answer.loading.loaded });
      seen.push(answer.loading?.loaded ?? total);
      expect(full.slice(0, answer.hits.length)).toEqual(answer.hits.map((h) => h.conversationId));
    }
    expect(answer.hits.map((h) => h.conversationId)).toEqual(full);
    expect(seen.at(-1)).toBe(total);
    expect(seen).toEqual([...seen].sort((a, b) => a - b));
    expect((await engine.search('quokkaphile', 100)).hits.map((h) => h.conversationId)).toEqual(['c003']);
    engine.close();
  });

  it('saves only the part of the conversation that changed', async () => {
    const { db, engine, repositories } = await savedInParts();
    const before = new Map((await partKeys(db)).map((key) => [key, JSON.stringify(null)]));
    for (const key of before.keys()) before.set(key, JSON.stringify(await db.get('searchIndex', key)));

    await repositories.conversations.appendMessage({ conversationId: 'c005', role: 'user', content: [{ type: 'text', text: 'A kingfisher.' }] });
    expect((await repositories.search.searchConversations('kingfisher')).hits.map((h) => h.conversationId)).toEqual(['c005']);
    await engine.flush();
    const changed = [];
    for (const [key, saved] of before) if (JSON.stringify(await db.get('searchIndex', key)) !== saved) changed.push(key);
    expect(changed).toHaveLength(1);
    expect(JSON.parse(before.get(changed[0]!)!).conversations).toHaveProperty('c005');
    expect(await partKeys(db)).toEqual([...before.keys()]);

    // A reload finds it, from the part saved.
    const reloaded = createSearchEngine(db, { partDocuments: 100 });
    await reloaded.start();
    expect((await reloaded.search('kingfisher', 10)).hits.map((h) => h.conversationId)).toEqual(['c005']);
    engine.close();
    reloaded.close();
  });

  it('deletes the part of conversations all deleted, and reads again those of a part it cannot read', async () => {
    const { db, engine, repositories } = await savedInParts();
    const keys = await partKeys(db);
    const oldest = (await db.get('searchIndex', keys[0]!)) as { conversations: Record<string, unknown> };
    const gone = Object.keys(oldest.conversations);
    for (const id of gone) await repositories.conversations.deleteConversation(id);
    await engine.flush();
    expect(await partKeys(db)).toEqual(keys.slice(1));
    engine.close();

    // A part that cannot be read: its conversations are read again from their messages.
    await db.put('searchIndex', { conversations: {}, index: 'not json' }, keys[1]!);
    const reloaded = createSearchEngine(db, { partDocuments: 100 });
    const again = createRepositories(db, { search: reloaded }).search;
    await reloaded.start();
    // Every conversation left, newest first: each title holds "notes".
    const expected = (await db.getAll('conversations')).sort((a, b) => b.updatedAt - a.updatedAt).map((c) => c.id);
    expect(expected).toHaveLength(CONVERSATIONS - gone.length);
    expect((await again.searchConversations('notes', { limit: 100 })).hits.map((h) => h.conversationId)).toEqual(expected);
    reloaded.close();
  });
});

describe('a saved part whose read fails', () => {
  it('is read again from the messages, said as a build, while the other parts answer', async () => {
    const { db, engine } = await savedInParts();
    const everywhere = (await engine.search('falcon', 100)).hits.map((h) => h.conversationId);
    engine.close();
    // The part holding the word written once in conversation 3, among the oldest.
    let broken = '';
    let lost: string[] = [];
    for (const key of await partKeys(db)) {
      const held = Object.keys(((await db.get('searchIndex', key)) as { conversations: Record<string, unknown> }).conversations);
      if (held.includes('c003')) [broken, lost] = [key, held];
    }
    expect(lost.length).toBeGreaterThan(0);
    // As Chromium fails to read a large value whose file is gone.
    const get = IDBObjectStore.prototype.get;
    const failing = vi.spyOn(IDBObjectStore.prototype, 'get').mockImplementation(function (this: IDBObjectStore, key) {
      if (key === broken) throw new DOMException('Failed to read large IndexedDB value', 'NotReadableError');
      return get.call(this, key);
    });
    try {
      const reloaded = createSearchEngine(db, { partDocuments: 100, readBatch: 10 });
      const builds: unknown[] = [];
      let during: Promise<SearchAnswer> | undefined;
      reloaded.watchBuild((progress) => {
        builds.push(progress);
        during ??= reloaded.search('falcon', 100);
      });
      await reloaded.start();
      // Said: a build of that part's messages, from its first read to its end.
      const lostMessages = (await db.getAll('messages')).filter((m) => lost.includes(m.conversationId)).length;
      expect(builds[0]).toEqual({ done: 0, total: lostMessages });
      expect(builds.at(-1)).toBeNull();
      // Meanwhile the parts read answered: every conversation of theirs that holds the word.
      const partial = (await during!).hits.map((h) => h.conversationId);
      expect(partial).toEqual(expect.arrayContaining(everywhere.filter((id) => !lost.includes(id))));
      // Then the lost part's conversations are found again, as before.
      expect((await reloaded.search('falcon', 100)).hits.map((h) => h.conversationId)).toEqual(everywhere);
      expect((await reloaded.search('quokkaphile', 10)).hits.map((h) => h.conversationId)).toEqual(['c003']);
      await reloaded.flush();
      reloaded.close();
    } finally {
      failing.mockRestore();
    }
    // The part that failed is gone from the store and its list; its conversations are saved in another.
    expect(await partKeys(db)).not.toContain(broken);
    const list = (await db.get('searchIndex', SEARCH_INDEX_KEY)) as SearchIndexRecord;
    expect(list.parts.map((p) => p.key).sort()).toEqual(await partKeys(db));
    expect(list.messageCount).toBe((await db.count('messages')) as number);
  });
});

describe('a saved index whose list of parts is lost', () => {
  it('is rebuilt, and its parts left without a list are deleted by the next save', async () => {
    const { db, engine } = await savedInParts();
    engine.close();
    const before = await partKeys(db);
    await db.delete('searchIndex', SEARCH_INDEX_KEY);
    await db.put('searchIndex', { conversations: {}, index: '{}' }, 'part:999');

    const rebuilt = createSearchEngine(db, { partDocuments: 1_000 });
    await rebuilt.start();
    expect((await rebuilt.search('quokkaphile', 10)).hits.map((h) => h.conversationId)).toEqual(['c003']);
    await rebuilt.flush();
    rebuilt.close();
    const after = await partKeys(db);
    expect(after.length).toBeLessThan(before.length);
    expect(((await db.get('searchIndex', SEARCH_INDEX_KEY)) as SearchIndexRecord).parts.map((p) => p.key).sort()).toEqual(after);
  });
});

describe('an index saved by an earlier version in one record', () => {
  it('is rebuilt from the messages into parts, nothing lost, and its record replaced', async () => {
    const { db } = await openTestStorage();
    await seedHistory(db, 20);
    // What format 1 saved: the whole MiniSearch index, with every conversation, under the same key.
    const old = new MiniSearch({ fields: ['text'], storeFields: ['conversationId', 'createdAt'] });
    old.add({ id: 'c000-m000', conversationId: 'c000', text: 'stale words', createdAt: 1 });
    await db.put(
      'searchIndex',
      {
        format: 1,
        savedAt: 1,
        messageCount: 1,
        conversations: { c000: { title: 'Old', createdAt: 1, updatedAt: 1, messageIds: ['c000-m000'] } },
        index: JSON.stringify(old),
      } as unknown as SearchIndexRecord,
      SEARCH_INDEX_KEY,
    );
    const messagesBefore = await db.getAll('messages');

    const engine = createSearchEngine(db, { partDocuments: 100 });
    const { hits } = await engine.search('notes', 100);
    expect(hits).toHaveLength(20);
    expect((await engine.search('stale', 100)).hits).toEqual([]);
    expect((await engine.search('quokkaphile', 100)).hits.map((h) => h.conversationId)).toEqual(['c003']);
    await engine.flush();
    engine.close();
    const list = (await db.get('searchIndex', SEARCH_INDEX_KEY)) as SearchIndexRecord;
    expect(list.format).toBe(2);
    expect(list.messageCount).toBe(messagesBefore.length);
    expect(list.parts.map((p) => p.key).sort()).toEqual(await partKeys(db));
    expect(await db.getAll('messages')).toEqual(messagesBefore);
  });
});
