import { describe, expect, it } from 'vitest';
import type { StoredMessage } from '../../src/core';
import { createRepositories } from '../../src/persistence/repositories';
import { createWorkerSearch, serveSearchRequests, type SearchReply, type SearchRequest, type SearchWorkerPort } from '../../src/persistence/searchClient';
import { createSearchEngine } from '../../src/persistence/searchIndex';
import type { WindowpaneDb } from '../../src/persistence/db';
import { openTestStorage } from './helpers';

/** A Worker stand-in: messages cross asynchronously, as structured clones, to the real request loop. */
function fakeWorker(db: WindowpaneDb, opened: string[]): SearchWorkerPort & { fail(): void; terminated: boolean } {
  const listeners: { message: Array<(event: MessageEvent<SearchReply>) => void>; error: Array<() => void> } = { message: [], error: [] };
  const handle = serveSearchRequests(
    async (name) => {
      opened.push(name);
      return db;
    },
    (reply) => queueMicrotask(() => listeners.message.forEach((l) => l({ data: structuredClone(reply) } as MessageEvent<SearchReply>))),
  );
  const port = {
    terminated: false,
    postMessage: (request: SearchRequest) => setTimeout(() => !port.terminated && handle(structuredClone(request))),
    addEventListener: (type: 'message' | 'error', listener: never) => listeners[type].push(listener),
    terminate: () => (port.terminated = true),
    fail: () => listeners.error.forEach((l) => l()),
  };
  return port;
}

describe('the search Worker client', () => {
  it('sends changes and queries to the Worker in order, which opens the named database', async () => {
    const { db } = await openTestStorage();
    const opened: string[] = [];
    const search = createWorkerSearch(fakeWorker(db, opened), 'windowpane', () => createSearchEngine(db));
    const repositories = createRepositories(db, { search });
    // A title without the word: a title "Whales" would be as good a match as the message, and either could be the best.
    const c = await repositories.conversations.createConversation({ title: 'At sea' });
    const m = await repositories.conversations.appendMessage({ conversationId: c.id, role: 'user', content: [{ type: 'text', text: 'Blue whales sing.' }] });

    expect((await repositories.search.searchConversations('whale')).hits.map((h) => [h.matchedIn, h.messageId ?? null])).toEqual([['message', m.id]]);
    await repositories.conversations.renameConversation(c.id, 'Cetaceans');
    expect((await repositories.search.searchConversations('cetacean')).hits.map((h) => h.title)).toEqual(['Cetaceans']);
    expect(opened).toEqual(['windowpane']);
    search.close();
  });

  it('asks the Worker for the details of pending hits, and the page when the Worker fails', async () => {
    const { db } = await openTestStorage();
    const worker = fakeWorker(db, []);
    const search = createWorkerSearch(worker, 'windowpane', () => createSearchEngine(db));
    const repositories = createRepositories(db, { search });
    const c = await repositories.conversations.createConversation({ title: 'Ponds' });
    const m = await repositories.conversations.appendMessage({ conversationId: c.id, role: 'user', content: [{ type: 'text', text: 'Newts live here.' }] });

    const viaWorker = await repositories.search.searchHitDetails('newt', [c.id]);
    expect(viaWorker.map((h) => [h.matchedIn, h.messageId, h.snippet])).toEqual([['message', m.id, 'Newts live here.']]);
    worker.postMessage = () => undefined; // from now on the Worker never answers
    const waiting = repositories.search.searchHitDetails('newt', [c.id]);
    worker.fail();
    expect(await waiting).toEqual(viaWorker);
    search.close();
  });

  it('answers from the page when the Worker fails, including the searches it left waiting', async () => {
    const { db } = await openTestStorage();
    const worker = fakeWorker(db, []);
    worker.postMessage = () => undefined; // a Worker that never answers
    const search = createWorkerSearch(worker, 'windowpane', () => createSearchEngine(db));
    const repositories = createRepositories(db, { search });
    const c = await repositories.conversations.createConversation({ title: 'Seals' });

    const waiting = repositories.search.searchConversations('seals');
    worker.fail();
    expect((await waiting).hits.map((h) => h.conversationId)).toEqual([c.id]);
    expect(worker.terminated).toBe(true);
    expect((await repositories.search.searchConversations('seal')).hits.map((h) => h.conversationId)).toEqual([c.id]);
    search.close();
  });
});

describe('the search Worker while it loads a saved index in parts', () => {
  it('answers from the parts loaded and says so, and again with `after` until all are', async () => {
    const { db, repositories } = await openTestStorage();
    const ids: string[] = [];
    for (const title of ['Puffins', 'Gannets', 'Terns']) {
      const c = await repositories.conversations.createConversation({ title });
      await repositories.conversations.appendMessage({ conversationId: c.id, role: 'user', content: [{ type: 'text', text: `${title} are seabirds.` }] });
      ids.unshift(c.id);
    }
    // Saved in three parts, one a conversation.
    const built = createSearchEngine(db, { partDocuments: 2 });
    await built.start();
    await built.flush();
    built.close();

    const search = createWorkerSearch(fakeWorker(db, []), 'windowpane', () => createSearchEngine(db));
    const first = await search.search('seabirds', 10);
    expect(first.loading).toEqual({ loaded: 1, total: 3 });
    expect(first.hits.map((h) => h.conversationId)).toEqual(ids.slice(0, 1));
    let answer = first;
    while (answer.loading) answer = await search.search('seabirds', 10, { after: answer.loading.loaded });
    expect(answer.hits.map((h) => h.conversationId)).toEqual(ids);
    expect(await search.search('seabirds', 10)).toEqual(answer);
    search.close();
  });
});

describe('the search Worker answering queries typed letter by letter', () => {
  it('answers a query still waiting when a newer one arrives with no hits, and the newer one in full', async () => {
    const { db, repositories } = await openTestStorage();
    const c = await repositories.conversations.createConversation({ title: 'Budget' });
    await repositories.conversations.appendMessage({ conversationId: c.id, role: 'user', content: [{ type: 'text', text: 'A budget for the trip.' }] });
    const replies: SearchReply[] = [];
    const handle = serveSearchRequests(
      async () => db,
      (reply) => replies.push(reply),
    );
    handle({ type: 'open', name: 'windowpane' });
    // Three letters typed before the index has answered the first: all three wait for its load.
    for (const [id, query] of ['b', 'bu', 'bud'].entries()) handle({ type: 'search', id: id + 1, query, limit: 10 });
    await waitFor(() => replies.filter((r) => r.type === 'hits').length === 3);

    const hits = (id: number) => replies.find((r) => r.type === 'hits' && r.id === id);
    expect(hits(1)).toEqual({ type: 'hits', id: 1, hits: [] });
    expect(hits(2)).toEqual({ type: 'hits', id: 2, hits: [] });
    expect(hits(3)).toMatchObject({ type: 'hits', id: 3, hits: [{ conversationId: c.id, matchedIn: 'title' }] });
  });
});

/** Stores `count` messages, all about otters, without indexing them: more than one read of the index's build. */
async function seedOtters(db: WindowpaneDb, count: number): Promise<void> {
  const messages: StoredMessage[] = Array.from({ length: count }, (_, i) => ({
    id: `otter-${String(i).padStart(5, '0')}`,
    conversationId: 'otters',
    role: 'user',
    content: [{ type: 'text', text: `Otter fact ${i}.` }],
    seq: i,
    parentId: null,
    kind: 'message',
    createdAt: 10 + i,
    status: 'complete',
  }));
  const deaf = { search: async () => ({ hits: [] }), details: async () => [], notify: () => undefined, close: () => undefined };
  await createRepositories(db, { search: deaf }).transfer.importBatch({
    format: 'windowpane',
    conversations: [{ conversation: { id: 'otters', title: 'Otters', createdAt: 1, updatedAt: 2, messageCount: count }, messages }],
  });
}

describe('the search Worker client reporting a build', () => {
  it('passes on the progress the Worker posts, a message per batch read, and the end of the build', async () => {
    const { db } = await openTestStorage();
    await seedOtters(db, 1200);
    const worker = fakeWorker(db, []);
    const posted: SearchReply[] = [];
    const listen = worker.addEventListener.bind(worker) as (type: 'message', l: (event: MessageEvent<SearchReply>) => void) => void;
    listen('message', ({ data }) => posted.push(data));
    const search = createWorkerSearch(worker, 'windowpane', () => createSearchEngine(db));
    const heard: unknown[] = [];
    search.watchBuild((progress) => heard.push(progress));

    await waitFor(() => heard.at(-1) === null);
    const steps = [{ done: 0, total: 1200 }, { done: 500, total: 1200 }, { done: 1000, total: 1200 }, { done: 1200, total: 1200 }, null];
    expect(heard).toEqual(steps);
    expect(posted).toEqual(steps.map((progress) => ({ type: 'build', progress })));
    expect((await search.search('otter fact 1199', 5)).hits).toHaveLength(1);
    search.close();
  });

  it('ends the Worker’s build when it fails, and reports the page’s build that takes over', async () => {
    const { db } = await openTestStorage();
    await seedOtters(db, 600);
    const worker = fakeWorker(db, []);
    const search = createWorkerSearch(worker, 'windowpane', () => createSearchEngine(db));
    const heard: unknown[] = [];
    search.watchBuild((progress) => {
      heard.push(progress);
      if (heard.length === 1) worker.fail();
    });

    await waitFor(() => heard.length >= 2);
    expect(heard).toEqual([{ done: 0, total: 600 }, null]);
    expect(worker.terminated).toBe(true);
    // The page builds its own index once asked, and says so.
    expect((await search.search('otters', 5)).hits.map((h) => h.matchedIn)).toEqual(['title']);
    await waitFor(() => heard.length === 6);
    expect(heard.slice(2)).toEqual([{ done: 0, total: 600 }, { done: 500, total: 600 }, { done: 600, total: 600 }, null]);
    search.close();
  });
});

/** Waits for `done` to hold, checking after each macrotask. */
async function waitFor(done: () => boolean): Promise<void> {
  for (let i = 0; i < 2000 && !done(); i++) await new Promise((resolve) => setTimeout(resolve));
  expect(done()).toBe(true);
}
