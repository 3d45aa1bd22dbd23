import { IDBFactory } from 'fake-indexeddb';
import { describe, expect, it, vi } from 'vitest';
import { openWindowpaneStorage } from '../../src/persistence/storage';

describe('openWindowpaneStorage', () => {
  it('opens, recovers answers a closed tab left streaming, and syncs with another tab', async () => {
    const factory = new IDBFactory();
    const channel = { name: 'windowpane-sync-storage-test' };
    const first = await openWindowpaneStorage({ factory, channel, locks: null });
    const { id } = await first.repository.createConversation({ title: 'Interrupted' });
    await first.repository.appendMessage({
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
    expect(await second.repository.getMessage('partial')).toMatchObject({ status: 'interrupted' });

    const third = await openWindowpaneStorage({ factory, channel, locks: null });
    const seen = vi.fn();
    third.sync.subscribe(seen);
    await second.repository.renameConversation(id, 'Renamed in another tab');
    await vi.waitFor(() => expect(seen).toHaveBeenCalledWith({ type: 'conversation-changed', conversationId: id }));
    expect(await third.repository.getConversation(id)).toMatchObject({ title: 'Renamed in another tab' });
    second.close();
    third.close();
  });
});
