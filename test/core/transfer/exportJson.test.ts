import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  MAX_IMPORT_BYTES,
  branchCount,
  branchMessages,
  buildTree,
  exportToJson,
  exportToJsonParts,
  exportToMarkdown,
  filesByConversation,
  utf8Bytes,
  type ConversationRecords,
  type ExportedFile,
  type StoredMessage,
} from '../../../src/core';
import { conversationRecords } from './arbitraries';
import { importAll, importEvery } from './importAll';

const EXPORTED_AT = 1_767_225_600_000;

function sample(): ConversationRecords {
  const conversationId = 'conv-1';
  const messages: StoredMessage[] = [
    {
      id: 'm-1',
      conversationId,
      parentId: null,
      seq: 0,
      role: 'user',
      kind: 'message',
      content: [{ type: 'text', text: 'Summarise the design doc.' }],
      createdAt: 1_767_225_000_000,
      status: 'complete',
      pinned: true,
    },
    {
      id: 'm-2',
      conversationId,
      parentId: 'm-1',
      seq: 1,
      role: 'assistant',
      kind: 'message',
      content: [
        { type: 'thinking', thinking: 'Read it first.', signature: 'sig-abc' },
        { type: 'tool_use', id: 'toolu_1', name: 'read_file', input: { path: 'DESIGN.md' } },
      ],
      createdAt: 1_767_225_001_000,
      status: 'complete',
      model: 'claude-sonnet-4-5',
      provider: 'anthropic',
      usage: { inputTokens: 1200, outputTokens: 80, cacheReadTokens: 1000, cacheWriteTokens: 0, reasoningTokens: 62 },
      thinkingPrefix: '0123456789abcdef',
      thinkingMs: 4200,
    },
    {
      id: 'm-3',
      conversationId,
      parentId: 'm-2',
      seq: 2,
      role: 'user',
      kind: 'message',
      content: [{ type: 'tool_result', tool_use_id: 'toolu_1', content: '# Design\nThree layers.', is_error: false }],
      createdAt: 1_767_225_002_000,
      status: 'complete',
    },
    {
      id: 'm-4',
      conversationId,
      parentId: 'm-3',
      seq: 3,
      role: 'user',
      kind: 'summary',
      covers: ['m-1', 'm-2', 'm-3'],
      content: [{ type: 'text', text: '[Conversation Summary]\nThe user asked for a summary of a three-layer design.' }],
      createdAt: 1_767_225_003_000,
      status: 'complete',
    },
    {
      id: 'm-5',
      conversationId,
      parentId: 'm-3',
      seq: 4,
      role: 'assistant',
      kind: 'message',
      content: [{ type: 'text', text: 'It has three lay' }],
      createdAt: 1_767_225_004_000,
      status: 'interrupted',
      model: 'claude-sonnet-4-5',
      provider: 'anthropic',
    },
  ];
  return {
    conversation: {
      id: conversationId,
      title: 'Design review',
      createdAt: 1_767_225_000_000,
      updatedAt: 1_767_225_004_000,
      messageCount: messages.length,
      overrides: { model: 'claude-sonnet-4-5', window: { strategy: 'summarize' } },
    },
    messages,
  };
}

describe('exportToJson', () => {
  it('writes the versioned Windowpane format with every field of every record', () => {
    const entry = sample();
    const file = JSON.parse(exportToJson([entry], EXPORTED_AT));
    expect(file).toMatchObject({ format: 'windowpane', version: 2, exportedAt: EXPORTED_AT });
    expect(file.conversations).toEqual([entry]);
  });

  it('writes messages in seq order whatever order they were given in', () => {
    const entry = sample();
    const shuffled = { ...entry, messages: [...entry.messages].reverse() };
    const file = JSON.parse(exportToJson([shuffled], EXPORTED_AT));
    expect(file.conversations[0].messages.map((m: StoredMessage) => m.id)).toEqual(['m-1', 'm-2', 'm-3', 'm-4', 'm-5']);
  });

  it('round-trips the sample through import without losing anything', () => {
    const entry = sample();
    const result = importAll(exportToJson([entry], EXPORTED_AT));
    expect(result).toEqual({ ok: true, value: { format: 'windowpane', conversations: [entry], failures: [] } });
  });

  it("round-trips a tool result's images and carries their files like a user's", () => {
    const entry = sample();
    const chart = { type: 'image' as const, fileId: 'f-tool', name: 'chart_image image.png', mediaType: 'image/png', width: 1, height: 1, bytes: 3 };
    const withImages: ConversationRecords = {
      ...entry,
      messages: entry.messages.map((m) => ({ ...m, content: m.content.map((b) => (b.type === 'tool_result' ? { ...b, images: [chart] } : b)) })),
    };
    const file: ExportedFile = {
      id: 'f-tool',
      conversationId: entry.conversation.id,
      name: chart.name,
      mediaType: 'image/png',
      bytes: 3,
      createdAt: 0,
      data: 'AAAA',
    };
    const text = exportToJson([withImages], EXPORTED_AT, [file]);
    expect(importAll(text)).toEqual({ ok: true, value: { format: 'windowpane', conversations: [{ ...withImages, files: [file] }], failures: [] } });
    expect(filesByConversation(JSON.parse(text).files).get(entry.conversation.id)).toEqual([file]);
  });

  it('leaves out a thinking key that is not one, and keeps the message', () => {
    const entry = sample();
    const file = JSON.parse(exportToJson([entry], EXPORTED_AT));
    file.conversations[0].messages[1].thinkingPrefix = '<script>';
    const [back] = importEvery(JSON.stringify(file)).conversations;
    expect(back!.messages[1]).not.toHaveProperty('thinkingPrefix');
    expect(back!.messages[1]!.content).toEqual(entry.messages[1]!.content);
  });

  it('leaves out a thinking time or reasoning count that is not a whole count, and keeps the message', () => {
    const entry = sample();
    for (const [thinkingMs, reasoningTokens] of [
      [-1, 81],
      [1.5, -3],
      ['8 s', 2.5],
      [null, '62'],
    ]) {
      const file = JSON.parse(exportToJson([entry], EXPORTED_AT));
      Object.assign(file.conversations[0].messages[1], { thinkingMs });
      Object.assign(file.conversations[0].messages[1].usage, { reasoningTokens });
      const [back] = importEvery(JSON.stringify(file)).conversations;
      expect(back!.messages[1]).not.toHaveProperty('thinkingMs');
      expect(back!.messages[1]!.usage).toEqual({ inputTokens: 1200, outputTokens: 80, cacheReadTokens: 1000, cacheWriteTokens: 0 });
      expect(back!.messages[1]!.content).toEqual(entry.messages[1]!.content);
    }
  });

  it('round-trips every branch and the branch shown', () => {
    const entry = sample();
    // m-6 is another version of m-2's answer; the user went back to the first one (m-5).
    entry.messages.push({ ...entry.messages[1]!, id: 'm-6', parentId: 'm-1', seq: 5, content: [{ type: 'text', text: 'Three layers.' }] });
    entry.conversation.activeLeafId = 'm-5';
    entry.conversation.messageCount = 6;
    const [back] = importEvery(exportToJson([entry], EXPORTED_AT)).conversations;
    expect(back).toStrictEqual(entry);
    const tree = buildTree(back!.messages);
    expect(branchCount(tree)).toBe(2);
    expect(branchMessages(tree, back!.conversation.activeLeafId).map((m) => m.id)).toEqual(['m-1', 'm-2', 'm-3', 'm-4', 'm-5']);
  });

  it('writes the parent each message stored before branches existed is read as following', () => {
    const entry = sample();
    for (const message of entry.messages) delete message.parentId;
    const file = JSON.parse(exportToJson([entry], EXPORTED_AT));
    // The summary is never a parent: m-5 follows m-3, the message before it.
    expect(file.conversations[0].messages.map((m: StoredMessage) => [m.id, m.parentId])).toEqual([
      ['m-1', null],
      ['m-2', 'm-1'],
      ['m-3', 'm-2'],
      ['m-4', 'm-3'],
      ['m-5', 'm-3'],
    ]);
    expect(entry.messages[0]!.parentId).toBeUndefined();
  });

  it('writes activeLeafId only when it names a message of the conversation', () => {
    const named = sample();
    named.conversation.activeLeafId = 'm-3';
    expect(JSON.parse(exportToJson([named], EXPORTED_AT)).conversations[0].conversation.activeLeafId).toBe('m-3');
    const dangling = sample();
    dangling.conversation.activeLeafId = 'gone';
    expect(JSON.parse(exportToJson([dangling], EXPORTED_AT)).conversations[0].conversation).not.toHaveProperty('activeLeafId');
  });

  it('round-trips any conversations losslessly (property)', () => {
    fc.assert(
      fc.property(conversationRecords(), fc.integer({ min: 0, max: 4_102_444_800_000 }), (entries, exportedAt) => {
        const result = importAll(exportToJson(entries, exportedAt));
        expect(result.ok).toBe(true);
        if (result.ok) expect(result.value).toStrictEqual({ format: 'windowpane', conversations: entries, failures: [] });
      }),
      { numRuns: 200 },
    );
  });

  it('round-trips branching conversations of many messages losslessly (property)', () => {
    fc.assert(
      fc.property(conversationRecords(2, 40), (entries) => {
        const { conversations } = importEvery(exportToJson(entries, EXPORTED_AT));
        expect(conversations).toStrictEqual(entries);
        for (const [i, entry] of entries.entries()) {
          const before = buildTree(entry.messages);
          const after = buildTree(conversations[i]!.messages);
          expect(branchCount(after)).toBe(branchCount(before));
          expect(branchMessages(after, entry.conversation.activeLeafId)).toStrictEqual(branchMessages(before, entry.conversation.activeLeafId));
        }
      }),
      { numRuns: 100 },
    );
  });

  it('brings a message exported mid-stream back as interrupted', () => {
    const entry = sample();
    entry.messages[4]!.status = 'streaming';
    expect(importEvery(exportToJson([entry], EXPORTED_AT)).conversations[0]!.messages[4]!.status).toBe('interrupted');
  });

  it('keeps a small export well under the import limit', () => {
    expect(exportToJson([sample()], EXPORTED_AT).length).toBeLessThan(MAX_IMPORT_BYTES);
  });
});

describe('reading Windowpane exports of each version', () => {
  const message = (id: string, seq: number, extra: Record<string, unknown> = {}) => ({
    id,
    conversationId: 'c1',
    seq,
    role: seq % 2 === 0 ? 'user' : 'assistant',
    kind: 'message',
    content: [{ type: 'text', text: id }],
    createdAt: EXPORTED_AT + seq,
    status: 'complete',
    ...extra,
  });
  const file = (version: unknown, messages: unknown[], conversation: Record<string, unknown> = {}) =>
    JSON.stringify({
      format: 'windowpane',
      version,
      exportedAt: EXPORTED_AT,
      conversations: [
        { conversation: { id: 'c1', title: 'Old', createdAt: EXPORTED_AT, updatedAt: EXPORTED_AT, messageCount: messages.length, ...conversation }, messages },
      ],
    });
  const read = (text: string) => importAll(text);
  /** Why each conversation of the file was left out. */
  const leftOut = (text: string) => {
    const result = importAll(text);
    if (!result.ok) throw new Error(result.error.message);
    return result.value.failures.map((failure) => failure.reason);
  };

  it('reads a version 1 file, written before branches, as one branch with every parent written out', () => {
    const summary = message('s', 2, { kind: 'summary', role: 'user', covers: ['a', 'b'] });
    const [entry] = importEvery(file(1, [message('a', 0), message('b', 1), summary, message('c', 3)])).conversations;
    expect(entry!.messages.map((m) => [m.id, m.parentId])).toEqual([
      ['a', null],
      ['b', 'a'],
      ['s', 'b'],
      ['c', 'b'],
    ]);
    const tree = buildTree(entry!.messages);
    expect(branchCount(tree)).toBe(1);
    expect(branchMessages(tree, undefined).map((m) => m.id)).toEqual(['a', 'b', 's', 'c']);
  });

  it('refuses a parentId that names no message of the same conversation, naming the field', () => {
    const other = JSON.parse(file(2, [message('a', 0, { parentId: null })]));
    other.conversations.push({
      conversation: { id: 'c2', title: 'Other', createdAt: 0, updatedAt: 0, messageCount: 1 },
      messages: [{ ...message('x', 0, { parentId: null }), conversationId: 'c2' }],
    });
    other.conversations[0].messages.push(message('b', 1, { parentId: 'x' }));
    for (const text of [file(2, [message('a', 0, { parentId: null }), message('b', 1, { parentId: 'missing' })]), JSON.stringify(other)]) {
      const result = read(text);
      if (!result.ok) throw new Error(result.error.message);
      expect(result.value.failures).toEqual([{ position: 1, title: 'Old', reason: expect.any(String) }]);
      expect(result.value.failures[0]!.reason).toMatch(
        /^conversations\[0\]\.messages\[1\]\.parentId names "(missing|x)", which is not a message of the same conversation/,
      );
      // The conversation it wrongly points into is still read.
      expect(result.value.conversations.map((entry) => entry.conversation.id)).toEqual(text === JSON.stringify(other) ? ['c2'] : []);
    }
    expect(leftOut(file(2, [message('a', 0, { parentId: 7 })]))).toEqual([
      expect.stringMatching(/messages\[0\]\.parentId should be non-empty text, but is a number \(7\)/),
    ]);
  });

  it('repairs a parent written after its child, as storage reads it', () => {
    const [entry] = importEvery(file(2, [message('a', 0, { parentId: 'b' }), message('b', 1, { parentId: 'a' })])).conversations;
    expect(entry!.messages.map((m) => m.parentId)).toEqual([null, 'a']);
  });

  it('keeps an activeLeafId naming a message of the conversation and drops one that names none', () => {
    const messages = [message('a', 0, { parentId: null }), message('b', 1, { parentId: 'a' }), message('c', 2, { parentId: 'a' })];
    expect(importEvery(file(2, messages, { activeLeafId: 'b' })).conversations[0]!.conversation.activeLeafId).toBe('b');
    expect(importEvery(file(2, messages, { activeLeafId: 'gone' })).conversations[0]!.conversation).not.toHaveProperty('activeLeafId');
    expect(leftOut(file(2, messages, { activeLeafId: '' }))).toEqual([expect.stringMatching(/conversation\.activeLeafId should be non-empty text/)]);
  });

  it('refuses a newer version, asking for an update, and a version that is not a number from 1 to 2', () => {
    const newer = read(file(3, []));
    expect(!newer.ok && newer.error.message).toMatch(/newer Windowpane \(format version 3\); this one reads version 2/);
    for (const version of [0, 1.5, '2', undefined]) {
      const result = read(file(version, []));
      expect(!result.ok && result.error.message, String(version)).toMatch(/version should be a version number from 1 to 2/);
    }
  });
});

describe('API keys never leave in an export', () => {
  const SECRET = 'sk-ant-api03-SECRET-never-export-me';
  const settings = { provider: 'anthropic', apiKeys: { anthropic: SECRET }, apiKey: SECRET, api_key: SECRET, authorization: `Bearer ${SECRET}` };

  function withSettingsEverywhere(): ConversationRecords[] {
    const entry = sample();
    // Settings smuggled in as overrides, as extra properties of the records and of the entry.
    entry.conversation.overrides = { ...settings, nested: { settings }, list: [settings] };
    Object.assign(entry.conversation, { settings, apiKey: SECRET });
    Object.assign(entry.messages[0]!, { settings, apiKey: SECRET });
    Object.assign(entry.messages[1]!.content[0]!, { apiKey: SECRET });
    Object.assign(entry, { settings });
    return [entry];
  }

  it('does not appear in the JSON export', () => {
    const json = exportToJson(withSettingsEverywhere(), EXPORTED_AT);
    expect(json).not.toContain(SECRET);
    expect(json).not.toMatch(/apiKey|api_key|authorization/i);
    // The rest of the overrides survive.
    expect(JSON.parse(json).conversations[0].conversation.overrides).toEqual({
      provider: 'anthropic',
      nested: { settings: { provider: 'anthropic' } },
      list: [{ provider: 'anthropic' }],
    });
  });

  it('does not appear in the Markdown export', () => {
    expect(exportToMarkdown(withSettingsEverywhere())).not.toContain(SECRET);
  });

  it('does not change the records it was given', () => {
    const entries = withSettingsEverywhere();
    exportToJson(entries, EXPORTED_AT);
    expect(entries[0]!.conversation.overrides).toMatchObject({ apiKeys: { anthropic: SECRET } });
  });
});

describe('an export over the size Import takes', () => {
  /** Conversation `n` of the sample, with an image of its own. */
  const numbered = (n: number): { entry: ConversationRecords; file: ExportedFile } => {
    const { conversation, messages } = sample();
    const id = `conv-${n}`;
    return {
      entry: {
        conversation: { ...conversation, id, title: `Conversation ${n} — 日本語` },
        messages: messages.map((m) => ({ ...m, id: `${id}-${m.id}`, conversationId: id, parentId: m.parentId && `${id}-${m.parentId}` })),
      },
      file: { id: `image-${n}`, conversationId: id, name: `${n}.png`, mediaType: 'image/png', bytes: 3, createdAt: 0, data: 'AAAA' },
    };
  };
  const five = [1, 2, 3, 4, 5].map(numbered);
  const entries = five.map((x) => x.entry);
  const files = five.map((x) => x.file);
  type Part = { conversations: ConversationRecords[]; files: ExportedFile[] };

  it('is one file when it fits', () => {
    expect(exportToJsonParts(entries, EXPORTED_AT, files)).toEqual([exportToJson(entries, EXPORTED_AT, files)]);
  });

  it('is split between conversations, each file under the limit in UTF-8 bytes and carrying its own conversations’ images', () => {
    const whole = utf8Bytes(exportToJson(entries, EXPORTED_AT, files));
    const limit = Math.ceil(whole / 2.5);
    const parts = exportToJsonParts(entries, EXPORTED_AT, files, limit);
    expect(parts.length).toBeGreaterThanOrEqual(3);
    const read = parts.map((text) => JSON.parse(text) as Part);
    for (const [i, text] of parts.entries()) {
      expect(utf8Bytes(text)).toBeLessThanOrEqual(limit);
      const ids = read[i]!.conversations.map((c) => c.conversation.id);
      expect(read[i]!.files.map((f) => f.conversationId)).toEqual(ids);
    }
    expect(read.flatMap((p) => p.conversations.map((c) => c.conversation.title))).toEqual(entries.map((e) => e.conversation.title));
  });

  it('puts a conversation larger than the limit in a file of its own', () => {
    const parts = exportToJsonParts(entries, EXPORTED_AT, undefined, 10);
    expect(parts.map((text) => (JSON.parse(text) as Part).conversations.length)).toEqual([1, 1, 1, 1, 1]);
  });
});
