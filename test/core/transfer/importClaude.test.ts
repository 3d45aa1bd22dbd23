import { describe, expect, it } from 'vitest';
import { branchCount, branchMessages, buildTree, messageText, versionsOf, type ConversationRecords } from '../../../src/core';
import { readFixture } from './fixtures';
import { importEvery } from './importAll';

const fixture = readFixture('claude-conversations.json');
const IMPORTED_AT = 1_767_225_600_000;

function parsed(text = fixture) {
  return importEvery(text, { importedAt: IMPORTED_AT });
}

const texts = (entry: ConversationRecords) => entry.messages.map((m) => `${m.role}: ${messageText(m)}`);

describe('Claude conversations.json import', () => {
  it('detects the format and imports one conversation per Claude conversation, branches inside it', () => {
    const batch = parsed();
    expect(batch.format).toBe('claude');
    expect(batch.conversations.map((c) => c.conversation.title)).toEqual(['Reviewing a CSV import script', 'Untitled conversation']);
    expect(batch).not.toHaveProperty('branchIds');
    expect(batch.conversations.map((c) => branchCount(buildTree(c.messages)))).toEqual([1, 2]);
  });

  it('reads a linear conversation in order with ISO times, human → user, and stable ids', () => {
    const [review] = parsed().conversations;
    expect(review!.conversation).toEqual({
      id: 'claude:0b6c1a2e-5d4f-4c3b-9a8e-7f6d5c4b3a21',
      title: 'Reviewing a CSV import script',
      createdAt: Date.parse('2025-03-04T09:15:02.123Z'),
      updatedAt: Date.parse('2025-03-04T09:21:40.654Z'),
      messageCount: 6,
      source: { kind: 'claude', id: '0b6c1a2e-5d4f-4c3b-9a8e-7f6d5c4b3a21' },
    });
    const id = (uuid: string) => `claude:0b6c1a2e-5d4f-4c3b-9a8e-7f6d5c4b3a21/${uuid}`;
    // No parent_message_uuid in this export: one branch, each message following the one before.
    expect(review!.messages.map((m) => [m.id, m.seq, m.parentId, m.role, m.createdAt])).toEqual([
      [id('c1-m1'), 0, null, 'user', Date.parse('2025-03-04T09:15:02.200Z')],
      [id('c1-m2'), 1, id('c1-m1'), 'assistant', Date.parse('2025-03-04T09:15:20Z')],
      [id('c1-m3'), 2, id('c1-m2'), 'user', Date.parse('2025-03-04T09:20:00Z')],
      // The answer that searched the web: its call, the result, then its text, each a message.
      [id('c1-m4#0'), 3, id('c1-m3'), 'assistant', Date.parse('2025-03-04T09:21:40Z')],
      [id('c1-m4#1'), 4, id('c1-m4#0'), 'user', Date.parse('2025-03-04T09:21:40Z')],
      [id('c1-m4'), 5, id('c1-m4#1'), 'assistant', Date.parse('2025-03-04T09:21:40Z')],
    ]);
  });

  it('keeps attachment text with its message and names files the export does not hold', () => {
    const [review] = parsed().conversations;
    expect(review!.messages[0]!.content).toEqual([
      { type: 'text', text: 'Can you review this script?' },
      {
        type: 'text',
        text: "**Attachment:** `import_rows.py`\n\n```\nimport csv\n\nwith open('rows.csv') as f:\n    rows = list(csv.reader(f))\nprint(len(rows))\n\n```",
      },
      { type: 'text', text: '**File:** `diagram.png` (its contents are not in the export file)' },
    ]);
  });

  it('keeps thinking as thinking and turns claude.ai tool use into a tool exchange', () => {
    const [review] = parsed().conversations;
    expect(review!.messages[1]!.content).toEqual([
      { type: 'thinking', thinking: 'The script never closes over the header row; count includes it.' },
      { type: 'text', text: 'The count includes the header row. Use `next(reader)` to skip it first.' },
    ]);
    const [call, result, text] = review!.messages.slice(3);
    expect(call!.content).toEqual([
      { type: 'tool_use', id: expect.stringMatching(/^imported_[0-9a-f]{16}$/), name: 'web_search', input: { query: 'python csv DictReader performance' } },
    ]);
    expect(result!.content).toEqual([
      {
        type: 'tool_result',
        tool_use_id: (call!.content[0] as { id: string }).id,
        content:
          'csv — CSV File Reading and Writing — https://docs.python.org/3/library/csv.html\nThe DictReader class maps the information in each row to a dict.',
      },
    ]);
    expect(text!.content).toEqual([{ type: 'text', text: 'DictReader is slightly slower than reader, since it builds a dict per row.' }]);
    expect(call).toMatchObject({ role: 'assistant', provider: 'anthropic', status: 'complete' });
    expect(result!.role).toBe('user');
    expect(result!.provider).toBeUndefined();
  });

  it('follows parent_message_uuid into a tree, shows the branch ending at current_leaf_message_uuid, and keeps the retried answer as a version', () => {
    const [, primes] = parsed().conversations;
    const id = (uuid: string) => `claude:9f8e7d6c-5b4a-4321-8fed-cba987654321/${uuid}`;
    expect(primes!.messages.map((m) => [m.id, m.seq, m.parentId])).toEqual([
      [id('c2-h1'), 0, null],
      [id('c2-a1'), 1, id('c2-h1')],
      [id('c2-a1b'), 2, id('c2-h1')],
      [id('c2-h2'), 3, id('c2-a1b')],
      [id('c2-a2'), 4, id('c2-h2')],
    ]);
    expect(primes!.conversation).toMatchObject({ id: 'claude:9f8e7d6c-5b4a-4321-8fed-cba987654321', messageCount: 5, activeLeafId: id('c2-a2') });
    const tree = buildTree(primes!.messages);
    expect(texts({ ...primes!, messages: branchMessages(tree, primes!.conversation.activeLeafId) })).toEqual([
      'user: Name three prime numbers.',
      'assistant: 7, 11 and 13.',
      'user: Is 91 prime?',
      'assistant: No: 91 = 7 × 13.',
    ]);
    expect(primes!.messages[1]).toMatchObject({ model: 'claude-sonnet-4-5-20250929', provider: 'anthropic' });
    expect(versionsOf(tree, id('c2-a1b'))).toMatchObject({ index: 1, count: 2 });
    expect(texts({ ...primes!, messages: branchMessages(tree, id('c2-a1')) })).toEqual(['user: Name three prime numbers.', 'assistant: 2, 3 and 5.']);
  });

  it('shows the newest branch without current_leaf_message_uuid, and gives the same ids on every import', () => {
    const data = JSON.parse(fixture);
    delete data[1].current_leaf_message_uuid;
    const [, primes] = parsed(JSON.stringify(data)).conversations;
    expect(primes!.conversation.activeLeafId).toBeUndefined();
    expect(branchMessages(buildTree(primes!.messages), undefined).at(-1)!.id).toBe('claude:9f8e7d6c-5b4a-4321-8fed-cba987654321/c2-a2');
    const ids = (batch: ReturnType<typeof parsed>) =>
      batch.conversations.flatMap((c) => [c.conversation.id, ...c.messages.map((m) => `${m.id}<${m.parentId}`)]);
    expect(ids(parsed())).toEqual(ids(parsed()));
  });

  it('reads parents that loop as one branch in array order', () => {
    const looping = [
      {
        uuid: 'c-4',
        name: 'Loop',
        chat_messages: [
          { uuid: 'l1', parent_message_uuid: 'l2', sender: 'human', text: 'first', created_at: '2024-05-01T10:00:00Z' },
          { uuid: 'l2', parent_message_uuid: 'l1', sender: 'assistant', text: 'second', created_at: '2024-05-01T10:00:01Z' },
        ],
      },
    ];
    const [entry] = parsed(JSON.stringify(looping)).conversations;
    expect(entry!.messages.map((m) => [m.id, m.parentId])).toEqual([
      ['claude:c-4/l1', null],
      ['claude:c-4/l2', 'claude:c-4/l1'],
    ]);
  });

  it('falls back to the text field when content is absent, and keeps the tree through a sender it skips', () => {
    const data = [
      {
        uuid: 'c-3',
        name: 'Old export',
        created_at: '2024-05-01T10:00:00Z',
        updated_at: '2024-05-01T10:01:00Z',
        chat_messages: [
          { uuid: 'x1', parent_message_uuid: '00000000-0000-4000-8000-000000000000', sender: 'human', text: 'Hello', created_at: '2024-05-01T10:00:00Z' },
          { uuid: 'x2', parent_message_uuid: 'x1', sender: 'system', text: 'internal note', created_at: '2024-05-01T10:00:01Z' },
          { uuid: 'x3', parent_message_uuid: 'x2', sender: 'assistant', text: 'Hi there', created_at: '2024-05-01T10:00:02Z' },
        ],
      },
    ];
    const batch = parsed(JSON.stringify(data));
    expect(batch.conversations).toHaveLength(1);
    expect(texts(batch.conversations[0]!)).toEqual(['user: Hello', 'assistant: Hi there']);
    expect(batch.conversations[0]!.messages[1]!.parentId).toBe('claude:c-3/x1');
  });
});
