import { describe, expect, it, vi } from 'vitest';
import { branchMessages, buildTree } from '../../src/core';
import type { SearchHit } from '../../src/persistence/searchRepository';
import { openTestStorage, userText } from './helpers';

describe('search', () => {
  it('finds conversations by title or message text, case-insensitively, with a snippet', async () => {
    const { repositories } = await openTestStorage();
    const trip = await repositories.conversations.createConversation({ title: 'Trip to Lisbon' });
    const code = await repositories.conversations.createConversation({ title: 'Refactoring' });
    const other = await repositories.conversations.createConversation({ title: 'Groceries' });
    const question = await repositories.conversations.appendMessage(userText(code.id, 'Why does the LISBON timezone break my parser?\nIt says WET.'));
    await repositories.conversations.appendMessage(userText(other.id, 'milk, eggs'));
    await repositories.conversations.appendMessage({
      conversationId: other.id,
      role: 'assistant',
      content: [{ type: 'tool_use', id: 't', name: 'lisbon_lookup', input: {} }],
    });

    const hits = (await repositories.search.searchConversations('lisbon')).hits;
    expect(hits).toEqual([
      {
        conversationId: code.id,
        title: 'Refactoring',
        matchedIn: 'message',
        messageId: 'id-4',
        snippet: 'Why does the LISBON timezone break my parser? It says WET.',
        matchStart: 13,
        matchLength: 6,
        createdAt: question.createdAt,
      },
      {
        conversationId: trip.id,
        title: 'Trip to Lisbon',
        matchedIn: 'title',
        snippet: 'Trip to Lisbon',
        matchStart: 8,
        matchLength: 6,
        createdAt: trip.createdAt,
      },
    ]);
    expect((await repositories.search.searchConversations('   ')).hits).toEqual([]);
    expect((await repositories.search.searchConversations('nowhere to be found')).hits).toEqual([]);
  });

  it('finds text on a branch that is not open, naming the message so its branch can be opened', async () => {
    const { repositories } = await openTestStorage();
    const { id } = await repositories.conversations.createConversation({ title: 'Branches' });
    const question = await repositories.conversations.appendMessage(userText(id, 'Which city?'));
    const hidden = await repositories.conversations.appendMessage(userText(id, 'Porto, for the azulejos.', { role: 'assistant' }));
    const shown = await repositories.conversations.appendMessage(userText(id, 'Lisbon.', { role: 'assistant', parentId: question.id }));
    await repositories.conversations.setActiveLeaf(id, shown.id);

    const hits = (await repositories.search.searchConversations('AZULEJOS')).hits;
    expect(hits).toEqual([
      {
        conversationId: id,
        title: 'Branches',
        matchedIn: 'message',
        messageId: hidden.id,
        snippet: 'Porto, for the azulejos.',
        matchStart: 15,
        matchLength: 8,
        createdAt: hidden.createdAt,
      },
    ]);
    const tree = buildTree(await repositories.conversations.getMessages(id));
    expect(branchMessages(tree, (await repositories.conversations.getConversation(id))!.activeLeafId).map((m) => m.id)).not.toContain(hidden.id);
    expect(branchMessages(tree, hits[0]!.messageId).map((m) => m.id)).toEqual([question.id, hidden.id]);
  });

  it('cuts a long message to a snippet around the match and searches past the first batch', async () => {
    const { repositories } = await openTestStorage();
    const { id } = await repositories.conversations.createConversation({ title: 'Long' });
    const filler = await repositories.conversations.createConversation({ title: 'Filler' });
    for (let i = 0; i < 600; i++) await repositories.conversations.appendMessage(userText(filler.id, `filler ${i}`));
    await repositories.conversations.appendMessage(userText(id, `${'a'.repeat(300)} needle ${'b'.repeat(300)}`));
    // The first search builds the index; over 500 messages it answers from what is indexed so far, so ask until the build is done.
    let hit: SearchHit | undefined;
    await vi.waitFor(async () => {
      [hit] = (await repositories.search.searchConversations('NEEDLE')).hits;
      expect(hit?.conversationId).toBe(id);
    });
    expect(hit!.snippet).toBe(`…${'a'.repeat(39)} needle ${'b'.repeat(113)}…`);
  });
});
