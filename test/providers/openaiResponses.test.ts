import { describe, expect, it } from 'vitest';
import { isWindowpaneError } from '../../src/core';
import type { ContentBlock, OpenAIWireMessage, ToolUseBlock } from '../../src/core';
import { createOpenAIProvider } from '../../src/providers/openai';
import { jsonResponse, openAIError, responsesFrames, responsesObject, responsesTextStream, scriptedFetch, sseResponse, stallingFetch } from './wireResponses';

const KEY = 'sk-proj-test-key-000000000000';
const openai = { provider: 'openai' as const, apiKey: KEY, model: 'gpt-6.1-terra' };
const hello: OpenAIWireMessage[] = [{ role: 'user', content: 'Hello' }];

const reasoningItem = { type: 'reasoning', id: 'rs_1', summary: [{ type: 'summary_text', text: 'Check both cities.' }], encrypted_content: 'gAAAAB-sealed' };
const callA = { type: 'function_call', id: 'fc_A', call_id: 'call_A', name: 'get_weather', arguments: '{"city":"Paris"}', status: 'completed' };
const callB = { type: 'function_call', id: 'fc_B', call_id: 'call_B', name: 'get_weather', arguments: '{"city":"Oslo"}', status: 'completed' };

/** A reasoning item, then two parallel calls, as the Responses API streams them. */
function reasoningThenCalls(): Response {
  return sseResponse(
    responsesFrames([
      { type: 'response.created', response: responsesObject([], null, { status: 'in_progress' }) },
      { type: 'response.output_item.added', output_index: 0, item: { type: 'reasoning', id: 'rs_1', summary: [] } },
      { type: 'response.reasoning_summary_part.added', output_index: 0, item_id: 'rs_1', summary_index: 0, part: { type: 'summary_text', text: '' } },
      { type: 'response.reasoning_summary_text.delta', output_index: 0, item_id: 'rs_1', summary_index: 0, delta: 'Check both ' },
      { type: 'response.reasoning_summary_text.delta', output_index: 0, item_id: 'rs_1', summary_index: 0, delta: 'cities.' },
      { type: 'response.output_item.done', output_index: 0, item: reasoningItem },
      { type: 'response.output_item.added', output_index: 1, item: { ...callA, arguments: '', status: 'in_progress' } },
      { type: 'response.output_item.added', output_index: 2, item: { ...callB, arguments: '', status: 'in_progress' } },
      { type: 'response.function_call_arguments.delta', output_index: 1, item_id: 'fc_A', delta: '{"city":' },
      { type: 'response.function_call_arguments.delta', output_index: 2, item_id: 'fc_B', delta: '{"city":"Oslo"}' },
      { type: 'response.function_call_arguments.delta', output_index: 1, item_id: 'fc_A', delta: '"Paris"}' },
      { type: 'response.output_item.done', output_index: 1, item: callA },
      { type: 'response.output_item.done', output_index: 2, item: callB },
      {
        type: 'response.completed',
        response: responsesObject([reasoningItem, callA, callB], {
          input_tokens: 2006,
          input_tokens_details: { cached_tokens: 1920 },
          output_tokens: 140,
          output_tokens_details: { reasoning_tokens: 100 },
          total_tokens: 2146,
        }),
      },
    ]),
  );
}

describe('OpenAI through the Responses API: requests', () => {
  it('streams from /v1/responses with store off, the system prompt as instructions and max_output_tokens', async () => {
    const { fetch, requests } = scriptedFetch([responsesTextStream('Hi')]);
    const provider = await createOpenAIProvider(openai, { fetch });
    expect(provider.wireShape).toBe('openai');
    const result = await provider.send({ model: 'gpt-6.1-terra', maxTokens: 400, messages: hello, system: 'Be brief.' });
    expect(requests[0]?.url).toBe('https://api.openai.com/v1/responses');
    expect(requests[0]?.headers.get('authorization')).toBe(`Bearer ${KEY}`);
    expect(requests[0]?.body).toEqual({
      model: 'gpt-6.1-terra',
      input: [{ role: 'user', content: 'Hello' }],
      instructions: 'Be brief.',
      max_output_tokens: 400,
      store: false,
      stream: true,
    });
    expect(result).toMatchObject({ content: [{ type: 'text', text: 'Hi' }], stopReason: 'end_turn', model: 'gpt-6.1-terra', usageReported: true });
    expect(result.usage).toEqual({ inputTokens: 30, outputTokens: 5, cacheReadTokens: 0, cacheWriteTokens: 0 });
  });

  it('asks a reasoning model for its effort, a summary and its encrypted reasoning; off sends effort none only', async () => {
    const { fetch, requests } = scriptedFetch([() => responsesTextStream('Hi')]);
    const provider = await createOpenAIProvider(openai, { fetch });
    await provider.send({ model: 'gpt-6.1-terra', maxTokens: 10, messages: hello, thinking: { reasoningEffort: 'high', reasons: true, extraOutput: 0 } });
    await provider.send({ model: 'gpt-6.1-terra', maxTokens: 10, messages: hello, thinking: { reasons: true, extraOutput: 0 } });
    await provider.send({ model: 'gpt-6.1-terra', maxTokens: 10, messages: hello, thinking: { reasoningEffort: 'none', extraOutput: 0 } });
    await provider.send({ model: 'gpt-4.1', maxTokens: 10, messages: hello, thinking: { extraOutput: 0 } });
    expect(requests.map((r) => [r.body.reasoning, r.body.include])).toEqual([
      [{ effort: 'high', summary: 'auto' }, ['reasoning.encrypted_content']],
      [{ summary: 'auto' }, ['reasoning.encrypted_content']],
      [{ effort: 'none' }, undefined],
      [undefined, undefined],
    ]);
  });

  it('sends function tools in the Responses shape, not nested under `function`', async () => {
    const { fetch, requests } = scriptedFetch([responsesTextStream('Hi')]);
    const provider = await createOpenAIProvider(openai, { fetch });
    const inputSchema = { type: 'object', properties: { q: { type: 'string' } } };
    await provider.send({ model: 'gpt-6.1-terra', maxTokens: 10, messages: hello, tools: [{ name: 'lookup', description: 'Looks up.', inputSchema }] });
    expect(requests[0]?.body.tools).toEqual([{ type: 'function', name: 'lookup', description: 'Looks up.', parameters: inputSchema, strict: false }]);
  });
});

describe('OpenAI through the Responses API: streams', () => {
  it('streams the reasoning summary as thinking, keeps the encrypted item, and assembles parallel calls', async () => {
    const { fetch } = scriptedFetch([reasoningThenCalls()]);
    const provider = await createOpenAIProvider(openai, { fetch });
    const thoughts: string[] = [];
    const calls: ToolUseBlock[] = [];
    const result = await provider.send(
      { model: 'gpt-6.1-terra', maxTokens: 1000, messages: hello, thinking: { reasons: true, extraOutput: 0 } },
      { onThinking: (d) => thoughts.push(d), onToolUse: (b) => calls.push(b) },
    );
    // The reasoning starts (an empty delta) before its summary streams.
    expect(thoughts).toEqual(['', 'Check both ', 'cities.']);
    const expectedCalls: ToolUseBlock[] = [
      { type: 'tool_use', id: 'call_A', name: 'get_weather', input: { city: 'Paris' } },
      { type: 'tool_use', id: 'call_B', name: 'get_weather', input: { city: 'Oslo' } },
    ];
    expect(result.content).toEqual([
      { type: 'thinking', thinking: 'Check both cities.', reasoningItem: { id: 'rs_1', encryptedContent: 'gAAAAB-sealed' } },
      ...expectedCalls,
    ] satisfies ContentBlock[]);
    expect(calls).toEqual(expectedCalls);
    expect(result.stopReason).toBe('tool_use');
    expect(result.usage).toEqual({ inputTokens: 86, outputTokens: 140, cacheReadTokens: 1920, cacheWriteTokens: 0, reasoningTokens: 100 });
  });

  it('returns what streamed as stopped when Stop aborts mid-answer, and drops a call whose arguments did not finish', async () => {
    const controller = new AbortController();
    const frames = responsesFrames([
      { type: 'response.output_item.added', output_index: 0, item: { type: 'message', id: 'msg_1', role: 'assistant', content: [] } },
      { type: 'response.output_text.delta', output_index: 0, item_id: 'msg_1', content_index: 0, delta: 'The beginning' },
      { type: 'response.output_item.added', output_index: 1, item: { ...callA, arguments: '' } },
      // Arguments that parse, of a call the stream never finished: still not a call to answer.
      { type: 'response.function_call_arguments.delta', output_index: 1, item_id: 'fc_A', delta: '{"city":"Paris"}' },
    ]);
    const provider = await createOpenAIProvider(openai, { fetch: stallingFetch(frames) });
    const result = await provider.send(
      { model: 'gpt-6.1-terra', maxTokens: 100, messages: hello, signal: controller.signal },
      { onText: () => setTimeout(() => controller.abort(), 5) },
    );
    expect(result.stopReason).toBe('stopped');
    expect(result.content).toEqual([{ type: 'text', text: 'The beginning' }]);
  });

  it('maps an incomplete response cut at max_output_tokens to max_tokens', async () => {
    const message = { type: 'message', id: 'msg_1', role: 'assistant', content: [{ type: 'output_text', text: 'Cut', annotations: [] }] };
    const { fetch } = scriptedFetch([
      sseResponse(
        responsesFrames([
          { type: 'response.output_item.added', output_index: 0, item: { ...message, content: [] } },
          { type: 'response.output_text.delta', output_index: 0, item_id: 'msg_1', content_index: 0, delta: 'Cut' },
          {
            type: 'response.incomplete',
            response: responsesObject(
              [message],
              { input_tokens: 9, output_tokens: 16 },
              { status: 'incomplete', incomplete_details: { reason: 'max_output_tokens' } },
            ),
          },
        ]),
      ),
    ]);
    const provider = await createOpenAIProvider(openai, { fetch });
    const result = await provider.send({ model: 'gpt-6.1-terra', maxTokens: 16, messages: hello });
    expect(result.stopReason).toBe('max_tokens');
    expect(result.content).toEqual([{ type: 'text', text: 'Cut' }]);
  });

  it('turns a failed response into a typed error that keeps what streamed', async () => {
    const failed = (code: string, message: string) =>
      sseResponse(
        responsesFrames([
          { type: 'response.output_item.added', output_index: 0, item: { type: 'message', id: 'msg_1', role: 'assistant', content: [] } },
          { type: 'response.output_text.delta', output_index: 0, item_id: 'msg_1', content_index: 0, delta: 'Partly' },
          { type: 'response.failed', response: responsesObject([], null, { status: 'failed', error: { code, message } }) },
        ]),
      );
    const { fetch } = scriptedFetch([failed('server_error', 'The server had an error.'), failed('rate_limit_exceeded', 'Slow down.')]);
    const provider = await createOpenAIProvider(openai, { fetch, maxRetries: 0 });
    const first = await provider.send({ model: 'gpt-6.1-terra', maxTokens: 100, messages: hello }).catch((e: unknown) => e);
    expect(isWindowpaneError(first, 'provider')).toBe(true);
    expect((first as { details: { partialContent?: unknown } }).details.partialContent).toEqual([{ type: 'text', text: 'Partly' }]);
    const second = await provider.send({ model: 'gpt-6.1-terra', maxTokens: 100, messages: hello }).catch((e: unknown) => e);
    expect(isWindowpaneError(second, 'rate_limit')).toBe(true);
  });

  it('reports a context-length refusal as context_length, and a stream cut before the end as network', async () => {
    const { fetch } = scriptedFetch([
      openAIError(400, {
        message: 'Your input exceeds the context window of this model. Please adjust your input and try again.',
        type: 'invalid_request_error',
        param: 'input',
        code: 'context_length_exceeded',
      }),
      sseResponse(
        responsesFrames([{ type: 'response.output_item.added', output_index: 0, item: { type: 'message', id: 'msg_1', role: 'assistant', content: [] } }]),
      ),
    ]);
    const provider = await createOpenAIProvider(openai, { fetch, maxRetries: 0 });
    await expect(provider.send({ model: 'gpt-6.1-terra', maxTokens: 100, messages: hello })).rejects.toSatisfy((e: unknown) =>
      isWindowpaneError(e, 'context_length'),
    );
    await expect(provider.send({ model: 'gpt-6.1-terra', maxTokens: 100, messages: hello })).rejects.toSatisfy((e: unknown) => isWindowpaneError(e, 'network'));
  });
});

describe('OpenAI complete() through the Responses API', () => {
  it('asks without streaming or storing and returns the output text', async () => {
    const message = {
      type: 'message',
      id: 'msg_1',
      role: 'assistant',
      status: 'completed',
      content: [{ type: 'output_text', text: 'A short summary.', annotations: [] }],
    };
    const { fetch, requests } = scriptedFetch([jsonResponse(200, responsesObject([message], { input_tokens: 500, output_tokens: 5, total_tokens: 505 }))]);
    const provider = await createOpenAIProvider(openai, { fetch });
    expect(await provider.complete('Summarize this conversation', { model: 'gpt-6.1-terra', maxTokens: 200, system: 'You summarize.' })).toBe(
      'A short summary.',
    );
    expect(requests[0]?.url).toBe('https://api.openai.com/v1/responses');
    expect(requests[0]?.body).toEqual({
      model: 'gpt-6.1-terra',
      input: [{ role: 'user', content: 'Summarize this conversation' }],
      instructions: 'You summarize.',
      max_output_tokens: 200,
      store: false,
    });
  });
});
