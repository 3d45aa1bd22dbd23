import { describe, expect, it } from 'vitest';
import type { StorageChange } from '../../src/persistence/sync';
import { openTestStorage } from './helpers';

describe('the sync repository', () => {
  it('adds arrived messages after the ones here, in the order given, and updates the ones it has in place', async () => {
    const { repositories } = await openTestStorage();
    const { id } = await repositories.conversations.createConversation({ title: 'Trip' });
    const mine = await repositories.conversations.appendMessage({ conversationId: id, role: 'user', content: [{ type: 'text', text: 'here' }] });
    const message = (mid: string, parentId: string | null, createdAt: number) => ({
      id: mid,
      conversationId: id,
      parentId,
      role: 'assistant' as const,
      kind: 'message' as const,
      content: [{ type: 'text' as const, text: mid }],
      createdAt,
      status: 'complete' as const,
    });
    expect(await repositories.sync.putMessages([message('a1', mine.id, 5), message('a2', 'a1', 6)])).toBe(2);
    const stored = await repositories.conversations.getMessages(id);
    expect(stored.map((m) => [m.id, m.seq])).toEqual([
      [mine.id, 0],
      ['a1', 1],
      ['a2', 2],
    ]);
    expect((await repositories.conversations.getConversation(id))?.messageCount).toBe(3);
    // A pin that arrives changes the message where it is.
    expect(await repositories.sync.putMessages([{ ...message('a1', mine.id, 5), pinned: true }])).toBe(0);
    expect(await repositories.conversations.getMessage('a1')).toMatchObject({ seq: 1, pinned: true });
  });

  it('skips messages whose conversation is not here, and one that claims another conversation’s message', async () => {
    const { repositories } = await openTestStorage();
    const { id } = await repositories.conversations.createConversation();
    const other = await repositories.conversations.createConversation();
    const theirs = await repositories.conversations.appendMessage({ conversationId: other.id, role: 'user', content: [{ type: 'text', text: 'keep me' }] });
    const base = {
      role: 'user' as const,
      kind: 'message' as const,
      content: [{ type: 'text' as const, text: 'x' }],
      createdAt: 1,
      status: 'complete' as const,
      parentId: null,
    };
    expect(
      await repositories.sync.putMessages([
        { ...base, id: 'lost', conversationId: 'nowhere' },
        { ...base, id: theirs.id, conversationId: id },
      ]),
    ).toBe(0);
    expect(await repositories.conversations.getMessage(theirs.id)).toEqual(theirs);
    expect(await repositories.conversations.getMessages(id)).toEqual([]);
  });

  it('creates or replaces a conversation’s metadata, keeping this device’s count, and announces it', async () => {
    const heard: StorageChange[] = [];
    const channel = {
      announce: (change: StorageChange) => heard.push(change),
      subscribe: () => () => undefined,
      echo: () => undefined,
      close: () => undefined,
    };
    const { repositories } = await openTestStorage({ repositories: { sync: channel } });
    const { id } = await repositories.conversations.createConversation({ title: 'Before' });
    await repositories.conversations.appendMessage({ conversationId: id, role: 'user', content: [{ type: 'text', text: 'hi' }] });
    await repositories.sync.putConversation({ id, title: 'After', createdAt: 1, updatedAt: 2 });
    expect(await repositories.conversations.getConversation(id)).toMatchObject({ title: 'After', messageCount: 1 });
    await repositories.sync.putConversation({ id: 'new-one', title: 'Arrived', createdAt: 1, updatedAt: 2 });
    expect(await repositories.conversations.getConversation('new-one')).toMatchObject({ title: 'Arrived', messageCount: 0 });
    expect(heard).toContainEqual({ type: 'conversation-changed', conversationId: 'new-one' });
  });

  it('remembers what was synced, forgets some, and clears it all', async () => {
    const { repositories } = await openTestStorage();
    await repositories.sync.markSynced([
      { key: 'c:1', docId: 'd1', hash: 'h1', conversationId: '1' },
      { key: 'm:2', docId: 'd2', hash: 'h2', conversationId: '1' },
    ]);
    expect([...(await repositories.sync.syncedRecords()).keys()].sort()).toEqual(['c:1', 'm:2']);
    await repositories.sync.forgetSynced(['m:2']);
    expect([...(await repositories.sync.syncedRecords()).keys()]).toEqual(['c:1']);
    await repositories.sync.clearSynced();
    expect((await repositories.sync.syncedRecords()).size).toBe(0);
  });
});
