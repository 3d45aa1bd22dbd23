import { describe, expect, it } from 'vitest';
import { isWindowpaneError, WindowpaneError } from '../../src/core';
import type { ErrorCode } from '../../src/core';
import { createAnthropicProvider } from '../../src/providers/anthropic';
import { redactSecrets } from '../../src/providers/errors';
import { createOpenAIProvider } from '../../src/providers/openai';
import type { ChatProvider, RetryInfo } from '../../src/providers/types';
import {
  anthropicError,
  anthropicFrames,
  anthropicMessageStart,
  anthropicTextStream,
  jsonResponse,
  openAIError,
  responsesTextStream,
  scriptedFetch,
  sseResponse,
} from './wireResponses';

const ANTHROPIC_KEY = 'sk-ant-api03-Zq8VfakeKEYfakeKEYfakeKEY-9xYwAA';
const OPENAI_KEY = 'sk-proj-fakeKEYfakeKEYfakeKEYwxyz';

async function failure(provider: ChatProvider, model: string): Promise<WindowpaneError> {
  try {
    await provider.send({ model, maxTokens: 100, messages: [{ role: 'user', content: 'Hello' }] });
  } catch (error) {
    expect(error).toBeInstanceOf(WindowpaneError);
    return error as WindowpaneError;
  }
  throw new Error('expected the send to fail');
}

function expectNoKey(error: WindowpaneError, key: string) {
  const shown = JSON.stringify({ message: error.message, details: error.details });
  expect(shown).not.toContain(key);
  expect(shown).not.toContain(key.slice(0, 16));
}

async function anthropicWith(response: Response | Error, baseUrl?: string) {
  const { fetch } = scriptedFetch([response]);
  return createAnthropicProvider({ provider: 'anthropic', apiKey: ANTHROPIC_KEY, model: 'claude-sonnet-4-6', baseUrl }, { fetch, maxRetries: 0 });
}

async function openAIWith(response: Response | Error, compatible = false) {
  const { fetch } = scriptedFetch([response]);
  return createOpenAIProvider(
    compatible
      ? { provider: 'openai-compatible', apiKey: '', model: 'llama3.2', baseUrl: 'http://localhost:11434/v1' }
      : { provider: 'openai', apiKey: OPENAI_KEY, model: 'gpt-5.5' },
    { fetch, maxRetries: 0 },
  );
}

describe('Anthropic errors through the SDK', () => {
  const cases: Array<[string, Response, ErrorCode, RegExp]> = [
    [
      '401 bad key',
      anthropicError(401, 'authentication_error', 'invalid x-api-key'),
      'auth',
      /^The API key was rejected by Anthropic\. Check it in Settings\.$/,
    ],
    ['403 permission', anthropicError(403, 'permission_error', 'Your API key does not have permission to use the specified resource.'), 'auth', /permission/],
    ['404 model', anthropicError(404, 'not_found_error', 'model: claude-sonnet-4-6'), 'unknown_model', /“claude-sonnet-4-6” was not found at Anthropic/],
    [
      '429 rate limit',
      anthropicError(429, 'rate_limit_error', 'This request would exceed the rate limit for your organization.', { 'retry-after': '17' }),
      'rate_limit',
      /Try again in 17 s\./,
    ],
    ['529 overloaded', anthropicError(529, 'overloaded_error', 'Overloaded'), 'overloaded', /overloaded right now/],
    ['500 internal', anthropicError(500, 'api_error', 'Internal server error'), 'provider', /internal error \(HTTP 500\)/],
    ['400 other', anthropicError(400, 'invalid_request_error', 'messages.1.content.0.tool_use.input: Field required'), 'bad_request', /Field required/],
  ];
  for (const [name, response, code, message] of cases) {
    it(`translates ${name}`, async () => {
      const error = await failure(await anthropicWith(response), 'claude-sonnet-4-6');
      expect(error.code).toBe(code);
      expect(error.message).toMatch(message);
      expectNoKey(error, ANTHROPIC_KEY);
    });
  }

  it('reads the counts from "prompt is too long"', async () => {
    const error = await failure(
      await anthropicWith(anthropicError(400, 'invalid_request_error', 'prompt is too long: 208310 tokens > 200000 maximum')),
      'claude-sonnet-4-6',
    );
    expect(error.code).toBe('context_length');
    expect(error.details).toMatchObject({ promptTokens: 208_310, limit: 200_000, status: 400 });
    expect(error.message).toContain('208,310 tokens, limit 200,000');
  });

  it('keeps the retry-after seconds for the UI', async () => {
    const error = await failure(await anthropicWith(anthropicError(429, 'rate_limit_error', 'Rate limited', { 'retry-after': '42' })), 'claude-sonnet-4-6');
    expect(error.details.retryAfterSeconds).toBe(42);
  });

  it('calls a failed fetch a network error and names the base URL, with CORS advice for a custom endpoint', async () => {
    const direct = await failure(await anthropicWith(new TypeError('Failed to fetch')), 'claude-sonnet-4-6');
    expect(direct.code).toBe('network');
    expect(direct.message).toBe(
      'Could not reach Anthropic at https://api.anthropic.com: the connection failed, so this device may be offline. Check your internet connection and try again.',
    );
    const proxy = await failure(await anthropicWith(new TypeError('Failed to fetch'), 'https://llm-proxy.example.com/v1'), 'claude-sonnet-4-6');
    expect(proxy.code).toBe('network');
    expect(proxy.message).toContain('https://llm-proxy.example.com');
    expect(proxy.message).toContain('CORS');
  });

  it('translates an error event in the middle of a stream and keeps the text that arrived', async () => {
    const response = sseResponse([
      ...anthropicFrames([
        anthropicMessageStart(),
        { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } },
        { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 'The first half' } },
      ]),
      `event: error\ndata: ${JSON.stringify({ type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } })}\n\n`,
    ]);
    const error = await failure(await anthropicWith(response), 'claude-sonnet-4-6');
    expect(error.code).toBe('overloaded');
    expect(error.details.partialContent).toEqual([{ type: 'text', text: 'The first half' }]);
  });
});

describe('OpenAI errors through the SDK', () => {
  it('translates 401 without repeating the (masked) key', async () => {
    const error = await failure(
      await openAIWith(
        openAIError(401, {
          message: 'Incorrect API key provided: sk-proj-********************wxyz. You can find your API key at https://platform.openai.com/account/api-keys.',
          type: 'invalid_request_error',
          code: 'invalid_api_key',
        }),
      ),
      'gpt-5.5',
    );
    expect(error.code).toBe('auth');
    expect(error.message).toBe('The API key was rejected by OpenAI. Check it in Settings.');
    expectNoKey(error, OPENAI_KEY);
    expect(String(error.details.apiMessage)).not.toContain('wxyz');
  });

  it('translates 404 model_not_found', async () => {
    const error = await failure(
      await openAIWith(
        openAIError(404, {
          message: 'The model `gpt-9` does not exist or you do not have access to it.',
          type: 'invalid_request_error',
          code: 'model_not_found',
        }),
      ),
      'gpt-9',
    );
    expect(error.code).toBe('unknown_model');
    expect(error.message).toContain('“gpt-9”');
  });

  it('translates 429 with retry-after, and an exhausted quota as a billing problem', async () => {
    const limited = await failure(
      await openAIWith(
        openAIError(
          429,
          {
            message: 'Rate limit reached for gpt-5.5 in organization org-x on requests per min (RPM): Limit 3, Used 3, Requested 1. Please try again in 20s.',
            type: 'requests',
            code: 'rate_limit_exceeded',
          },
          { 'retry-after': '20' },
        ),
      ),
      'gpt-5.5',
    );
    expect(limited.code).toBe('rate_limit');
    expect(limited.details.retryAfterSeconds).toBe(20);
    const quota = await failure(
      await openAIWith(
        openAIError(429, {
          message: 'You exceeded your current quota, please check your plan and billing details.',
          type: 'insufficient_quota',
          code: 'insufficient_quota',
        }),
      ),
      'gpt-5.5',
    );
    expect(quota.code).toBe('rate_limit');
    expect(quota.message).toMatch(/no quota left.*billing/);
  });

  it('translates 503 as overloaded and 500 as a provider error', async () => {
    const overloaded = await failure(
      await openAIWith(openAIError(503, { message: 'The server is overloaded or not ready yet.', type: 'server_error' })),
      'gpt-5.5',
    );
    expect(overloaded.code).toBe('overloaded');
    const internal = await failure(
      await openAIWith(openAIError(500, { message: 'The server had an error while processing your request. Sorry about that!', type: 'server_error' })),
      'gpt-5.5',
    );
    expect(internal.code).toBe('provider');
  });

  it('reads the counts from context_length_exceeded', async () => {
    const error = await failure(
      await openAIWith(
        openAIError(400, {
          message:
            "This model's maximum context length is 128000 tokens. However, your messages resulted in 130532 tokens. Please reduce the length of the messages.",
          type: 'invalid_request_error',
          param: 'messages',
          code: 'context_length_exceeded',
        }),
      ),
      'gpt-5.5',
    );
    expect(error.code).toBe('context_length');
    expect(error.details).toMatchObject({ promptTokens: 130_532, limit: 128_000 });
  });

  it('explains an unreachable compatible endpoint: base URL, server running, CORS', async () => {
    const error = await failure(await openAIWith(new TypeError('Failed to fetch'), true), 'llama3.2');
    expect(error.code).toBe('network');
    expect(error.message).toContain('http://localhost:11434/v1');
    expect(error.message).toContain('CORS');
    expect(error.message).toContain('OLLAMA_ORIGINS');
  });

  it('tells a wrong base URL (404 without a model error) from an unknown model', async () => {
    const notFound = new Response('404 page not found', { status: 404, headers: { 'content-type': 'text/plain' } });
    const error = await failure(await openAIWith(notFound, true), 'llama3.2');
    expect(error.code).toBe('provider');
    expect(error.message).toContain('Check the base URL');
    const ollamaModel = await failure(
      await openAIWith(openAIError(404, { message: 'model "llama9" not found, try pulling it first', type: 'api_error' }), true),
      'llama9',
    );
    expect(ollamaModel.code).toBe('unknown_model');
  });

  it('says plainly when a compatible model cannot take tools (Ollama, vLLM), marked so the turn can go again without them', async () => {
    const ollama = await failure(
      await openAIWith(openAIError(400, { message: 'registry.ollama.ai/library/gemma2:2b does not support tools', type: 'api_error' }), true),
      'gemma2:2b',
    );
    expect(ollama.code).toBe('bad_request');
    expect(ollama.details.toolsUnsupported).toBe(true);
    expect(ollama.message).toBe(
      'The server at http://localhost:11434/v1 cannot use tools with gemma2:2b: registry.ollama.ai/library/gemma2:2b does not support tools',
    );
    const vllm = await failure(
      await openAIWith(
        openAIError(400, { message: '"auto" tool choice requires --enable-auto-tool-choice and --tool-call-parser to be set', type: 'BadRequestError' }),
        true,
      ),
      'qwen',
    );
    expect(vllm.details.toolsUnsupported).toBe(true);
    // Any other 400 is not taken for a refusal of tools.
    const other = await failure(
      await openAIWith(openAIError(400, { message: "Invalid 'tools[0].function.name': string does not match pattern.", type: 'invalid_request_error' })),
      'gpt-5.5',
    );
    expect(other.details.toolsUnsupported).toBeUndefined();
  });

  it('names the model when it cannot read images (OpenAI, Ollama, vLLM), marked so the turn can go again without them', async () => {
    const openai = await failure(
      await openAIWith(openAIError(400, { message: 'Invalid content type. image_url is only supported by certain models.', type: 'invalid_request_error' })),
      'gpt-3.5-turbo',
    );
    expect(openai.code).toBe('bad_request');
    expect(openai.details.imagesUnsupported).toBe(true);
    expect(openai.message).toBe('gpt-3.5-turbo cannot read images (OpenAI said: Invalid content type. image_url is only supported by certain models.)');
    const ollama = await failure(
      await openAIWith(openAIError(400, { message: 'this model does not support image input', type: 'api_error' }), true),
      'llama3.2',
    );
    expect(ollama.details.imagesUnsupported).toBe(true);
    const vllm = await failure(await openAIWith(openAIError(400, { message: 'qwen2 is not a multimodal model None', type: 'BadRequestError' }), true), 'qwen2');
    expect(vllm.details.imagesUnsupported).toBe(true);
    // The Responses API names its own part types.
    const responses = await failure(
      await openAIWith(openAIError(400, { message: 'Invalid content type. input_image is only supported by certain models.', type: 'invalid_request_error' })),
      'gpt-3.5-turbo',
    );
    expect(responses.message).toBe('gpt-3.5-turbo cannot read images (OpenAI said: Invalid content type. input_image is only supported by certain models.)');
    const file = await failure(
      await openAIWith(openAIError(400, { message: 'Invalid content type. input_file is only supported by certain models.', type: 'invalid_request_error' })),
      'gpt-3.5-turbo',
    );
    expect(file.message).toBe('gpt-3.5-turbo cannot read PDFs (OpenAI said: Invalid content type. input_file is only supported by certain models.)');
  });
});

describe('models that cannot read PDFs', () => {
  it('names the model, marked so the turn can go again with the text of its PDFs', async () => {
    const anthropic = await failure(
      await anthropicWith(anthropicError(400, 'invalid_request_error', 'claude-3-haiku does not support PDFs.')),
      'claude-3-haiku',
    );
    expect(anthropic.code).toBe('bad_request');
    expect(anthropic.details.imagesUnsupported).toBe(true);
    expect(anthropic.message).toBe('claude-3-haiku cannot read PDFs (Anthropic said: claude-3-haiku does not support PDFs.)');
  });
});

describe('aborts and redaction', () => {
  it('translates an aborted complete() as aborted', async () => {
    const { fetch } = scriptedFetch([anthropicTextStream('unused')]);
    const provider = await createAnthropicProvider({ provider: 'anthropic', apiKey: ANTHROPIC_KEY, model: 'm' }, { fetch });
    const controller = new AbortController();
    controller.abort();
    await expect(provider.complete('Summarize', { model: 'claude-haiku-4-5', maxTokens: 100, signal: controller.signal })).rejects.toSatisfy((error: unknown) =>
      isWindowpaneError(error, 'aborted'),
    );
  });

  it('removes the key and key-shaped strings from text', () => {
    expect(redactSecrets(`key ${ANTHROPIC_KEY} rejected`, ANTHROPIC_KEY)).toBe('key [redacted] rejected');
    expect(redactSecrets('Incorrect API key provided: sk-proj-****wxyz.')).toBe('Incorrect API key provided: sk-[redacted].');
  });
});

describe('retries are the SDK’s own, and visible', () => {
  it('reports each Anthropic retry with its retry-after delay, then streams the answer', async () => {
    const { fetch, requests } = scriptedFetch([
      anthropicError(429, 'rate_limit_error', 'Rate limited', { 'retry-after-ms': '5', 'retry-after': '1' }),
      anthropicError(529, 'overloaded_error', 'Overloaded', { 'retry-after-ms': '5' }),
      anthropicTextStream('Back again'),
    ]);
    const provider = await createAnthropicProvider({ provider: 'anthropic', apiKey: ANTHROPIC_KEY, model: 'm' }, { fetch });
    const retries: RetryInfo[] = [];
    const result = await provider.send(
      { model: 'claude-sonnet-4-6', maxTokens: 100, messages: [{ role: 'user', content: 'Hi' }] },
      { onRetry: (info) => retries.push(info) },
    );
    expect(result.content).toEqual([{ type: 'text', text: 'Back again' }]);
    expect(requests.map((r) => r.headers.get('x-stainless-retry-count'))).toEqual(['0', '1', '2']);
    expect(retries).toEqual([
      { attempt: 1, maxRetries: 2, delayMs: 5, reason: 'rate_limit', status: 429 },
      { attempt: 2, maxRetries: 2, delayMs: 5, reason: 'overloaded', status: 529 },
    ]);
  });

  it('reports an OpenAI retry, and none once retries are used up', async () => {
    const { fetch } = scriptedFetch([
      openAIError(429, { message: 'Rate limit reached', type: 'requests', code: 'rate_limit_exceeded' }, { 'retry-after-ms': '5' }),
      responsesTextStream('Fine now'),
    ]);
    const provider = await createOpenAIProvider({ provider: 'openai', apiKey: OPENAI_KEY, model: 'gpt-5.5' }, { fetch, maxRetries: 1 });
    const retries: RetryInfo[] = [];
    const result = await provider.send(
      { model: 'gpt-5.5', maxTokens: 100, messages: [{ role: 'user', content: 'Hi' }] },
      { onRetry: (info) => retries.push(info) },
    );
    expect(result.content).toEqual([{ type: 'text', text: 'Fine now' }]);
    expect(retries).toEqual([{ attempt: 1, maxRetries: 1, delayMs: 5, reason: 'rate_limit', status: 429 }]);

    const exhausted = scriptedFetch([
      () => openAIError(429, { message: 'Rate limit reached', type: 'requests', code: 'rate_limit_exceeded' }, { 'retry-after-ms': '5' }),
    ]);
    const once = await createOpenAIProvider({ provider: 'openai', apiKey: OPENAI_KEY, model: 'gpt-5.5' }, { fetch: exhausted.fetch, maxRetries: 1 });
    const seen: RetryInfo[] = [];
    await expect(
      once.send({ model: 'gpt-5.5', maxTokens: 100, messages: [{ role: 'user', content: 'Hi' }] }, { onRetry: (info) => seen.push(info) }),
    ).rejects.toSatisfy((error: unknown) => isWindowpaneError(error, 'rate_limit'));
    expect(exhausted.requests).toHaveLength(2);
    expect(seen).toHaveLength(1);
  });

  it('does not report a retry for an error the SDK will not retry', async () => {
    const { fetch, requests } = scriptedFetch([anthropicError(400, 'invalid_request_error', 'bad'), jsonResponse(200, {})]);
    const provider = await createAnthropicProvider({ provider: 'anthropic', apiKey: ANTHROPIC_KEY, model: 'm' }, { fetch });
    const retries: RetryInfo[] = [];
    await expect(
      provider.send({ model: 'claude-sonnet-4-6', maxTokens: 100, messages: [{ role: 'user', content: 'Hi' }] }, { onRetry: (info) => retries.push(info) }),
    ).rejects.toSatisfy((error: unknown) => isWindowpaneError(error, 'bad_request'));
    expect(requests).toHaveLength(1);
    expect(retries).toEqual([]);
  });
});
