// @vitest-environment node
import OpenAI from 'openai';
import type { ResponseInputItem, ResponseStreamEvent, FunctionTool } from 'openai/resources/responses/responses';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { pngBytes, pdfBytes } from './mediaFixtures';
import { startFakeApi, type FakeApi, type ReplyContext } from './server';

type ApiError = InstanceType<typeof OpenAI.APIError>;

const MODEL = 'gpt-5.4-mini';
let fake: FakeApi;

beforeAll(async () => {
  fake = await startFakeApi({ deltaDelayMs: 0, contextWindow: { 'gpt-tiny': 300 } });
});
afterEach(() => fake.reset());
afterAll(() => fake.close());

function client(options: ConstructorParameters<typeof OpenAI>[0] = {}) {
  return new OpenAI({ apiKey: 'sk-proj-test-key-1234', baseURL: `${fake.url}/v1`, maxRetries: 0, ...options });
}

async function post(body: unknown) {
  const response = await fetch(`${fake.url}/v1/responses`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: 'Bearer sk-proj-test-key-1234' },
    body: JSON.stringify(body),
  });
  return { status: response.status, body: (await response.json()) as { error: { message: string; type: string; param: string | null; code: string | null } } };
}

async function collect(stream: AsyncIterable<ResponseStreamEvent>): Promise<ResponseStreamEvent[]> {
  const events: ResponseStreamEvent[] = [];
  for await (const event of stream) events.push(event);
  return events;
}

const lookup: FunctionTool = {
  type: 'function',
  name: 'lookup',
  description: 'Looks a word up',
  parameters: { type: 'object', properties: { q: { type: 'string' } }, required: ['q'], additionalProperties: false },
  strict: true,
};

describe('Responses API through the real SDK', () => {
  it('streams a text answer with the documented events in order', async () => {
    fake.setReply(() => ({ text: 'one two three four five six', deltas: 3 }));
    const events = await collect(await client().responses.create({ model: MODEL, instructions: 'Be brief.', input: 'Stream please', stream: true }));
    expect(events.map((event) => event.type)).toEqual([
      'response.created',
      'response.in_progress',
      'response.output_item.added',
      'response.content_part.added',
      'response.output_text.delta',
      'response.output_text.delta',
      'response.output_text.delta',
      'response.output_text.done',
      'response.content_part.done',
      'response.output_item.done',
      'response.completed',
    ]);
    expect(events.map((event) => event.sequence_number)).toEqual(events.map((_, index) => index));
    const deltas = events.flatMap((event) => (event.type === 'response.output_text.delta' ? [event.delta] : []));
    expect(deltas.join('')).toBe('one two three four five six');
    const completed = events.at(-1)!;
    if (completed.type !== 'response.completed') throw new Error('not completed');
    expect(completed.response.status).toBe('completed');
    expect(completed.response.output).toEqual([
      expect.objectContaining({
        type: 'message',
        role: 'assistant',
        status: 'completed',
        content: [expect.objectContaining({ type: 'output_text', text: 'one two three four five six' })],
      }),
    ]);
    expect(completed.response.usage).toMatchObject({ input_tokens: fake.requests[0]!.inputTokens, output_tokens_details: { reasoning_tokens: 0 } });
    expect(fake.requests[0]).toMatchObject({ path: '/v1/responses', api: 'responses', provider: 'openai', stream: true, completed: true });
    expect(fake.requests[0]!.replyText).toBe('one two three four five six');
  });

  it('names every event on its event: line, and sends no [DONE]', async () => {
    const response = await fetch(`${fake.url}/responses`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: 'Bearer k' },
      body: JSON.stringify({ model: MODEL, stream: true, input: 'hi' }),
    });
    const frames = (await response.text()).trim().split('\n\n');
    for (const frame of frames) {
      const [eventLine, dataLine] = frame.split('\n');
      expect(eventLine).toBe(`event: ${(JSON.parse(dataLine!.slice(6)) as { type: string }).type}`);
    }
    expect(frames.at(-1)).toMatch(/^event: response\.completed\n/);
  });

  it('answers a non-streaming request with the default reply, counting input items', async () => {
    const response = await client().responses.create({
      model: MODEL,
      input: [
        { role: 'developer', content: 'Be brief.' },
        { role: 'user', content: [{ type: 'input_text', text: 'Hello there' }] },
      ],
    });
    expect(response.object).toBe('response');
    expect(response.output_text).toBe('Answer 1: I received 2 messages. Your last message began "Hello there".');
    expect(response.usage!.total_tokens).toBe(response.usage!.input_tokens + response.usage!.output_tokens);
  });

  it('runs a tool loop of two calls, taking back the encrypted reasoning it issued and refusing a tampered one', async () => {
    fake.setReply((request) =>
      request.answersToolResults
        ? { thinking: 'Both lookups came back.', text: 'Done.' }
        : {
            thinking: 'I should look up both words.',
            toolCalls: [
              { name: 'lookup', input: { q: 'a' } },
              { name: 'lookup', input: { q: 'b' } },
            ],
          },
    );
    const openai = client();
    const common = {
      model: 'gpt-5.5',
      tools: [lookup],
      store: false,
      include: ['reasoning.encrypted_content' as const],
      reasoning: { effort: 'high' as const, summary: 'auto' as const },
    };
    const input: ResponseInputItem[] = [{ role: 'user', content: 'Look up a and b' }];
    const first = await openai.responses.stream({ ...common, input }).finalResponse();
    expect(first.output.map((item) => item.type)).toEqual(['reasoning', 'function_call', 'function_call']);
    const [reasoning, ...calls] = first.output;
    if (reasoning?.type !== 'reasoning') throw new Error('no reasoning');
    expect(reasoning.summary).toEqual([{ type: 'summary_text', text: 'I should look up both words.' }]);
    expect(reasoning.encrypted_content).toEqual(expect.any(String));
    expect(first.usage!.output_tokens_details.reasoning_tokens).toBe(7);
    for (const call of calls) {
      if (call.type !== 'function_call') throw new Error('no call');
      expect(call.id).toMatch(/^fc_/);
      expect(call.call_id).toMatch(/^call_/);
    }

    input.push(...(first.output as ResponseInputItem[]));
    for (const call of calls)
      if (call.type === 'function_call') input.push({ type: 'function_call_output', call_id: call.call_id, output: `result ${call.call_id}` });
    const second = await openai.responses.create({ ...common, input });
    expect(second.output_text).toBe('Done.');
    expect(fake.requests[1]!.validation).toEqual({ ok: true });
    // The reasoning sent back counts its hidden tokens in the input.
    const withoutReasoning = await openai.responses.create({ ...common, input: input.filter((item) => item.type !== 'reasoning') });
    expect(second.usage!.input_tokens - withoutReasoning.usage!.input_tokens).toBe(7);

    const sealed = reasoning.encrypted_content!;
    const tampered = input.map((item) =>
      item.type === 'reasoning' ? { ...item, encrypted_content: sealed.slice(0, 40) + (sealed[40] === 'A' ? 'B' : 'A') + sealed.slice(41) } : item,
    );
    const refused = (await openai.responses.create({ ...common, input: tampered }).catch((error: unknown) => error)) as ApiError;
    expect(refused).toBeInstanceOf(OpenAI.BadRequestError);
    expect(refused.code).toBe('invalid_encrypted_content');
    expect(refused.message).toBe(`400 The encrypted content ${sealed.slice(0, 4)}...${sealed.slice(-4)} could not be verified.`);

    const byIdOnly = input.map((item) => (item.type === 'reasoning' ? { ...item, encrypted_content: null } : item));
    const notStored = (await openai.responses.create({ ...common, input: byIdOnly }).catch((error: unknown) => error)) as ApiError;
    expect(notStored.status).toBe(404);
    expect(notStored.message).toBe(
      `404 Item with id '${reasoning.id}' not found. Items are not persisted when \`store\` is set to false. Try again with \`store\` set to true, or remove this item from your input.`,
    );
  });

  it('streams reasoning summary events before the function call events', async () => {
    fake.setReply(() => ({ thinking: 'Think first.', toolCalls: [{ name: 'lookup', input: { q: 'x' } }] }));
    const events = await collect(
      await client().responses.create({ model: 'gpt-5.5', input: 'go', tools: [lookup], reasoning: { effort: 'low', summary: 'concise' }, stream: true }),
    );
    const types: string[] = events.map((event) => event.type);
    expect(types.slice(0, 4)).toEqual(['response.created', 'response.in_progress', 'response.output_item.added', 'response.reasoning_summary_part.added']);
    const order = [
      'response.reasoning_summary_text.delta',
      'response.reasoning_summary_text.done',
      'response.reasoning_summary_part.done',
      'response.function_call_arguments.delta',
      'response.function_call_arguments.done',
      'response.completed',
    ].map((type) => types.indexOf(type));
    expect(order).toEqual([...order].sort((a, b) => a - b));
    expect(order.every((index) => index > 0)).toBe(true);
    const args = events.flatMap((event) => (event.type === 'response.function_call_arguments.delta' ? [event.delta] : []));
    expect(JSON.parse(args.join(''))).toEqual({ q: 'x' });
    // Without `include`, no encrypted content; with store on, the item can come back by id.
    const done = events.at(-1)!;
    if (done.type !== 'response.completed') throw new Error('not completed');
    const reasoning = done.response.output[0]!;
    expect(reasoning).not.toHaveProperty('encrypted_content');
    const call = done.response.output[1]!;
    if (call.type !== 'function_call' || reasoning.type !== 'reasoning') throw new Error('unexpected output');
    const next = await client().responses.create({
      model: 'gpt-5.5',
      tools: [lookup],
      input: [
        { role: 'user', content: 'go' },
        { type: 'reasoning', id: reasoning.id, summary: [] },
        call,
        { type: 'function_call_output', call_id: call.call_id, output: 'ok' },
      ],
    });
    expect(next.status).toBe('completed');
  });

  it('reports reasoning tokens and an automatically cached prefix in the usage', async () => {
    const openai = client();
    const instructions = 'Standing instructions for a long session. '.repeat(150);
    const first = await openai.responses.create({ model: 'gpt-5.5', instructions, input: 'First?', reasoning: { effort: 'medium' } });
    const second = await openai.responses.create({ model: 'gpt-5.5', instructions, input: 'Second, longer question?', reasoning: { effort: 'medium' } });
    expect(first.usage!.input_tokens_details.cached_tokens).toBe(0);
    const cached = second.usage!.input_tokens_details.cached_tokens;
    expect(cached).toBeGreaterThanOrEqual(1024);
    expect(cached % 128).toBe(0);
    expect(second.usage!.output_tokens_details.reasoning_tokens).toBe(192);
    expect(second.output[0]).toMatchObject({ type: 'reasoning', summary: [] });
    const plain = await openai.responses.create({ model: MODEL, input: 'No reasoning' });
    expect(plain.usage!.output_tokens_details.reasoning_tokens).toBe(0);
    expect(plain.output.map((item) => item.type)).toEqual(['message']);
  });

  it('tells reply functions about the request, as for the other APIs', async () => {
    const contexts: ReplyContext[] = [];
    fake.setReply((context) => {
      contexts.push(context);
      return undefined;
    });
    await client().responses.create({
      model: MODEL,
      instructions: 'Standing orders.',
      max_output_tokens: 500,
      tools: [lookup],
      input: [
        { role: 'system', content: 'Summarize when asked.' },
        { role: 'user', content: 'Find x' },
        { type: 'message', id: 'msg_1', role: 'assistant', status: 'completed', content: [{ type: 'output_text', text: 'Looking.', annotations: [] }] },
        { type: 'function_call', call_id: 'call_1', name: 'lookup', arguments: '{"q":"x"}' },
        { type: 'function_call_output', call_id: 'call_1', output: [{ type: 'input_text', text: 'x is a letter' }] },
      ],
    });
    expect(contexts[0]).toMatchObject({
      provider: 'openai',
      turn: 1,
      messageCount: 5,
      systemText: 'Standing orders.\nSummarize when asked.',
      lastUserText: 'Find x',
      answersToolResults: true,
      toolNames: ['lookup'],
      maxTokens: 500,
      inputTokens: fake.requests[0]!.inputTokens,
    });
  });

  it('stops at max_output_tokens with status incomplete', async () => {
    fake.setReply(() => ({ text: 'word '.repeat(100) }));
    const response = await client().responses.create({ model: MODEL, max_output_tokens: 16, input: 'Long' });
    expect(response.status).toBe('incomplete');
    expect(response.incomplete_details).toEqual({ reason: 'max_output_tokens' });
    expect(response.usage!.output_tokens).toBe(16);
    const events = await collect(await client().responses.create({ model: MODEL, max_output_tokens: 16, input: 'Long', stream: true }));
    expect(events.at(-1)!.type).toBe('response.incomplete');
  });
});

describe('Responses API wire rules', () => {
  const call = { type: 'function_call', call_id: 'call_1', name: 'lookup', arguments: '{}' };
  const cases: Array<[string, Record<string, unknown>, number, string, string | null, string | null]> = [
    ['model is required', { input: 'hi' }, 400, "Missing required parameter: 'model'.", 'model', 'missing_required_parameter'],
    [
      'input is not an empty array',
      { model: MODEL, input: [] },
      400,
      "Invalid 'input': empty array. Expected an array with minimum length 1, but got an empty array instead.",
      'input',
      'empty_array',
    ],
    [
      'a function_call_output answers a call made earlier',
      {
        model: MODEL,
        input: [
          { role: 'user', content: 'hi' },
          { type: 'function_call_output', call_id: 'call_9', output: 'x' },
        ],
      },
      400,
      'No tool call found for function call output with call_id call_9.',
      'input',
      null,
    ],
    [
      'a function_call is answered before the next user message',
      { model: MODEL, input: [{ role: 'user', content: 'hi' }, call, { role: 'user', content: 'next' }] },
      400,
      'No tool output found for function call call_1.',
      'input',
      null,
    ],
    [
      'tools are in the Responses shape',
      { model: MODEL, input: 'hi', tools: [{ type: 'function', function: { name: 'lookup', parameters: {} } }] },
      400,
      "Missing required parameter: 'tools[0].name'.",
      'tools[0].name',
      'missing_required_parameter',
    ],
    [
      'max_output_tokens is at least 16',
      { model: MODEL, input: 'hi', max_output_tokens: 10 },
      400,
      "Invalid 'max_output_tokens': integer below minimum value. Expected a value >= 16, but got 10 instead.",
      'max_output_tokens',
      'integer_below_min_value',
    ],
    [
      'reasoning.summary is a documented value',
      { model: MODEL, input: 'hi', reasoning: { summary: 'brief' } },
      400,
      "Invalid value: 'brief'. Supported values are: 'auto', 'concise', and 'detailed'.",
      'reasoning.summary',
      'invalid_value',
    ],
    [
      'assistant content is output_text',
      {
        model: MODEL,
        input: [
          { role: 'user', content: 'hi' },
          { role: 'assistant', content: [{ type: 'input_text', text: 'x' }] },
        ],
      },
      400,
      "Invalid value: 'input_text'. Supported values are: 'output_text' and 'refusal'.",
      'input[1].content[0].type',
      'invalid_value',
    ],
    [
      'a reasoning item comes with its following item',
      {
        model: MODEL,
        input: [
          { role: 'user', content: 'hi' },
          { type: 'reasoning', id: 'rs_1', summary: [], encrypted_content: 'x' },
        ],
      },
      400,
      "Item 'rs_1' of type 'reasoning' was provided without its required following item.",
      'input',
      null,
    ],
    [
      'a model that does not reason takes no reasoning items, wherever they stand',
      {
        model: 'gpt-4.1',
        input: [
          { role: 'user', content: 'hi' },
          { type: 'reasoning', id: 'rs_1', summary: [], encrypted_content: 'x' },
          { role: 'assistant', content: 'Hello.' },
          { role: 'user', content: 'again' },
        ],
      },
      400,
      'Reasoning input items can only be provided to a reasoning or computer use model. Remove reasoning items from your input and try again.',
      'input',
      null,
    ],
    [
      'stream_options needs stream',
      { model: MODEL, input: 'hi', stream_options: { include_obfuscation: false } },
      400,
      "The 'stream_options' parameter is only allowed when 'stream' is enabled.",
      'stream_options',
      null,
    ],
    [
      'previous_response_id is never found',
      { model: MODEL, input: 'hi', store: false, previous_response_id: 'resp_123' },
      404,
      "Previous response with id 'resp_123' not found.",
      'previous_response_id',
      'previous_response_not_found',
    ],
  ];

  it.each(cases)('%s', async (_name, body, status, message, param, code) => {
    const answer = await post(body);
    expect(answer.status).toBe(status);
    expect(answer.body.error).toEqual({ message, type: 'invalid_request_error', param, code });
  });

  it('takes images and PDFs on user messages and refuses them on a text-only model', async () => {
    const image = `data:image/png;base64,${pngBytes(512, 512).toString('base64')}`;
    const pdf = `data:application/pdf;base64,${pdfBytes(['Quarterly revenue grew']).toString('base64')}`;
    const content = [
      { type: 'input_text', text: 'What is this?' },
      { type: 'input_image', image_url: image, detail: 'low' },
      { type: 'input_file', filename: 'report.pdf', file_data: pdf },
    ];
    const accepted = await client().responses.create({ model: MODEL, input: [{ role: 'user', content } as ResponseInputItem] });
    const textOnly = await client().responses.create({ model: MODEL, input: 'What is this?' });
    expect(accepted.usage!.input_tokens).toBeGreaterThan(textOnly.usage!.input_tokens + 50);
    const uploaded = await client().responses.create({
      model: MODEL,
      input: [{ role: 'user', content: [{ type: 'input_image', file_id: 'file-abc123', detail: 'auto' }] }],
    });
    expect(uploaded.usage!.input_tokens).toBeGreaterThan(textOnly.usage!.input_tokens);

    const refused = await post({ model: 'gpt-4', input: [{ role: 'user', content }] });
    expect(refused.status).toBe(400);
    expect(refused.body.error.message).toBe('Invalid content type. input_image is only supported by certain models.');
  });

  it('validates reasoning.effort per model', async () => {
    const ask = (model: string, effort: string) => post({ model, input: 'hi', reasoning: { effort } });
    expect((await ask('gpt-5.1', 'minimal')).body.error).toEqual({
      message: "Unsupported value: 'minimal' is not supported with the 'gpt-5.1' model. Supported values are: 'none', 'low', 'medium', and 'high'.",
      type: 'invalid_request_error',
      param: 'reasoning.effort',
      code: 'unsupported_value',
    });
    expect((await ask('gpt-5-pro', 'low')).body.error.code).toBe('unsupported_value');
    expect((await ask('gpt-4o', 'low')).body.error.code).toBe('unsupported_parameter');
    expect((await ask(MODEL, 'extreme')).body.error.message).toBe(
      "Invalid value: 'extreme'. Supported values are: 'none', 'minimal', 'low', 'medium', 'high', 'xhigh', and 'max'.",
    );
    const accepted = await client().responses.create({ model: 'gpt-5.1', input: 'hi', reasoning: { effort: 'low' } });
    expect(accepted.usage!.output_tokens_details.reasoning_tokens).toBe(64);
    // gpt-5 reasons at medium when the request does not say.
    const byDefault = await client().responses.create({ model: 'gpt-5', input: 'hi' });
    expect(byDefault.usage!.output_tokens_details.reasoning_tokens).toBe(192);
    expect(byDefault.reasoning?.effort).toBe('medium');
  });
});

describe('Responses API failures', () => {
  const ask = (openai = client(), extra: Partial<OpenAI.Responses.ResponseCreateParamsNonStreaming> = {}) =>
    openai.responses.create({ model: MODEL, input: 'hi', ...extra });

  it('401 for a wrong key, and the injected kinds consumed on /responses', async () => {
    const wrong = (await ask(client({ apiKey: 'sk-invalid-key-0000' })).catch((error: unknown) => error)) as ApiError;
    expect(wrong).toBeInstanceOf(OpenAI.AuthenticationError);
    expect(wrong.code).toBe('invalid_api_key');

    fake.failNext('429', { retryAfterSeconds: 3 });
    fake.failNext('529');
    fake.failNext('500');
    fake.failNext('unknown_model');
    fake.failNext('network');
    const limited = (await ask().catch((error: unknown) => error)) as ApiError;
    expect(limited).toBeInstanceOf(OpenAI.RateLimitError);
    expect(limited.headers?.get('retry-after')).toBe('3');
    expect(((await ask().catch((error: unknown) => error)) as ApiError).status).toBe(503);
    expect(((await ask().catch((error: unknown) => error)) as ApiError).status).toBe(500);
    expect(((await ask().catch((error: unknown) => error)) as ApiError).code).toBe('model_not_found');
    await expect(ask()).rejects.toBeInstanceOf(OpenAI.APIConnectionError);
    expect(fake.requests.slice(1).map((request) => request.injectedFailure)).toEqual(['429', '529', '500', 'unknown_model', 'network']);

    fake.failNext('401');
    fake.failNext('503', { retryAfterSeconds: 2 });
    fake.failNext('cors');
    expect(await ask().catch((error: unknown) => error)).toBeInstanceOf(OpenAI.AuthenticationError);
    const unavailable = (await ask().catch((error: unknown) => error)) as ApiError;
    expect([unavailable.status, unavailable.headers?.get('retry-after')]).toEqual([503, '2']);
    // Node does not enforce CORS: the answer arrives, without the header a browser needs.
    const blocked = await fetch(`${fake.url}/v1/responses`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: 'Bearer k', origin: 'http://localhost:5173' },
      body: JSON.stringify({ model: MODEL, input: 'hi' }),
    });
    expect(blocked.headers.get('access-control-allow-origin')).toBeNull();
    expect(await blocked.json()).toEqual({ object: 'response', output: [] });
    expect(fake.requests.at(-1)).toMatchObject({ injectedFailure: 'cors', status: 200, api: 'responses' });
  });

  it('404 model_not_found for an unknown model', async () => {
    const error = (await ask(client(), { model: 'gpt-unknown' }).catch((caught: unknown) => caught)) as ApiError;
    expect(error).toBeInstanceOf(OpenAI.NotFoundError);
    expect(error.message).toContain('The model `gpt-unknown` does not exist or you do not have access to it.');
  });

  it('answers a context overflow with a 400, or in the stream after two events', async () => {
    const long = 'a few words more '.repeat(100);
    const error = (await ask(client(), { model: 'gpt-tiny', input: long }).catch((caught: unknown) => caught)) as ApiError;
    expect(error).toBeInstanceOf(OpenAI.BadRequestError);
    expect(error.code).toBe('context_length_exceeded');
    expect(error.param).toBe('input');
    expect(error.message).toBe('400 Your input exceeds the context window of this model. Please adjust your input and try again.');

    fake.failNext('context');
    const stream = await client().responses.create({ model: MODEL, input: 'hi', stream: true });
    const seen: string[] = [];
    const streamed = (await (async () => {
      for await (const event of stream) seen.push(event.type);
    })().catch((caught: unknown) => caught)) as ApiError;
    expect(seen).toEqual(['response.created', 'response.in_progress']);
    expect(streamed).toBeInstanceOf(OpenAI.APIError);
    expect(streamed.code).toBe('context_length_exceeded');
    expect(fake.requests.at(-1)).toMatchObject({ status: 200, injectedFailure: 'context', validation: { ok: false, code: 'context_length_exceeded' } });
  });

  it('fails a stream after some deltas with an error event', async () => {
    fake.setReply(() => ({ text: 'one two three four five six', deltas: 3, streamErrorAfterDeltas: 1 }));
    const stream = await client().responses.create({ model: MODEL, input: 'hi', stream: true });
    const deltas: string[] = [];
    const error = (await (async () => {
      for await (const event of stream) if (event.type === 'response.output_text.delta') deltas.push(event.delta);
    })().catch((caught: unknown) => caught)) as ApiError;
    expect(error).toBeInstanceOf(OpenAI.APIError);
    expect(error.type).toBe('server_error');
    expect(deltas).toHaveLength(1);
    expect(fake.requests[0]!.replyText).toBe(deltas[0]);
  });

  it('records a stream the client aborted', async () => {
    fake.setReply(() => ({ text: 'slow words '.repeat(20), deltaDelayMs: 30 }));
    const controller = new AbortController();
    const stream = await client().responses.create({ model: MODEL, input: 'Take your time', stream: true }, { signal: controller.signal });
    let shown = '';
    for await (const event of stream) {
      if (event.type === 'response.output_text.delta') shown += event.delta;
      if (shown.length > 0) controller.abort();
    }
    expect(shown.length).toBeLessThan('slow words '.repeat(20).length);
    await expect.poll(() => fake.requests[0]!.aborted).toBe(true);
    expect(fake.requests[0]!.completed).toBe(false);
  });
});
