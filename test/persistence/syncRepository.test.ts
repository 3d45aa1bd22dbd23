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
    expect(await repositories.sync.putMessages([message('a1', mine.id, 5), message('a2', 'a1', 6)])).toEqual({ added: 2, changedMeanwhile: [] });
    const stored = await repositories.conversations.getMessages(id);
    expect(stored.map((m) => [m.id, m.seq])).toEqual([
      [mine.id, 0],
      ['a1', 1],
      ['a2', 2],
    ]);
    expect((await repositories.conversations.getConversation(id))?.messageCount).toBe(3);
    // A pin that arrives changes the message where it is.
    expect(await repositories.sync.putMessages([{ ...message('a1', mine.id, 5), pinned: true }])).toEqual({ added: 0, changedMeanwhile: [] });
    expect(await repositories.conversations.getMessage('a1')).toMatchObject({ seq: 1, pinned: true });
  });

  it('leaves a record a check finds changed since it was read, and says which', async () => {
    const { repositories } = await openTestStorage();
    const { id } = await repositories.conversations.createConversation({ title: 'As read' });
    const here = await repositories.conversations.appendMessage({ conversationId: id, role: 'user', content: [{ type: 'text', text: 'here' }] });
    const { seq: _seq, ...portable } = here;
    const seen: unknown[] = [];
    const result = await repositories.sync.putMessages(
      [
        { ...portable, pinned: true },
        { ...portable, id: 'new', parentId: here.id },
      ],
      (messageId) => (stored) => {
        seen.push([messageId, stored === undefined ? undefined : (stored as { id: string }).id]);
        return messageId === 'new';
      },
    );
    expect(result).toEqual({ added: 1, changedMeanwhile: [here.id] });
    expect(seen).toEqual([
      [here.id, here.id],
      ['new', undefined],
    ]);
    expect((await repositories.conversations.getMessage(here.id))?.pinned).toBeUndefined();
    const before = await repositories.conversations.getConversation(id);
    expect(await repositories.sync.putConversation({ id, title: 'Not this', createdAt: 1, updatedAt: 2 }, () => false)).toBe(false);
    expect(await repositories.conversations.getConversation(id)).toEqual(before);
    expect(await repositories.conversations.deleteConversation(id, (stored) => stored.messages.length === 1)).toBeUndefined();
    expect(await repositories.conversations.getConversation(id)).toBeDefined();
    expect((await repositories.conversations.deleteConversation(id, (stored) => stored.messages.length === 2))?.messages).toHaveLength(2);
    expect(await repositories.conversations.getConversation(id)).toBeUndefined();
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
    ).toEqual({ added: 0, changedMeanwhile: [] });
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
    expect(await repositories.sync.putConversation({ id, title: 'After', createdAt: 1, updatedAt: 2 })).toBe(true);
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
