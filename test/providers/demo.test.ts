import { describe, expect, it, vi } from 'vitest';
import { DEMO_MODEL_ID, isWindowpaneError, placeCacheBreakpoints, READ_ATTACHMENT_TOOL, RUN_JAVASCRIPT_TOOL, toAnthropicWire } from '../../src/core';
import type { AnthropicWireMessage, ContentBlock, StoredMessage, ToolUseBlock } from '../../src/core';
import { createProvider } from '../../src/providers';
import { anthropicRequestBody } from '../../src/providers/anthropic';
import { createDemoFetch, createDemoProvider, DEMO_CONTEXT_WINDOW, DEMO_MAX_OUTPUT_TOKENS } from '../../src/providers/demo';

const fast = { firstChunkDelayMs: 0, chunkDelayMs: 0 };
const textOf = (content: ContentBlock[]) => content.map((b) => (b.type === 'text' ? b.text : '')).join('');

function ask(messages: AnthropicWireMessage[], extra: { maxTokens?: number; system?: string; cacheBreakpoints?: number[] } = {}) {
  return {
    model: DEMO_MODEL_ID,
    maxTokens: extra.maxTokens ?? DEMO_MAX_OUTPUT_TOKENS,
    messages,
    system: extra.system,
    cacheBreakpoints: extra.cacheBreakpoints,
  };
}

async function rejection(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error('expected a rejection');
}

describe('Demo provider through the real Anthropic SDK', () => {
  it('is created by createProvider without a key and speaks the Anthropic wire shape', async () => {
    const provider = await createProvider({ provider: 'demo', apiKey: '', model: DEMO_MODEL_ID }, { demo: fast });
    expect(provider.id).toBe('demo');
    expect(provider.wireShape).toBe('anthropic');
    const result = await provider.send(ask([{ role: 'user', content: 'Hi' }]));
    expect(result.stopReason).toBe('end_turn');
    expect(result.model).toBe(DEMO_MODEL_ID);
  });

  it('streams its answer in many small deltas and reports usage', async () => {
    const provider = await createDemoProvider(fast);
    const deltas: string[] = [];
    const result = await provider.send(ask([{ role: 'user', content: 'What is Windowpane doing with my messages?' }]), {
      onText: (delta) => deltas.push(delta),
    });
    const answer = textOf(result.content);
    expect(deltas.length).toBeGreaterThan(10);
    expect(deltas.join('')).toBe(answer);
    expect(Math.max(...deltas.map((d) => d.length))).toBeLessThan(60);
    expect(answer).toContain('1 message');
    expect(answer).toMatch(/trim/);
    expect(result.usageReported).toBe(true);
    expect(result.usage.inputTokens).toBe(Math.ceil('What is Windowpane doing with my messages?'.length / 4));
    expect(result.usage.outputTokens).toBe(Math.ceil(answer.length / 4));
  });

  it('answers deterministically, telling how many messages it received', async () => {
    const messages: AnthropicWireMessage[] = [
      { role: 'user', content: 'First question' },
      { role: 'assistant', content: 'First answer' },
      { role: 'user', content: 'Second question about trimming' },
    ];
    const [a, b] = await Promise.all([createDemoProvider(fast), createDemoProvider(fast)]);
    const first = await a.send(ask(messages));
    const second = await b.send(ask(messages));
    expect(first.content).toEqual(second.content);
    expect(textOf(first.content)).toContain('3 messages');
    expect(textOf(first.content)).toContain('Second question about trimming');
  });

  it('keeps the partial answer when Stop aborts mid-stream, with stopReason "stopped"', async () => {
    const provider = await createDemoProvider({ firstChunkDelayMs: 0, chunkDelayMs: 5 });
    const full = textOf((await (await createDemoProvider(fast)).send(ask([{ role: 'user', content: 'Tell me more' }]))).content);
    const controller = new AbortController();
    const deltas: string[] = [];
    const result = await provider.send(
      { ...ask([{ role: 'user', content: 'Tell me more' }]), signal: controller.signal },
      {
        onText: (delta) => {
          deltas.push(delta);
          if (deltas.length === 3) controller.abort();
        },
      },
    );
    expect(result.stopReason).toBe('stopped');
    const partial = textOf(result.content);
    expect(partial).toBe(deltas.join(''));
    expect(partial.length).toBeGreaterThan(0);
    expect(full.startsWith(partial)).toBe(true);
    expect(partial.length).toBeLessThan(full.length);
    // message_start carried the input count before the abort.
    expect(result.usageReported).toBe(true);
  });

  it('resolves as stopped, not as an error, when aborted before anything arrived', async () => {
    const provider = await createDemoProvider({ firstChunkDelayMs: 50, chunkDelayMs: 0 });
    const controller = new AbortController();
    const pending = provider.send({ ...ask([{ role: 'user', content: 'Hi' }]), signal: controller.signal });
    setTimeout(() => controller.abort(), 5);
    const result = await pending;
    expect(result.stopReason).toBe('stopped');
    expect(result.content).toEqual([]);
  });

  it('answers a request over its 4,000-token window with the real error, read back as context_length with the counts', async () => {
    const provider = await createDemoProvider(fast);
    const long = 'word '.repeat(3300); // 16,500 characters: 4,125 tokens at chars / 4
    const error = await rejection(provider.send(ask([{ role: 'user', content: long }])));
    expect(isWindowpaneError(error, 'context_length')).toBe(true);
    expect((error as { details: Record<string, unknown> }).details).toMatchObject({ promptTokens: 4125, limit: DEMO_CONTEXT_WINDOW, status: 400 });
  });

  it('refuses more output than its maximum and unknown models, as the API does', async () => {
    const provider = await createDemoProvider(fast);
    const tooMuch = await rejection(provider.send(ask([{ role: 'user', content: 'Hi' }], { maxTokens: 1024 })));
    expect(isWindowpaneError(tooMuch, 'bad_request')).toBe(true);
    expect((tooMuch as Error).message).toContain('max_tokens: 1024 > 512');
    const unknown = await rejection(provider.send({ ...ask([{ role: 'user', content: 'Hi' }]), model: 'claude-nonexistent' }));
    expect(isWindowpaneError(unknown, 'unknown_model')).toBe(true);
  });

  it('summarizes a conversation when asked, from the conversation text, extending a previous summary', async () => {
    const provider = await createDemoProvider(fast);
    const prompt = [
      'Summarize the following conversation history concisely. Be factual and brief.',
      '',
      'Conversation:',
      '[user]: How do I bake sourdough bread at home?',
      '[assistant]: Start with an active starter.',
      '[user]: What flour works best for a crisp crust?',
      '[assistant]: Bread flour with a little rye.',
    ].join('\n');
    const summary = await provider.complete(prompt, { model: DEMO_MODEL_ID, maxTokens: 256 });
    expect(summary).toContain('“How do I bake sourdough bread at home?”');
    expect(summary).toContain('“What flour works best for a crisp crust?”');
    expect(summary).not.toContain('Here is what I received');
    expect(summary.length).toBeLessThanOrEqual(256 * 4);

    const extended = await provider.complete(
      [
        'Summarize the following conversation history concisely.',
        `Previous summary (extend it with the conversation below; keep what still matters):\n${summary}`,
        'Conversation:\n[user]: How long should the dough rest?\n[assistant]: Overnight in the fridge.',
      ].join('\n\n'),
      { model: DEMO_MODEL_ID, maxTokens: 256 },
    );
    expect(extended).toContain('“How do I bake sourdough bread at home?”');
    expect(extended).toContain('“How long should the dough rest?”');
  });

  it('cuts the answer at max_tokens and says so', async () => {
    const provider = await createDemoProvider(fast);
    const result = await provider.send(ask([{ role: 'user', content: 'Hi' }], { maxTokens: 10 }));
    expect(result.stopReason).toBe('max_tokens');
    expect(textOf(result.content)).toHaveLength(40);
  });

  /** A conversation whose first two messages are long enough to cache, sent with the app's breakpoints; each answer is kept. */
  async function cachedConversation() {
    const provider = await createDemoProvider(fast);
    let seq = 0;
    const stored = (role: 'user' | 'assistant', text: string): StoredMessage => ({
      id: `m${++seq}`,
      conversationId: 'c',
      seq,
      role,
      kind: 'message',
      content: [{ type: 'text', text }],
      createdAt: seq,
      status: 'complete',
    });
    const history = [stored('user', 'x'.repeat(2400)), stored('assistant', 'y'.repeat(2400)), stored('user', 'First real question')];
    const system = 'You are the demo.';
    const send = async () => {
      const items = toAnthropicWire(history);
      const result = await provider.send({
        ...ask(
          items.map((i) => i.message),
          { system },
        ),
        cacheBreakpoints: placeCacheBreakpoints(items, [], { system: true }),
      });
      history.push(stored('assistant', textOf(result.content)));
      return result;
    };
    return { send, say: (text: string) => history.push(stored('user', text)) };
  }

  it('reports prompt-cache writes and then reads for a repeated prefix marked with breakpoints', async () => {
    const { send, say } = await cachedConversation();
    const first = await send();
    expect(first.usage.cacheReadTokens).toBe(0);
    expect(first.usage.cacheWriteTokens).toBeGreaterThan(1024);
    say('Second question');
    const second = await send();
    expect(second.usage.cacheReadTokens).toBe(first.usage.cacheWriteTokens);
    expect(second.usage.inputTokens + second.usage.cacheReadTokens + second.usage.cacheWriteTokens).toBeGreaterThan(
      first.usage.inputTokens + first.usage.cacheWriteTokens,
    );
    expect(textOf(second.content)).toContain('came from the prompt cache');
  });

  it('forgets a cached prefix left unused for five minutes, as Anthropic does', async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    try {
      const { send, say } = await cachedConversation();
      const first = await send();
      say('Second question');
      vi.setSystemTime(Date.now() + 5 * 60_000 - 1000);
      expect((await send()).usage.cacheReadTokens).toBe(first.usage.cacheWriteTokens);
      // Read just now, so it lasts five more minutes from here, and not one second longer.
      say('Third question');
      vi.setSystemTime(Date.now() + 5 * 60_000 + 1000);
      const late = await send();
      expect(late.usage.cacheReadTokens).toBe(0);
      expect(late.usage.cacheWriteTokens).toBeGreaterThan(first.usage.cacheWriteTokens);
    } finally {
      vi.useRealTimers();
    }
  });

  it('rejects malformed requests with the API status and error body', async () => {
    const demoFetch = createDemoFetch(fast);
    const headers = { 'content-type': 'application/json', 'anthropic-version': '2026-10-21', authorization: 'Bearer demo' };
    const post = (body: unknown, extra: Record<string, string> = {}) =>
      demoFetch(`https://demo.windowpane.invalid/v1/messages`, { method: 'POST', headers: { ...headers, ...extra }, body: JSON.stringify(body) });
    const empty = await post({ model: DEMO_MODEL_ID, max_tokens: 10, messages: [{ role: 'user', content: [{ type: 'text', text: ' ' }] }] });
    expect(empty.status).toBe(400);
    expect(await empty.json()).toMatchObject({
      type: 'error',
      error: { type: 'invalid_request_error', message: 'messages: text content blocks must contain non-whitespace text' },
    });
    const noKey = await demoFetch(`https://demo.windowpane.invalid/v1/messages`, {
      method: 'POST',
      headers: { 'anthropic-version': '2026-10-21' },
      body: JSON.stringify({ model: DEMO_MODEL_ID, max_tokens: 10, messages: [{ role: 'user', content: 'Hi' }] }),
    });
    expect(noKey.status).toBe(401);
    expect((await noKey.json()).error.type).toBe('authentication_error');
  });
});

describe('Demo provider: a tool call without a key', () => {
  const tools = [RUN_JAVASCRIPT_TOOL, READ_ATTACHMENT_TOOL];

  it('asked to compute with run_javascript offered, calls it with the expression, streamed in pieces', async () => {
    const provider = await createDemoProvider(fast);
    const calls: ToolUseBlock[] = [];
    const result = await provider.send(
      { ...ask([{ role: 'user', content: 'Compute 12345 * 6789 + 2^10, please.' }]), tools },
      { onToolUse: (b) => calls.push(b) },
    );
    expect(result.stopReason).toBe('tool_use');
    const call = result.content.find((b) => b.type === 'tool_use');
    expect(call).toMatchObject({ type: 'tool_use', name: 'run_javascript', input: { code: '12345 * 6789 + 2**10' } });
    expect(calls).toEqual([call]);
    expect(textOf(result.content)).toContain('run_javascript');
  });

  it('answers from the tool result that comes back, and counts the tool definitions in its window', async () => {
    const provider = await createDemoProvider(fast);
    const messages: AnthropicWireMessage[] = [
      { role: 'user', content: 'calculate 6*7' },
      { role: 'assistant', content: [{ type: 'tool_use', id: 'toolu_demo_1', name: 'run_javascript', input: { code: '6*7' } }] },
      { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_demo_1', content: 'Result: 42' }] },
    ];
    const withTools = await provider.send({ ...ask(messages), tools });
    expect(withTools.stopReason).toBe('end_turn');
    expect(textOf(withTools.content)).toContain('Result: 42');
    // Without tools offered, the adapter still names the history's tool (with tool_choice none), as the API requires.
    const withoutTools = await createDemoProvider(fast).then((p) => p.send(ask(messages)));
    const standIn = anthropicRequestBody(ask(messages), true) as { tools?: unknown[]; tool_choice?: unknown };
    expect(standIn.tool_choice).toEqual({ type: 'none' });
    expect(withoutTools.content.some((b) => b.type === 'tool_use')).toBe(false);
    const charsOf = (defs: unknown[]) => Math.ceil(JSON.stringify(defs).length / 4);
    const definitionTokens = charsOf(tools.map((t) => ({ name: t.name, description: t.description, input_schema: t.inputSchema })));
    expect(withTools.usage.inputTokens - withoutTools.usage.inputTokens).toBe(definitionTokens - charsOf(standIn.tools ?? []));
  });

  it('does not call a tool that is not offered, or for text without an expression', async () => {
    const provider = await createDemoProvider(fast);
    const unoffered = await provider.send(ask([{ role: 'user', content: 'Compute 2 + 2' }]));
    expect(unoffered.stopReason).toBe('end_turn');
    const noExpression = await provider.send({ ...ask([{ role: 'user', content: 'Compute the meaning of life' }]), tools });
    expect(noExpression.content.some((b) => b.type === 'tool_use')).toBe(false);
  });
});

describe('Demo provider: what it says it received', () => {
  it('labels a message as a marker or summary only when it starts with one, not when it quotes one', async () => {
    const provider = await createDemoProvider(fast);
    const result = await provider.send(
      ask([
        { role: 'user', content: 'Goal: learn about trimming' },
        { role: 'assistant', content: '[3 earlier messages truncated to fit context window]' },
        { role: 'user', content: 'Next question' },
        { role: 'assistant', content: 'Earlier I listed: marker: “[3 earlier messages truncated to fit context window]”' },
        { role: 'user', content: 'And another one' },
      ]),
    );
    const answer = textOf(result.content);
    expect(answer).toMatch(/2\. marker: “\[3 earlier messages/);
    expect(answer).toMatch(/4\. me: “Earlier I listed/);
  });
});
