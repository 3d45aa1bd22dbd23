import { describe, expect, it } from 'vitest';
import { isWindowpaneError } from '../../src/core';
import type { AnthropicWireMessage, ToolUseBlock, WindowpaneError } from '../../src/core';
import { createAnthropicProvider, normalizeAnthropicBaseUrl } from '../../src/providers/anthropic';
import { anthropicFrames, anthropicMessageStart, anthropicTextStream, jsonResponse, scriptedFetch, sseResponse, stallingFetch } from './wireResponses';

const KEY = 'sk-ant-api03-test-key-000000';
const settings = { provider: 'anthropic' as const, apiKey: KEY, model: 'claude-sonnet-4-6' };
const hello: AnthropicWireMessage[] = [{ role: 'user', content: 'Hello' }];

describe('Anthropic adapter requests', () => {
  it('sends what the Messages API expects from a browser: key as bearer, version, direct-access header, streaming', async () => {
    const { fetch, requests } = scriptedFetch([anthropicTextStream('Hi!')]);
    const provider = await createAnthropicProvider(settings, { fetch });
    await provider.send({ model: 'claude-sonnet-4-6', maxTokens: 300, messages: hello, system: 'Be brief.' });
    const [request] = requests;
    expect(request?.url).toBe('https://api.anthropic.com/v1/messages');
    expect(request?.headers.get('authorization')).toBe(`Bearer ${KEY}`);
    expect(request?.headers.get('anthropic-version')).toBe('2026-10-21');
    expect(request?.headers.get('anthropic-dangerous-direct-browser-access')).toBe('true');
    expect(request?.headers.get('traceparent')).toBeNull();
    expect(request?.body).toEqual({ model: 'claude-sonnet-4-6', max_tokens: 300, messages: hello, system: 'Be brief.', stream: true });
  });

  it('puts cache_control on the system prompt and the chosen messages, never more than four in all', async () => {
    const { fetch, requests } = scriptedFetch([anthropicTextStream('ok')]);
    const provider = await createAnthropicProvider(settings, { fetch });
    const messages: AnthropicWireMessage[] = Array.from({ length: 9 }, (_, i) => ({ role: i % 2 === 0 ? 'user' : 'assistant', content: `m${i}` }));
    await provider.send({ model: 'claude-sonnet-4-6', maxTokens: 100, messages, system: 'System.', cacheBreakpoints: [0, 2, 4, 6, 8, 8, 42] });
    const body = requests[0]?.body as { system: unknown; messages: Array<{ content: unknown }> };
    expect(body.system).toEqual([{ type: 'text', text: 'System.', cache_control: { type: 'ephemeral' } }]);
    const marked = body.messages.flatMap((m, i) => (JSON.stringify(m.content).includes('cache_control') ? [i] : []));
    expect(marked).toEqual([4, 6, 8]);
    expect(body.messages[8]?.content).toEqual([{ type: 'text', text: 'm8', cache_control: { type: 'ephemeral' } }]);
    expect(body.messages[3]?.content).toBe('m3');
  });

  it('uses the configured base URL, without a doubled /v1', async () => {
    expect(normalizeAnthropicBaseUrl('https://llm.example.com/anthropic/v1/')).toBe('https://llm.example.com/anthropic');
    expect(normalizeAnthropicBaseUrl(undefined)).toBe('https://api.anthropic.com');
    const { fetch, requests } = scriptedFetch([anthropicTextStream('ok')]);
    const provider = await createAnthropicProvider({ ...settings, baseUrl: 'https://llm.example.com/anthropic/v1' }, { fetch });
    await provider.send({ model: 'claude-sonnet-4-6', maxTokens: 10, messages: hello });
    expect(requests[0]?.url).toBe('https://llm.example.com/anthropic/v1/messages');
  });

  it('refuses to start without a key', async () => {
    await expect(createAnthropicProvider({ ...settings, apiKey: '  ' })).rejects.toSatisfy((e: unknown) => isWindowpaneError(e, 'auth'));
  });
});

describe('Anthropic adapter streams', () => {
  it('assembles a tool call from input_json_delta pieces and reports it once', async () => {
    const response = sseResponse(
      anthropicFrames([
        anthropicMessageStart({ input_tokens: 410, output_tokens: 1, cache_creation_input_tokens: 0, cache_read_input_tokens: 1200 }),
        { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } },
        { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 'Checking the weather.' } },
        { type: 'content_block_stop', index: 0 },
        { type: 'content_block_start', index: 1, content_block: { type: 'tool_use', id: 'toolu_01A', name: 'get_weather', input: {} } },
        { type: 'content_block_delta', index: 1, delta: { type: 'input_json_delta', partial_json: '' } },
        { type: 'content_block_delta', index: 1, delta: { type: 'input_json_delta', partial_json: '{"location": "San Fra' } },
        { type: 'content_block_delta', index: 1, delta: { type: 'input_json_delta', partial_json: 'ncisco, CA"}' } },
        { type: 'content_block_stop', index: 1 },
        { type: 'message_delta', delta: { stop_reason: 'tool_use', stop_sequence: null }, usage: { output_tokens: 89 } },
        { type: 'message_stop' },
      ]),
    );
    const { fetch } = scriptedFetch([response]);
    const provider = await createAnthropicProvider(settings, { fetch });
    const tools: ToolUseBlock[] = [];
    const result = await provider.send(
      {
        model: 'claude-sonnet-4-6',
        maxTokens: 500,
        messages: hello,
        tools: [{ name: 'get_weather', description: 'Current weather', inputSchema: { type: 'object', properties: { location: { type: 'string' } } } }],
      },
      { onToolUse: (block) => tools.push(block) },
    );
    const call: ToolUseBlock = { type: 'tool_use', id: 'toolu_01A', name: 'get_weather', input: { location: 'San Francisco, CA' } };
    expect(result.content).toEqual([{ type: 'text', text: 'Checking the weather.' }, call]);
    expect(tools).toEqual([call]);
    expect(result.stopReason).toBe('tool_use');
    expect(result.usage).toEqual({ inputTokens: 410, outputTokens: 89, cacheReadTokens: 1200, cacheWriteTokens: 0 });
  });

  it('keeps thinking with its signature and streams thinking deltas', async () => {
    const response = sseResponse(
      anthropicFrames([
        anthropicMessageStart(),
        { type: 'content_block_start', index: 0, content_block: { type: 'thinking', thinking: '', signature: '' } },
        { type: 'content_block_delta', index: 0, delta: { type: 'thinking_delta', thinking: 'Let me add ' } },
        { type: 'content_block_delta', index: 0, delta: { type: 'thinking_delta', thinking: '2 and 2.' } },
        { type: 'content_block_delta', index: 0, delta: { type: 'signature_delta', signature: 'EqQBCgIYAhIM1gbcDa9GJwZA2b3h' } },
        { type: 'content_block_stop', index: 0 },
        { type: 'content_block_start', index: 1, content_block: { type: 'redacted_thinking', data: 'EmwKAhgBEgy3va3pzix' } },
        { type: 'content_block_stop', index: 1 },
        { type: 'content_block_start', index: 2, content_block: { type: 'text', text: '' } },
        { type: 'content_block_delta', index: 2, delta: { type: 'text_delta', text: '4' } },
        { type: 'content_block_stop', index: 2 },
        { type: 'message_delta', delta: { stop_reason: 'end_turn', stop_sequence: null }, usage: { output_tokens: 30 } },
        { type: 'message_stop' },
      ]),
    );
    const { fetch } = scriptedFetch([response]);
    const provider = await createAnthropicProvider(settings, { fetch });
    const thoughts: string[] = [];
    const result = await provider.send({ model: 'claude-sonnet-4-6', maxTokens: 2000, messages: hello }, { onThinking: (d) => thoughts.push(d) });
    expect(thoughts).toEqual(['Let me add ', '2 and 2.']);
    expect(result.content).toEqual([
      { type: 'thinking', thinking: 'Let me add 2 and 2.', signature: 'EqQBCgIYAhIM1gbcDa9GJwZA2b3h' },
      { type: 'redacted_thinking', data: 'EmwKAhgBEgy3va3pzix' },
      { type: 'text', text: '4' },
    ]);
  });

  it('leaves out a tool call cut off by Stop and keeps the text before it', async () => {
    const controller = new AbortController();
    const frames = anthropicFrames([
      anthropicMessageStart(),
      { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } },
      { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 'Let me look.' } },
      { type: 'content_block_stop', index: 0 },
      { type: 'content_block_start', index: 1, content_block: { type: 'tool_use', id: 'toolu_01B', name: 'read', input: {} } },
      { type: 'content_block_delta', index: 1, delta: { type: 'input_json_delta', partial_json: '{"path": "sr' } },
    ]);
    const provider = await createAnthropicProvider(settings, { fetch: stallingFetch(frames) });
    const result = await provider.send(
      { model: 'claude-sonnet-4-6', maxTokens: 100, messages: hello, signal: controller.signal },
      { onText: () => setTimeout(() => controller.abort(), 10) },
    );
    expect(result.stopReason).toBe('stopped');
    expect(result.content).toEqual([{ type: 'text', text: 'Let me look.' }]);
  });

  it('reports a stream that ends without message_stop as a lost connection, keeping the text', async () => {
    const response = sseResponse(
      anthropicFrames([
        anthropicMessageStart(),
        { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } },
        { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 'Half an ans' } },
      ]),
    );
    const { fetch } = scriptedFetch([response]);
    const provider = await createAnthropicProvider(settings, { fetch });
    const error = await provider.send({ model: 'claude-sonnet-4-6', maxTokens: 100, messages: hello }).catch((e: unknown) => e);
    expect(isWindowpaneError(error, 'network')).toBe(true);
    expect((error as WindowpaneError).details.partialContent).toEqual([{ type: 'text', text: 'Half an ans' }]);
  });

  it('lets an exception from a callback through untranslated', async () => {
    const { fetch } = scriptedFetch([anthropicTextStream('Hi')]);
    const provider = await createAnthropicProvider(settings, { fetch });
    const bug = new RangeError('renderer broke');
    await expect(
      provider.send(
        { model: 'claude-sonnet-4-6', maxTokens: 10, messages: hello },
        {
          onText: () => {
            throw bug;
          },
        },
      ),
    ).rejects.toBe(bug);
  });
});

describe('Anthropic complete()', () => {
  it('asks without streaming and returns the text', async () => {
    const { fetch, requests } = scriptedFetch([
      jsonResponse(200, {
        id: 'msg_01X',
        type: 'message',
        role: 'assistant',
        model: 'claude-haiku-4-5',
        content: [{ type: 'text', text: 'The user planned a trip to Lisbon.' }],
        stop_reason: 'end_turn',
        stop_sequence: null,
        usage: { input_tokens: 900, output_tokens: 12, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 },
      }),
    ]);
    const provider = await createAnthropicProvider(settings, { fetch });
    const summary = await provider.complete('Summarize this conversation: …', { model: 'claude-haiku-4-5', maxTokens: 256, system: 'You summarize.' });
    expect(summary).toBe('The user planned a trip to Lisbon.');
    expect(requests[0]?.body).toEqual({
      model: 'claude-haiku-4-5',
      max_tokens: 256,
      messages: [{ role: 'user', content: 'Summarize this conversation: …' }],
      system: 'You summarize.',
      stream: false,
    });
  });
});
