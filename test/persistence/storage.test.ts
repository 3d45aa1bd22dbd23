import { IDBFactory } from 'fake-indexeddb';
import { describe, expect, it, vi } from 'vitest';
import { openWindowpaneStorage } from '../../src/persistence/storage';

describe('openWindowpaneStorage', () => {
  it('opens, recovers answers a closed tab left streaming, and syncs with another tab', async () => {
    const factory = new IDBFactory();
    const channel = { name: 'windowpane-sync-storage-test' };
    const first = await openWindowpaneStorage({ factory, channel, locks: null });
    const { id } = await first.repositories.conversations.createConversation({ title: 'Interrupted' });
    await first.repositories.conversations.appendMessage({
      conversationId: id,
      id: 'partial',
      role: 'assistant',
      status: 'streaming',
      content: [{ type: 'text', text: 'Half an ans' }],
    });
    expect(first.interrupted).toEqual([]);
    first.close(); // the tab is closed mid-stream

    const second = await openWindowpaneStorage({ factory, channel, locks: null });
    expect(second.interrupted).toEqual([expect.objectContaining({ id: 'partial', status: 'interrupted', content: [{ type: 'text', text: 'Half an ans' }] })]);
    expect(await second.repositories.conversations.getMessage('partial')).toMatchObject({ status: 'interrupted' });

    const third = await openWindowpaneStorage({ factory, channel, locks: null });
    const seen = vi.fn();
    third.sync.subscribe(seen);
    await second.repositories.conversations.renameConversation(id, 'Renamed in another tab');
    await vi.waitFor(() => expect(seen).toHaveBeenCalledWith({ type: 'conversation-changed', conversationId: id }));
    expect(await third.repositories.conversations.getConversation(id)).toMatchObject({ title: 'Renamed in another tab' });
    second.close();
    third.close();
  });

  it('keeps each tab’s search index in step with the other tabs’ writes', async () => {
    const factory = new IDBFactory();
    const channel = { name: 'windowpane-sync-search-test' };
    const tabA = await openWindowpaneStorage({ factory, channel, locks: null });
    // A page that cannot create a Worker (none in this test DOM) searches in the page.
    const tabB = await openWindowpaneStorage({ factory, channel, locks: null, searchIn: 'worker' });
    const { id } = await tabA.repositories.conversations.createConversation({ title: 'Shared' });
    expect((await tabB.repositories.search.searchConversations('pangolin')).hits).toEqual([]); // B's index is built now

    await tabA.repositories.conversations.appendMessage({ conversationId: id, role: 'user', content: [{ type: 'text', text: 'Pangolins have scales.' }] });
    await vi.waitFor(async () => expect((await tabB.repositories.search.searchConversations('pangolin')).hits.map((h) => h.conversationId)).toEqual([id]));
    await tabA.repositories.conversations.deleteConversation(id);
    await vi.waitFor(async () => expect((await tabB.repositories.search.searchConversations('pangolin')).hits).toEqual([]));
    tabA.close();
    tabB.close();
  });
});
