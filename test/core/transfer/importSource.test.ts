import { describe, expect, it } from 'vitest';
import { exportToJson, importBatches, openImport, type ImportBatchPlan, type ImportSource, type StoredMessage } from '../../../src/core';
import { chatGptConversation, claudeConversation, generatedList } from './generatedExports';

const options = { importedAt: 1_767_225_600_000 };

function opened(data: unknown): ImportSource {
  const result = openImport(JSON.stringify(data), options);
  if (!result.ok) throw new Error(result.error.message);
  return result.value;
}

function allBatches(source: ImportSource, conversations = 3, messages = 1000): ImportBatchPlan[] {
  return [...importBatches(source, { conversations, messages })];
}

describe('openImport: every export shape', () => {
  const chatgpt = generatedList(chatGptConversation, 4, 2);
  const claude = generatedList(claudeConversation, 4, 2);
  it.each([
    ['ChatGPT, bare array', chatgpt, 'chatgpt'],
    ['ChatGPT, wrapped in { conversations }', { conversations: chatgpt }, 'chatgpt'],
    ['Claude, bare array', claude, 'claude'],
    ['Claude, wrapped in { conversations }', { conversations: claude }, 'claude'],
  ] as const)('%s', (_name, data, format) => {
    const source = opened(data);
    expect(source).toMatchObject({ format, count: 4 });
    const records = allBatches(source).flatMap((b) => b.conversations);
    expect(records.map((r) => r.conversation.title)).toEqual([0, 1, 2, 3].map((n) => `${format === 'chatgpt' ? 'ChatGPT' : 'Claude'} conversation ${n}`));
    expect(records.every((r) => r.messages.length === 2)).toBe(true);
  });

  it('refuses the whole file, reading no conversation, when it is no export at all', () => {
    for (const text of ['', 'not json', '{"hello":"world"}', '[]', '{"conversations":[]}']) {
      const result = openImport(text, options);
      expect(result.ok, text).toBe(false);
    }
  });
});

describe('importBatches', () => {
  it('keeps each conversation whole in one batch, within the limits, in file order', () => {
    const data = [chatGptConversation(0, 4), chatGptConversation(1, 30), chatGptConversation(2, 4), chatGptConversation(3, 4), chatGptConversation(4, 4)];
    const batches = allBatches(opened(data), 3, 10);
    // The 30-message conversation is a batch of its own; the others fill batches of at most 10 messages.
    expect(batches.map((b) => b.conversations.map((r) => r.messages.length))).toEqual([[4], [30], [4, 4], [4]]);
    expect(batches.map((b) => b.positions)).toEqual([[1], [2], [3, 4], [5]]);
    expect(batches.map((b) => b.through)).toEqual([1, 2, 4, 5]);
    const counted = generatedList(chatGptConversation, 7, 2);
    expect(allBatches(opened(counted), 3).map((b) => b.conversations.length)).toEqual([3, 3, 1]);
  });

  it('leaves out a malformed conversation midway, naming it and where it is, and goes on', () => {
    const data = generatedList(chatGptConversation, 5, 2) as Array<Record<string, unknown>>;
    data[3] = { ...data[3], mapping: 'broken' };
    const batches = allBatches(opened(data), 2);
    expect(batches.flatMap((b) => b.conversations.map((r) => r.conversation.title))).toEqual([
      'ChatGPT conversation 0',
      'ChatGPT conversation 1',
      'ChatGPT conversation 2',
      'ChatGPT conversation 4',
    ]);
    expect(batches.flatMap((b) => b.failures)).toEqual([
      { position: 4, title: 'ChatGPT conversation 3', reason: 'conversation 4.mapping should be an object, but is text "broken"' },
    ]);
    expect(batches.at(-1)!.through).toBe(5);
  });

  it('leaves out a conversation listed twice', () => {
    const first = claudeConversation(0, 2);
    const failures = allBatches(opened([first, first, claudeConversation(2, 2)])).flatMap((b) => b.failures);
    expect(failures).toEqual([{ position: 2, title: 'Claude conversation 0', reason: 'the file lists this conversation twice' }]);
  });

  it('leaves out a conversation reusing a message id of another (a hand-edited Windowpane file)', () => {
    const message = (conversationId: string): StoredMessage => ({
      id: 'same',
      conversationId,
      seq: 0,
      parentId: null,
      role: 'user',
      kind: 'message',
      content: [{ type: 'text', text: 'hi' }],
      createdAt: 1,
      status: 'complete',
    });
    const entry = (id: string) => ({ conversation: { id, title: id, createdAt: 1, updatedAt: 1, messageCount: 1 }, messages: [message(id)] });
    const source = openImport(exportToJson([entry('a'), entry('b')], 0), options);
    if (!source.ok) throw new Error(source.error.message);
    expect(allBatches(source.value).flatMap((b) => b.failures)).toEqual([{ position: 2, title: 'b', reason: 'its message "same" appears twice in the file' }]);
  });

  it('converts a conversation only when its batch is asked for', () => {
    const data = generatedList(chatGptConversation, 6, 2) as Array<Record<string, unknown>>;
    const source = opened(data);
    const reads: number[] = [];
    const counting: ImportSource = { ...source, read: (i) => (reads.push(i), source.read(i)) };
    const batches = importBatches(counting, { conversations: 2, messages: 100 });
    batches.next();
    expect(reads).toEqual([0, 1, 2]);
  });
});
