import { describe, expect, it } from 'vitest';
import { createAnthropicProvider } from '../../src/providers/anthropic';
import { sdkRetryDelayMs, sdkWillRetryStatus } from '../../src/providers/retryObserver';
import type { RetryInfo } from '../../src/providers/types';
import { anthropicTextStream, scriptedFetch } from './wireResponses';

const NOW = Date.parse('2026-11-22T10:00:00Z');
const headers = (values: Record<string, string>) => new Headers(values);

describe('the SDKs’ retry rules, mirrored', () => {
  it('retries 408, 409, 429 and 5xx unless the server says otherwise', () => {
    expect([400, 401, 404, 408, 409, 429, 500, 529].map((s) => sdkWillRetryStatus(s, headers({})))).toEqual([
      false,
      false,
      false,
      true,
      true,
      true,
      true,
      true,
    ]);
    expect(sdkWillRetryStatus(429, headers({ 'x-should-retry': 'false' }))).toBe(false);
    expect(sdkWillRetryStatus(400, headers({ 'x-should-retry': 'true' }))).toBe(true);
  });

  it('prefers retry-after-ms, then retry-after in seconds or as a date', () => {
    expect(sdkRetryDelayMs(headers({ 'retry-after-ms': '250', 'retry-after': '9' }), 0, 'anthropic', NOW)).toBe(250);
    expect(sdkRetryDelayMs(headers({ 'retry-after': '9' }), 0, 'openai', NOW)).toBe(9000);
    expect(sdkRetryDelayMs(headers({ 'retry-after': 'Sun, 22 Nov 2026 10:00:30 GMT' }), 0, 'anthropic', NOW)).toBe(30_000);
  });

  it('honours a long retry-after on Anthropic but falls back to backoff beyond 60 s on OpenAI', () => {
    expect(sdkRetryDelayMs(headers({ 'retry-after': '120' }), 0, 'anthropic', NOW)).toBe(120_000);
    expect(sdkRetryDelayMs(headers({ 'retry-after': '120' }), 0, 'openai', NOW)).toBe(500);
    expect(sdkRetryDelayMs(headers({ 'retry-after': '120' }), 1, 'openai', NOW)).toBe(1000);
    expect(sdkRetryDelayMs(headers({}), 5, 'anthropic', NOW)).toBe(8000);
  });

  it('reports a connection failure the SDK retries, with its backoff', async () => {
    const { fetch, requests } = scriptedFetch([new TypeError('fetch failed'), anthropicTextStream('Reconnected')]);
    const provider = await createAnthropicProvider({ provider: 'anthropic', apiKey: 'sk-ant-test-key-0001', model: 'm' }, { fetch, maxRetries: 1 });
    const retries: RetryInfo[] = [];
    const result = await provider.send(
      { model: 'claude-sonnet-4-6', maxTokens: 50, messages: [{ role: 'user', content: 'Hi' }] },
      { onRetry: (info) => retries.push(info) },
    );
    expect(result.content).toEqual([{ type: 'text', text: 'Reconnected' }]);
    expect(requests).toHaveLength(2);
    expect(retries).toEqual([{ attempt: 1, maxRetries: 1, delayMs: 500, reason: 'network' }]);
  });
});
