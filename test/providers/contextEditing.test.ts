// @vitest-environment node
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AnthropicWireMessage } from '../../src/core';
import { createAnthropicProvider } from '../../src/providers/anthropic';
import { CLEARED_RESULT_PLACEHOLDER } from '../fake-api/contextEditing';
import { startFakeApi, type FakeApi } from '../fake-api/server';
import { anthropicFrames, anthropicMessageStart, scriptedFetch, sseResponse } from './wireResponses';

const KEY = 'sk-ant-api03-test-key-000000';
const settings = { provider: 'anthropic' as const, apiKey: KEY, model: 'claude-sonnet-4-6' };
const tools = [{ name: 'read_log', inputSchema: { type: 'object' } }];

/** `calls` tool exchanges with results of about 300 tokens, then a question. */
function loop(calls: number): AnthropicWireMessage[] {
  const messages: AnthropicWireMessage[] = [{ role: 'user', content: 'Read the logs.' }];
  for (let n = 1; n <= calls; n++) {
    messages.push({ role: 'assistant', content: [{ type: 'tool_use', id: `toolu_${n}`, name: 'read_log', input: { part: n } }] });
    const text = Array.from({ length: 30 }, (_, i) => `call ${n} line ${i}: ok in ${n + i} ms`).join('\n');
    messages.push({ role: 'user', content: [{ type: 'tool_result', tool_use_id: `toolu_${n}`, content: text }] });
  }
  messages.push({ role: 'assistant', content: 'Read.' }, { role: 'user', content: 'Anything odd?' });
  return messages;
}

describe('context editing through the Anthropic adapter', () => {
  let fake: FakeApi;
  beforeAll(async () => {
    fake = await startFakeApi({ deltaDelayMs: 0 });
  });
  afterAll(() => fake.close());

  it('sends the edits with their beta header and reads what the provider cleared from the stream', async () => {
    const provider = await createAnthropicProvider({ ...settings, baseUrl: fake.url }, { maxRetries: 0 });
    const result = await provider.send({
      model: 'claude-opus-4-6',
      maxTokens: 2000,
      messages: loop(6),
      tools,
      thinking: { thinking: { type: 'adaptive' }, extraOutput: 0 },
      contextManagement: { clearThinking: { keepTurns: 'all' }, clearToolUses: { triggerToolUses: 5, keepToolUses: 2, clearAtLeastTokens: 500 } },
    });
    const recorded = fake.requests.at(-1)!;
    expect(recorded.status).toBe(200);
    expect(recorded.headers['anthropic-beta']).toBe('context-management-2025-06-27');
    expect((recorded.body as { context_management: unknown }).context_management).toEqual({
      edits: [
        { type: 'clear_thinking_20251015', keep: 'all' },
        {
          type: 'clear_tool_uses_20250919',
          trigger: { type: 'tool_uses', value: 5 },
          keep: { type: 'tool_uses', value: 2 },
          clear_at_least: { type: 'input_tokens', value: 500 },
        },
      ],
    });
    expect(result.contextEdits).toEqual([{ kind: 'clear_tool_uses', clearedToolUses: 4, clearedInputTokens: expect.any(Number) as number }]);
    expect(result.contextEdits![0]!.clearedInputTokens).toBeGreaterThan(4 * 250);
    expect(result.usage.inputTokens).toBe(recorded.inputTokens);
    expect(JSON.stringify(recorded.body)).not.toContain(CLEARED_RESULT_PLACEHOLDER);
  });

  it('sends neither the edits nor the header when none are asked for', async () => {
    const provider = await createAnthropicProvider({ ...settings, baseUrl: fake.url }, { maxRetries: 0 });
    const result = await provider.send({ model: 'claude-sonnet-4-6', maxTokens: 200, messages: loop(2), tools });
    const recorded = fake.requests.at(-1)!;
    expect(recorded.headers['anthropic-beta']).toBeUndefined();
    expect(recorded.body).not.toHaveProperty('context_management');
    expect(result.contextEdits).toBeUndefined();
  });
});

describe('applied edits are read as untrusted', () => {
  async function editsOf(management: unknown) {
    const response = sseResponse(
      anthropicFrames([
        anthropicMessageStart(),
        { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } },
        { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 'ok' } },
        { type: 'content_block_stop', index: 0 },
        { type: 'message_delta', delta: { stop_reason: 'end_turn', stop_sequence: null }, usage: { output_tokens: 3 }, context_management: management },
        { type: 'message_stop' },
      ]),
    );
    const provider = await createAnthropicProvider(settings, { fetch: scriptedFetch([response]).fetch });
    return (await provider.send({ model: 'claude-sonnet-4-6', maxTokens: 100, messages: [{ role: 'user', content: 'Hi' }] })).contextEdits;
  }

  it('keeps the well-formed edits and leaves out the rest', async () => {
    expect(
      await editsOf({
        applied_edits: [
          { type: 'clear_tool_uses_20250919', cleared_tool_uses: 12, cleared_input_tokens: 8400 },
          { type: 'clear_tool_uses_20250919', cleared_tool_uses: -1, cleared_input_tokens: 10 },
          { type: 'clear_tool_uses_20250919', cleared_tool_uses: 2, cleared_input_tokens: '900' },
          { type: 'clear_thinking_20251015', cleared_thinking_turns: 1.5, cleared_input_tokens: 10 },
          { type: 'clear_thinking_20251015', cleared_thinking_turns: 3, cleared_input_tokens: 700 },
          { type: 'drop_everything', cleared_input_tokens: 1 },
          null,
          'clear',
        ],
      }),
    ).toEqual([
      { kind: 'clear_tool_uses', clearedToolUses: 12, clearedInputTokens: 8400 },
      { kind: 'clear_thinking', clearedThinkingTurns: 3, clearedInputTokens: 700 },
    ]);
  });

  it('reads nothing from a report that is not a list of edits', async () => {
    for (const management of [
      null,
      'cleared',
      { applied_edits: 'all' },
      { applied_edits: [{ type: 'clear_tool_uses_20250919', cleared_tool_uses: 1e300, cleared_input_tokens: 1 }] },
    ]) {
      expect(await editsOf(management)).toBeUndefined();
    }
  });
});
