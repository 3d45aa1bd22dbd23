// @vitest-environment node
import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startFakeApi, type FakeApi } from './server';

const MODEL = 'claude-opus-4-6';
const BETA = 'compact-2026-01-12';
let fake: FakeApi;

beforeAll(async () => {
  fake = await startFakeApi({ deltaDelayMs: 0, contextWindow: { '*': 400_000 } });
});
afterEach(() => fake.reset());
afterAll(() => fake.close());

const anthropic = () => new Anthropic({ apiKey: 'sk-ant-test-key', baseURL: fake.url, maxRetries: 0 });
const openai = () => new OpenAI({ apiKey: 'sk-proj-test-key-1234', baseURL: `${fake.url}/v1`, maxRetries: 0 });

/** About 60,000 tokens of filler, over the smallest trigger. */
const LONG = 'The river bends past the mill and the orchard. '.repeat(6_000);
const FACT = 'Remember: the vault code is 4711.';

async function postAnthropic(body: unknown, betas?: string, path = '/v1/messages') {
  const response = await fetch(fake.url + path, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      'x-api-key': 'sk-ant-test-key',
      'anthropic-version': '2023-06-01',
      ...(betas ? { 'anthropic-beta': betas } : {}),
    },
    body: JSON.stringify(body),
  });
  return { status: response.status, body: (await response.json()) as AnthropicReply };
}

/** What the tests read of an answer or an error. */
interface AnthropicReply {
  content: Array<{ type: string; content?: string }>;
  usage: { input_tokens: number; iterations?: Array<{ type: string; input_tokens: number }> };
  input_tokens: number;
  error: { message: string };
}

const compactAt = (value: number) => ({ edits: [{ type: 'compact_20260112', trigger: { type: 'input_tokens', value } }] });

describe('Anthropic compaction in the fake', () => {
  it('refuses compaction without its beta header, and a trigger under 50,000 tokens', async () => {
    const body = { model: MODEL, max_tokens: 100, messages: [{ role: 'user', content: 'Hi' }], context_management: compactAt(60_000) };
    const noBeta = await postAnthropic(body);
    expect(noBeta.status).toBe(400);
    expect(noBeta.body.error.message).toContain(BETA);
    const low = await postAnthropic({ ...body, context_management: compactAt(10_000) }, BETA);
    expect(low.status).toBe(400);
    expect(low.body.error.message).toMatch(/greater than or equal to 50000/);
  });

  it('under its trigger answers as usual, itemizing the one sampling step', async () => {
    const { status, body } = await postAnthropic(
      { model: MODEL, max_tokens: 100, messages: [{ role: 'user', content: 'Hi' }], context_management: compactAt(60_000) },
      BETA,
    );
    expect(status).toBe(200);
    expect(body.content.some((block: { type: string }) => block.type === 'compaction')).toBe(false);
    expect(body.usage.iterations).toEqual([expect.objectContaining({ type: 'message', input_tokens: body.usage.input_tokens })]);
  });

  it('past its trigger opens the answer with a summary that keeps what was to be remembered, billed as its own step', async () => {
    const message = await anthropic().beta.messages.create({
      betas: [BETA],
      model: MODEL,
      max_tokens: 100,
      messages: [{ role: 'user', content: `${FACT}\n${LONG}\nWhat was the code?` }],
      context_management: { edits: [{ type: 'compact_20260112', trigger: { type: 'input_tokens', value: 50_000 } }] },
    });
    const [first] = message.content;
    expect(first?.type).toBe('compaction');
    const block = first as Anthropic.Beta.BetaCompactionBlock;
    expect(block.content).toContain(FACT);
    expect(typeof block.encrypted_content).toBe('string');
    const [compaction, step] = message.usage.iterations ?? [];
    expect(compaction?.type).toBe('compaction');
    expect(compaction?.input_tokens).toBeGreaterThan(50_000);
    // The answer read the summary, not the 60,000 tokens.
    expect(step?.type).toBe('message');
    expect(message.usage.input_tokens).toBeLessThan(1_000);
    expect(fake.requests.at(-1)?.compacted?.summary).toBe(block.content);
  });

  it('streams the compaction whole in one delta before the text', async () => {
    const stream = await anthropic().beta.messages.create({
      betas: [BETA],
      model: MODEL,
      max_tokens: 100,
      stream: true,
      messages: [{ role: 'user', content: `${FACT}\n${LONG}` }],
      context_management: { edits: [{ type: 'compact_20260112', trigger: { type: 'input_tokens', value: 50_000 } }] },
    });
    const events: Anthropic.Beta.BetaRawMessageStreamEvent[] = [];
    for await (const event of stream) events.push(event);
    const start = events.find((e) => e.type === 'content_block_start');
    expect(start?.type === 'content_block_start' && start.content_block.type).toBe('compaction');
    const deltas = events.filter((e) => e.type === 'content_block_delta' && e.index === 0);
    expect(deltas).toHaveLength(1);
    expect(deltas[0]?.type === 'content_block_delta' && deltas[0].delta.type).toBe('compaction_delta');
    const end = events.find((e) => e.type === 'message_delta');
    expect(end?.type === 'message_delta' && end.usage.iterations?.map((i) => i.type)).toEqual(['compaction', 'message']);
  });

  it('reads nothing before a compaction block sent back, and refuses one that was changed or sent without the beta', async () => {
    const first = await postAnthropic(
      { model: MODEL, max_tokens: 100, messages: [{ role: 'user', content: `${FACT}\n${LONG}` }], context_management: compactAt(50_000) },
      BETA,
    );
    const compaction = first.body.content[0]!;
    const history = [
      { role: 'user', content: `${FACT}\n${LONG}` },
      { role: 'assistant', content: first.body.content },
      { role: 'user', content: 'And now?' },
    ];
    const counted = await postAnthropic({ model: MODEL, messages: history }, BETA, '/v1/messages/count_tokens');
    expect(counted.status).toBe(200);
    expect(counted.body.input_tokens).toBeLessThan(1_000);

    // The opener Windowpane puts before it is read no more than the rest.
    const opened = await postAnthropic(
      { model: MODEL, messages: [{ role: 'user', content: 'Continue.' }, ...history.slice(1)] },
      BETA,
      '/v1/messages/count_tokens',
    );
    expect(opened.body.input_tokens).toBe(counted.body.input_tokens);

    const changed = [history[0], { role: 'assistant', content: [{ ...compaction, content: `${compaction.content} (edited)` }] }, history[2]];
    const refused = await postAnthropic({ model: MODEL, max_tokens: 100, messages: changed }, BETA);
    expect(refused.status).toBe(400);
    expect(refused.body.error.message).toMatch(/encrypted_content/);

    const noBeta = await postAnthropic({ model: MODEL, max_tokens: 100, messages: history });
    expect(noBeta.status).toBe(400);
    expect(noBeta.body.error.message).toContain(BETA);
  });
});

describe('Responses API compaction in the fake', () => {
  const management = [{ type: 'compaction', compact_threshold: 50_000 }];

  it('refuses a context_management entry it does not know', async () => {
    const error = await openai()
      .responses.create({ model: 'gpt-6-luna', input: 'Hi', context_management: [{ type: 'truncate' }] } as never)
      .catch((e: unknown) => e as InstanceType<typeof OpenAI.APIError>);
    expect(error).toBeInstanceOf(OpenAI.APIError);
    expect((error as InstanceType<typeof OpenAI.APIError>).status).toBe(400);
  });

  it('past its threshold opens the output with an opaque compaction item, and reads nothing before one sent back', async () => {
    const response = await openai().responses.create({
      model: 'gpt-6-luna',
      store: false,
      input: [{ role: 'user', content: `${FACT}\n${LONG}` }],
      context_management: management,
    } as never);
    const [item] = response.output;
    expect(item?.type).toBe('compaction');
    const compaction = item as unknown as { id: string; encrypted_content: string };
    expect(compaction.encrypted_content).not.toContain('vault');
    expect(response.usage?.input_tokens).toBeLessThan(1_000);
    expect(fake.requests.at(-1)?.compacted?.summary).toContain(FACT);

    const next = await openai().responses.create({
      model: 'gpt-6-luna',
      store: false,
      input: [
        { role: 'user', content: `${FACT}\n${LONG}` },
        { type: 'compaction', id: compaction.id, encrypted_content: compaction.encrypted_content },
        { role: 'assistant', content: 'Noted.' },
        { role: 'user', content: 'And now?' },
      ],
    } as never);
    expect(next.usage?.input_tokens).toBeLessThan(1_000);

    const tampered = await openai()
      .responses.create({
        model: 'gpt-6-luna',
        store: false,
        input: [
          { type: 'compaction', encrypted_content: `${compaction.encrypted_content.slice(0, -2)}xx` },
          { role: 'user', content: 'And now?' },
        ],
      } as never)
      .catch((e: unknown) => e as InstanceType<typeof OpenAI.APIError>);
    expect((tampered as InstanceType<typeof OpenAI.APIError>).status).toBe(400);
  });

  it('streams the compaction item first, with its compacting event', async () => {
    const stream = await openai().responses.create({
      model: 'gpt-6-luna',
      store: false,
      stream: true,
      input: [{ role: 'user', content: `${FACT}\n${LONG}` }],
      context_management: management,
    } as never);
    const types: string[] = [];
    for await (const event of stream as unknown as AsyncIterable<{ type: string }>) types.push(event.type);
    expect(types.slice(2, 5)).toEqual(['response.output_item.added', 'response.compaction.compacting', 'response.output_item.done']);
  });
});
