import { describe, expect, it } from 'vitest';
import { messageText, parseImport, type ConversationRecords } from '../../../src/core';
import { readFixture } from './fixtures';

const fixture = readFixture('chatgpt-conversations.json');
const IMPORTED_AT = 1_767_225_600_000;

function parsed(text = fixture) {
  const result = parseImport(text, { importedAt: IMPORTED_AT });
  if (!result.ok) throw new Error(result.error.message);
  return result.value;
}

const texts = (entry: ConversationRecords) => entry.messages.map((m) => `${m.role}: ${messageText(m)}`);

describe('ChatGPT conversations.json import', () => {
  it('detects the format and keeps every branch: the current path plus one conversation per other leaf', () => {
    const batch = parsed();
    expect(batch.format).toBe('chatgpt');
    expect(batch.conversations.map((c) => c.conversation.title)).toEqual([
      'Sorting a list of dicts in Python',
      'Sorting a list of dicts in Python (branch 2)',
      'Sorting a list of dicts in Python (branch 3)',
      'Untitled conversation',
    ]);
    expect(batch.branchIds).toEqual([batch.conversations[1]!.conversation.id, batch.conversations[2]!.conversation.id]);
  });

  it('follows current_node for the main conversation, leaving hidden system and recap nodes out', () => {
    const [main] = parsed().conversations;
    expect(main!.messages.map((m) => m.id.split('/')[1])).toEqual(['u-1', 'a-1', 'u-2b', 'a-code', 'tool-out', 'a-3b-thoughts', 'a-3b']);
    expect(main!.messages.map((m) => m.seq)).toEqual([0, 1, 2, 3, 4, 5, 6]);
    expect(main!.conversation).toEqual({
      id: 'chatgpt:6780a1f8-0c2e-8005-9f6e-2a4b5c6d7e8f',
      title: 'Sorting a list of dicts in Python',
      createdAt: 1_736_209_400_123,
      updatedAt: 1_736_209_810_500,
      messageCount: 7,
      source: { kind: 'chatgpt', id: '6780a1f8-0c2e-8005-9f6e-2a4b5c6d7e8f' },
    });
  });

  it('makes each other branch a self-contained conversation including the shared start', () => {
    const [, edited, regenerated] = parsed().conversations;
    expect(texts(edited!)).toEqual([
      'user: How do I sort a list of dicts by a key in Python?',
      'assistant: Use `sorted(people, key=lambda p: p["age"])`; it returns a new list.',
      'user: And in reverse order?',
      'assistant: Pass `reverse=True` as well.',
    ]);
    expect(regenerated!.messages.map((m) => m.id.split('/')[1])).toEqual(['u-1', 'a-1', 'u-2b', 'a-code', 'tool-out', 'a-3a']);
    expect(regenerated!.conversation.source).toEqual({ kind: 'chatgpt', id: '6780a1f8-0c2e-8005-9f6e-2a4b5c6d7e8f#a-3a' });
    expect(regenerated!.conversation.updatedAt).toBe(1_736_209_608_000);
    // Message ids are unique across branches even though the shared nodes repeat.
    const ids = parsed().conversations.flatMap((c) => c.messages.map((m) => m.id));
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('keeps every visible node of the tree somewhere', () => {
    const all = new Set(parsed().conversations.flatMap((c) => c.messages.map((m) => m.id.split('/')[1])));
    for (const node of ['u-1', 'a-1', 'u-2a', 'a-2a', 'u-2b', 'a-code', 'tool-out', 'a-3a', 'a-3b-thoughts', 'a-3b', 'p-1', 'p-2']) {
      expect(all).toContain(node);
    }
  });

  it('turns code-interpreter calls and output into labelled text, thoughts into thinking, and keeps models and times', () => {
    const [main] = parsed().conversations;
    const byNode = new Map(main!.messages.map((m) => [m.id.split('/')[1], m]));
    expect(byNode.get('a-code')!.content).toEqual([
      {
        type: 'text',
        text: '**Tool call** to `python`:\n\n```python\npeople = [{"name": "Ada", "age": 36}, {"name": "Bo", "age": 25}]\nprint(sorted(people, key=lambda p: p["age"]))\n```',
      },
    ]);
    expect(byNode.get('tool-out')).toMatchObject({
      role: 'assistant',
      content: [{ type: 'text', text: "**Tool output** (`python`):\n\n```\n[{'name': 'Bo', 'age': 25}, {'name': 'Ada', 'age': 36}]\n```" }],
    });
    expect(byNode.get('a-3b-thoughts')!.content).toEqual([
      { type: 'thinking', thinking: 'Reading the output\n\nThe list is ordered by age ascending, so Bo is first.' },
    ]);
    expect(byNode.get('a-3b')).toMatchObject({ model: 'o3', provider: 'openai', status: 'complete', createdAt: 1_736_209_810_000 });
    expect(byNode.get('u-1')).toMatchObject({ role: 'user', kind: 'message', createdAt: 1_736_209_400_500 });
    expect(byNode.get('u-1')!.provider).toBeUndefined();
  });

  it('reads conversation_id when id is absent, falls back to the last child without current_node, and notes images', () => {
    const untitled = parsed().conversations[3]!;
    expect(untitled.conversation.id).toBe('chatgpt:6781b2c3-1111-8005-aaaa-0123456789ab');
    expect(texts(untitled)).toEqual(['user: [Image — not included in the export file]\n\nWhat bird is this?', 'assistant: It looks like a European robin.']);
  });

  it('gives the same ids for the same file, so a second import is recognised', () => {
    expect(parsed().conversations.map((c) => c.conversation.id)).toEqual(parsed().conversations.map((c) => c.conversation.id));
  });

  it('accepts the export wrapped in an object with a conversations list', () => {
    const wrapped = parsed(JSON.stringify({ conversations: JSON.parse(fixture) }));
    expect(wrapped.conversations).toHaveLength(4);
  });

  it('skips branches that show nothing new: only hidden nodes differ, or a prefix of another path', () => {
    const conversation = JSON.parse(fixture)[1];
    const hidden = (id: string) => ({
      id,
      parent: 'p-1',
      children: [],
      message: { id, author: { role: 'system' }, content: { content_type: 'text', parts: ['internal'] }, metadata: {} },
    });
    // A hidden sibling of p-2 (its path shows only p-1, a prefix of the current path) ...
    conversation.mapping['p-1'].children.push('hidden');
    conversation.mapping.hidden = hidden('hidden');
    // ... and two empty children of p-2 (both paths show exactly p-1, p-2).
    conversation.mapping['p-2'].children.push('empty-1', 'empty-2');
    conversation.mapping['empty-1'] = { id: 'empty-1', parent: 'p-2', children: [], message: null };
    conversation.mapping['empty-2'] = { id: 'empty-2', parent: 'p-2', children: [], message: null };
    conversation.current_node = 'empty-2';
    const batch = parsed(JSON.stringify([conversation]));
    expect(batch.conversations.map((c) => c.messages.length)).toEqual([2]);
    expect(batch.branchIds).toEqual([]);
  });
});
