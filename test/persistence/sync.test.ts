import { IDBFactory, IDBObjectStore as FakeIDBObjectStore } from 'fake-indexeddb';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { openWindowpaneDb } from '../../src/persistence/db';
import { createRepositories } from '../../src/persistence/repositories';
import { createSyncChannel, type StorageChange, type SyncChannel } from '../../src/persistence/sync';

const open: Array<{ close(): void }> = [];
afterEach(() => {
  for (const thing of open.splice(0)) thing.close();
});

let channelCount = 0;
/** Two tabs' channels on a name no other test uses. */
function channelPair(): [SyncChannel, SyncChannel] {
  const name = `windowpane-sync-test-${++channelCount}`;
  const pair: [SyncChannel, SyncChannel] = [createSyncChannel({ name }), createSyncChannel({ name })];
  open.push(...pair);
  return pair;
}

function collect(channel: SyncChannel): StorageChange[] {
  const received: StorageChange[] = [];
  channel.subscribe((change) => received.push(change));
  return received;
}

describe('createSyncChannel', () => {
  it('delivers a change to the other tab, not back to the one that announced it', async () => {
    const [a, b] = channelPair();
    const atA = collect(a);
    const atB = collect(b);
    a.announce({ type: 'messages-changed', conversationId: 'c1', messageId: 'm1' });
    await vi.waitFor(() => expect(atB).toEqual([{ type: 'messages-changed', conversationId: 'c1', messageId: 'm1' }]));
    expect(atA).toEqual([]);
  });

  it('ignores anything on the channel that is not a change notice, and stops after unsubscribe', async () => {
    const name = `windowpane-sync-test-${++channelCount}`;
    const listener = createSyncChannel({ name });
    const raw = new BroadcastChannel(name);
    open.push(listener, raw);
    const received = collect(listener);
    const unsubscribeSecond = listener.subscribe(() => received.push({ type: 'settings-changed', settingKey: 'second' }));
    raw.postMessage('hello');
    raw.postMessage({ type: 'delete-everything', conversationId: 'c1' });
    raw.postMessage({ type: 'settings-changed', settingKey: 'theme', extra: { apiKey: 'x' } });
    await vi.waitFor(() => expect(received).toHaveLength(2));
    expect(received).toEqual([
      { type: 'settings-changed', settingKey: 'theme' },
      { type: 'settings-changed', settingKey: 'second' },
    ]);
    unsubscribeSecond();
    raw.postMessage({ type: 'conversation-changed' });
    await vi.waitFor(() => expect(received).toHaveLength(3));
    expect(received[2]).toEqual({ type: 'conversation-changed' });
  });

  it('echoes a change to its own listeners only, with or without BroadcastChannel', async () => {
    const [a, b] = channelPair();
    const atA = collect(a);
    const atB = collect(b);
    a.echo({ type: 'conversation-changed' });
    expect(atA).toEqual([{ type: 'conversation-changed' }]);
    a.announce({ type: 'settings-changed', settingKey: 'after' });
    await vi.waitFor(() => expect(atB).toEqual([{ type: 'settings-changed', settingKey: 'after' }]));
    const alone = createSyncChannel({ BroadcastChannel: undefined as unknown as typeof BroadcastChannel });
    const atAlone = collect(alone);
    alone.echo({ type: 'conversation-changed' });
    expect(atAlone).toEqual([{ type: 'conversation-changed' }]);
  });

  it('is silent without BroadcastChannel', () => {
    const channel = createSyncChannel({ BroadcastChannel: undefined as unknown as typeof BroadcastChannel });
    expect(() => channel.announce({ type: 'conversation-changed' })).not.toThrow();
    expect(channel.subscribe(() => undefined)).toBeInstanceOf(Function);
  });
});

describe('two tabs through the repositories', () => {
  async function twoTabs() {
    const factory = new IDBFactory();
    const [syncA, syncB] = channelPair();
    const [dbA, dbB] = await Promise.all([openWindowpaneDb({ factory }), openWindowpaneDb({ factory })]);
    open.push(dbA, dbB);
    const tabA = createRepositories(dbA, {
      sync: syncA,
      newId: (() => {
        let n = 0;
        return () => `a${++n}`;
      })(),
    });
    const tabB = createRepositories(dbB, { sync: syncB });
    return { tabA, tabB, seenByB: collect(syncB), seenByA: collect(syncA) };
  }

  it('announces each committed write, and the other tab reads exactly what changed', async () => {
    const { tabA, tabB, seenByB } = await twoTabs();
    const conversation = await tabA.conversations.createConversation({ title: 'Shared' });
    const message = await tabA.conversations.appendMessage({ conversationId: conversation.id, role: 'user', content: [{ type: 'text', text: 'from A' }] });
    await tabA.conversations.updateMessage(message.id, { pinned: true });
    await tabA.conversations.renameConversation(conversation.id, 'Shared, renamed');
    await tabA.settings.setSetting('settings', { provider: 'openai' });

    await vi.waitFor(() => expect(seenByB).toHaveLength(6));
    expect(seenByB).toEqual([
      { type: 'conversation-changed', conversationId: conversation.id },
      { type: 'messages-changed', conversationId: conversation.id, messageId: message.id },
      { type: 'conversation-changed', conversationId: conversation.id },
      { type: 'messages-changed', conversationId: conversation.id, messageId: message.id },
      { type: 'conversation-changed', conversationId: conversation.id },
      { type: 'settings-changed', settingKey: 'settings' },
    ]);
    expect(await tabB.conversations.getMessage(message.id)).toEqual({ ...message, pinned: true });
    expect(await tabB.conversations.getConversation(conversation.id)).toMatchObject({ title: 'Shared, renamed', messageCount: 1 });
  });

  it('tells the other tab about a delete, so it can drop the conversation', async () => {
    const { tabA, tabB, seenByA } = await twoTabs();
    const { id } = await tabA.conversations.createConversation();
    await tabB.conversations.deleteConversation(id);
    await vi.waitFor(() => expect(seenByA).toEqual([{ type: 'conversation-changed', conversationId: id }]));
    expect(await tabA.conversations.getConversation(id)).toBeUndefined();
  });

  it('announces nothing for a write that failed', async () => {
    const { tabA, seenByB } = await twoTabs();
    const { id } = await tabA.conversations.createConversation();
    await vi.waitFor(() => expect(seenByB).toHaveLength(1));
    vi.spyOn(FakeIDBObjectStore.prototype, 'add').mockImplementation(() => {
      throw new DOMException('full', 'QuotaExceededError');
    });
    await expect(tabA.conversations.appendMessage({ conversationId: id, role: 'user', content: [] })).rejects.toMatchObject({ code: 'quota_exceeded' });
    vi.restoreAllMocks();
    await tabA.conversations.renameConversation(id, 'after');
    await vi.waitFor(() => expect(seenByB).toHaveLength(2));
    expect(seenByB[1]).toEqual({ type: 'conversation-changed', conversationId: id });
  });
});
