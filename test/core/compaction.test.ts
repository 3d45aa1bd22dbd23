import { describe, expect, it } from 'vitest';
import {
  compactionCut,
  compactionTrigger,
  compactsOnProvider,
  costOfUsage,
  exportRecords,
  exportToMarkdown,
  fromAnthropicContent,
  fromAnthropicUsage,
  fromResponsesOutput,
  readMessage,
  toAnthropicWire,
  toResponsesInput,
  type CompactionBlock,
  type Conversation,
  type StoredMessage,
} from '../../src/core';
import { MalformedImport } from '../../src/core/transfer/readJson';

const anthropicBlock: CompactionBlock = {
  type: 'compaction',
  provider: 'anthropic',
  summary: '<summary>The vault code is 4711.</summary>',
  fields: { encrypted_content: 'sealed', signature: 'sig' },
};

function message(id: string, role: 'user' | 'assistant', content: StoredMessage['content']): StoredMessage {
  return { id, conversationId: 'c', seq: Number(id.slice(1)), role, kind: 'message', content, createdAt: 1, status: 'complete' };
}

describe('which models compact on the provider’s side', () => {
  it('takes Anthropic’s documented models (dated ids too), every model on OpenAI’s own endpoint, and no other', () => {
    expect(compactsOnProvider('anthropic', 'claude-opus-4-6')).toBe(true);
    expect(compactsOnProvider('anthropic', 'claude-opus-4-6-20260205')).toBe(true);
    expect(compactsOnProvider('anthropic', 'claude-sonnet-5')).toBe(true);
    // Another model whose id starts like a listed one.
    expect(compactsOnProvider('anthropic', 'claude-fable-5-1')).toBe(false);
    expect(compactsOnProvider('anthropic', 'claude-haiku-5-5')).toBe(false);
    expect(compactsOnProvider('openai', 'gpt-6-luna')).toBe(true);
    expect(compactsOnProvider('openai-compatible', 'gpt-6-luna')).toBe(false);
    expect(compactsOnProvider('demo', 'windowpane-demo')).toBe(false);
  });

  it('takes what Anthropic’s models endpoint stated for the key over the documented list', () => {
    expect(compactsOnProvider('anthropic', 'claude-haiku-5-5', true)).toBe(true);
    expect(compactsOnProvider('anthropic', 'claude-opus-4-6', false)).toBe(false);
    expect(compactsOnProvider('openai-compatible', 'claude-haiku-5-5', true)).toBe(false);
  });

  it('asks for 100,000, lowered to 80 % of a smaller window, and none under 50,000', () => {
    expect(compactionTrigger(991_808)).toBe(100_000);
    expect(compactionTrigger(125_000)).toBe(100_000);
    expect(compactionTrigger(100_000)).toBe(80_000);
    expect(compactionTrigger(991_808, 150_000)).toBe(150_000);
    expect(compactionTrigger(62_500)).toBe(50_000);
    expect(compactionTrigger(60_000)).toBeUndefined();
  });
});

describe('the compaction a request opens with', () => {
  it('is the newest one the provider can read', () => {
    const older = { ...anthropicBlock, summary: 'older' };
    const openai: CompactionBlock = { type: 'compaction', provider: 'openai', summary: null, fields: { encrypted_content: 'x' } };
    const messages = [
      message('m1', 'user', [{ type: 'text', text: 'a' }]),
      message('m2', 'assistant', [older, { type: 'text', text: 'b' }]),
      message('m3', 'user', [{ type: 'text', text: 'c' }]),
      message('m4', 'assistant', [anthropicBlock, { type: 'text', text: 'd' }]),
      message('m5', 'assistant', [openai, { type: 'text', text: 'e' }]),
    ];
    expect(compactionCut(messages, 'anthropic')).toBe(3);
    expect(compactionCut(messages, 'openai')).toBe(4);
    expect(compactionCut(messages.slice(0, 1), 'anthropic')).toBe(-1);
  });

  it('is left out of the wire a strategy plans from: only a request that sends compactions puts it back', () => {
    const [item] = toAnthropicWire([message('m2', 'assistant', [anthropicBlock, { type: 'text', text: 'Answer.' }])]);
    expect(item?.message).toEqual({ role: 'assistant', content: 'Answer.' });
  });
});

describe('reading a compaction back', () => {
  it('keeps an Anthropic block’s fields to send back, and the usage of the step that wrote it', () => {
    const [block] = fromAnthropicContent([{ type: 'compaction', content: 'S', encrypted_content: 'e', signature: 's', cache_control: { type: 'ephemeral' } }]);
    expect(block).toEqual({ type: 'compaction', provider: 'anthropic', summary: 'S', fields: { encrypted_content: 'e', signature: 's' } });
    const usage = fromAnthropicUsage({
      input_tokens: 900,
      output_tokens: 50,
      iterations: [
        { type: 'compaction', input_tokens: 180_000, output_tokens: 3_500, cache_read_input_tokens: 0, cache_creation_input_tokens: 0 },
        { type: 'message', input_tokens: 900, output_tokens: 50 },
      ],
    });
    expect(usage.compaction).toEqual({ inputTokens: 180_000, outputTokens: 3_500, cacheReadTokens: 0, cacheWriteTokens: 0 });
    // The compaction is billed on top of the answer.
    const prices = { input: 5, output: 25, cacheWrite: 6.25, cacheRead: 0.5 };
    expect(costOfUsage(usage, prices)).toBeCloseTo(((900 + 180_000) * 5 + (50 + 3_500) * 25) / 1_000_000, 10);
  });

  it('keeps an OpenAI item only once it is whole, and sends it back as the item alone', () => {
    const blocks = fromResponsesOutput(
      [
        { type: 'compaction', fields: { id: 'cmp_1', encrypted_content: 'enc' } },
        { type: 'compaction', fields: { id: 'cmp_2' } },
        { type: 'message', text: 'Hi' },
      ],
      { complete: true },
    );
    expect(blocks).toEqual([
      { type: 'compaction', provider: 'openai', summary: null, fields: { id: 'cmp_1', encrypted_content: 'enc' } },
      { type: 'text', text: 'Hi' },
    ]);
    const input = toResponsesInput([
      { role: 'user', content: 'Continue.', compaction: { item: { id: 'cmp_1', encrypted_content: 'enc' }, tokens: 300 } },
      { role: 'user', content: 'Next?' },
    ]);
    expect(input).toEqual([
      { id: 'cmp_1', encrypted_content: 'enc', type: 'compaction' },
      { role: 'user', content: 'Next?' },
    ]);
  });
});

describe('a stored or imported compaction', () => {
  const record = (block: unknown) => ({ ...message('m4', 'assistant', []), content: [block, { type: 'text', text: 'd' }] });

  it('reads back as it was stored, and refuses one that cannot go back to its provider', () => {
    expect(readMessage(record({ ...anthropicBlock, compactedTokens: 180_000 }), 'm').content[0]).toEqual({ ...anthropicBlock, compactedTokens: 180_000 });
    expect(() => readMessage(record({ type: 'compaction', provider: 'openai', summary: null, fields: {} }), 'm')).toThrow(MalformedImport);
    expect(() => readMessage(record({ ...anthropicBlock, provider: 'elsewhere' }), 'm')).toThrow(MalformedImport);
    expect(() => readMessage(record({ ...anthropicBlock, fields: { n: Number.POSITIVE_INFINITY } }), 'm')).toThrow(/JSON values only/);
    // A count beside it that is not a count is left out, never a reason to refuse the message.
    expect(readMessage(record({ ...anthropicBlock, compactedTokens: -3 }), 'm').content[0]).toEqual(anthropicBlock);
    // What the compaction cost stays with the answer's usage; a malformed one is left out.
    const usage = { inputTokens: 900, outputTokens: 50, cacheReadTokens: 0, cacheWriteTokens: 0 };
    const spent = { inputTokens: 180_000, outputTokens: 3_500, cacheReadTokens: 0, cacheWriteTokens: 0 };
    expect(readMessage({ ...record(anthropicBlock), usage: { ...usage, compaction: spent } }, 'm').usage).toEqual({ ...usage, compaction: spent });
    expect(readMessage({ ...record(anthropicBlock), usage: { ...usage, compaction: { ...spent, outputTokens: 'x' } } }, 'm').usage).toEqual(usage);
  });

  it('is exported whole to JSON, and to Markdown as the provider’s summary (OpenAI’s said to be encrypted)', () => {
    const conversation = { id: 'c', title: 'T', createdAt: 1, updatedAt: 1 } as Conversation;
    const openai: CompactionBlock = { type: 'compaction', provider: 'openai', summary: null, fields: { id: 'cmp_1', encrypted_content: 'opaque-ciphertext' } };
    const messages = [
      message('m1', 'user', [{ type: 'text', text: 'Hi' }]),
      message('m2', 'assistant', [anthropicBlock, { type: 'text', text: 'A' }]),
      message('m3', 'assistant', [openai]),
    ];
    expect(exportRecords({ conversation, messages }).messages[1]?.content[0]).toEqual(anthropicBlock);
    const spent = { inputTokens: 1, outputTokens: 2, cacheReadTokens: 3, cacheWriteTokens: 4 };
    const billed = { ...messages[1]!, usage: { inputTokens: 5, outputTokens: 6, cacheReadTokens: 0, cacheWriteTokens: 0, compaction: spent } };
    expect(exportRecords({ conversation, messages: [billed] }).messages[0]?.usage?.compaction).toEqual(spent);
    const markdown = exportToMarkdown([{ conversation, messages }]);
    expect(markdown).toContain("Anthropic's summary of the conversation before this point");
    expect(markdown).toContain('The vault code is 4711.');
    expect(markdown).toContain('its summary is encrypted, readable only by OpenAI');
    expect(markdown).not.toContain('opaque-ciphertext');
    expect(markdown).not.toContain('sealed');
  });
});
