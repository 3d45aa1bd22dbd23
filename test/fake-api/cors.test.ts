// @vitest-environment node
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeApi, type FakeApi } from './server';

const APP_ORIGIN = 'http://127.0.0.1:4173';
let fake: FakeApi;

beforeAll(async () => {
  fake = await startFakeApi({ deltaDelayMs: 0 });
});
afterAll(() => fake.close());

describe('CORS', () => {
  it('answers a preflight with 204, the origin and the requested headers echoed', async () => {
    const requested = 'anthropic-dangerous-direct-browser-access,anthropic-version,authorization,content-type,x-stainless-retry-count';
    const response = await fetch(`${fake.url}/v1/messages`, {
      method: 'OPTIONS',
      headers: { origin: APP_ORIGIN, 'access-control-request-method': 'POST', 'access-control-request-headers': requested },
    });
    expect(response.status).toBe(204);
    expect(response.headers.get('access-control-allow-origin')).toBe(APP_ORIGIN);
    expect(response.headers.get('access-control-allow-methods')).toContain('POST');
    expect(response.headers.get('access-control-allow-headers')).toBe(requested);
    expect(fake.requests.at(-1)).toMatchObject({ method: 'OPTIONS', status: 204 });
  });

  it('allows Authorization even when a preflight names no headers, and answers private-network preflights', async () => {
    const response = await fetch(`${fake.url}/v1/chat/completions`, {
      method: 'OPTIONS',
      headers: { origin: APP_ORIGIN, 'access-control-request-method': 'POST', 'access-control-request-private-network': 'true' },
    });
    expect(response.headers.get('access-control-allow-headers')).toContain('authorization');
    expect(response.headers.get('access-control-allow-private-network')).toBe('true');
  });

  it('puts CORS headers on errors and on event streams, exposing retry-after and request ids', async () => {
    fake.failNext('429', { provider: 'openai' });
    const error = await fetch(`${fake.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { origin: APP_ORIGIN, 'content-type': 'application/json', authorization: 'Bearer sk-test' },
      body: JSON.stringify({ model: 'gpt-5.5', messages: [{ role: 'user', content: 'hi' }] }),
    });
    expect(error.status).toBe(429);
    expect(error.headers.get('access-control-allow-origin')).toBe(APP_ORIGIN);
    const exposed = error.headers.get('access-control-expose-headers') ?? '';
    for (const name of ['retry-after', 'request-id', 'x-request-id', 'anthropic-ratelimit-requests-remaining', 'x-ratelimit-remaining-tokens']) {
      expect(exposed).toContain(name);
    }

    const stream = await fetch(`${fake.url}/v1/messages`, {
      method: 'POST',
      headers: {
        origin: APP_ORIGIN,
        'content-type': 'application/json',
        authorization: 'Bearer sk-ant-test',
        'anthropic-version': '2026-10-21',
        'anthropic-dangerous-direct-browser-access': 'true',
      },
      body: JSON.stringify({ model: 'claude-haiku-4-5', max_tokens: 30, stream: true, messages: [{ role: 'user', content: 'hi' }] }),
    });
    expect(stream.headers.get('content-type')).toMatch(/^text\/event-stream/);
    expect(stream.headers.get('access-control-allow-origin')).toBe(APP_ORIGIN);
    expect(stream.headers.get('request-id')).toMatch(/^req_011C/);
    await stream.text();
  });

  it('can answer without CORS headers, which a browser treats as a network failure', async () => {
    fake.failNext('cors');
    const response = await fetch(`${fake.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { origin: APP_ORIGIN, 'content-type': 'application/json', authorization: 'Bearer sk-test' },
      body: JSON.stringify({ model: 'gpt-5.5', messages: [{ role: 'user', content: 'hi' }] }),
    });
    expect(response.headers.get('access-control-allow-origin')).toBeNull();
    expect(fake.requests.at(-1)!.injectedFailure).toBe('cors');
    await response.text();
  });

  it('binds to the loopback address only', () => {
    expect(new URL(fake.url).hostname).toBe('127.0.0.1');
  });
});
