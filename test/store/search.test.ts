import { IDBFactory } from 'fake-indexeddb';
import { beforeEach, describe, expect, it } from 'vitest';
import type { ChatProvider } from '../../src/providers';
import { deleteConversation, renameConversation, search, selectConversation, undoDelete } from '../../src/store/conversationActions';
import { answer, scriptedRuntime, sendAndSettle } from './scriptedStore';

/** A model that answers each question with a fixed line about it. */
const provider: ChatProvider = {
  id: 'anthropic',
  wireShape: 'anthropic',
  async send(request) {
    const last = request.messages.at(-1)!;
    const asked = typeof last.content === 'string' ? last.content : JSON.stringify(last.content);
    return answer([{ type: 'text', text: asked.includes('東京') ? '東京都には美術館がたくさんあります。' : 'Try the crème brûlée at the corner café.' }]);
  },
  async complete() {
    return '';
  },
};

const hitsOf = (rt: Awaited<ReturnType<typeof scriptedRuntime>>) => rt.store.getState().searchHits?.map((h) => [h.conversationId, h.matchedIn]);

beforeEach(() => {
  globalThis.indexedDB = new IDBFactory();
});

describe('the search action', () => {
  it('finds answers by word prefix, ignoring accents, in any script, and follows rename, delete and Undo', async () => {
    const rt = await scriptedRuntime(provider);
    const dessert = await sendAndSettle(rt, 'Where should we eat tonight?');
    rt.store.setState({ activeId: null });
    const tokyo = await sendAndSettle(rt, '東京で何をしますか');

    await search(rt, 'CREME brul');
    expect(hitsOf(rt)).toEqual([[dessert, 'message']]);
    const [hit] = rt.store.getState().searchHits!;
    expect(hit!.snippet.slice(hit!.matchStart, hit!.matchStart! + hit!.matchLength!)).toBe('crème');
    expect(hit!.createdAt).toBeGreaterThan(0);

    await search(rt, '美術館');
    expect(hitsOf(rt)).toEqual([[tokyo, 'message']]);

    await renameConversation(rt, dessert, 'Dinner plans');
    await search(rt, 'dinner');
    expect(hitsOf(rt)).toEqual([[dessert, 'title']]);

    await deleteConversation(rt, dessert);
    await search(rt, 'cafe');
    expect(hitsOf(rt)).toEqual([]);
    await undoDelete(rt, dessert);
    await search(rt, 'cafe');
    expect(hitsOf(rt)).toEqual([[dessert, 'message']]);

    // Enter on the hit opens its conversation at the message.
    await selectConversation(rt, dessert, rt.store.getState().searchHits![0]!.messageId);
    expect(rt.store.getState().activeId).toBe(dessert);
    rt.storage?.close();
  });

  it('shows the latest asking of a query when an earlier one of the same query answers after it', async () => {
    const rt = await scriptedRuntime(provider);
    const dessert = await sendAndSettle(rt, 'Where should we eat tonight?');
    const real = rt.repositories.search.searchConversations.bind(rt.repositories.search);
    let first = true;
    let answerFirst: () => void = () => undefined;
    // The first asking answers as a build had it half done (nothing found), and only after the second.
    rt.repositories.search.searchConversations = async (query, options) => {
      if (!first) return real(query, options);
      first = false;
      await new Promise<void>((resolve) => (answerFirst = resolve));
      return { hits: [] };
    };

    const early = search(rt, 'creme');
    await search(rt, 'creme');
    expect(hitsOf(rt)).toEqual([[dessert, 'message']]);
    answerFirst();
    await early;
    expect(hitsOf(rt)).toEqual([[dessert, 'message']]);
    rt.storage?.close();
  });
});
