import { describe, expect, it } from 'vitest';
import type { ContentBlock } from '../../src/core';
import type { ConversationRepository } from '../../src/persistence/conversationRepository';
import { openWindowpaneStorage } from '../../src/persistence/storage';
import { createStreamWriter, restoreRescuedStreams, type RescueStore } from '../../src/persistence/streamWriter';
import { openTestStorage } from './helpers';

/** The part of localStorage the rescue copy uses, over a Map. */
function memoryStore(): RescueStore & { entries: Map<string, string> } {
  const entries = new Map<string, string>();
  return {
    entries,
    get length() {
      return entries.size;
    },
    key: (index) => [...entries.keys()][index] ?? null,
    getItem: (key) => entries.get(key) ?? null,
    setItem: (key, value) => void entries.set(key, String(value)),
    removeItem: (key) => void entries.delete(key),
  };
}

const text = (t: string): ContentBlock[] => [{ type: 'text', text: t }];

async function streamingAnswer(conversations: ConversationRepository, id = 'answer') {
  const conversation = await conversations.createConversation();
  await conversations.appendMessage({ conversationId: conversation.id, role: 'user', content: text('Tell me a story.') });
  return conversations.appendMessage({ conversationId: conversation.id, id, role: 'assistant', status: 'streaming', content: [] });
}

describe('stream rescue copy', () => {
  it('keeps what a page flushed as it unloaded even when the IndexedDB write never lands', async () => {
    const { factory, db, repositories } = await openTestStorage();
    await streamingAnswer(repositories.conversations);
    const rescue = memoryStore();
    const writer = createStreamWriter(repositories.conversations, 'answer', { intervalMs: 60_000, locks: null, rescue });
    writer.update({ content: text('Once upon a time, in a') });
    const flushed = writer.flush();
    db.close(); // the page is gone before its write runs
    await expect(flushed).rejects.toMatchObject({ code: 'storage' });
    expect(rescue.length).toBe(1);

    const next = await openWindowpaneStorage({ factory, locks: null, rescue });
    expect(next.interrupted).toEqual([expect.objectContaining({ id: 'answer', status: 'interrupted', content: text('Once upon a time, in a') })]);
    expect(await next.repositories.conversations.getMessage('answer')).toMatchObject({ status: 'interrupted', content: text('Once upon a time, in a') });
    expect(rescue.length).toBe(0);
    next.close();
  });

  it('drops the copy once the answer is finished, and never overwrites a finished answer with a leftover copy', async () => {
    const { repositories } = await openTestStorage();
    await streamingAnswer(repositories.conversations);
    const rescue = memoryStore();
    const writer = createStreamWriter(repositories.conversations, 'answer', { intervalMs: 60_000, locks: null, rescue });
    writer.update({ content: text('Half') });
    await writer.flush();
    expect(rescue.length).toBe(1);
    const leftover = [...rescue.entries][0]!;
    await writer.finish({ content: text('Half and the rest.'), status: 'complete' });
    expect(rescue.length).toBe(0);

    rescue.setItem(leftover[0], leftover[1]);
    await restoreRescuedStreams(repositories.conversations, () => false, rescue);
    expect(await repositories.conversations.getMessage('answer')).toMatchObject({ status: 'complete', content: text('Half and the rest.') });
    expect(rescue.length).toBe(0);
  });

  it('leaves the copy of a stream another tab is still writing', async () => {
    const { repositories } = await openTestStorage();
    await streamingAnswer(repositories.conversations);
    const rescue = memoryStore();
    const writer = createStreamWriter(repositories.conversations, 'answer', { intervalMs: 60_000, locks: null, rescue });
    writer.update({ content: text('Still going') });
    await writer.flush();
    await repositories.conversations.updateMessage('answer', { content: text('Still going, further') });

    await restoreRescuedStreams(repositories.conversations, (id) => id === 'answer', rescue);
    expect(await repositories.conversations.getMessage('answer')).toMatchObject({ status: 'streaming', content: text('Still going, further') });
    expect(rescue.length).toBe(1);
  });
});
