import { describe, expect, it } from 'vitest';
import {
  MAX_IMPORT_BYTES,
  checkImportSize,
  detectImportFormat,
  exportToJson,
  importBatches,
  openImport,
  type ImportBatchPlan,
  type ImportFailure,
  type ImportSource,
  type StoredMessage,
} from '../../../src/core';
import { readFixture } from './fixtures';
import { chatGptConversation, claudeConversation, generatedList } from './generatedExports';
import { importAll } from './importAll';

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

/** Why `openImport` refuses the whole file. */
function refused(text: string, sizeBytes?: number): ImportFailure {
  const result = openImport(text, { ...options, sizeBytes });
  if (result.ok) throw new Error(`expected the file refused, got ${result.value.count} conversations`);
  return result.error;
}

describe('openImport: files refused before any conversation is read', () => {
  it('refuses every truncation of a valid export as not valid JSON', () => {
    for (const name of ['chatgpt-conversations.json', 'claude-conversations.json']) {
      const text = readFixture(name).trimEnd();
      for (let end = 1; end < text.length; end += 97) {
        expect(refused(text.slice(0, end)).message, `${name} cut at ${end}`).toMatch(/not valid JSON/);
      }
    }
  });

  it('refuses a file over the limit by its size, before parsing it', () => {
    const error = refused('this text is never parsed', MAX_IMPORT_BYTES + 1);
    expect(error.code).toBe('import_too_large');
    expect(error.message).toMatch(/This file is 200 MB; Windowpane imports files up to 200 MB/);
    expect(checkImportSize(312 * 1024 * 1024)?.message).toMatch(/^This file is 312 MB/);
    expect(checkImportSize(MAX_IMPORT_BYTES)).toBeUndefined();
  });

  it('refuses nesting far deeper than any export without overflowing the stack, and leaves out a conversation nested too deep', () => {
    const deep = '['.repeat(100_000) + ']'.repeat(100_000);
    // Refused on the text, before JSON.parse or any reader recurses.
    const error = refused(deep);
    expect(error.code).toBe('import_invalid');
    expect(error.message).toMatch(/nests its data more than 200 levels deep/);
    // Built as text: JSON.stringify itself cannot write nesting this deep.
    const message =
      '{"id":"m","conversationId":"c","seq":0,"role":"assistant","kind":"message","createdAt":0,"status":"complete",' +
      `"content":[{"type":"tool_use","id":"t","name":"x","input":${'['.repeat(100)}${']'.repeat(100)}}]}`;
    const deepInput =
      '{"format":"windowpane","version":1,"exportedAt":0,"conversations":[{"conversation":' +
      `{"id":"c","title":"t","createdAt":0,"updatedAt":0,"messageCount":1},"messages":[${message}]}]}`;
    const result = importAll(deepInput);
    expect(result.ok && result.value.conversations).toEqual([]);
    expect(result.ok && result.value.failures).toEqual([
      { position: 1, title: 't', reason: expect.stringMatching(/content\[0\]\.input is nested more than 64 levels deep/) },
    ]);
  });

  it('reads text only: a zip archive (unpacked before it gets here) is not JSON', () => {
    expect(refused('PK\u0003\u0004\u0014\u0000binary').message).toMatch(/not valid JSON/);
  });

  it('reads a conversation listed twice in a ChatGPT export once, and names the second copy, not a silent overwrite', () => {
    const one = JSON.parse(readFixture('chatgpt-conversations.json'))[1];
    const result = importAll(JSON.stringify([one, one]), options);
    if (!result.ok) throw new Error(result.error.message);
    expect(result.value.conversations.map((entry) => entry.conversation.title)).toEqual(['Untitled conversation']);
    expect(result.value.failures).toEqual([{ position: 2, title: 'Untitled conversation', reason: 'the file lists this conversation twice' }]);
  });
});

describe('detectImportFormat', () => {
  it('tells the three formats apart', () => {
    expect(detectImportFormat(JSON.parse(exportToJson([], 0)))).toBe('windowpane');
    expect(detectImportFormat(JSON.parse(readFixture('chatgpt-conversations.json')))).toBe('chatgpt');
    expect(detectImportFormat(JSON.parse(readFixture('claude-conversations.json')))).toBe('claude');
    expect(detectImportFormat({ messages: [] })).toBeUndefined();
  });

  it('accepts a UTF-8 byte-order mark before the JSON', () => {
    const result = importAll(`\ufeff${readFixture('claude-conversations.json')}`, options);
    expect(result.ok && result.value.failures).toEqual([]);
    expect(result.ok && result.value.conversations.length).toBeGreaterThan(0);
  });
});
