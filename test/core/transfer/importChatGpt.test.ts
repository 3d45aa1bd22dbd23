import { describe, expect, it } from 'vitest';
import { branchCount, branchMessages, buildTree, messageText, versionsOf, type ConversationRecords } from '../../../src/core';
import { readFixture } from './fixtures';
import { importEvery } from './importAll';

const fixture = readFixture('chatgpt-conversations.json');
const IMPORTED_AT = 1_767_225_600_000;

function parsed(text = fixture) {
  return importEvery(text, { importedAt: IMPORTED_AT });
}

const texts = (entry: ConversationRecords) => entry.messages.map((m) => `${m.role}: ${messageText(m)}`);
/** The ChatGPT node id a stored message came from. */
const node = (id: string) => id.split('/')[1];
/** The branch shown (ending at the conversation's active leaf), as ChatGPT node ids. */
const shown = (entry: ConversationRecords) => branchMessages(buildTree(entry.messages), entry.conversation.activeLeafId).map((m) => node(m.id));
const PREFIX = 'chatgpt:6780a1f8-0c2e-8005-9f6e-2a4b5c6d7e8f/';

describe('ChatGPT conversations.json import', () => {
  it('detects the format and imports one conversation per ChatGPT conversation, every branch inside it', () => {
    const batch = parsed();
    expect(batch.format).toBe('chatgpt');
    expect(batch.conversations.map((c) => c.conversation.title)).toEqual(['Sorting a list of dicts in Python', 'Untitled conversation']);
    expect(batch).not.toHaveProperty('branchIds');
    expect(branchCount(buildTree(batch.conversations[0]!.messages))).toBe(3);
    expect(branchCount(buildTree(batch.conversations[1]!.messages))).toBe(1);
  });

  it('keeps every visible node once, hidden system and recap nodes left out, parents numbered before children in the order written', () => {
    const [main] = parsed().conversations;
    expect(main!.messages.map((m) => [node(m.id), m.seq, m.parentId === null ? null : node(m.parentId!)])).toEqual([
      ['u-1', 0, null],
      ['a-1', 1, 'u-1'],
      ['u-2a', 2, 'a-1'],
      ['a-2a', 3, 'u-2a'],
      ['u-2b', 4, 'a-1'],
      ['a-code', 5, 'u-2b'],
      ['tool-out', 6, 'a-code'],
      ['a-3a', 7, 'tool-out'],
      // The hidden recap between them is skipped: the answer follows the thoughts.
      ['a-3b-thoughts', 8, 'tool-out'],
      ['a-3b', 9, 'a-3b-thoughts'],
    ]);
    expect(main!.conversation).toEqual({
      id: 'chatgpt:6780a1f8-0c2e-8005-9f6e-2a4b5c6d7e8f',
      title: 'Sorting a list of dicts in Python',
      createdAt: 1_736_209_400_123,
      updatedAt: 1_736_209_810_500,
      messageCount: 10,
      activeLeafId: `${PREFIX}a-3b`,
      source: { kind: 'chatgpt', id: '6780a1f8-0c2e-8005-9f6e-2a4b5c6d7e8f' },
    });
  });

  it('shows the branch ending at current_node, and the edited prompt and regenerated answer as versions to switch to', () => {
    const [main] = parsed().conversations;
    expect(shown(main!)).toEqual(['u-1', 'a-1', 'u-2b', 'a-code', 'tool-out', 'a-3b-thoughts', 'a-3b']);
    const tree = buildTree(main!.messages);
    // The edited prompt: the second version of the user's follow-up; the first leads to its own answer.
    const prompt = versionsOf(tree, `${PREFIX}u-2b`)!;
    expect([prompt.index, prompt.count, prompt.siblings.map((m) => node(m.id))]).toEqual([1, 2, ['u-2a', 'u-2b']]);
    expect(texts({ ...main!, messages: branchMessages(tree, `${PREFIX}a-2a`) })).toEqual([
      'user: How do I sort a list of dicts by a key in Python?',
      'assistant: Use `sorted(people, key=lambda p: p["age"])`; it returns a new list.',
      'user: And in reverse order?',
      'assistant: Pass `reverse=True` as well.',
    ]);
    // The regenerated answer after the tool output.
    const answer = versionsOf(tree, `${PREFIX}a-3b-thoughts`)!;
    expect([answer.index, answer.count, answer.siblings.map((m) => node(m.id))]).toEqual([1, 2, ['a-3a', 'a-3b-thoughts']]);
    expect(branchMessages(tree, `${PREFIX}a-3a`).map((m) => node(m.id))).toEqual(['u-1', 'a-1', 'u-2b', 'a-code', 'tool-out', 'a-3a']);
  });

  it('turns a code-interpreter call and its output into a tool exchange, thoughts into thinking, and keeps models and times', () => {
    const [main] = parsed().conversations;
    const byNode = new Map(main!.messages.map((m) => [node(m.id), m]));
    const call = byNode.get('a-code')!;
    expect(call).toMatchObject({ role: 'assistant', provider: 'openai' });
    expect(call.content).toEqual([
      {
        type: 'tool_use',
        id: expect.stringMatching(/^imported_[0-9a-f]{16}$/),
        name: 'python',
        input: { code: 'people = [{"name": "Ada", "age": 36}, {"name": "Bo", "age": 25}]\nprint(sorted(people, key=lambda p: p["age"]))' },
      },
    ]);
    const id = (call.content[0] as { id: string }).id;
    expect(byNode.get('tool-out')).toMatchObject({
      role: 'user',
      content: [{ type: 'tool_result', tool_use_id: id, content: "[{'name': 'Bo', 'age': 25}, {'name': 'Ada', 'age': 36}]" }],
    });
    expect(byNode.get('tool-out')!.provider).toBeUndefined();
    expect(byNode.get('a-3b-thoughts')!.content).toEqual([
      { type: 'thinking', thinking: 'Reading the output\n\nThe list is ordered by age ascending, so Bo is first.' },
    ]);
    expect(byNode.get('a-3b')).toMatchObject({ model: 'o3', provider: 'openai', status: 'complete', createdAt: 1_736_209_810_000 });
    expect(byNode.get('u-1')).toMatchObject({ role: 'user', kind: 'message', createdAt: 1_736_209_400_500 });
    expect(byNode.get('u-1')!.provider).toBeUndefined();
  });

  it('reads conversation_id when id is absent, shows the newest branch without current_node, and notes images', () => {
    const untitled = parsed().conversations[1]!;
    expect(untitled.conversation.id).toBe('chatgpt:6781b2c3-1111-8005-aaaa-0123456789ab');
    expect(untitled.conversation.activeLeafId).toBeUndefined();
    expect(texts(untitled)).toEqual(['user: [Image — not included in the export file]\n\nWhat bird is this?', 'assistant: It looks like a European robin.']);
  });

  it('gives the same ids for the same file, so a second import is recognised', () => {
    const ids = (batch: ReturnType<typeof parsed>) =>
      batch.conversations.map((c) => [c.conversation.id, c.conversation.activeLeafId, ...c.messages.map((m) => `${m.id}<${m.parentId}`)]);
    expect(ids(parsed())).toEqual(ids(parsed()));
  });

  it('accepts the export wrapped in an object with a conversations list', () => {
    const wrapped = parsed(JSON.stringify({ conversations: JSON.parse(fixture) }));
    expect(wrapped.conversations).toHaveLength(2);
  });

  it('adds no branch for children that show nothing: hidden or empty nodes', () => {
    const conversation = JSON.parse(fixture)[1];
    const hidden = (id: string) => ({
      id,
      parent: 'p-1',
      children: [],
      message: { id, author: { role: 'system' }, content: { content_type: 'text', parts: ['internal'] }, metadata: {} },
    });
    // A hidden sibling of p-2 ...
    conversation.mapping['p-1'].children.push('hidden');
    conversation.mapping.hidden = hidden('hidden');
    // ... and two empty children of p-2, the current node being one of them.
    conversation.mapping['p-2'].children.push('empty-1', 'empty-2');
    conversation.mapping['empty-1'] = { id: 'empty-1', parent: 'p-2', children: [], message: null };
    conversation.mapping['empty-2'] = { id: 'empty-2', parent: 'p-2', children: [], message: null };
    conversation.current_node = 'empty-2';
    const [entry] = parsed(JSON.stringify([conversation])).conversations;
    expect(entry!.messages.map((m) => node(m.id))).toEqual(['p-1', 'p-2']);
    expect(branchCount(buildTree(entry!.messages))).toBe(1);
    expect(entry!.conversation.activeLeafId).toBe('chatgpt:6781b2c3-1111-8005-aaaa-0123456789ab/p-2');
  });

  /** A ChatGPT conversation of user and assistant text nodes: id → [parent, create_time]. */
  function conversationOf(nodes: Record<string, [parent: string | null, time: number | null]>, current?: string) {
    const mapping: Record<string, unknown> = {};
    for (const [id, [parent, time]] of Object.entries(nodes)) {
      mapping[id] = {
        id,
        parent,
        children: Object.entries(nodes)
          .filter(([, [p]]) => p === id)
          .map(([child]) => child),
        message: {
          id,
          author: { role: id.startsWith('u') ? 'user' : id.startsWith('a') ? 'assistant' : 'system' },
          content: { content_type: 'text', parts: [id] },
          create_time: time,
        },
      };
    }
    return JSON.stringify([{ id: 'tree', title: 'Tree', create_time: 1_700_000_000, mapping, current_node: current ?? null }]);
  }

  it('numbers messages in the order they were written, so the newest branch is the one continued last', () => {
    // a1 was answered twice (a1, a1b); the user then went back to a1 and continued there.
    const [entry] = parsed(conversationOf({ s: [null, null], u1: ['s', 1], a1: ['u1', 2], a1b: ['u1', 3], u2: ['a1', 4], a2: ['u2', 5] })).conversations;
    expect(entry!.messages.map((m) => node(m.id))).toEqual(['u1', 'a1', 'a1b', 'u2', 'a2']);
    expect(entry!.conversation.activeLeafId).toBeUndefined();
    expect(branchMessages(buildTree(entry!.messages), undefined).map((m) => node(m.id))).toEqual(['u1', 'a1', 'u2', 'a2']);
  });

  it('ends the branch shown at a leaf when current_node is inside the tree, and keeps edited first prompts as versions', () => {
    // The hidden system root has two first prompts (the first one was edited).
    const text = conversationOf({ s: [null, null], u1: ['s', 1], a1: ['u1', 2], u1b: ['s', 3], a1b: ['u1b', 4], u2: ['a1b', 5], a2: ['u2', 6] }, 'u1b');
    const [entry] = parsed(text).conversations;
    expect(entry!.conversation.activeLeafId).toBe('chatgpt:tree/a2');
    const tree = buildTree(entry!.messages);
    expect(versionsOf(tree, 'chatgpt:tree/u1b')).toMatchObject({ index: 1, count: 2 });
    expect(entry!.messages.filter((m) => m.parentId === null).map((m) => node(m.id))).toEqual(['u1', 'u1b']);
  });
});
