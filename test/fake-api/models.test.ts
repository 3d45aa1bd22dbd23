// @vitest-environment node
// The fake's model lists against the shapes the providers document (see models.ts).
import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeApi, type FakeApi } from './server';

let fake: FakeApi;
beforeAll(async () => {
  fake = await startFakeApi({
    models: { anthropic: ['claude-a', 'claude-b', 'claude-c', 'claude-d', 'claude-e'] },
    contextWindow: { 'claude-a': 300_000, '*': 200_000 },
    maxOutputTokens: { 'claude-a': 500_000, '*': 32_000 },
  });
});
afterAll(() => fake.close());

const anthropic = () => new Anthropic({ apiKey: 'sk-ant-test-key', baseURL: fake.url, maxRetries: 0 });

describe('Anthropic GET /v1/models', () => {
  it('pages with limit and after_id, each model with max_input_tokens and max_tokens (never above the window)', async () => {
    const first = await anthropic().models.list({ limit: 2 });
    expect(first.data.map((m) => m.id)).toEqual(['claude-a', 'claude-b']);
    expect(first).toMatchObject({ has_more: true, first_id: 'claude-a', last_id: 'claude-b' });
    expect(first.data[0]).toMatchObject({ type: 'model', display_name: 'claude-a', max_input_tokens: 300_000, max_tokens: 300_000 });
    expect(first.data[1]).toMatchObject({ max_input_tokens: 200_000, max_tokens: 32_000 });
    const all: string[] = [];
    for await (const model of anthropic().models.list({ limit: 2 })) all.push(model.id);
    expect(all).toEqual(['claude-a', 'claude-b', 'claude-c', 'claude-d', 'claude-e']);
    const last = await anthropic().models.list({ limit: 2, after_id: 'claude-d' });
    expect(last).toMatchObject({ has_more: false, first_id: 'claude-e', last_id: 'claude-e' });
  });

  it('lists 20 by default and refuses a limit outside 1–1000', async () => {
    const many = await startFakeApi({ models: { anthropic: Array.from({ length: 25 }, (_, i) => `claude-${i}`) } });
    try {
      const page = await new Anthropic({ apiKey: 'k', baseURL: many.url, maxRetries: 0 }).models.list();
      expect(page.data).toHaveLength(20);
      expect(page.has_more).toBe(true);
      const error = await new Anthropic({ apiKey: 'k', baseURL: many.url, maxRetries: 0 }).models.list({ limit: 1001 }).catch((e: unknown) => e);
      expect(error).toMatchObject({ status: 400 });
    } finally {
      await many.close();
    }
  });

  it('keeps the key, version and browser-access checks', async () => {
    const get = (headers: Record<string, string>) => fetch(`${fake.url}/v1/models`, { headers });
    expect((await get({ 'x-api-key': 'sk-ant-invalid', 'anthropic-version': '2023-06-01' })).status).toBe(401);
    expect((await get({ 'x-api-key': 'sk-ant-ok', 'anthropic-version': '1999-01-01' })).status).toBe(400);
    const fromPage = await get({ 'x-api-key': 'sk-ant-ok', 'anthropic-version': '2023-06-01', origin: 'http://localhost:5173' });
    expect(fromPage.status).toBe(401);
    expect(await fromPage.json()).toMatchObject({ error: { message: "CORS requests must set 'anthropic-dangerous-direct-browser-access' header" } });
  });
});

describe('OpenAI-shaped lists', () => {
  it('answers OpenAI’s GET /v1/models with ids only', async () => {
    const list = await new OpenAI({ apiKey: 'sk-test', baseURL: `${fake.url}/v1`, maxRetries: 0 }).models.list();
    expect(list.data[0]).toEqual({ id: 'gpt-5.5', object: 'model', created: expect.any(Number), owned_by: 'system' });
  });

  it('answers OpenRouter’s GET /api/v1/models with context_length and the top provider’s limits, and chats there', async () => {
    const client = new OpenAI({ apiKey: 'sk-or-test', baseURL: `${fake.url}/api/v1`, maxRetries: 0 });
    const body = (await (await client.models.list().asResponse()).json()) as { data: Record<string, unknown>[] };
    expect(body.data[0]).toMatchObject({
      id: 'meta-llama/llama-4-scout',
      name: 'Meta: Llama 4 Scout',
      context_length: 327_680,
      top_provider: { context_length: 327_680, max_completion_tokens: 16_384 },
    });
    const answer = await client.chat.completions.create({ model: 'meta-llama/llama-4-scout', messages: [{ role: 'user', content: 'hi' }] });
    expect(answer.choices[0]!.message.content).toContain('Answer');
  });
});

describe('Ollama', () => {
  it('lists pulled models at /api/tags and their /v1/models ids, and shows each one’s context length', async () => {
    const ollama = await startFakeApi({
      ollama: { 'llama3.2:latest': { contextLength: 131_072 }, 'gemma3:4b': { contextLength: 131_072, architecture: 'gemma3', numCtx: 16_384 } },
    });
    try {
      const tags = (await (await fetch(`${ollama.url}/api/tags`)).json()) as { models: { name: string; model: string }[] };
      expect(tags.models.map((m) => m.name)).toEqual(['llama3.2:latest', 'gemma3:4b']);
      const list = await new OpenAI({ apiKey: 'not-needed', baseURL: `${ollama.url}/v1`, maxRetries: 0 }).models.list();
      expect(list.data.map((m) => [m.id, m.owned_by])).toEqual([
        ['llama3.2:latest', 'library'],
        ['gemma3:4b', 'library'],
      ]);
      const show = async (body: unknown) => {
        const response = await fetch(`${ollama.url}/api/show`, { method: 'POST', body: JSON.stringify(body) });
        return { status: response.status, body: (await response.json()) as Record<string, unknown> };
      };
      expect(await show({ model: 'llama3.2' })).toMatchObject({
        status: 200,
        body: { model_info: { 'general.architecture': 'llama', 'llama.context_length': 131_072 } },
      });
      const gemma = await show({ model: 'gemma3:4b' });
      expect(gemma.body).toMatchObject({ model_info: { 'gemma3.context_length': 131_072 } });
      expect(gemma.body.parameters).toMatch(/^num_ctx\s+16384$/m);
      expect(await show({ model: 'missing' })).toEqual({ status: 404, body: { error: "model 'missing' not found" } });
    } finally {
      await ollama.close();
    }
  });
});
