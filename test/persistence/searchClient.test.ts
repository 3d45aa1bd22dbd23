import { describe, expect, it } from 'vitest';
import { createRepository } from '../../src/persistence/repository';
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
    const repository = createRepository(db, { search });
    const c = await repository.createConversation({ title: 'Whales' });
    const m = await repository.appendMessage({ conversationId: c.id, role: 'user', content: [{ type: 'text', text: 'Blue whales sing.' }] });

    expect((await repository.searchConversations('whale')).map((h) => [h.matchedIn, h.messageId ?? null])).toEqual([['message', m.id]]);
    await repository.renameConversation(c.id, 'Cetaceans');
    expect((await repository.searchConversations('cetacean')).map((h) => h.title)).toEqual(['Cetaceans']);
    expect(opened).toEqual(['windowpane']);
    search.close();
  });

  it('answers from the page when the Worker fails, including the searches it left waiting', async () => {
    const { db } = await openTestStorage();
    const worker = fakeWorker(db, []);
    worker.postMessage = () => undefined; // a Worker that never answers
    const search = createWorkerSearch(worker, 'windowpane', () => createSearchEngine(db));
    const repository = createRepository(db, { search });
    const c = await repository.createConversation({ title: 'Seals' });

    const waiting = repository.searchConversations('seals');
    worker.fail();
    expect((await waiting).map((h) => h.conversationId)).toEqual([c.id]);
    expect(worker.terminated).toBe(true);
    expect((await repository.searchConversations('seal')).map((h) => h.conversationId)).toEqual([c.id]);
    search.close();
  });
});
