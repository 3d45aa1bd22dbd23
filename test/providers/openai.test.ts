import { describe, expect, it } from 'vitest';
import { isWindowpaneError, toOpenAIWire } from '../../src/core';
import type { OpenAIWireMessage, StoredMessage, ToolUseBlock } from '../../src/core';
import { createOpenAIProvider, NO_KEY_PLACEHOLDER } from '../../src/providers/openai';
import { jsonResponse, openAIFrames, openAITextStream, scriptedFetch, sseResponse, stallingFetch } from './wireResponses';

const KEY = 'sk-proj-test-key-000000000000';
const openai = { provider: 'openai' as const, apiKey: KEY, model: 'gpt-6.1-terra' };
/** A compatible endpoint with a key, as OpenRouter is: Chat Completions. */
const router = { provider: 'openai-compatible' as const, apiKey: KEY, model: 'openai/gpt-5.5', baseUrl: 'https://openrouter.ai/api/v1' };
const ollama = { provider: 'openai-compatible' as const, apiKey: '', model: 'llama3.2', baseUrl: 'http://localhost:11434/v1/' };
const hello: OpenAIWireMessage[] = [{ role: 'user', content: 'Hello' }];

describe('OpenAI adapter requests (Chat Completions, compatible endpoints)', () => {
  it('streams with usage and max_tokens, system first', async () => {
    const { fetch, requests } = scriptedFetch([openAITextStream('Hi')]);
    const provider = await createOpenAIProvider(router, { fetch });
    expect(provider.wireShape).toBe('openai');
    await provider.send({ model: 'gpt-5.5', maxTokens: 400, messages: hello, system: 'Be brief.', cacheBreakpoints: [0] });
    const [request] = requests;
    expect(request?.url).toBe('https://openrouter.ai/api/v1/chat/completions');
    expect(request?.headers.get('authorization')).toBe(`Bearer ${KEY}`);
    expect(request?.body).toEqual({
      model: 'gpt-5.5',
      messages: [{ role: 'system', content: 'Be brief.' }, ...hello],
      max_tokens: 400,
      stream: true,
      stream_options: { include_usage: true },
    });
  });

  it('never sends reasoning items, which only the Responses API takes', async () => {
    const { fetch, requests } = scriptedFetch([openAITextStream('Hi')]);
    const provider = await createOpenAIProvider(router, { fetch });
    const answer: OpenAIWireMessage = {
      role: 'assistant',
      content: null,
      tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'lookup', arguments: '{}' } }],
      reasoning: [{ id: 'rs_1', encrypted_content: 'gAAAA', summary: 'Look it up.', tokens: 40 }],
    };
    await provider.send({ model: 'gpt-5.5', maxTokens: 10, messages: [...hello, answer, { role: 'tool', tool_call_id: 'call_1', content: '42' }] });
    const sent = requests[0]?.body.messages as Array<Record<string, unknown>>;
    expect(sent[1]).toEqual({ role: 'assistant', content: null, tool_calls: answer.tool_calls });
  });

  it('does not add a second system message when the plan already starts with one', async () => {
    const { fetch, requests } = scriptedFetch([openAITextStream('Hi')]);
    const provider = await createOpenAIProvider(router, { fetch });
    const items = toOpenAIWire(
      [{ id: 'u1', conversationId: 'c', seq: 1, role: 'user', kind: 'message', content: [{ type: 'text', text: 'Hi' }], createdAt: 1, status: 'complete' }],
      'Planned system.',
    );
    await provider.send({ model: 'gpt-5.5', maxTokens: 10, messages: items.map((i) => i.message), system: 'Planned system.' });
    expect((requests[0]?.body.messages as OpenAIWireMessage[]).filter((m) => m.role === 'system')).toHaveLength(1);
  });

  it('talks to a compatible endpoint without a key: placeholder bearer, max_tokens, its own base URL', async () => {
    const { fetch, requests } = scriptedFetch([openAITextStream('Hi')]);
    const provider = await createOpenAIProvider(ollama, { fetch });
    expect(provider.id).toBe('openai-compatible');
    await provider.send({ model: 'llama3.2', maxTokens: 256, messages: hello });
    expect(requests[0]?.url).toBe('http://localhost:11434/v1/chat/completions');
    expect(requests[0]?.headers.get('authorization')).toBe(`Bearer ${NO_KEY_PLACEHOLDER}`);
    expect(requests[0]?.body.max_tokens).toBe(256);
    expect(requests[0]?.body).not.toHaveProperty('max_completion_tokens');
  });

  it('needs a key for OpenAI and a base URL for a compatible endpoint', async () => {
    await expect(createOpenAIProvider({ ...openai, apiKey: '' })).rejects.toSatisfy((e: unknown) => isWindowpaneError(e, 'auth'));
    await expect(createOpenAIProvider({ ...ollama, baseUrl: ' ' })).rejects.toSatisfy((e: unknown) => isWindowpaneError(e, 'invalid_config'));
  });

  it('maps tools to function tools', async () => {
    const { fetch, requests } = scriptedFetch([openAITextStream('Hi')]);
    const provider = await createOpenAIProvider(router, { fetch });
    await provider.send({
      model: 'gpt-5.5',
      maxTokens: 10,
      messages: hello,
      tools: [{ name: 'lookup', inputSchema: { type: 'object', properties: { q: { type: 'string' } } } }],
    });
    expect(requests[0]?.body.tools).toEqual([
      { type: 'function', function: { name: 'lookup', parameters: { type: 'object', properties: { q: { type: 'string' } } } } },
    ]);
  });
});

describe('OpenAI adapter streams (Chat Completions)', () => {
  it('assembles parallel tool calls from interleaved deltas by index, and usage with cached tokens', async () => {
    const response = sseResponse(
      openAIFrames([
        {
          choices: [
            {
              index: 0,
              delta: {
                role: 'assistant',
                content: null,
                tool_calls: [{ index: 0, id: 'call_A', type: 'function', function: { name: 'get_weather', arguments: '' } }],
              },
              finish_reason: null,
            },
          ],
        },
        {
          choices: [
            {
              index: 0,
              delta: { tool_calls: [{ index: 1, id: 'call_B', type: 'function', function: { name: 'get_weather', arguments: '' } }] },
              finish_reason: null,
            },
          ],
        },
        { choices: [{ index: 0, delta: { tool_calls: [{ index: 0, function: { arguments: '{"city":' } }] }, finish_reason: null }] },
        { choices: [{ index: 0, delta: { tool_calls: [{ index: 1, function: { arguments: '{"city":"Oslo"}' } }] }, finish_reason: null }] },
        { choices: [{ index: 0, delta: { tool_calls: [{ index: 0, function: { arguments: '"Paris"}' } }] }, finish_reason: null }] },
        { choices: [{ index: 0, delta: {}, finish_reason: 'tool_calls' }] },
        { choices: [], usage: { prompt_tokens: 2006, completion_tokens: 40, total_tokens: 2046, prompt_tokens_details: { cached_tokens: 1920 } } },
      ]),
    );
    const { fetch } = scriptedFetch([response]);
    const provider = await createOpenAIProvider(router, { fetch });
    const calls: ToolUseBlock[] = [];
    const result = await provider.send({ model: 'gpt-5.5', maxTokens: 100, messages: hello }, { onToolUse: (b) => calls.push(b) });
    const expected: ToolUseBlock[] = [
      { type: 'tool_use', id: 'call_A', name: 'get_weather', input: { city: 'Paris' } },
      { type: 'tool_use', id: 'call_B', name: 'get_weather', input: { city: 'Oslo' } },
    ];
    expect(result.content).toEqual(expected);
    expect(calls).toEqual(expected);
    expect(result.stopReason).toBe('tool_use');
    expect(result.usage).toEqual({ inputTokens: 86, outputTokens: 40, cacheReadTokens: 1920, cacheWriteTokens: 0 });
    expect(result.usageReported).toBe(true);

    // The answer goes back as tool_calls, and its results as tool messages.
    let seq = 0;
    const msg = (role: 'user' | 'assistant', content: StoredMessage['content']): StoredMessage => ({
      id: `m${++seq}`,
      conversationId: 'c',
      seq,
      role,
      kind: 'message',
      content,
      createdAt: seq,
      status: 'complete',
    });
    const wire = toOpenAIWire([
      msg('user', [{ type: 'text', text: 'Weather in Paris and Oslo?' }]),
      msg('assistant', result.content),
      msg('user', [
        { type: 'tool_result', tool_use_id: 'call_A', content: '18 °C' },
        { type: 'tool_result', tool_use_id: 'call_B', content: '9 °C' },
      ]),
    ]).map((i) => i.message);
    expect(wire.slice(1)).toEqual([
      {
        role: 'assistant',
        content: null,
        tool_calls: [
          { id: 'call_A', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris"}' } },
          { id: 'call_B', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Oslo"}' } },
        ],
      },
      { role: 'tool', tool_call_id: 'call_A', content: '18 °C' },
      { role: 'tool', tool_call_id: 'call_B', content: '9 °C' },
    ]);
  });

  it('keeps a finished call whose arguments are not JSON, with the raw text as its input, and does not throw', async () => {
    const response = sseResponse(
      openAIFrames([
        {
          choices: [
            {
              index: 0,
              delta: {
                role: 'assistant',
                content: null,
                tool_calls: [{ index: 0, id: 'call_bad', type: 'function', function: { name: 'run_javascript', arguments: '{"code": "1 +' } }],
              },
              finish_reason: null,
            },
          ],
        },
        {
          choices: [
            {
              index: 0,
              delta: { tool_calls: [{ index: 1, id: 'call_ok', type: 'function', function: { name: 'run_javascript', arguments: '{"code":' } }] },
              finish_reason: null,
            },
          ],
        },
        { choices: [{ index: 0, delta: { tool_calls: [{ index: 1, function: { arguments: ' "2"}' } }] }, finish_reason: null }] },
        { choices: [{ index: 0, delta: {}, finish_reason: 'tool_calls' }] },
      ]),
    );
    const { fetch } = scriptedFetch([response]);
    const provider = await createOpenAIProvider(router, { fetch });
    const result = await provider.send({ model: 'gpt-5.5', maxTokens: 100, messages: hello });
    expect(result.content).toEqual([
      { type: 'tool_use', id: 'call_bad', name: 'run_javascript', input: '{"code": "1 +' },
      { type: 'tool_use', id: 'call_ok', name: 'run_javascript', input: { code: '2' } },
    ]);
    expect(result.stopReason).toBe('tool_use');
  });

  it('keeps reasoning deltas from compatible servers as unsigned thinking', async () => {
    const response = sseResponse(
      openAIFrames([
        { choices: [{ index: 0, delta: { role: 'assistant', reasoning_content: 'Two plus two ' }, finish_reason: null }] },
        { choices: [{ index: 0, delta: { reasoning_content: 'is four.' }, finish_reason: null }] },
        { choices: [{ index: 0, delta: { content: '4' }, finish_reason: null }] },
        { choices: [{ index: 0, delta: {}, finish_reason: 'stop' }] },
      ]),
    );
    const { fetch } = scriptedFetch([response]);
    const provider = await createOpenAIProvider(ollama, { fetch });
    const thoughts: string[] = [];
    const result = await provider.send({ model: 'deepseek-r1', maxTokens: 100, messages: hello }, { onThinking: (d) => thoughts.push(d) });
    expect(thoughts).toEqual(['Two plus two ', 'is four.']);
    expect(result.content).toEqual([
      { type: 'thinking', thinking: 'Two plus two is four.' },
      { type: 'text', text: '4' },
    ]);
    // A compatible server that ignores include_usage reports nothing to calibrate with.
    expect(result.usageReported).toBe(false);
  });

  it('returns the partial text as stopped when Stop aborts mid-stream', async () => {
    const controller = new AbortController();
    const frames = openAIFrames([{ choices: [{ index: 0, delta: { role: 'assistant', content: 'The beginning' }, finish_reason: null }] }], false);
    const provider = await createOpenAIProvider(router, { fetch: stallingFetch(frames) });
    const result = await provider.send(
      { model: 'gpt-5.5', maxTokens: 100, messages: hello, signal: controller.signal },
      { onText: () => setTimeout(() => controller.abort(), 5) },
    );
    expect(result.stopReason).toBe('stopped');
    expect(result.content).toEqual([{ type: 'text', text: 'The beginning' }]);
  });

  it('maps finish_reason "length" to max_tokens', async () => {
    const response = sseResponse(
      openAIFrames([
        { choices: [{ index: 0, delta: { content: 'Cut' }, finish_reason: null }] },
        { choices: [{ index: 0, delta: {}, finish_reason: 'length' }] },
      ]),
    );
    const { fetch } = scriptedFetch([response]);
    const provider = await createOpenAIProvider(router, { fetch });
    expect((await provider.send({ model: 'gpt-5.5', maxTokens: 1, messages: hello })).stopReason).toBe('max_tokens');
  });
});

describe('OpenAI complete()', () => {
  it('asks without streaming and returns the text', async () => {
    const { fetch, requests } = scriptedFetch([
      jsonResponse(200, {
        id: 'chatcmpl-1',
        object: 'chat.completion',
        created: 1_763_000_000,
        model: 'gpt-5.4-mini',
        choices: [{ index: 0, message: { role: 'assistant', content: 'A short summary.', refusal: null }, finish_reason: 'stop', logprobs: null }],
        usage: { prompt_tokens: 500, completion_tokens: 5, total_tokens: 505 },
      }),
    ]);
    const provider = await createOpenAIProvider(router, { fetch });
    expect(await provider.complete('Summarize this conversation', { model: 'gpt-5.4-mini', maxTokens: 200 })).toBe('A short summary.');
    expect(requests[0]?.url).toBe('https://openrouter.ai/api/v1/chat/completions');
    expect(requests[0]?.body).toEqual({
      model: 'gpt-5.4-mini',
      messages: [{ role: 'user', content: 'Summarize this conversation' }],
      max_tokens: 200,
    });
  });
});
