// @vitest-environment node
// listModels against the fake of each API over real HTTP, and against hostile answers.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WindowpaneError } from '../../src/core';
import { listModels } from '../../src/providers';
import { startFakeApi, type FakeApi } from '../fake-api/server';

let fake: FakeApi;
beforeAll(async () => {
  fake = await startFakeApi({
    models: { anthropic: Array.from({ length: 1500 }, (_, i) => `claude-${i}`) },
    contextWindow: { 'claude-0': 300_000, '*': 200_000 },
    ollama: { 'llama3.2:latest': { contextLength: 131_072 }, 'qwen3:8b': { contextLength: 40_960, architecture: 'qwen3', numCtx: 8192 } },
  });
});
afterAll(() => fake.close());

/** A fetch that answers every request with `body` (a string is sent as is). */
const answering =
  (body: unknown, status = 200, contentType = 'application/json'): typeof fetch =>
  async () =>
    new Response(typeof body === 'string' ? body : JSON.stringify(body), { status, headers: { 'content-type': contentType } });

const failure = (promise: Promise<unknown>) =>
  promise.then(
    () => undefined,
    (error: unknown) => error as WindowpaneError,
  );

describe('listModels', () => {
  it('reads every page of Anthropic’s list, with each model’s window and output limit', async () => {
    const listing = await listModels({ provider: 'anthropic', apiKey: 'sk-ant-test', baseUrl: fake.url });
    expect(listing.models).toHaveLength(1500);
    expect(listing.truncated).toBe(false);
    expect(listing.models[0]).toEqual({ id: 'claude-0', label: 'claude-0', contextWindow: 300_000, maxOutputTokens: 64_000 });
    const pages = fake.requests.filter((r) => r.path === '/v1/models');
    expect(pages).toHaveLength(2);
    expect(pages.every((r) => r.status === 200 && r.authForm !== null)).toBe(true);
  });

  it('reads an Ollama server’s windows from /api/show, num_ctx first', async () => {
    const listing = await listModels({ provider: 'openai-compatible', apiKey: '', baseUrl: `${fake.url}/v1` });
    expect(listing.models).toEqual([
      { id: 'llama3.2:latest', contextWindow: 131_072 },
      { id: 'qwen3:8b', contextWindow: 8192 },
    ]);
  });

  it('reads OpenRouter’s windows from its list and asks nothing of Ollama’s API', async () => {
    const before = fake.requests.length;
    const listing = await listModels({ provider: 'openai-compatible', apiKey: 'sk-or-test', baseUrl: `${fake.url}/api/v1` });
    expect(listing.models[0]).toEqual({ id: 'meta-llama/llama-4-scout', label: 'Meta: Llama 4 Scout', contextWindow: 327_680, maxOutputTokens: 16_384 });
    expect(fake.requests.slice(before).map((r) => r.path)).toEqual(['/api/v1/models']);
  });

  it('says plainly that a key was refused', async () => {
    const error = await failure(listModels({ provider: 'anthropic', apiKey: 'sk-ant-invalid-key-123456', baseUrl: fake.url }));
    expect(error).toBeInstanceOf(WindowpaneError);
    expect(error).toMatchObject({ code: 'auth', message: 'The key was refused (401) by Anthropic. Check that it is complete and still active.' });
    const openai = await failure(listModels({ provider: 'openai', apiKey: 'sk-proj-invalid-key-123456', baseUrl: `${fake.url}/v1` }));
    expect(openai?.message).toMatch(/^The key was refused \(401\) by OpenAI\./);
    expect(openai?.message).not.toContain('invalid-key-123456');
  });

  it('says plainly that a server could not be reached', async () => {
    const closed = await startFakeApi();
    const url = closed.url;
    await closed.close();
    const error = await failure(listModels({ provider: 'openai-compatible', apiKey: '', baseUrl: `${url}/v1` }));
    expect(error).toMatchObject({ code: 'network' });
    expect(error?.message).toMatch(new RegExp(`^Could not reach ${url.replace(/[.]/g, '\\.')} to list its models\\. Check the base URL`));
  });

  it('fails clearly on an answer that is not JSON, or not a list', async () => {
    const html = await failure(
      listModels({ provider: 'openai', apiKey: 'sk-test', baseUrl: 'https://proxy.example/v1' }, { fetch: answering('<html>Login</html>', 200, 'text/html') }),
    );
    expect(html).toMatchObject({ code: 'provider', message: 'OpenAI answered, but not with a list of models: the answer is not JSON.' });
    const wrong = await failure(
      listModels({ provider: 'anthropic', apiKey: 'sk-ant-test', baseUrl: 'https://proxy.example' }, { fetch: answering({ models: [] }) }),
    );
    expect(wrong?.message).toBe('Anthropic answered, but not with a list of models: the answer has no "data" list of models.');
  });

  it('stops paging a server that never says it is done', async () => {
    const page = { data: [{ id: 'claude-loop' }], has_more: true, first_id: 'claude-loop', last_id: 'claude-loop' };
    let calls = 0;
    const loop: typeof fetch = async () => {
      calls++;
      return new Response(JSON.stringify({ ...page, last_id: `cursor-${calls}` }), { headers: { 'content-type': 'application/json' } });
    };
    const listing = await listModels({ provider: 'anthropic', apiKey: 'sk-ant-test', baseUrl: 'https://proxy.example' }, { fetch: loop });
    expect(listing).toEqual({ models: [{ id: 'claude-loop' }], truncated: true });
    expect(calls).toBeLessThanOrEqual(5);
  });

  it('never sends a key unencrypted to another machine without the user’s confirmation', async () => {
    let called = false;
    const spy: typeof fetch = async () => {
      called = true;
      return new Response('{}');
    };
    const error = await failure(
      listModels({ provider: 'openai-compatible', apiKey: 'sk-secret-1234', baseUrl: 'http://192.168.1.20:11434/v1' }, { fetch: spy }),
    );
    expect(error).toMatchObject({ code: 'invalid_config' });
    expect(called).toBe(false);
  });
});
