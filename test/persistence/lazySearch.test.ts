import { describe, expect, it } from 'vitest';
import { lazySearch } from '../../src/persistence/lazySearch';
import { createSearchBuildReporter, type ReportsSearchBuilds, type SearchIndexProgress } from '../../src/persistence/searchBuild';
import { createSearchEngine, type SearchClient } from '../../src/persistence/searchIndex';
import type { StorageChange } from '../../src/persistence/sync';
import { openTestStorage, userText } from './helpers';

/** A client that records what it is told and reports builds as the test says. */
function recordingClient() {
  const builds = createSearchBuildReporter();
  const told: StorageChange[] = [];
  const client: SearchClient & ReportsSearchBuilds & { closed: boolean } = {
    closed: false,
    search: async (query) => ({ hits: [{ conversationId: 'c', title: query, matchedIn: 'title', snippet: query }] }),
    details: async () => [],
    notify: (change) => void told.push(change),
    watchBuild: (listener) => builds.watch(listener),
    close: () => void (client.closed = true),
  };
  return { client, told, report: (progress: SearchIndexProgress | null) => builds.report(progress) };
}

describe('the search client loaded on first use', () => {
  it('loads nothing until it is prepared or asked, then loads once', async () => {
    const { client } = recordingClient();
    let loads = 0;
    const search = lazySearch(async () => {
      loads++;
      return client;
    });
    search.notify({ type: 'conversation-changed', conversationId: 'a' });
    await new Promise((resolve) => setTimeout(resolve));
    expect(loads).toBe(0);

    search.prepare();
    search.prepare();
    expect((await search.search('whales', 10)).hits.map((h) => h.title)).toEqual(['whales']);
    expect((await search.search('seals', 10)).hits.map((h) => h.title)).toEqual(['seals']);
    expect(loads).toBe(1);
    search.close();
    expect(client.closed).toBe(true);
  });

  it('passes on the changes notified before it loaded, each once, and those after as they come', async () => {
    const { client, told } = recordingClient();
    const search = lazySearch(async () => client);
    const renamed: StorageChange = { type: 'conversation-changed', conversationId: 'a' };
    const edited: StorageChange = { type: 'messages-changed', conversationId: 'a', messageId: 'm1' };
    search.notify(renamed);
    search.notify(edited);
    search.notify({ ...renamed });
    expect(told).toEqual([]);

    await search.search('anything', 10);
    expect(told).toEqual([renamed, edited]);
    const later: StorageChange = { type: 'messages-changed', conversationId: 'a', messageId: 'm2' };
    search.notify(later);
    expect(told).toEqual([renamed, edited, later]);
  });

  it('finds a message changed in place before the index loaded from its save', async () => {
    const { db, repositories } = await openTestStorage();
    const c = await repositories.conversations.createConversation({ title: 'Notes' });
    const m = await repositories.conversations.appendMessage(userText(c.id, 'The first draft mentions alpacas.'));
    const saved = createSearchEngine(db);
    await saved.start();
    await saved.flush(); // the index is saved holding the first text
    saved.close();

    const search = lazySearch(async () => {
      const engine = createSearchEngine(db);
      await engine.start();
      return engine;
    });
    // Another tab edits the message in place while this one has not loaded its index.
    await repositories.conversations.updateMessage(m.id, { content: [{ type: 'text', text: 'The final draft mentions llamas.' }] });
    search.notify({ type: 'messages-changed', conversationId: c.id, messageId: m.id });

    await search.search('llama', 10); // loads the saved index, then applies the change
    expect((await search.search('llama', 10)).hits.map((h) => h.messageId)).toEqual([m.id]);
    expect((await search.search('alpaca', 10)).hits).toEqual([]);
    search.close();
  });

  it('tells those watching builds of the loaded index’s builds, even when they watched before it loaded', async () => {
    const { client, report } = recordingClient();
    const search = lazySearch(async () => client);
    const seen: (SearchIndexProgress | null)[] = [];
    search.watchBuild((progress) => seen.push(progress));
    await search.search('x', 1);
    report({ done: 500, total: 2_000 });
    report(null);
    expect(seen).toEqual([{ done: 500, total: 2_000 }, null]);
  });

  it('tries again at the next search after a load that failed, which the failed search reports', async () => {
    const { client } = recordingClient();
    let loads = 0;
    const search = lazySearch(async () => {
      if (++loads === 1) throw new Error('the chunk could not be fetched');
      return client;
    });
    search.prepare();
    await expect(search.search('x', 1)).rejects.toThrow('the chunk could not be fetched');
    expect((await search.search('x', 1)).hits.length).toBe(1);
    expect(loads).toBe(2);
  });

  it('closes a client that arrives after it was closed', async () => {
    const { client } = recordingClient();
    let arrive: () => void = () => undefined;
    const search = lazySearch(() => new Promise((resolve) => (arrive = () => resolve(client))));
    search.prepare();
    search.close();
    arrive();
    await new Promise((resolve) => setTimeout(resolve));
    expect(client.closed).toBe(true);
  });
});
