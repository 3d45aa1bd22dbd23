import { IDBObjectStore as FakeIDBObjectStore } from 'fake-indexeddb';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { StoredMessage } from '../../src/core';
import { openTestStorage } from './helpers';

afterEach(() => vi.restoreAllMocks());

/** What a record takes by the report's measure: the UTF-8 bytes of its JSON. */
const bytesOf = (record: unknown) => new TextEncoder().encode(JSON.stringify(record)).byteLength;
const text = (value: string) => [{ type: 'text' as const, text: value }];

describe('measuring storage', () => {
  it('sizes each conversation as the UTF-8 length of its records’ JSON, largest first, with the total', async () => {
    const { repositories, db } = await openTestStorage();
    const small = await repositories.conversations.createConversation({ title: 'Small talk' });
    const large = await repositories.conversations.createConversation({ title: 'Long read' });
    const empty = await repositories.conversations.createConversation({ title: 'Nothing yet' });
    await repositories.conversations.appendMessage({ conversationId: small.id, role: 'user', content: text('hi') });
    await repositories.conversations.appendMessage({ conversationId: large.id, role: 'user', content: text('Größe und Maß: ünïcödé ✓ 😀'.repeat(20)) });
    await repositories.conversations.appendMessage({ conversationId: large.id, role: 'assistant', content: text('noted') });
    await repositories.files.addAttachment({ conversationId: small.id, name: 'notes.md', text: '# Notes — ½ done' });

    const report = await repositories.conversations.measureStorage();

    const messages: StoredMessage[] = await db.getAll('messages');
    const attachments = await repositories.files.listAttachments(small.id);
    const messageBytes = (id: string) => messages.filter((m) => m.conversationId === id).reduce((sum, m) => sum + bytesOf(m), 0);
    const conversationOf = async (id: string) => (await repositories.conversations.getConversation(id))!;
    expect(report.conversations).toEqual([
      {
        id: large.id,
        title: 'Long read',
        messages: 2,
        messageBytes: messageBytes(large.id),
        attachments: 0,
        attachmentBytes: 0,
        updatedAt: (await conversationOf(large.id)).updatedAt,
      },
      {
        id: small.id,
        title: 'Small talk',
        messages: 1,
        messageBytes: messageBytes(small.id),
        attachments: 1,
        attachmentBytes: bytesOf(attachments[0]),
        updatedAt: (await conversationOf(small.id)).updatedAt,
      },
      { id: empty.id, title: 'Nothing yet', messages: 0, messageBytes: 0, attachments: 0, attachmentBytes: 0, updatedAt: empty.updatedAt },
    ]);
    // Multi-byte text is counted in bytes, not characters.
    expect(report.conversations[0]!.messageBytes).toBeGreaterThan(
      messages.filter((m) => m.conversationId === large.id).reduce((n, m) => n + JSON.stringify(m).length, 0),
    );
    expect(report.totalBytes).toBe(messageBytes(large.id) + messageBytes(small.id) + bytesOf(attachments[0]));
  });

  it('reports nothing for an empty history', async () => {
    const { repositories } = await openTestStorage();
    expect(await repositories.conversations.measureStorage()).toEqual({ conversations: [], totalBytes: 0 });
  });

  it('reads a long history in batches, never every message at once', async () => {
    const { repositories, db } = await openTestStorage();
    const conversations = [
      await repositories.conversations.createConversation({ title: 'one' }),
      await repositories.conversations.createConversation({ title: 'two' }),
    ];
    // 1,203 messages written directly, as a long history leaves them.
    const tx = db.transaction('messages', 'readwrite');
    for (let seq = 0; seq < 1203; seq++) {
      const conversationId = conversations[seq % 2]!.id;
      void tx.store.put({
        id: `m-${String(seq).padStart(5, '0')}`,
        conversationId,
        seq,
        parentId: null,
        role: 'user',
        kind: 'message',
        content: text(`message ${seq}`),
        createdAt: seq,
        status: 'complete',
      });
    }
    await tx.done;
    const getAll = vi.spyOn(FakeIDBObjectStore.prototype, 'getAll');

    const report = await repositories.conversations.measureStorage();

    expect(report.conversations.map((c) => [c.title, c.messages])).toEqual([
      ['one', 602],
      ['two', 601],
    ]);
    const messageReads = getAll.mock.calls.filter((_, i) => (getAll.mock.instances[i] as unknown as IDBObjectStore).name === 'messages');
    expect(messageReads.length).toBe(3);
    for (const [, count] of messageReads) expect(count).toBe(500);
  });

  it('leaves out records of no stored conversation', async () => {
    const { repositories, db } = await openTestStorage();
    const kept = await repositories.conversations.createConversation({ title: 'kept' });
    await repositories.conversations.appendMessage({ conversationId: kept.id, role: 'user', content: text('hello') });
    await db.put('messages', {
      id: 'orphan',
      conversationId: 'gone',
      seq: 0,
      role: 'user',
      kind: 'message',
      content: text('lost'),
      createdAt: 0,
      status: 'complete',
    });
    await db.put('attachments', { id: 'orphan-file', conversationId: 'gone', name: 'a.txt', text: 'lost', createdAt: 0 });
    const report = await repositories.conversations.measureStorage();
    expect(report.conversations.map((c) => c.id)).toEqual([kept.id]);
    expect(report.totalBytes).toBe(report.conversations[0]!.messageBytes);
  });
});
