import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { MAX_IMPORT_BYTES, exportToJson, exportToMarkdown, parseImport, type ConversationRecords, type StoredMessage } from '../../../src/core';
import { conversationRecords } from './arbitraries';

const EXPORTED_AT = 1_767_225_600_000;

function sample(): ConversationRecords {
  const conversationId = 'conv-1';
  const messages: StoredMessage[] = [
    {
      id: 'm-1',
      conversationId,
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
      usage: { inputTokens: 1200, outputTokens: 80, cacheReadTokens: 1000, cacheWriteTokens: 0 },
    },
    {
      id: 'm-3',
      conversationId,
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
    expect(file).toMatchObject({ format: 'windowpane', version: 1, exportedAt: EXPORTED_AT });
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
    const result = parseImport(exportToJson([entry], EXPORTED_AT), { importedAt: 0 });
    expect(result).toEqual({ ok: true, value: { format: 'windowpane', conversations: [entry], branchIds: [] } });
  });

  it('round-trips any conversations losslessly (property)', () => {
    fc.assert(
      fc.property(conversationRecords(), fc.integer({ min: 0, max: 4_102_444_800_000 }), (entries, exportedAt) => {
        const result = parseImport(exportToJson(entries, exportedAt), { importedAt: 0 });
        expect(result.ok).toBe(true);
        if (result.ok) expect(result.value.conversations).toStrictEqual(entries);
      }),
      { numRuns: 200 },
    );
  });

  it('brings a message exported mid-stream back as interrupted', () => {
    const entry = sample();
    entry.messages[4]!.status = 'streaming';
    const result = parseImport(exportToJson([entry], EXPORTED_AT), { importedAt: 0 });
    expect(result.ok && result.value.conversations[0]!.messages[4]!.status).toBe('interrupted');
  });

  it('keeps a small export well under the import limit', () => {
    expect(exportToJson([sample()], EXPORTED_AT).length).toBeLessThan(MAX_IMPORT_BYTES);
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
