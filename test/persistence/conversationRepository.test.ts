import { IDBFactory, IDBDatabase as FakeIDBDatabase, IDBObjectStore as FakeIDBObjectStore } from 'fake-indexeddb';
import { describe, expect, it, vi } from 'vitest';
import { branchMessages, buildTree, isWindowpaneError, type StoredMessage, type WindowpaneError } from '../../src/core';
import { openWindowpaneDb } from '../../src/persistence/db';
import type { ConversationRepository, NewMessage } from '../../src/persistence/conversationRepository';
import { createRepositories } from '../../src/persistence/repositories';
import type { UnreadableRecords } from '../../src/persistence/repositoryContext';
import type { SyncChannel } from '../../src/persistence/sync';
import { idSequence, openTestStorage, steppingClock, userText } from './helpers';

const T0 = 1_767_225_600_000;

/** Records the store names of every transaction opened and every write made while `run` runs. */
async function watchStorage<T>(run: () => Promise<T>) {
  const transactions: string[][] = [];
  const writes: string[] = [];
  const transaction = FakeIDBDatabase.prototype.transaction;
  vi.spyOn(FakeIDBDatabase.prototype, 'transaction').mockImplementation(function (this: IDBDatabase, ...args) {
    transactions.push(([] as string[]).concat(args[0] as string | string[]));
    return transaction.apply(this, args);
  });
  for (const method of ['add', 'put', 'delete'] as const) {
    const original = FakeIDBObjectStore.prototype[method] as (...a: unknown[]) => unknown;
    vi.spyOn(FakeIDBObjectStore.prototype, method).mockImplementation(function (this: IDBObjectStore, ...args: unknown[]) {
      writes.push(`${method} ${this.name}`);
      return original.apply(this, args) as never;
    });
  }
  const result = await run();
  vi.restoreAllMocks();
  return { result, transactions, writes };
}

describe('conversations', () => {
  it('creates, lists most recently updated first, renames and keeps overrides on the conversation', async () => {
    const { repositories } = await openTestStorage();
    const first = await repositories.conversations.createConversation({ title: '  First  ' });
    const second = await repositories.conversations.createConversation({ overrides: { model: 'gpt-4.1' } });
    expect(first).toEqual({ id: 'id-1', title: 'First', createdAt: T0, updatedAt: T0, messageCount: 0 });
    expect(second).toMatchObject({ id: 'id-2', title: 'New conversation', overrides: { model: 'gpt-4.1' } });
    expect((await repositories.conversations.listConversations()).map((c) => c.id)).toEqual(['id-2', 'id-1']);

    await repositories.conversations.appendMessage(userText('id-1', 'bump'));
    expect((await repositories.conversations.listConversations()).map((c) => c.id)).toEqual(['id-1', 'id-2']);

    expect(await repositories.conversations.renameConversation('id-1', 'Renamed')).toMatchObject({ title: 'Renamed' });
    expect(await repositories.conversations.renameConversation('id-1', '   ')).toMatchObject({ title: 'Untitled conversation' });
    expect(await repositories.conversations.renameConversation('missing', 'x')).toBeUndefined();
    expect(await repositories.conversations.setConversationOverrides('id-2', { model: 'o3', window: { strategy: 'rolling' } })).toMatchObject({
      overrides: { model: 'o3', window: { strategy: 'rolling' } },
    });
    expect(await repositories.conversations.setConversationOverrides('id-2', undefined)).not.toHaveProperty('overrides');
  });

  it('reads several conversations or messages in one transaction each, in the order asked, leaving out what is gone', async () => {
    const { repositories } = await openTestStorage();
    const first = await repositories.conversations.createConversation({ title: 'First' });
    const second = await repositories.conversations.createConversation({ title: 'Second' });
    const m1 = await repositories.conversations.appendMessage(userText(first.id, 'one'));
    const m2 = await repositories.conversations.appendMessage(userText(second.id, 'two'));
    const conversations = await watchStorage(() => repositories.conversations.getConversations([second.id, 'gone', first.id]));
    expect(conversations.result.map((c) => c?.title)).toEqual(['Second', undefined, 'First']);
    expect(conversations.transactions).toEqual([['conversations']]);
    const messages = await watchStorage(() => repositories.conversations.getMessagesById([m2.id, 'gone', m1.id]));
    expect(messages.result).toEqual([m2, m1]);
    expect(messages.transactions).toEqual([['messages']]);
  });

  it('lists conversations from the conversations store alone, never reading a message', async () => {
    const { repositories } = await openTestStorage();
    const { id } = await repositories.conversations.createConversation();
    for (let i = 0; i < 20; i++) await repositories.conversations.appendMessage(userText(id, `message ${i}`));
    const { result, transactions } = await watchStorage(() => repositories.conversations.listConversations());
    expect(result).toEqual([expect.objectContaining({ id, messageCount: 20 })]);
    expect(transactions).toEqual([['conversations']]);
  });

  it('deletes a conversation with its messages and attachments, and restores exactly what was deleted', async () => {
    const { repositories } = await openTestStorage();
    const keep = await repositories.conversations.createConversation({ title: 'Keep' });
    const drop = await repositories.conversations.createConversation({ title: 'Drop' });
    await repositories.conversations.appendMessage(userText(keep.id, 'stay'));
    const a = await repositories.conversations.appendMessage(userText(drop.id, 'go 1'));
    const b = await repositories.conversations.appendMessage({
      ...userText(drop.id, 'go 2'),
      role: 'assistant',
      usage: { inputTokens: 5, outputTokens: 2, cacheReadTokens: 0, cacheWriteTokens: 0 },
    });
    const attachment = await repositories.files.addAttachment({ conversationId: drop.id, name: 'a.txt', text: 'abc' });
    const before = await repositories.conversations.getConversation(drop.id);

    const deleted = await repositories.conversations.deleteConversation(drop.id);
    expect(deleted).toEqual({ conversation: before, messages: [a, b], attachments: [attachment], files: [] });
    expect(await repositories.conversations.getConversation(drop.id)).toBeUndefined();
    expect(await repositories.conversations.getMessages(drop.id)).toEqual([]);
    expect(await repositories.conversations.getMessage(a.id)).toBeUndefined();
    expect(await repositories.files.listAttachments(drop.id)).toEqual([]);
    expect(await repositories.conversations.getMessages(keep.id)).toHaveLength(1);
    expect(await repositories.conversations.deleteConversation(drop.id)).toBeUndefined();

    await repositories.conversations.restoreConversation(deleted!);
    expect(await repositories.conversations.getConversation(drop.id)).toEqual(before);
    expect(await repositories.conversations.getMessages(drop.id)).toEqual([a, b]);
    expect(await repositories.files.listAttachments(drop.id)).toEqual([attachment]);
  });
});

describe('messages', () => {
  it('appends with increasing seq, bumping updatedAt and messageCount, and reads them back in order', async () => {
    const { repositories } = await openTestStorage();
    const { id } = await repositories.conversations.createConversation();
    const first = await repositories.conversations.appendMessage(userText(id, 'hello'));
    const second = await repositories.conversations.appendMessage({
      conversationId: id,
      id: 'answer',
      role: 'assistant',
      status: 'streaming',
      content: [],
      model: 'claude-sonnet-4-5',
      provider: 'anthropic',
    });
    expect(first).toEqual({
      id: 'id-2',
      conversationId: id,
      seq: 0,
      role: 'user',
      kind: 'message',
      content: [{ type: 'text', text: 'hello' }],
      createdAt: T0 + 1000,
      status: 'complete',
      parentId: null,
    });
    expect(second).toMatchObject({ id: 'answer', seq: 1, status: 'streaming', kind: 'message', createdAt: T0 + 2000, parentId: first.id });
    expect(await repositories.conversations.getConversation(id)).toMatchObject({
      messageCount: 2,
      updatedAt: T0 + 2000,
      createdAt: T0,
      activeLeafId: 'answer',
    });
    expect(await repositories.conversations.getMessages(id)).toEqual([first, second]);
  });

  it('writes exactly one message record and the metadata record per append, never the rest of the conversation', async () => {
    const { repositories } = await openTestStorage();
    const { id } = await repositories.conversations.createConversation();
    for (let i = 0; i < 30; i++) await repositories.conversations.appendMessage(userText(id, `m${i}`));
    const { writes } = await watchStorage(() => repositories.conversations.appendMessage(userText(id, 'one more')));
    expect(writes.sort()).toEqual(['add messages', 'put conversations']);
  });

  it('stores a summary as its own message listing the ids it covers, deleting nothing', async () => {
    const { repositories } = await openTestStorage();
    const { id } = await repositories.conversations.createConversation();
    const covered = [];
    for (let i = 0; i < 4; i++) covered.push(await repositories.conversations.appendMessage(userText(id, `old ${i}`)));
    const summary = await repositories.conversations.appendMessage({
      conversationId: id,
      role: 'user',
      kind: 'summary',
      covers: covered.map((m) => m.id),
      content: [{ type: 'text', text: '[Conversation Summary]\nFour old messages.' }],
    });
    const stored = await repositories.conversations.getMessages(id);
    expect(stored).toHaveLength(5);
    expect(stored.slice(0, 4)).toEqual(covered);
    expect(stored[4]).toEqual(summary);
    expect(summary).toMatchObject({ kind: 'summary', covers: covered.map((m) => m.id), seq: 4 });
  });

  it('updates one message, removing fields patched to undefined, and reports a missing one', async () => {
    const { repositories } = await openTestStorage();
    const { id } = await repositories.conversations.createConversation();
    const message = await repositories.conversations.appendMessage({
      ...userText(id, 'x'),
      role: 'assistant',
      status: 'error',
      error: { code: 'network', message: 'offline' },
    });
    const updated = await repositories.conversations.updateMessage(message.id, {
      status: 'complete',
      error: undefined,
      content: [{ type: 'text', text: 'retried' }],
      usage: { inputTokens: 10, outputTokens: 3, cacheReadTokens: 0, cacheWriteTokens: 0 },
    });
    const { error: _error, ...withoutError } = message;
    expect(updated).toStrictEqual({
      ...withoutError,
      status: 'complete',
      content: [{ type: 'text', text: 'retried' }],
      usage: { inputTokens: 10, outputTokens: 3, cacheReadTokens: 0, cacheWriteTokens: 0 },
    });
    expect(await repositories.conversations.getMessage(message.id)).toEqual(updated);
    expect(await repositories.conversations.updateMessage('nope', { status: 'complete' })).toBeUndefined();
  });

  it('refuses to append to a conversation another tab deleted, keeping nothing orphaned', async () => {
    const { repositories } = await openTestStorage();
    const { id } = await repositories.conversations.createConversation();
    await repositories.conversations.deleteConversation(id);
    const error = await repositories.conversations.appendMessage(userText(id, 'late')).catch((e: unknown) => e);
    expect(isWindowpaneError(error, 'conversation_gone')).toBe(true);
    expect((error as WindowpaneError).details).toEqual({ conversationId: id, refused: 'message' });
    expect(await repositories.conversations.getMessages(id)).toEqual([]);
  });

  it('marks messages left streaming as interrupted, sparing streams still alive in another tab', async () => {
    const { repositories } = await openTestStorage();
    const { id } = await repositories.conversations.createConversation();
    await repositories.conversations.appendMessage(userText(id, 'question'));
    const dead = await repositories.conversations.appendMessage({
      conversationId: id,
      id: 'dead',
      role: 'assistant',
      status: 'streaming',
      content: [{ type: 'text', text: 'partial ans' }],
    });
    await repositories.conversations.appendMessage({ conversationId: id, id: 'alive', role: 'assistant', status: 'streaming', content: [] });

    const changed = await repositories.conversations.markInterruptedStreams((messageId) => messageId === 'alive');
    expect(changed).toEqual([{ ...dead, status: 'interrupted' }]);
    expect(await repositories.conversations.getMessage('dead')).toEqual({ ...dead, status: 'interrupted' });
    expect(await repositories.conversations.getMessage('alive')).toMatchObject({ status: 'streaming' });
    expect(await repositories.conversations.markInterruptedStreams((messageId) => messageId === 'alive')).toEqual([]);
  });
});

describe('branches', () => {
  const answer = (conversationId: string, text: string, extra: Partial<NewMessage> = {}) => userText(conversationId, text, { role: 'assistant', ...extra });
  const ids = (messages: readonly StoredMessage[]) => messages.map((m) => m.id);
  const shownBranch = async (conversations: ConversationRepository, id: string) =>
    ids(branchMessages(buildTree(await conversations.getMessages(id)), (await conversations.getConversation(id))!.activeLeafId));

  it('appends a message after the open branch’s last message by default, and opens it', async () => {
    const { repositories } = await openTestStorage();
    const { id } = await repositories.conversations.createConversation();
    const question = await repositories.conversations.appendMessage(userText(id, 'question'));
    const first = await repositories.conversations.appendMessage(answer(id, 'first answer'));
    const second = await repositories.conversations.appendMessage(answer(id, 'second answer', { parentId: question.id }));
    expect([question.parentId, first.parentId, second.parentId]).toEqual([null, question.id, question.id]);
    expect(await repositories.conversations.getConversation(id)).toMatchObject({ activeLeafId: second.id });

    await repositories.conversations.setActiveLeaf(id, first.id);
    const followUp = await repositories.conversations.appendMessage(userText(id, 'about the first answer'));
    expect(followUp.parentId).toBe(first.id);
    expect(await repositories.conversations.getConversation(id)).toMatchObject({ activeLeafId: followUp.id });
    expect(await shownBranch(repositories.conversations, id)).toEqual([question.id, first.id, followUp.id]);
  });

  it('without a usable open branch, appends after the newest message; a summary gets no parent and opens nothing', async () => {
    const { repositories } = await openTestStorage();
    const { id } = await repositories.conversations.createConversation();
    const other = await repositories.conversations.createConversation();
    const elsewhere = await repositories.conversations.appendMessage(userText(other.id, 'in another conversation'));
    const a = await repositories.conversations.appendMessage(userText(id, 'a'));
    const b = await repositories.conversations.appendMessage(answer(id, 'b'));
    const summary = await repositories.conversations.appendMessage({ ...userText(id, '[Conversation Summary]'), kind: 'summary', covers: [a.id] });
    expect(summary).not.toHaveProperty('parentId');
    expect(await repositories.conversations.getConversation(id)).toMatchObject({ activeLeafId: b.id });

    // The open branch names a summary, another conversation's message or nothing stored: the newest message it is.
    let newest = b;
    for (const named of [summary.id, elsewhere.id, 'not-stored']) {
      await repositories.conversations.setActiveLeaf(id, named);
      const next = await repositories.conversations.appendMessage(userText(id, `after ${named}`));
      expect(next.parentId).toBe(newest.id);
      expect(await repositories.conversations.getConversation(id)).toMatchObject({ activeLeafId: next.id });
      newest = next;
    }
  });

  it('keeps a given parent (a sibling of an earlier message) and rewrites no other record', async () => {
    const { db, repositories } = await openTestStorage();
    const { id } = await repositories.conversations.createConversation();
    const other = await repositories.conversations.createConversation({ title: 'Other' });
    await repositories.conversations.appendMessage(userText(other.id, 'untouched'));
    const question = await repositories.conversations.appendMessage(userText(id, 'question'));
    await repositories.conversations.appendMessage(answer(id, 'answer'));
    await repositories.conversations.appendMessage(userText(id, 'follow-up'));
    await repositories.conversations.appendMessage(answer(id, 'second answer'));
    const messagesBefore = await db.getAll('messages');
    const conversationsBefore = await db.getAll('conversations');

    const { result: edited, writes } = await watchStorage(() => repositories.conversations.appendMessage(userText(id, 'question, edited', { parentId: null })));
    const { result: regenerated } = await watchStorage(() => repositories.conversations.appendMessage(answer(id, 'answer again', { parentId: question.id })));

    expect(writes.sort()).toEqual(['add messages', 'put conversations']);
    expect(edited).toMatchObject({ parentId: null, seq: 4 });
    expect(regenerated).toMatchObject({ parentId: question.id, seq: 5 });
    const messagesAfter = await db.getAll('messages');
    expect(messagesAfter).toHaveLength(messagesBefore.length + 2);
    for (const before of messagesBefore) expect(messagesAfter.find((m) => m.id === before.id)).toStrictEqual(before);
    const conversationsAfter = await db.getAll('conversations');
    expect(conversationsAfter.find((c) => c.id === other.id)).toStrictEqual(conversationsBefore.find((c) => c.id === other.id));
    const before = conversationsBefore.find((c) => c.id === id)!;
    expect(conversationsAfter.find((c) => c.id === id)).toStrictEqual({
      ...before,
      messageCount: before.messageCount + 2,
      updatedAt: T0 + 8000,
      activeLeafId: regenerated.id,
    });
    expect(await shownBranch(repositories.conversations, id)).toEqual([question.id, regenerated.id]);
  });

  it('switches branch without counting as activity, telling the other tabs', async () => {
    const announce = vi.fn();
    const sync: SyncChannel = { announce, subscribe: () => () => undefined, echo: () => undefined, close: () => undefined };
    const { repositories } = await openTestStorage({ repositories: { now: steppingClock(), newId: idSequence('id'), sync } });
    const older = await repositories.conversations.createConversation({ title: 'Older' });
    const question = await repositories.conversations.appendMessage(userText(older.id, 'question'));
    const first = await repositories.conversations.appendMessage(answer(older.id, 'first'));
    await repositories.conversations.appendMessage(answer(older.id, 'second', { parentId: question.id }));
    const newer = await repositories.conversations.createConversation({ title: 'Newer' });
    const before = (await repositories.conversations.getConversation(older.id))!;
    announce.mockClear();

    const switched = await repositories.conversations.setActiveLeaf(older.id, first.id);
    expect(switched).toStrictEqual({ ...before, activeLeafId: first.id });
    expect(await repositories.conversations.getConversation(older.id)).toStrictEqual(switched);
    expect(announce.mock.calls).toEqual([[{ type: 'conversation-changed', conversationId: older.id }]]);
    expect((await repositories.conversations.listConversations()).map((c) => c.id)).toEqual([newer.id, older.id]);
    expect(await shownBranch(repositories.conversations, older.id)).toEqual([question.id, first.id]);

    await repositories.conversations.deleteConversation(newer.id);
    announce.mockClear();
    expect(await repositories.conversations.setActiveLeaf(newer.id, first.id)).toBeUndefined();
    expect(announce).not.toHaveBeenCalled();
  });

  it('keeps parents and the open branch as given when importing and when undoing a delete', async () => {
    const { repositories } = await openTestStorage();
    const conversation = { id: 'imported', title: 'Imported', createdAt: 1, updatedAt: 2, messageCount: 3, activeLeafId: 'r1' };
    const record = (id: string, seq: number, parentId?: string | null): StoredMessage => ({
      id,
      conversationId: 'imported',
      seq,
      role: seq === 0 ? 'user' : 'assistant',
      kind: 'message',
      content: [{ type: 'text', text: id }],
      createdAt: 1,
      status: 'complete',
      ...(parentId === undefined ? {} : { parentId }),
    });
    const messages = [record('q', 0, null), record('r1', 1, 'q'), record('r2', 2, 'q')];
    await repositories.transfer.importBatch({ format: 'windowpane', conversations: [{ conversation, messages }] });
    expect(await repositories.conversations.getConversation('imported')).toStrictEqual(conversation);
    expect(await repositories.conversations.getMessages('imported')).toStrictEqual(messages);
    expect(await shownBranch(repositories.conversations, 'imported')).toEqual(['q', 'r1']);

    const deleted = (await repositories.conversations.deleteConversation('imported'))!;
    await repositories.conversations.restoreConversation(deleted);
    expect(await repositories.conversations.getConversation('imported')).toStrictEqual(conversation);
    expect(await repositories.conversations.getMessages('imported')).toStrictEqual(messages);

    // Records from before branches have neither field, and are read as they were.
    const { activeLeafId: _activeLeafId, ...legacy } = { ...conversation, id: 'legacy' };
    const legacyMessages = [record('l0', 0), record('l1', 1)].map((m) => ({ ...m, conversationId: 'legacy' }));
    await repositories.transfer.importBatch({ format: 'windowpane', conversations: [{ conversation: legacy, messages: legacyMessages }] });
    expect(await repositories.conversations.getMessages('legacy')).toStrictEqual(legacyMessages);
    expect(await shownBranch(repositories.conversations, 'legacy')).toEqual(['l0', 'l1']);
  });
});

describe('stored parents and branches read back', () => {
  it('keeps valid ones, leaves out a message whose parent is not an id, and shows a conversation with a bad branch without it', async () => {
    const notices: UnreadableRecords[] = [];
    const { db, repositories } = await openTestStorage({ repositories: { onUnreadable: (found) => notices.push(found) } });
    const message = (id: string, seq: number, parentId: unknown) =>
      ({ id, conversationId: 'c', seq, role: 'user', kind: 'message', content: [], createdAt: 1, status: 'complete', parentId }) as StoredMessage;
    await db.put('conversations', { id: 'c', title: 'Stored', createdAt: 1, updatedAt: 2, messageCount: 3, activeLeafId: 'b' });
    await db.put('conversations', { id: 'd', title: 'Bad branch', createdAt: 1, updatedAt: 1, messageCount: 0, activeLeafId: 7 } as never);
    await db.put('messages', message('a', 0, null));
    await db.put('messages', message('b', 1, 'a'));
    await db.put('messages', message('bad', 2, 42));

    expect(await repositories.conversations.getConversation('c')).toMatchObject({ activeLeafId: 'b' });
    expect((await repositories.conversations.getMessages('c')).map((m) => [m.id, m.parentId])).toEqual([
      ['a', null],
      ['b', 'a'],
    ]);
    expect(await repositories.conversations.getConversation('d')).toStrictEqual({ id: 'd', title: 'Bad branch', createdAt: 1, updatedAt: 1, messageCount: 0 });
    expect(notices).toHaveLength(2);
    expect(notices).toEqual([
      { kind: 'messages', count: 1 },
      { kind: 'conversations', count: 1 },
    ]);
    expect(await db.get('messages', 'bad')).toMatchObject({ parentId: 42 });
  });
});

describe('thinking time and reasoning tokens read back', () => {
  it('keeps valid ones, and leaves out bad ones while keeping the message', async () => {
    const notices: UnreadableRecords[] = [];
    const { db, repositories } = await openTestStorage({ repositories: { onUnreadable: (found) => notices.push(found) } });
    const usage = { inputTokens: 10, outputTokens: 90, cacheReadTokens: 0, cacheWriteTokens: 0 };
    const answer = (id: string, seq: number, thinkingMs: unknown, reasoningTokens: unknown) =>
      ({
        id,
        conversationId: 'c',
        seq,
        role: 'assistant',
        kind: 'message',
        content: [
          { type: 'thinking', thinking: 'Plan.' },
          { type: 'text', text: id },
        ],
        createdAt: 1,
        status: 'complete',
        usage: { ...usage, reasoningTokens },
        thinkingMs,
      }) as StoredMessage;
    await db.put('conversations', { id: 'c', title: 'Thought', createdAt: 1, updatedAt: 2, messageCount: 3 });
    await db.put('messages', answer('good', 0, 4_000, 64));
    await db.put('messages', answer('negative', 1, -5, -1));
    await db.put('messages', answer('words', 2, '4 s', 'many'));

    const [good, negative, words] = await repositories.conversations.getMessages('c');
    expect(good).toMatchObject({ thinkingMs: 4_000, usage: { ...usage, reasoningTokens: 64 } });
    for (const read of [negative, words]) {
      expect(read).not.toHaveProperty('thinkingMs');
      expect(read!.usage).toEqual(usage);
      expect(read!.content).toHaveLength(2);
    }
    expect(notices).toEqual([]);
    expect(await db.get('messages', 'words')).toMatchObject({ thinkingMs: '4 s' });
  });
});

describe('the newest messages first', () => {
  it('reads the messages with the highest seq of every branch, in seq order, leaving out unreadable ones without a notice', async () => {
    const notices: UnreadableRecords[] = [];
    const { db, repositories } = await openTestStorage({ repositories: { onUnreadable: (found) => notices.push(found) } });
    const message = (id: string, seq: number, parentId: unknown, conversationId = 'c') =>
      ({ id, conversationId, seq, role: 'user', kind: 'message', content: [], createdAt: 1, status: 'complete', parentId }) as StoredMessage;
    await db.put('conversations', { id: 'c', title: 'Long', createdAt: 1, updatedAt: 2, messageCount: 7 });
    // seq 3 was deleted; 5 is a second version of 4; 6 cannot be read.
    for (const [id, seq, parent] of [
      ['m0', 0, null],
      ['m1', 1, 'm0'],
      ['m2', 2, 'm1'],
      ['m4', 4, 'm2'],
      ['m5', 5, 'm2'],
      ['bad', 6, 42],
      ['m7', 7, 'm5'],
    ] as const)
      await db.put('messages', message(id, seq, parent));
    await db.put('messages', message('other', 9, null, 'd'));

    expect((await repositories.conversations.getNewestMessages('c', 4)).map((m) => m.id)).toEqual(['m4', 'm5', 'm7']);
    expect((await repositories.conversations.getNewestMessages('c', 100)).map((m) => m.id)).toEqual(['m0', 'm1', 'm2', 'm4', 'm5', 'm7']);
    expect(await repositories.conversations.getNewestMessages('c', 0)).toEqual([]);
    expect(await repositories.conversations.getNewestMessages('missing', 5)).toEqual([]);
    expect(notices).toEqual([]);
    expect((await repositories.conversations.getMessages('c')).map((m) => m.id)).toEqual(['m0', 'm1', 'm2', 'm4', 'm5', 'm7']);
    expect(notices).toHaveLength(1);
    expect(notices).toEqual([{ kind: 'messages', count: 1 }]);
  });
});

describe('two tabs appending to one conversation', () => {
  it('never lose or collide each other’s messages', async () => {
    const factory = new IDBFactory();
    const [dbA, dbB] = await Promise.all([openWindowpaneDb({ factory }), openWindowpaneDb({ factory })]);
    const tabA = createRepositories(dbA, { newId: idSequence('a') }).conversations;
    const tabB = createRepositories(dbB, { newId: idSequence('b') }).conversations;
    const { id } = await tabA.createConversation();

    await Promise.all(Array.from({ length: 40 }, (_, i) => (i % 2 === 0 ? tabA : tabB).appendMessage(userText(id, `${i % 2 === 0 ? 'A' : 'B'} ${i}`))));

    const messages = await tabB.getMessages(id);
    expect(messages).toHaveLength(40);
    expect(messages.map((m) => m.seq)).toEqual(Array.from({ length: 40 }, (_, i) => i));
    expect(new Set(messages.map((m) => m.id)).size).toBe(40);
    expect(messages.filter((m) => m.id.startsWith('a-'))).toHaveLength(20);
    expect(await tabA.getConversation(id)).toMatchObject({ messageCount: 40 });
    dbA.close();
    dbB.close();
  });

  it('each on its own branch keep both branches, every message with its own parent and seq', async () => {
    const factory = new IDBFactory();
    const [dbA, dbB] = await Promise.all([openWindowpaneDb({ factory }), openWindowpaneDb({ factory })]);
    const tabA = createRepositories(dbA, { newId: idSequence('a') }).conversations;
    const tabB = createRepositories(dbB, { newId: idSequence('b') }).conversations;
    const { id } = await tabA.createConversation();
    const question = await tabA.appendMessage(userText(id, 'question'));
    const answerA = await tabA.appendMessage(userText(id, 'answer A', { role: 'assistant', parentId: question.id }));
    const answerB = await tabB.appendMessage(userText(id, 'answer B', { role: 'assistant', parentId: question.id }));

    /** Five turns in a row on one tab, each after the one before. */
    const continueOn = async (tab: ConversationRepository, from: StoredMessage) => {
      const written: StoredMessage[] = [];
      for (let i = 0, parent = from; i < 5; i++) {
        parent = await tab.appendMessage(userText(id, `${parent.id} then ${i}`, { parentId: parent.id }));
        written.push(parent);
      }
      return written;
    };
    const [onA, onB] = await Promise.all([continueOn(tabA, answerA), continueOn(tabB, answerB)]);

    const messages = await tabB.getMessages(id);
    expect(messages).toHaveLength(13);
    expect(messages.map((m) => m.seq)).toEqual(Array.from({ length: 13 }, (_, i) => i));
    for (const [branch, start] of [
      [onA, answerA],
      [onB, answerB],
    ] as const) {
      expect(branch.map((m) => m.parentId)).toEqual([start.id, ...branch.slice(0, -1).map((m) => m.id)]);
      for (const m of branch) expect(messages.find((stored) => stored.id === m.id)).toStrictEqual(m);
      const tree = buildTree(messages);
      expect(branchMessages(tree, branch.at(-1)!.id).map((m) => m.id)).toEqual([question.id, start.id, ...branch.map((m) => m.id)]);
    }
    expect(await tabA.getConversation(id)).toMatchObject({ messageCount: 13 });
    expect([onA.at(-1)!.id, onB.at(-1)!.id]).toContain((await tabA.getConversation(id))!.activeLeafId);
    dbA.close();
    dbB.close();
  });
});

describe('storage full', () => {
  /** Makes every write to `storeName` fail the way a full disk does. */
  function failWritesTo(storeName: string) {
    for (const method of ['add', 'put'] as const) {
      const original = FakeIDBObjectStore.prototype[method] as (...a: unknown[]) => unknown;
      vi.spyOn(FakeIDBObjectStore.prototype, method).mockImplementation(function (this: IDBObjectStore, ...args: unknown[]) {
        if (this.name === storeName) throw new DOMException('The quota has been exceeded.', 'QuotaExceededError');
        return original.apply(this, args) as never;
      });
    }
  }

  it('throws quota_exceeded from an append without a partial write, and the caller keeps its message', async () => {
    const { repositories } = await openTestStorage();
    const { id } = await repositories.conversations.createConversation();
    const before = await repositories.conversations.appendMessage(userText(id, 'saved earlier'));
    const draft = userText(id, 'typed while the disk is full');
    const draftCopy = structuredClone(draft);

    // The message write succeeds, the metadata write fails: the message must be rolled back too.
    failWritesTo('conversations');
    const error = await repositories.conversations.appendMessage(draft).catch((e: unknown) => e);
    vi.restoreAllMocks();

    expect(isWindowpaneError(error, 'quota_exceeded')).toBe(true);
    expect((error as WindowpaneError).message).toMatch(/Browser storage is full.*What is on screen is kept and nothing saved earlier was lost/);
    expect(draft).toEqual(draftCopy);
    expect(await repositories.conversations.getMessages(id)).toEqual([before]);
    expect(await repositories.conversations.getConversation(id)).toMatchObject({ messageCount: 1 });

    // Space freed: the same draft saves normally.
    expect(await repositories.conversations.appendMessage(draft)).toMatchObject({ seq: 1 });
  });

  it('keeps the stored message when a streaming update cannot be written', async () => {
    const { repositories } = await openTestStorage();
    const { id } = await repositories.conversations.createConversation();
    const message = await repositories.conversations.appendMessage({
      conversationId: id,
      role: 'assistant',
      status: 'streaming',
      content: [{ type: 'text', text: 'Part' }],
    });
    failWritesTo('messages');
    const error = await repositories.conversations.updateMessage(message.id, { content: [{ type: 'text', text: 'Partial answer' }] }).catch((e: unknown) => e);
    vi.restoreAllMocks();
    expect(isWindowpaneError(error, 'quota_exceeded')).toBe(true);
    expect(await repositories.conversations.getMessage(message.id)).toEqual(message);
  });

  it('maps other storage failures to a storage error naming the cause', async () => {
    const { repositories } = await openTestStorage();
    vi.spyOn(FakeIDBObjectStore.prototype, 'put').mockImplementation(() => {
      throw new DOMException('Disk I/O failed', 'UnknownError');
    });
    const error = await repositories.settings.setSetting('settings', {}).catch((e: unknown) => e);
    expect(isWindowpaneError(error, 'storage')).toBe(true);
    expect((error as WindowpaneError).message).toBe(
      "Windowpane couldn't save settings in browser storage (UnknownError: Disk I/O failed). What is on screen is kept; try again, or reload the page.",
    );
  });
});

describe('default ids', () => {
  const UUID_V4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

  it('are random v4 UUIDs, also where crypto.randomUUID is missing (plain http on a local network)', async () => {
    const db = await openWindowpaneDb({ factory: new IDBFactory() });
    const repositories = createRepositories(db);
    const secure = await repositories.conversations.createConversation();
    const real = globalThis.crypto;
    vi.stubGlobal('crypto', { getRandomValues: <T extends ArrayBufferView>(array: T) => real.getRandomValues(array as never) as T });
    const insecure = [await repositories.conversations.createConversation(), await repositories.conversations.createConversation()];
    vi.unstubAllGlobals();
    for (const { id } of [secure, ...insecure]) expect(id).toMatch(UUID_V4);
    expect(insecure[0]!.id).not.toBe(insecure[1]!.id);
    db.close();
  });
});

describe('messages seq after import', () => {
  it('continues after the highest stored seq, whatever the gaps', async () => {
    const { repositories } = await openTestStorage({ repositories: { now: steppingClock(), newId: idSequence('n') } });
    const { id } = await repositories.conversations.createConversation();
    const imported: StoredMessage = { id: 'imp', conversationId: id, seq: 41, role: 'user', kind: 'message', content: [], createdAt: 1, status: 'complete' };
    await repositories.conversations.restoreConversation({
      conversation: (await repositories.conversations.getConversation(id))!,
      messages: [imported],
      attachments: [],
      files: [],
    });
    expect(await repositories.conversations.appendMessage(userText(id, 'next'))).toMatchObject({ seq: 42 });
  });
});
