import { describe, expect, it } from 'vitest';
import type { StoredMessage } from '../../src/core';
import type { WindowpaneDb } from '../../src/persistence/db';
import type { NewMessage } from '../../src/persistence/conversationRepository';
import { createRepositories } from '../../src/persistence/repositories';
import { createSearchEngine, DETAILED_HITS, SEARCH_INDEX_FORMAT, SEARCH_INDEX_KEY, type SearchClient } from '../../src/persistence/searchIndex';
import { idSequence, openTestStorage, steppingClock } from './helpers';

const say = (conversationId: string, text: string, extra: Partial<NewMessage> = {}): NewMessage => ({
  conversationId,
  role: 'user',
  content: [{ type: 'text', text }],
  ...extra,
});

/** Repositories whose index is saved 10 ms after a change, so tests can watch it being saved. */
async function open() {
  const storage = await openTestStorage();
  const engine = createSearchEngine(storage.db, { saveDelayMs: 10 });
  const repositories = createRepositories(storage.db, { now: steppingClock(), newId: idSequence('m'), search: engine });
  const found = async (query: string) => (await repositories.search.searchConversations(query)).hits.map((h) => [h.conversationId, h.matchedIn, h.messageId]);
  return { ...storage, engine, repositories, found };
}

/** A conversation `title` holding one message, `text`, indexed and saved; the index is closed, as a page's that was closed. */
async function savedWithOne(title: string, text: string) {
  const { db, repositories, engine } = await open();
  const c = await repositories.conversations.createConversation({ title });
  await repositories.conversations.appendMessage(say(c.id, text));
  await repositories.search.searchConversations(text);
  await new Promise((resolve) => setTimeout(resolve, 50));
  expect(await db.get('searchIndex', SEARCH_INDEX_KEY)).toMatchObject({ format: SEARCH_INDEX_FORMAT, messageCount: 1 });
  engine.close();
  return { db, c };
}

const highlighted = (hit: { snippet: string; matchStart?: number; matchLength?: number }) =>
  hit.snippet.slice(hit.matchStart, hit.matchStart! + hit.matchLength!);

describe('the search index', () => {
  it('matches word prefixes whatever their case and accents, and needs every word of the query', async () => {
    const { repositories, found } = await open();
    const c = await repositories.conversations.createConversation({ title: 'Desserts' });
    const m = await repositories.conversations.appendMessage(say(c.id, 'We ordered a Crème Brûlée and two cafés.'));

    for (const query of ['creme', 'CRÈME', 'brul', 'Cafe', 'creme cafe']) expect(await found(query)).toEqual([[c.id, 'message', m.id]]);
    expect(await found('creme tea')).toEqual([]);
    expect(await found('rème')).toEqual([]); // a prefix of a word, not any substring
    const [hit] = (await repositories.search.searchConversations('brulee')).hits;
    expect(highlighted(hit!)).toBe('Brûlée');
    expect(hit!.createdAt).toBe(m.createdAt);
  });

  it('finds Japanese, Chinese and Korean words', async () => {
    const { repositories, found } = await open();
    const ja = await repositories.conversations.createConversation({ title: '旅行' });
    await repositories.conversations.appendMessage(say(ja.id, '来週は東京都に住んでいる友達に会います。'));
    const zh = await repositories.conversations.createConversation({ title: '计划' });
    await repositories.conversations.appendMessage(say(zh.id, '我们明天去北京看长城。'));
    const ko = await repositories.conversations.createConversation({ title: '약속' });
    await repositories.conversations.appendMessage(say(ko.id, '서울에서 친구를 만났어요.'));

    expect((await found('東京')).map(([id]) => id)).toEqual([ja.id]);
    expect((await found('长城')).map(([id]) => id)).toEqual([zh.id]);
    expect((await found('서울')).map(([id]) => id)).toEqual([ko.id]);
    const [hit] = (await repositories.search.searchConversations('北京')).hits;
    expect(highlighted(hit!)).toBe('北京');
  });

  it('finds text only on a branch that is not open, and tool results', async () => {
    const { repositories, found } = await open();
    const c = await repositories.conversations.createConversation({ title: 'Branches' });
    const question = await repositories.conversations.appendMessage(say(c.id, 'Which city?'));
    const hidden = await repositories.conversations.appendMessage(say(c.id, 'Porto, for the azulejos.', { role: 'assistant' }));
    const shown = await repositories.conversations.appendMessage(say(c.id, 'Lisbon.', { role: 'assistant', parentId: question.id }));
    await repositories.conversations.setActiveLeaf(c.id, shown.id);
    const tool = await repositories.conversations.appendMessage({
      conversationId: c.id,
      role: 'user',
      content: [{ type: 'tool_result', tool_use_id: 't1', content: 'result: 83810205' }],
    });

    expect(await found('azulejos')).toEqual([[c.id, 'message', hidden.id]]);
    expect(await found('83810205')).toEqual([[c.id, 'message', tool.id]]);
  });

  it('indexes a streamed answer once it is complete, not while it streams', async () => {
    const { repositories, found } = await open();
    const c = await repositories.conversations.createConversation({ title: 'Stream' });
    const answer = await repositories.conversations.appendMessage(say(c.id, 'The okapi is', { role: 'assistant', status: 'streaming' }));
    await repositories.conversations.updateMessage(answer.id, { content: [{ type: 'text', text: 'The okapi is a giraffid' }] });
    expect(await found('okapi')).toEqual([]);

    await repositories.conversations.updateMessage(answer.id, { status: 'complete' });
    expect(await found('giraffid')).toEqual([[c.id, 'message', answer.id]]);
  });

  it('follows renames, deletes and their undo, and imports', async () => {
    const { repositories, found } = await open();
    const c = await repositories.conversations.createConversation({ title: 'Plans' });
    const m = await repositories.conversations.appendMessage(say(c.id, 'Book the ferry to Hydra.'));
    await repositories.conversations.renameConversation(c.id, 'Greek islands');
    expect(await found('plans')).toEqual([]);
    expect(await found('greek')).toEqual([[c.id, 'title', undefined]]);

    const deleted = await repositories.conversations.deleteConversation(c.id);
    expect(await found('ferry')).toEqual([]);
    expect(await found('greek')).toEqual([]);
    await repositories.conversations.restoreConversation(deleted!);
    expect(await found('ferry')).toEqual([[c.id, 'message', m.id]]);

    const imported: StoredMessage = {
      ...say('imp', 'Quokkas live on Rottnest.'),
      id: 'imp-1',
      seq: 0,
      parentId: null,
      kind: 'message',
      createdAt: 5,
      status: 'complete',
    };
    await repositories.transfer.importBatch({
      format: 'windowpane',
      conversations: [{ conversation: { id: 'imp', title: 'Imported', createdAt: 1, updatedAt: 2, messageCount: 1 }, messages: [imported] }],
    });
    expect(await found('quokka')).toEqual([['imp', 'message', 'imp-1']]);
  });

  it('saves itself shortly after changes, and a new page loads it and catches up with what it missed', async () => {
    const { db, c } = await savedWithOne('Saved', 'Narwhals have tusks.');

    // Written after the save by a page whose index never heard of it (closed before saving).
    const deaf: SearchClient = { search: async () => ({ hits: [] }), details: async () => [], notify: () => undefined, close: () => undefined };
    const late = await createRepositories(db, { search: deaf }).conversations.appendMessage(say(c.id, 'Belugas sing.'));

    const reloaded = createSearchEngine(db);
    const again = createRepositories(db, { search: reloaded }).search;
    expect((await again.searchConversations('narwhals')).hits.map((h) => h.conversationId)).toEqual([c.id]);
    expect((await again.searchConversations('belugas')).hits.map((h) => h.messageId)).toEqual([late.id]);
    await reloaded.flush();
    expect(await db.get('searchIndex', SEARCH_INDEX_KEY)).toMatchObject({ messageCount: 2 });
  });

  it('misses nothing written while it loads, though it reads storage beside the saved index', async () => {
    const { db, c } = await savedWithOne('Shore', 'Walruses doze.');

    const reloaded = createSearchEngine(db);
    const again = createRepositories(db, { now: steppingClock(), newId: idSequence('n'), search: reloaded });
    const loading = reloaded.start();
    // Written while the load reads and parses the saved index: each is told by its notice.
    const late = await again.conversations.appendMessage(say(c.id, 'Seals bask.'));
    await again.conversations.renameConversation(c.id, 'Rocky shore');
    await loading;
    expect((await again.search.searchConversations('seals')).hits.map((h) => h.messageId)).toEqual([late.id]);
    expect((await again.search.searchConversations('rocky')).hits.map((h) => [h.matchedIn, h.title])).toEqual([['title', 'Rocky shore']]);
    expect((await again.search.searchConversations('walrus')).hits.map((h) => h.conversationId)).toEqual([c.id]);
    reloaded.close();
  });

  it('catches up a few keys a read, missing nothing written or deleted between two reads', async () => {
    const { db, c } = await savedWithOne('Lagoon', 'Manatees graze.');
    // Written after the save by a page whose index never heard of them (closed before saving).
    const deaf: SearchClient = { search: async () => ({ hits: [] }), details: async () => [], notify: () => undefined, close: () => undefined };
    const writer = createRepositories(db, { now: steppingClock(), newId: idSequence('w'), search: deaf }).conversations;
    const missed = [];
    for (const text of ['Dugongs dive.', 'Egrets stand.', 'Ibises probe.']) missed.push(await writer.appendMessage(say(c.id, text)));
    const marsh = await writer.createConversation({ title: 'Marsh' });
    await writer.appendMessage(say(marsh.id, 'Herons wade.'));

    const reloaded = createSearchEngine(db, { keyBatch: 2 });
    const again = createRepositories(db, { now: steppingClock(2_000_000_000_000), newId: idSequence('n'), search: reloaded });
    const loading = reloaded.start();
    // Written, changed and deleted while the keys are read, two at a time: each is told by its notice.
    const late = await again.conversations.appendMessage(say(c.id, 'Pelicans scoop.'));
    await again.conversations.updateMessage(missed[1]!.id, { content: [{ type: 'text', text: 'Storks stand.' }] });
    await again.conversations.deleteConversation(marsh.id);
    await loading;
    const found = async (query: string) => (await again.search.searchConversations(query)).hits.map((h) => h.messageId ?? h.matchedIn);
    expect(await found('dugongs')).toEqual([missed[0]!.id]);
    expect(await found('ibises')).toEqual([missed[2]!.id]);
    expect(await found('storks')).toEqual([missed[1]!.id]);
    expect(await found('egrets')).toEqual([]);
    expect(await found('herons')).toEqual([]);
    expect(await found('marsh')).toEqual([]);
    expect(await found('pelicans')).toEqual([late.id]);
    expect(await found('manatees')).toHaveLength(1);
    reloaded.close();
  });

  it('rebuilds from the messages when the saved index is of an older format or unreadable, touching no message', async () => {
    for (const stale of [
      { format: SEARCH_INDEX_FORMAT - 1, savedAt: 1, messageCount: 0, conversations: {}, index: '{}' },
      { format: SEARCH_INDEX_FORMAT, savedAt: 1, messageCount: 0, conversations: {}, index: 'not json' },
    ]) {
      const { db, repositories } = await open();
      const c = await repositories.conversations.createConversation({ title: 'Old' });
      await repositories.conversations.appendMessage(say(c.id, 'Axolotls regrow limbs.'));
      const messagesBefore = await db.getAll('messages');
      await db.put('searchIndex', stale, SEARCH_INDEX_KEY);

      const fresh = createSearchEngine(db);
      const again = createRepositories(db, { search: fresh }).search;
      expect((await again.searchConversations('axolotl')).hits.map((h) => h.conversationId)).toEqual([c.id]);
      await fresh.flush();
      expect(await db.get('searchIndex', SEARCH_INDEX_KEY)).toMatchObject({ format: SEARCH_INDEX_FORMAT, messageCount: 1 });
      expect(await db.getAll('messages')).toEqual(messagesBefore);
    }
  });
});

/** Stores a conversation "Zoo" of `count` messages, the last one about platypuses, without indexing them. */
async function seedZoo(db: WindowpaneDb, count: number): Promise<string> {
  const messages: StoredMessage[] = Array.from({ length: count }, (_, i) => ({
    ...say('zoo', i === count - 1 ? 'The platypus lays eggs.' : `Animal number ${i}.`),
    id: `zoo-${String(i).padStart(4, '0')}`,
    seq: i,
    parentId: i === 0 ? null : `zoo-${String(i - 1).padStart(4, '0')}`,
    kind: 'message',
    createdAt: 10 + i,
    status: 'complete',
  }));
  const deaf: SearchClient = { search: async () => ({ hits: [] }), details: async () => [], notify: () => undefined, close: () => undefined };
  await createRepositories(db, { search: deaf }).transfer.importBatch({
    format: 'windowpane',
    conversations: [{ conversation: { id: 'zoo', title: 'Zoo', createdAt: 1, updatedAt: 2, messageCount: count }, messages }],
  });
  return messages.at(-1)!.id;
}

describe('the search index being built', () => {
  it('reports a build batch by batch, answers searches meanwhile from what it holds, then reports its end', async () => {
    const { db } = await openTestStorage();
    const platypus = await seedZoo(db, 25);
    const engine = createSearchEngine(db, { readBatch: 10 });
    const events: unknown[] = [];
    const during: Array<Promise<unknown>> = [];
    engine.watchBuild((progress) => {
      events.push(progress);
      if (progress?.done === 0) {
        // Asked before any message is read: titles are indexed first, messages come later.
        during.push(engine.search('zoo', 10).then(({ hits }) => (events.push('zoo answered'), hits.map((h) => h.matchedIn))));
        during.push(engine.search('platypus', 10).then(({ hits }) => (events.push('platypus answered'), hits.length)));
      }
    });

    await engine.start();
    expect(await Promise.all(during)).toEqual([['title'], 0]);
    expect(events).toEqual([
      { done: 0, total: 25 },
      'zoo answered',
      'platypus answered',
      { done: 10, total: 25 },
      { done: 20, total: 25 },
      { done: 25, total: 25 },
      null,
    ]);
    expect((await engine.search('platypus', 10)).hits.map((h) => h.messageId)).toEqual([platypus]);
    engine.close();
  });

  it('reports a rebuild of an index of an older format, and a listener that comes late hears where it is', async () => {
    const { db } = await openTestStorage();
    await seedZoo(db, 25);
    await db.put('searchIndex', { format: SEARCH_INDEX_FORMAT - 1, savedAt: 1, messageCount: 0, conversations: {}, index: '{}' }, SEARCH_INDEX_KEY);
    const engine = createSearchEngine(db, { readBatch: 10 });
    const late: unknown[] = [];
    let unwatch: () => void = () => undefined;
    const early = engine.watchBuild((progress) => {
      if (progress?.done === 10) unwatch = engine.watchBuild((p) => late.push(p));
      if (progress?.done === 20) unwatch();
    });

    await engine.start();
    early();
    expect(late).toEqual([{ done: 10, total: 25 }]);
  });

  it('reports no build for changes, for a saved index a few messages behind, or for one read', async () => {
    const { db } = await openTestStorage();
    await seedZoo(db, 25);
    const built = createSearchEngine(db, { readBatch: 10 });
    await built.start();
    await built.flush();
    built.close();

    // A page that closed before saving its index: 5 messages behind, fewer than one read.
    const deaf: SearchClient = { search: async () => ({ hits: [] }), details: async () => [], notify: () => undefined, close: () => undefined };
    const writer = createRepositories(db, { search: deaf }).conversations;
    for (let i = 0; i < 5; i++) await writer.appendMessage(say('zoo', `Keeper note ${i}.`));
    const engine = createSearchEngine(db, { readBatch: 10 });
    const repositories = createRepositories(db, { search: engine });
    const events: unknown[] = [];
    engine.watchBuild((progress) => events.push(progress));
    expect((await repositories.search.searchConversations('keeper')).hits.map((h) => h.conversationId)).toEqual(['zoo']);

    const c = await repositories.conversations.createConversation({ title: 'Aquarium' });
    await repositories.conversations.appendMessage(say(c.id, 'Seahorses.'));
    expect((await repositories.search.searchConversations('seahorses')).hits.map((h) => h.conversationId)).toEqual([c.id]);
    expect(events).toEqual([]);

    const small = await openTestStorage();
    await seedZoo(small.db, 10);
    const one = createSearchEngine(small.db, { readBatch: 10 });
    one.watchBuild((progress) => events.push(progress));
    expect((await one.search('platypus', 10)).hits).toHaveLength(1);
    expect(events).toEqual([]);
  });
});

describe('a query matching many conversations', () => {
  it('gives each conversation its best message, newest first, and snippets for the first rows only until asked', async () => {
    const { repositories, engine } = await open();
    const best: string[] = [];
    for (let i = 0; i < DETAILED_HITS + 5; i++) {
      const c = await repositories.conversations.createConversation({ title: `Birds ${i}` });
      await repositories.conversations.appendMessage(say(c.id, `We saw a falcon over the long valley at dawn, bird number ${i}.`));
      best.push((await repositories.conversations.appendMessage(say(c.id, 'Falcon, falcon, falcon!'))).id);
      await repositories.conversations.appendMessage(say(c.id, 'Then we went home.'));
    }
    const newestFirst = [...best].reverse();

    const hits = (await repositories.search.searchConversations('falcon')).hits;
    expect(hits).toHaveLength(DETAILED_HITS + 5);
    expect(hits.slice(0, DETAILED_HITS).map((h) => h.messageId)).toEqual(newestFirst.slice(0, DETAILED_HITS));
    expect(hits.slice(0, DETAILED_HITS).every((h) => h.matchedIn === 'message' && highlighted(h) === 'Falcon')).toBe(true);
    // Past the rows a screen shows: the conversation, its title, nothing read yet.
    const rest = hits.slice(DETAILED_HITS);
    expect(rest.map((h) => [h.matchedIn, h.messageId, h.snippet])).toEqual(rest.map(() => ['pending', undefined, '']));
    expect(rest.map((h) => h.title)).toEqual([4, 3, 2, 1, 0].map((i) => `Birds ${i}`));

    const filled = await repositories.search.searchHitDetails(
      'falcon',
      rest.map((h) => h.conversationId),
    );
    expect(filled.map((h) => h.conversationId)).toEqual(rest.map((h) => h.conversationId));
    expect(filled.map((h) => h.messageId)).toEqual(newestFirst.slice(DETAILED_HITS));
    expect(filled.every((h) => h.matchedIn === 'message' && highlighted(h) === 'Falcon' && h.createdAt! > 0)).toBe(true);
    // The details of a shown row are the ones the query gave it.
    expect(await engine.details('falcon', [hits[0]!.conversationId])).toEqual([hits[0]]);
    expect(await engine.details('owl', [hits[0]!.conversationId])).toEqual([]);
  });

  it('needs every word of the query in one message or the title, not spread over a conversation', async () => {
    const { repositories, found } = await open();
    const spread = await repositories.conversations.createConversation({ title: 'Fruit' });
    await repositories.conversations.appendMessage(say(spread.id, 'A red apple.'));
    await repositories.conversations.appendMessage(say(spread.id, 'A green pear.'));
    const together = await repositories.conversations.createConversation({ title: 'Dessert' });
    const tart = await repositories.conversations.appendMessage(say(together.id, 'A red pear tart.'));
    const titled = await repositories.conversations.createConversation({ title: 'Red pears' });

    expect(await found('red pear')).toEqual([
      [titled.id, 'title', undefined],
      [together.id, 'message', tart.id],
    ]);
    expect(await found('pear red apple')).toEqual([]);
  });
});
