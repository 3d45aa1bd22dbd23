// @vitest-environment node
// Images in tool results, as the real APIs document them: Anthropic's tool_result takes text
// and image blocks, the Responses API's function_call_output a list of input_text and
// input_image parts, both priced by the image formula; Chat Completions' tool messages take text only.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { anthropicImageTokens, openAiImageTokens } from '../../src/core';
import { pngBytes } from './mediaFixtures';
import { startFakeApi, type FakeApi } from './server';

let fake: FakeApi;
beforeAll(async () => {
  fake = await startFakeApi({ deltaDelayMs: 0, contextWindow: 200_000 });
});
afterEach(() => fake.reset());
afterAll(() => fake.close());

type Answer = { status: number; body: { error?: { message: string }; input_tokens?: number } };

async function post(path: string, body: unknown): Promise<Answer> {
  const response = await fetch(`${fake.url}${path}`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      'x-api-key': 'sk-ant-test-key',
      'anthropic-version': '2023-06-01',
      authorization: 'Bearer sk-proj-test-1234',
    },
    body: JSON.stringify(body),
  });
  return { status: response.status, body: (await response.json()) as Answer['body'] };
}

const png = pngBytes(800, 600).toString('base64');
const tool = { name: 'chart', description: 'Draws a chart.', input_schema: { type: 'object' } };

function claude(result: unknown) {
  return {
    model: 'claude-sonnet-4-6',
    tools: [tool],
    messages: [
      { role: 'user', content: 'Draw it.' },
      { role: 'assistant', content: [{ type: 'tool_use', id: 'toolu_1', name: 'chart', input: {} }] },
      { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_1', content: result }] },
    ],
  };
}

function responses(output: unknown) {
  return {
    model: 'gpt-5.4-mini',
    tools: [{ type: 'function', name: 'chart', description: 'Draws a chart.', parameters: { type: 'object', properties: {} }, strict: false }],
    input: [
      { role: 'user', content: 'Draw it.' },
      { type: 'function_call', call_id: 'call_1', name: 'chart', arguments: '{}' },
      { type: 'function_call_output', call_id: 'call_1', output },
    ],
  };
}

/**
 * What an image adds to the count at `path`: the count of a request whose tool result holds
 * `text` and `image` (made by `request`), less that of one holding `text` alone; both accepted.
 */
async function imageAddsTokens(path: string, request: (result: unknown[]) => unknown, text: unknown, image: unknown): Promise<number> {
  const withImage = await post(path, request([text, image]));
  const textOnly = await post(path, request([text]));
  expect(withImage.status).toBe(200);
  expect(textOnly.status).toBe(200);
  return withImage.body.input_tokens! - textOnly.body.input_tokens!;
}

describe('Anthropic: a tool_result with images', () => {
  it('is accepted and counts each image by the formula', async () => {
    const image = { type: 'image', source: { type: 'base64', media_type: 'image/png', data: png } };
    const added = await imageAddsTokens('/v1/messages/count_tokens', claude, { type: 'text', text: 'The chart.' }, image);
    expect(added).toBe(anthropicImageTokens(800, 600, 'claude-sonnet-4-6'));
  });

  it('refuses an image whose bytes are not of its media type', async () => {
    const answer = await post('/v1/messages', {
      ...claude([{ type: 'image', source: { type: 'base64', media_type: 'image/jpeg', data: png } }]),
      max_tokens: 50,
    });
    expect(answer.status).toBe(400);
    expect(answer.body.error?.message).toMatch(/image/i);
  });
});

describe('Responses API: a function_call_output with images', () => {
  it('is accepted and counts each image by the formula', async () => {
    const image = { type: 'input_image', image_url: `data:image/png;base64,${png}`, detail: 'auto' };
    const added = await imageAddsTokens('/v1/responses/input_tokens', responses, { type: 'input_text', text: 'The chart.' }, image);
    expect(added).toBe(openAiImageTokens(800, 600, 'auto', 'gpt-5.4-mini'));
  });

  it('refuses a part an output cannot hold', async () => {
    const answer = await post('/v1/responses', responses([{ type: 'output_text', text: 'The chart.' }]));
    expect(answer.status).toBe(400);
    expect(answer.body.error?.message).toMatch(/output_text/);
  });
});

describe('Chat Completions: a tool message', () => {
  it('refuses an image, which only user messages may carry', async () => {
    const answer = await post('/v1/chat/completions', {
      model: 'gpt-4o',
      tools: [{ type: 'function', function: { name: 'chart', parameters: { type: 'object' } } }],
      messages: [
        { role: 'user', content: 'Draw it.' },
        { role: 'assistant', content: null, tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'chart', arguments: '{}' } }] },
        {
          role: 'tool',
          tool_call_id: 'call_1',
          content: [
            { type: 'text', text: 'The chart.' },
            { type: 'image_url', image_url: { url: `data:image/png;base64,${png}` } },
          ],
        },
      ],
    });
    expect(answer.status).toBe(400);
    expect(answer.body.error?.message).toBe(
      "Invalid 'messages[2]'. Image URLs are only allowed for messages with role 'user', but this message with role 'tool' contains an image URL.",
    );
  });
});
