/**
 * Messages written elsewhere (the sync Worker applying another device's, another tab) reach
 * a tab showing their conversation, whatever the order they arrive in and even while the
 * tab is still reading the conversation: the tab ends on the branch they continue, and a
 * tab opening it later opens there too.
 */
import { IDBFactory } from 'fake-indexeddb';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { messageText, type StoredMessage } from '../../src/core';
import { createSyncRepositories, openWindowpaneStorage, type PortableMessage, type SyncRepositories } from '../../src/persistence';
import { shownBranch } from '../../src/store/branches';
import { selectConversation } from '../../src/store/conversationActions';
import type { Runtime } from '../../src/store/runtime';
import { scriptedRuntime } from './scriptedStore';

const CONVERSATION = 'conversation-1';
const T0 = 1_700_000_000_000;

/** A finished message of the conversation, as sync applies it. */
function message(id: string, parentId: string | null, role: 'user' | 'assistant', at: number): PortableMessage {
  return {
    id,
    conversationId: CONVERSATION,
    parentId,
    role,
    kind: 'message',
    content: [{ type: 'text', text: id }],
    status: 'complete',
    createdAt: T0 + at,
  } as PortableMessage;
}

const u1 = message('u1', null, 'user', 1);
const a1 = message('a1', 'u1', 'assistant', 2);
const u2 = message('u2', 'a1', 'user', 3);
const a2 = message('a2', 'u2', 'assistant', 4);

/** The other writer's repositories, as the sync Worker opens them: writes are announced on the channel the tab hears. */
let writer: { repositories: SyncRepositories; close(): void };
let tab: Runtime;

/** The other writer (as the sync Worker is) and a tab that knows the conversation as [u1, a1], stored as showing `storedLeaf`. */
async function setUp(storedLeaf: string): Promise<void> {
  const storage = await openWindowpaneStorage();
  writer = { repositories: createSyncRepositories(storage.db, { sync: storage.sync }), close: () => storage.close() };
  await writer.repositories.sync.putConversation({ id: CONVERSATION, title: 'Shed', createdAt: T0, updatedAt: T0, activeLeafId: storedLeaf } as never);
  await writer.repositories.sync.putMessages([u1, a1]);
  tab = await scriptedRuntime({
    id: 'anthropic',
    wireShape: 'anthropic',
    send: () => Promise.reject(new Error('no sends here')),
    complete: () => Promise.reject(new Error('no sends here')),
  });
}

const shown = () => shownBranch(tab.store.getState(), CONVERSATION).map((m: StoredMessage) => messageText(m));

beforeEach(() => {
  globalThis.indexedDB = new IDBFactory();
});
afterEach(() => {
  writer.close();
  tab.storage?.close();
});

describe('messages arriving from elsewhere', () => {
  it('an answer that arrives before its question: the tab ends on the answer once the question comes', async () => {
    await setUp('a1');
    await selectConversation(tab, CONVERSATION);
    expect(shown()).toEqual(['u1', 'a1']);

    await writer.repositories.sync.putMessages([a2]);
    await writer.repositories.sync.putMessages([u2]);
    await vi.waitFor(() => expect(shown()).toEqual(['u1', 'a1', 'u2', 'a2']), { timeout: 3000 });
  });

  it('the branch the conversation is stored as showing, opened before it arrived, is shown once it does', async () => {
    // The record (naming a2) came first, as a revived conversation's does; its messages follow.
    await setUp('a2');
    await selectConversation(tab, CONVERSATION);
    expect(shown()).toEqual(['u1', 'a1']);

    await writer.repositories.sync.putMessages([a2]);
    await vi.waitFor(() => expect(tab.store.getState().messages[CONVERSATION]).toHaveLength(3));
    await writer.repositories.sync.putMessages([u2]);
    await vi.waitFor(() => expect(shown()).toEqual(['u1', 'a1', 'u2', 'a2']), { timeout: 3000 });
  });

  it('a conversation stored as showing a message that others now follow opens where it went on', async () => {
    // Another device went on from a1 (and its record, naming a1, was written before that).
    await setUp('a1');
    await writer.repositories.sync.putMessages([u2, a2]);
    await selectConversation(tab, CONVERSATION);
    expect(shown()).toEqual(['u1', 'a1', 'u2', 'a2']);
  });

  it('a burst of messages from a first sync is read in a few batches and shown in as many updates, ending on its newest', async () => {
    await setUp('a1');
    await selectConversation(tab, CONVERSATION);
    const many: PortableMessage[] = [];
    let parent = 'a1';
    for (let i = 0; i < 200; i++) {
      const next = message(`m${i}`, parent, i % 2 === 0 ? 'user' : 'assistant', 10 + i);
      many.push(next);
      parent = next.id;
    }
    const reads = vi.spyOn(tab.repositories.conversations, 'getMessagesById');
    const single = vi.spyOn(tab.repositories.conversations, 'getMessage');
    let updates = 0;
    const unsubscribe = tab.store.subscribe((state, previous) => {
      if (state.messages !== previous.messages) updates++;
    });
    // As the sync Worker saves a batch: one transaction each of 50, each message announced.
    for (let i = 0; i < many.length; i += 50) await writer.repositories.sync.putMessages(many.slice(i, i + 50));
    await vi.waitFor(() => expect(shown().at(-1)).toBe('m199'), { timeout: 3000 });
    unsubscribe();
    expect(tab.store.getState().messages[CONVERSATION]).toHaveLength(202);
    expect(shown()).toHaveLength(202);
    // One read and one update per batch of notices, not one per message.
    expect(single).not.toHaveBeenCalled();
    expect(reads.mock.calls.length).toBeGreaterThan(0);
    expect(reads.mock.calls.length).toBeLessThanOrEqual(4);
    expect(updates).toBeLessThanOrEqual(4);
  });

  it('messages written while the tab is reading the conversation are not lost', async () => {
    await setUp('a1');
    const read = tab.repositories.conversations.getMessages.bind(tab.repositories.conversations);
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    // The read sees the conversation as it was ([u1, a1]) and answers only after the arrivals were announced.
    vi.spyOn(tab.repositories.conversations, 'getMessages').mockImplementationOnce(async (id) => {
      const found = await read(id);
      await held;
      return found;
    });
    const opening = selectConversation(tab, CONVERSATION);
    await vi.waitFor(() => expect(tab.repositories.conversations.getMessages).toHaveBeenCalled());
    await new Promise((resolve) => setTimeout(resolve, 20));
    await writer.repositories.sync.putMessages([u2, a2]);
    await new Promise((resolve) => setTimeout(resolve, 100)); // the notices reach the tab
    release();
    await opening;
    await vi.waitFor(() => expect(shown()).toEqual(['u1', 'a1', 'u2', 'a2']), { timeout: 3000 });
  });
});
