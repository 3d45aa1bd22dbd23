// @vitest-environment node
import Anthropic from '@anthropic-ai/sdk';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { CLEARED_RESULT_PLACEHOLDER, CONTEXT_MANAGEMENT_BETA } from './contextEditing';
import { thinkingSignature } from './replies';
import { startFakeApi, type FakeApi } from './server';

const MODEL = 'claude-sonnet-4-6';
const BETA = { 'anthropic-beta': CONTEXT_MANAGEMENT_BETA };
let fake: FakeApi;

beforeAll(async () => {
  fake = await startFakeApi({ deltaDelayMs: 0, minCacheableTokens: 200 });
});
afterEach(() => fake.reset());
afterAll(() => fake.close());

type Json = Record<string, unknown>;
interface Answer {
  status: number;
  body: {
    error?: { type: string; message: string };
    usage?: { input_tokens: number; cache_read_input_tokens: number; cache_creation_input_tokens: number };
    context_management?: { applied_edits: Json[] } | null;
  };
}

async function post(body: unknown, headers: Record<string, string> = BETA): Promise<Answer> {
  const response = await fetch(`${fake.url}/v1/messages`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-api-key': 'sk-ant-test-key', 'anthropic-version': '2023-06-01', ...headers },
    body: JSON.stringify(body),
  });
  return { status: response.status, body: (await response.json()) as Answer['body'] };
}

const TOOLS = [
  { name: 'read_log', input_schema: { type: 'object' } },
  { name: 'keep_me', input_schema: { type: 'object' } },
];

/** A log line long enough that every result is worth clearing (about 300 tokens). */
const resultOf = (n: number) => Array.from({ length: 30 }, (_, i) => `call ${n} line ${i}: status ok, took ${n * 7 + i} ms`).join('\n');

/** A conversation of `calls` tool exchanges (the calls named by `nameOf`), answered by a final user question. */
function loop(calls: number, nameOf: (n: number) => string = () => 'read_log'): Json[] {
  const messages: Json[] = [{ role: 'user', content: 'Read the logs one by one.' }];
  for (let n = 1; n <= calls; n++) {
    messages.push({ role: 'assistant', content: [{ type: 'tool_use', id: `toolu_${n}`, name: nameOf(n), input: { part: n } }] });
    messages.push({ role: 'user', content: [{ type: 'tool_result', tool_use_id: `toolu_${n}`, content: resultOf(n) }] });
  }
  messages.push({ role: 'assistant', content: 'Done reading.' });
  messages.push({ role: 'user', content: 'What failed?' });
  return messages;
}

/** The same messages with the results of `ids` replaced by the placeholder, as a client could send them itself. */
function clearedByHand(messages: Json[], ids: Set<string>): Json[] {
  return messages.map((message) =>
    Array.isArray(message.content)
      ? {
          ...message,
          content: (message.content as Json[]).map((block) =>
            block.type === 'tool_result' && ids.has(block.tool_use_id as string) ? { ...block, content: CLEARED_RESULT_PLACEHOLDER } : block,
          ),
        }
      : message,
  );
}

const ids = (...ns: number[]) => new Set(ns.map((n) => `toolu_${n}`));
const request = (messages: Json[], edits?: Json[]) => ({
  model: MODEL,
  max_tokens: 100,
  tools: TOOLS,
  messages,
  ...(edits ? { context_management: { edits } } : {}),
});
const seenResults = () => {
  const body = fake.requests.at(-1)!.body as { messages: Json[] };
  return body.messages.flatMap((m) => (Array.isArray(m.content) ? (m.content as Json[]) : [])).filter((b) => b.type === 'tool_result');
};

describe('context editing in the fake Anthropic API', () => {
  it('refuses context_management without the beta header, as the API refuses a beta field', async () => {
    const answer = await post(request(loop(2), [{ type: 'clear_tool_uses_20250919' }]), {});
    expect(answer.status).toBe(400);
    expect(answer.body.error).toEqual({ type: 'invalid_request_error', message: 'context_management: Extra inputs are not permitted' });
    expect((await post(request(loop(2), [{ type: 'clear_tool_uses_20250919' }]))).status).toBe(200);
  });

  it('clears nothing under the trigger (100,000 tokens by default) and says so with an empty list', async () => {
    const plain = await post(request(loop(8)), {});
    const edited = await post(request(loop(8), [{ type: 'clear_tool_uses_20250919' }]));
    expect(edited.body.context_management).toEqual({ applied_edits: [] });
    expect(edited.body.usage!.input_tokens).toBe(plain.body.usage!.input_tokens);
    expect(plain.body.context_management).toBeUndefined();
  });

  it('past the trigger, replaces every result older than the newest `keep` tool uses and counts the request as edited', async () => {
    const messages = loop(8);
    const byHand = await post(request(clearedByHand(messages, ids(1, 2, 3, 4, 5))), {});
    const full = await post(request(messages), {});
    const edited = await post(
      request(messages, [{ type: 'clear_tool_uses_20250919', trigger: { type: 'input_tokens', value: 1000 }, keep: { type: 'tool_uses', value: 3 } }]),
    );
    expect(edited.status).toBe(200);
    expect(edited.body.usage!.input_tokens).toBe(byHand.body.usage!.input_tokens);
    expect(edited.body.context_management!.applied_edits).toEqual([
      { type: 'clear_tool_uses_20250919', cleared_tool_uses: 5, cleared_input_tokens: full.body.usage!.input_tokens - byHand.body.usage!.input_tokens },
    ]);
    expect(fake.requests.at(-1)!.inputTokens).toBe(byHand.body.usage!.input_tokens);
    // The request as recorded is the one the client sent: the edit is the server's own.
    expect(seenResults().map((b) => b.content)).toEqual([1, 2, 3, 4, 5, 6, 7, 8].map(resultOf));
  });

  it('keeps the default 3 newest, the results of excluded tools, and the inputs unless asked to clear them', async () => {
    const messages = loop(6, (n) => (n === 2 ? 'keep_me' : 'read_log'));
    const byHand = await post(request(clearedByHand(messages, ids(1, 3))), {});
    const edited = await post(
      request(messages, [{ type: 'clear_tool_uses_20250919', trigger: { type: 'input_tokens', value: 500 }, exclude_tools: ['keep_me'] }]),
    );
    expect(edited.body.usage!.input_tokens).toBe(byHand.body.usage!.input_tokens);
    expect(edited.body.context_management!.applied_edits[0]).toMatchObject({ cleared_tool_uses: 2 });

    const withInputs = await post(
      request(messages, [
        { type: 'clear_tool_uses_20250919', trigger: { type: 'input_tokens', value: 500 }, clear_tool_inputs: true, exclude_tools: ['keep_me'] },
      ]),
    );
    expect(withInputs.body.usage!.input_tokens).toBeLessThan(edited.body.usage!.input_tokens);
  });

  it('clears only when at least clear_at_least tokens go', async () => {
    const messages = loop(5);
    const full = await post(request(messages), {});
    const byHand = await post(request(clearedByHand(messages, ids(1, 2))), {});
    const saved = full.body.usage!.input_tokens - byHand.body.usage!.input_tokens;
    const edit = (atLeast: number) => [
      { type: 'clear_tool_uses_20250919', trigger: { type: 'input_tokens', value: 500 }, clear_at_least: { type: 'input_tokens', value: atLeast } },
    ];
    const refused = await post(request(messages, edit(saved + 1)));
    expect(refused.body.context_management).toEqual({ applied_edits: [] });
    expect(refused.body.usage!.input_tokens).toBe(full.body.usage!.input_tokens);
    const applied = await post(request(messages, edit(saved)));
    expect(applied.body.context_management!.applied_edits).toEqual([{ type: 'clear_tool_uses_20250919', cleared_tool_uses: 2, cleared_input_tokens: saved }]);
  });

  it('counts a tool_uses trigger exactly: it fires when the request holds more tool uses than its value', async () => {
    const edit = (value: number) => [{ type: 'clear_tool_uses_20250919', trigger: { type: 'tool_uses', value }, keep: { type: 'tool_uses', value: 1 } }];
    expect((await post(request(loop(4), edit(4)))).body.context_management).toEqual({ applied_edits: [] });
    expect((await post(request(loop(4), edit(3)))).body.context_management!.applied_edits[0]).toMatchObject({ cleared_tool_uses: 3 });
  });

  it('refuses malformed edits with the path of the field', async () => {
    const bad = async (edit: Json) => (await post(request(loop(2), [edit]))).body.error?.message;
    expect(await bad({ type: 'clear_tool_uses_20250919', keep: { type: 'tool_uses', value: -1 } })).toMatch(/^context_management\.edits\.0\.keep: /);
    expect(await bad({ type: 'clear_tool_uses_20250919', trigger: { type: 'messages', value: 5 } })).toMatch(/^context_management\.edits\.0\.trigger: /);
    expect(await bad({ type: 'clear_tool_uses_20250919', exclude_tools: 'keep_me' })).toMatch(/exclude_tools/);
    expect(await bad({ type: 'clear_thinking_20251015' })).toBe('context_management.edits.0: clear_thinking_20251015 requires thinking to be enabled');
  });

  it('lets the prompt cache see the edited prefix', async () => {
    const messages = loop(8);
    const withMarker = (list: Json[]) =>
      list.map((m, i) => (i === list.length - 1 ? { ...m, content: [{ type: 'text', text: 'What failed?', cache_control: { type: 'ephemeral' } }] } : m));
    const edits = [{ type: 'clear_tool_uses_20250919', trigger: { type: 'input_tokens', value: 1000 } }];
    const first = await post(request(withMarker(messages), edits));
    expect(first.body.usage!.cache_creation_input_tokens).toBeGreaterThan(0);
    // The prefix the server cached is the edited one: sending that edit by hand reads it back whole.
    const byHand = await post(request(withMarker(clearedByHand(messages, ids(1, 2, 3, 4, 5)))), {});
    expect(byHand.body.usage!.cache_read_input_tokens).toBe(first.body.usage!.cache_creation_input_tokens);
    const again = await post(request(withMarker(messages), edits));
    expect(again.body.usage!.cache_read_input_tokens).toBe(first.body.usage!.cache_creation_input_tokens);
  });

  describe('thinking', () => {
    const THINKING_MODEL = 'claude-opus-4-6';
    const thought = (n: number) => ({ type: 'thinking', thinking: `Thinking before call ${n}.`, signature: thinkingSignature(`Thinking before call ${n}.`) });
    /** The loop with each call's answer thinking first. */
    const thoughtLoop = (calls: number) =>
      loop(calls).map((m) => (m.role === 'assistant' && Array.isArray(m.content) ? { ...m, content: [thought(calls), ...(m.content as Json[])] } : m));
    const body = (messages: Json[], edits: Json[]) => ({
      ...request(messages, edits),
      model: THINKING_MODEL,
      max_tokens: 2000,
      thinking: { type: 'enabled', budget_tokens: 1024 },
    });

    it('removes the thinking of all but the newest `keep` turns, and keeps all of it with "all"', async () => {
      const messages = thoughtLoop(4);
      const kept = await post(body(messages, [{ type: 'clear_thinking_20251015', keep: 'all' }]));
      expect(kept.body.context_management).toEqual({ applied_edits: [] });
      const cleared = await post(body(messages, [{ type: 'clear_thinking_20251015', keep: { type: 'thinking_turns', value: 2 } }]));
      const [edit] = cleared.body.context_management!.applied_edits;
      expect(edit).toMatchObject({ type: 'clear_thinking_20251015', cleared_thinking_turns: 2 });
      expect(cleared.body.usage!.input_tokens).toBe(kept.body.usage!.input_tokens - (edit!.cleared_input_tokens as number));
      expect(edit!.cleared_input_tokens).toBeGreaterThan(0);
    });

    it('wants thinking clearing before tool clearing', async () => {
      const answer = await post(body(thoughtLoop(2), [{ type: 'clear_tool_uses_20250919' }, { type: 'clear_thinking_20251015', keep: 'all' }]));
      expect(answer.body.error?.message).toBe(
        'context_management.edits.1: clear_thinking_20251015 must come before clear_tool_uses_20250919 in context_management.edits',
      );
    });
  });

  it('binds the thinking it writes to the request as sent, so the next request, sent whole again, keeps it', async () => {
    fake.setReply(() => ({ thinking: 'One more log to read.', toolCalls: [{ id: 'toolu_next', name: 'read_log', input: { part: 9 } }] }));
    const edits = [
      { type: 'clear_thinking_20251015', keep: 'all' },
      { type: 'clear_tool_uses_20250919', trigger: { type: 'tool_uses', value: 4 }, keep: { type: 'tool_uses', value: 2 } },
    ];
    const body = (messages: Json[]) => ({
      ...request(messages, edits),
      model: 'claude-haiku-5-5',
      max_tokens: 2000,
      thinking: { type: 'adaptive', display: 'summarized' },
    });
    const messages = loop(8);
    const first = await post(body(messages));
    expect(first.status).toBe(200);
    expect(first.body.context_management!.applied_edits[0]).toMatchObject({ cleared_tool_uses: 6 });
    const answer = (first.body as unknown as { content: Json[] }).content;
    const next = [
      ...messages,
      { role: 'assistant', content: answer },
      { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_next', content: resultOf(9) }] },
    ];
    const second = await post(body(next));
    expect(second.body.error).toBeUndefined();
    expect(second.status).toBe(200);
  });

  it('reports the edits of a stream in its message_delta, through the SDK', async () => {
    const sdk = new Anthropic({ apiKey: 'sk-ant-test-key', baseURL: fake.url, maxRetries: 0 });
    const stream = await sdk.beta.messages.create({
      ...request(loop(6)),
      stream: true,
      betas: [CONTEXT_MANAGEMENT_BETA],
      context_management: { edits: [{ type: 'clear_tool_uses_20250919', trigger: { type: 'tool_uses', value: 2 }, keep: { type: 'tool_uses', value: 2 } }] },
    } as unknown as Anthropic.Beta.Messages.MessageCreateParamsStreaming);
    const management: unknown[] = [];
    for await (const event of stream) {
      if (event.type === 'message_delta' || event.type === 'message_start') {
        management.push(event.type === 'message_delta' ? event.context_management : event.message.context_management);
      }
    }
    expect(management[0]).toBeNull();
    expect(management[1]).toMatchObject({ applied_edits: [{ type: 'clear_tool_uses_20250919', cleared_tool_uses: 4 }] });
    expect(fake.requests.at(-1)!.headers['anthropic-beta']).toBe(CONTEXT_MANAGEMENT_BETA);
  });
});
