// @vitest-environment node
// The fake's count endpoints: the same checks and the same tokenizer as the chat endpoints,
// the fields only an answer takes refused, and a beta field refused without its header.
import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { THINKING_BINDING_BETA } from '../../src/core';
import { startFakeApi, type FakeApi } from './server';

let fake: FakeApi;
beforeAll(async () => {
  fake = await startFakeApi({ deltaDelayMs: 0 });
});
afterEach(() => fake.reset());
afterAll(() => fake.close());

const anthropic = () => new Anthropic({ apiKey: 'sk-ant-test-key', baseURL: fake.url, maxRetries: 0 });
const openai = () => new OpenAI({ apiKey: 'sk-proj-test-key-1234', baseURL: `${fake.url}/v1`, maxRetries: 0 });

async function post(path: string, body: unknown, headers: Record<string, string>) {
  const response = await fetch(`${fake.url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
  });
  return { status: response.status, body: (await response.json()) as { error?: { message: string }; input_tokens?: number; object?: string } };
}

describe('Anthropic count_tokens', () => {
  const params = {
    model: 'claude-sonnet-4-6',
    system: 'Answer in one line.',
    tools: [{ name: 'lookup', description: 'Looks a word up.', input_schema: { type: 'object' as const, properties: { q: { type: 'string' } } } }],
    messages: [
      { role: 'user' as const, content: 'What does the word window mean in this app, and how long is it?' },
      { role: 'assistant' as const, content: 'It is the context the model reads.' },
      { role: 'user' as const, content: 'And the gauge?' },
    ],
  };

  it('counts a request with tools and history as the usage of its answer reports it', async () => {
    const counted = await anthropic().messages.countTokens(params);
    const answer = await anthropic().messages.create({ ...params, max_tokens: 30 });
    expect(counted.input_tokens).toBeGreaterThan(40);
    expect(counted.input_tokens).toBe(
      answer.usage.input_tokens + (answer.usage.cache_read_input_tokens ?? 0) + (answer.usage.cache_creation_input_tokens ?? 0),
    );
    expect(fake.requests.filter((r) => r.path === '/v1/messages/count_tokens')).toHaveLength(1);
  });

  it('refuses max_tokens and stream, which only an answer takes', async () => {
    const headers = { 'x-api-key': 'sk-ant-test-key', 'anthropic-version': '2023-06-01' };
    const withMax = await post('/v1/messages/count_tokens', { ...params, max_tokens: 10 }, headers);
    expect(withMax.status).toBe(400);
    expect(withMax.body.error?.message).toBe('max_tokens: Extra inputs are not permitted');
    const withStream = await post('/v1/messages/count_tokens', { ...params, stream: true }, headers);
    expect(withStream.body.error?.message).toBe('stream: Extra inputs are not permitted');
    expect((await post('/v1/messages/count_tokens', params, headers)).body.input_tokens).toBeGreaterThan(0);
  });

  it('needs the beta header for thinking.block_binding, on the count as on the request', async () => {
    const body = {
      model: 'claude-opus-4-8',
      thinking: { type: 'adaptive', block_binding: { prefix_mismatch_behavior: 'drop_block' } },
      messages: [{ role: 'user', content: 'Think about it.' }],
    };
    const headers = { 'x-api-key': 'sk-ant-test-key', 'anthropic-version': '2023-06-01' };
    for (const path of ['/v1/messages/count_tokens', '/v1/messages']) {
      const extra = path === '/v1/messages' ? { max_tokens: 50 } : {};
      const without = await post(path, { ...body, ...extra }, headers);
      expect(without.status, path).toBe(400);
      expect(without.body.error?.message, path).toBe('thinking.block_binding: Extra inputs are not permitted');
      const withBeta = await post(path, { ...body, ...extra }, { ...headers, 'anthropic-beta': `other-beta, ${THINKING_BINDING_BETA}` });
      expect(withBeta.status, path).toBe(200);
    }
  });
});

describe('OpenAI responses/input_tokens', () => {
  const params = {
    model: 'gpt-5.4-mini',
    instructions: 'Answer in one line.',
    input: [
      { role: 'user' as const, content: 'What does the word window mean in this app, and how long is it?' },
      { role: 'assistant' as const, content: 'It is the context the model reads.' },
      { role: 'user' as const, content: 'And the gauge?' },
    ],
  };

  it('answers response.input_tokens with the count the Responses usage reports', async () => {
    const counted = await openai().responses.inputTokens.count(params);
    const answer = await openai().responses.create({ ...params, max_output_tokens: 30, store: false });
    expect(counted.object).toBe('response.input_tokens');
    expect(counted.input_tokens).toBeGreaterThan(20);
    expect(counted.input_tokens).toBe(answer.usage?.input_tokens);
    expect(fake.requests.at(-2)?.path).toBe('/v1/responses/input_tokens');
  });

  it('is routed without the /v1 prefix too, and checks the body as /v1/responses does', async () => {
    const headers = { authorization: 'Bearer sk-proj-test-key-1234' };
    const bare = await post('/responses/input_tokens', params, headers);
    expect(bare.body).toEqual({ object: 'response.input_tokens', input_tokens: (await openai().responses.inputTokens.count(params)).input_tokens });
    const empty = await post('/v1/responses/input_tokens', { ...params, input: [] }, headers);
    expect(empty.status).toBe(400);
    const noKey = await post('/v1/responses/input_tokens', params, {});
    expect(noKey.status).toBe(401);
  });

  it('refuses what only a response takes', async () => {
    const headers = { authorization: 'Bearer sk-proj-test-key-1234' };
    for (const [field, value] of [
      ['max_output_tokens', 100],
      ['store', false],
      ['include', ['reasoning.encrypted_content']],
      ['stream', true],
    ] as const) {
      const answer = await post('/v1/responses/input_tokens', { ...params, [field]: value }, headers);
      expect(answer.status, field).toBe(400);
      expect(answer.body.error?.message, field).toBe(`Unknown parameter: '${field}'.`);
    }
  });

  it('is never failed by an injected failure, which waits for the next chat request', async () => {
    fake.failNext('429');
    expect((await openai().responses.inputTokens.count(params)).input_tokens).toBeGreaterThan(0);
    await expect(openai().responses.create({ ...params, max_output_tokens: 30 })).rejects.toMatchObject({ status: 429 });
  });
});
