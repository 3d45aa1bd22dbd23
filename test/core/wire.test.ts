import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  applyCacheBreakpoints,
  fromAnthropicContent,
  fromAnthropicUsage,
  fromOpenAIAccumulated,
  fromOpenAIFinishReason,
  fromOpenAIUsage,
  MAX_CACHE_BREAKPOINTS,
  mergeAnthropicUsage,
  placeCacheBreakpoints,
  SYSTEM_WIRE_ID,
  toAnthropicWire,
  toOpenAIWire,
} from '../../src/core';
import type { AnthropicWireBlock, AnthropicWireMessage, ContentBlock, MessageStatus, OpenAIWireMessage, StoredMessage, WirePlanItem } from '../../src/core';

let seq = 0;
function stored(role: 'user' | 'assistant', content: ContentBlock[], extra: Partial<StoredMessage> = {}): StoredMessage {
  seq++;
  return { id: `m${seq}`, conversationId: 'c1', seq, role, kind: 'message', content, createdAt: 1_700_000_000_000 + seq, status: 'complete', ...extra };
}
const text = (t: string): ContentBlock => ({ type: 'text', text: t });

describe('toAnthropicWire', () => {
  it('sends a single text block as a string and several blocks as an array', () => {
    const a = stored('user', [text('Hello')]);
    const b = stored('assistant', [text('Reading it.'), { type: 'tool_use', id: 'toolu_1', name: 'read', input: { path: 'a.ts' } }]);
    expect(toAnthropicWire([a, b])).toEqual([
      { id: a.id, kind: 'message', message: { role: 'user', content: 'Hello' } },
      {
        id: b.id,
        kind: 'message',
        message: {
          role: 'assistant',
          content: [
            { type: 'text', text: 'Reading it.' },
            { type: 'tool_use', id: 'toolu_1', name: 'read', input: { path: 'a.ts' } },
          ],
        },
      },
    ]);
  });

  it('maps tool results with string content and the error flag', () => {
    const m = stored('user', [
      { type: 'tool_result', tool_use_id: 'toolu_1', content: 'export const a = 1;' },
      { type: 'tool_result', tool_use_id: 'toolu_2', content: 'ENOENT: no such file', is_error: true },
    ]);
    expect(toAnthropicWire([m])[0]?.message.content).toEqual([
      { type: 'tool_result', tool_use_id: 'toolu_1', content: 'export const a = 1;' },
      { type: 'tool_result', tool_use_id: 'toolu_2', content: 'ENOENT: no such file', is_error: true },
    ]);
  });

  it('keeps signed thinking and redacted thinking on assistant turns, unchanged and in order', () => {
    const m = stored('assistant', [
      { type: 'thinking', thinking: 'The user wants a haiku.', signature: 'EqQBCgIYAhIM1gbcDa9GJwZA2b3hGgxBdjrkzLoky3dl1pkiMOYds' },
      { type: 'redacted_thinking', data: 'EmwKAhgBEgy3va3pzix/LafPsn4aDFIT2Xlxh0L5L8rLVyIwxtE3rAFBa8cr3qpP' },
      text('Autumn leaves falling'),
    ]);
    expect(toAnthropicWire([m])[0]?.message.content).toEqual([
      { type: 'thinking', thinking: 'The user wants a haiku.', signature: 'EqQBCgIYAhIM1gbcDa9GJwZA2b3hGgxBdjrkzLoky3dl1pkiMOYds' },
      { type: 'redacted_thinking', data: 'EmwKAhgBEgy3va3pzix/LafPsn4aDFIT2Xlxh0L5L8rLVyIwxtE3rAFBa8cr3qpP' },
      { type: 'text', text: 'Autumn leaves falling' },
    ]);
  });

  it('does not send unsigned thinking (a stream stopped mid-thought), nor thinking on a user turn', () => {
    const stopped = stored('assistant', [{ type: 'thinking', thinking: 'Half a thou' }, text('Partial')], { status: 'stopped' });
    const user = stored('user', [{ type: 'thinking', thinking: 'x', signature: 'sig' }, text('Hi')]);
    const [a, u] = toAnthropicWire([stopped, user]);
    expect(a?.message).toEqual({ role: 'assistant', content: 'Partial' });
    expect(u?.message).toEqual({ role: 'user', content: 'Hi' });
  });

  it('sends a summary as an assistant text message tagged as a summary', () => {
    const summary = stored('user', [text('[Conversation Summary]\nWe compared two libraries.')], { kind: 'summary', covers: ['m1', 'm2'], pinned: true });
    expect(toAnthropicWire([summary])).toEqual([
      { id: summary.id, kind: 'summary', pinned: true, message: { role: 'assistant', content: '[Conversation Summary]\nWe compared two libraries.' } },
    ]);
  });

  it('drops empty text blocks, skips failed messages without content, and sends stopped answers as they are', () => {
    const user = stored('user', [text(''), text('   '), text('Question')]);
    const failed = stored('assistant', [], { status: 'error', error: { code: 'network', message: 'offline' } });
    const empty = stored('assistant', [text('')], { status: 'interrupted' });
    const stopped = stored('assistant', [text('The answer is')], { status: 'stopped' });
    const items = toAnthropicWire([user, failed, empty, stopped]);
    expect(items.map((i) => i.id)).toEqual([user.id, stopped.id]);
    expect(items.map((i) => i.message.content)).toEqual(['Question', 'The answer is']);
  });

  it('never emits empty content, whatever is stored', () => {
    const block = fc.oneof(
      fc.record({ type: fc.constant('text' as const), text: fc.constantFrom('', ' ', '\n', 'hi', 'a b') }),
      fc.record({ type: fc.constant('tool_use' as const), id: fc.constant('toolu_1'), name: fc.constant('f'), input: fc.constant({}) }),
      fc.record({ type: fc.constant('tool_result' as const), tool_use_id: fc.constant('toolu_1'), content: fc.constantFrom('', 'ok') }),
      fc.record({ type: fc.constant('thinking' as const), thinking: fc.constant('t') }),
    );
    const message = fc.record({
      role: fc.constantFrom('user' as const, 'assistant' as const),
      kind: fc.constantFrom('message' as const, 'summary' as const),
      status: fc.constantFrom<MessageStatus>('complete', 'stopped', 'interrupted', 'error'),
      content: fc.array(block, { maxLength: 4 }),
    });
    fc.assert(
      fc.property(fc.array(message, { maxLength: 8 }), (records) => {
        const messages = records.map((r) => stored(r.role, r.content as ContentBlock[], { kind: r.kind, status: r.status }));
        for (const item of toAnthropicWire(messages)) {
          const content = item.message.content;
          expect(typeof content === 'string' ? content.trim().length : content.length).toBeGreaterThan(0);
          if (Array.isArray(content)) {
            for (const b of content) if (b.type === 'text') expect(String(b.text).trim()).not.toBe('');
          }
        }
        for (const item of toOpenAIWire(messages, 'sys')) {
          const m = item.message;
          const hasContent = typeof m.content === 'string' ? m.role === 'tool' || m.content.trim().length > 0 : false;
          expect(hasContent || (m.tool_calls?.length ?? 0) > 0).toBe(true);
        }
      }),
    );
  });
});

describe('toOpenAIWire', () => {
  it('puts the system prompt first as a pinned item with a reserved id', () => {
    const items = toOpenAIWire([stored('user', [text('Hi')])], 'You are terse.');
    expect(items[0]).toEqual({ id: SYSTEM_WIRE_ID, pinned: true, kind: 'message', message: { role: 'system', content: 'You are terse.' } });
    expect(toOpenAIWire([stored('user', [text('Hi')])], '  ')).toHaveLength(1);
  });

  it('maps parallel tool calls to tool_calls and their results to one tool message each, then the user text', () => {
    const call = stored('assistant', [
      { type: 'thinking', thinking: 'Two files.', signature: 'sig' },
      { type: 'tool_use', id: 'call_a', name: 'read', input: { path: 'a.ts' } },
      { type: 'tool_use', id: 'call_b', name: 'read', input: { path: 'b.ts' } },
    ]);
    const results = stored('user', [
      { type: 'tool_result', tool_use_id: 'call_a', content: 'A' },
      { type: 'tool_result', tool_use_id: 'call_b', content: 'missing', is_error: true },
      text('Compare them.'),
    ]);
    const items = toOpenAIWire([call, results]);
    expect(items.map((i) => i.id)).toEqual([call.id, results.id, results.id, results.id]);
    expect(items.map((i) => i.message)).toEqual([
      {
        role: 'assistant',
        content: null,
        tool_calls: [
          { id: 'call_a', type: 'function', function: { name: 'read', arguments: '{"path":"a.ts"}' } },
          { id: 'call_b', type: 'function', function: { name: 'read', arguments: '{"path":"b.ts"}' } },
        ],
      },
      { role: 'tool', tool_call_id: 'call_a', content: 'A' },
      { role: 'tool', tool_call_id: 'call_b', content: 'Error: missing' },
      { role: 'user', content: 'Compare them.' },
    ]);
  });

  it('strips thinking, keeps assistant text, and sends a summary as assistant text', () => {
    const answer = stored('assistant', [{ type: 'thinking', thinking: 'hmm', signature: 's' }, { type: 'redacted_thinking', data: 'x' }, text('Paris.')]);
    const onlyThinking = stored('assistant', [{ type: 'thinking', thinking: 'hmm', signature: 's' }]);
    const summary = stored('assistant', [text('[Conversation Summary] Earlier: travel plans.')], { kind: 'summary' });
    expect(toOpenAIWire([summary, answer, onlyThinking]).map((i) => [i.kind, i.message])).toEqual([
      ['summary', { role: 'assistant', content: '[Conversation Summary] Earlier: travel plans.' }],
      ['message', { role: 'assistant', content: 'Paris.' }],
    ]);
  });
});

describe('responses back to canonical', () => {
  it('round-trips Anthropic assistant content through the wire and back', () => {
    const original: ContentBlock[] = [
      { type: 'thinking', thinking: 'Plan: read first.', signature: 'sig-1' },
      { type: 'redacted_thinking', data: 'opaque' },
      text('Let me look.'),
      { type: 'tool_use', id: 'toolu_9', name: 'read', input: { path: 'src/a.ts', lines: [1, 20] } },
    ];
    const wire = toAnthropicWire([stored('assistant', original)])[0]?.message.content as AnthropicWireBlock[];
    expect(fromAnthropicContent(wire)).toEqual(original);
  });

  it('drops empty text and block types Windowpane does not store', () => {
    expect(
      fromAnthropicContent([
        { type: 'text', text: '' },
        { type: 'server_tool_use', id: 'srvtoolu_1', name: 'web_search', input: {} },
        { type: 'text', text: 'Done' },
      ]),
    ).toEqual([text('Done')]);
  });

  it('round-trips parallel OpenAI tool calls through tool_calls and accumulated deltas', () => {
    const original: ContentBlock[] = [
      text('Checking both.'),
      { type: 'tool_use', id: 'call_1', name: 'weather', input: { city: 'Paris' } },
      { type: 'tool_use', id: 'call_2', name: 'weather', input: { city: 'Oslo', unit: 'C' } },
    ];
    const message = toOpenAIWire([stored('assistant', original)])[0]?.message as OpenAIWireMessage;
    const toolCalls = (message.tool_calls ?? []).map((c) => ({ id: c.id, name: c.function.name, arguments: c.function.arguments }));
    expect(fromOpenAIAccumulated({ content: String(message.content), toolCalls }, { complete: true })).toEqual(original);
  });

  it('drops a cut-off tool call from a stopped stream but keeps raw arguments of a finished one', () => {
    const acc = { content: 'Hi', toolCalls: [{ id: 'call_1', name: 'f', arguments: '{"city": "Par' }, undefined, { id: 'call_3', name: 'g', arguments: '' }] };
    expect(fromOpenAIAccumulated(acc, { complete: false })).toEqual([text('Hi'), { type: 'tool_use', id: 'call_3', name: 'g', input: {} }]);
    expect(fromOpenAIAccumulated(acc, { complete: true })[1]).toEqual({ type: 'tool_use', id: 'call_1', name: 'f', input: '{"city": "Par' });
    // Raw arguments go back to OpenAI verbatim.
    const back = toOpenAIWire([stored('assistant', fromOpenAIAccumulated(acc, { complete: true }))])[0]?.message;
    expect(back?.tool_calls?.[0]?.function.arguments).toBe('{"city": "Par');
  });

  it('maps OpenAI finish reasons to the recorded stop reasons', () => {
    expect(['stop', 'length', 'tool_calls', 'content_filter'].map(fromOpenAIFinishReason)).toEqual(['end_turn', 'max_tokens', 'tool_use', 'content_filter']);
  });
});

describe('usage', () => {
  it('keeps Anthropic input tokens exclusive of cache reads and writes', () => {
    expect(fromAnthropicUsage({ input_tokens: 21, output_tokens: 393, cache_creation_input_tokens: 188_086, cache_read_input_tokens: 0 })).toEqual({
      inputTokens: 21,
      outputTokens: 393,
      cacheReadTokens: 0,
      cacheWriteTokens: 188_086,
    });
  });

  it('folds message_delta usage over message_start usage, ignoring nulls', () => {
    const start = { input_tokens: 472, output_tokens: 1, cache_creation_input_tokens: 0, cache_read_input_tokens: 1800 };
    const delta = { input_tokens: null, output_tokens: 89, cache_creation_input_tokens: null, cache_read_input_tokens: null };
    expect(fromAnthropicUsage(mergeAnthropicUsage(start, delta))).toEqual({ inputTokens: 472, outputTokens: 89, cacheReadTokens: 1800, cacheWriteTokens: 0 });
  });

  it('moves OpenAI cached prompt tokens out of input tokens', () => {
    expect(fromOpenAIUsage({ prompt_tokens: 2006, completion_tokens: 300, prompt_tokens_details: { cached_tokens: 1920 } })).toEqual({
      inputTokens: 86,
      outputTokens: 300,
      cacheReadTokens: 1920,
      cacheWriteTokens: 0,
    });
    expect(fromOpenAIUsage({ prompt_tokens: 12, completion_tokens: 3 })).toEqual({ inputTokens: 12, outputTokens: 3, cacheReadTokens: 0, cacheWriteTokens: 0 });
  });

  it('keeps OpenAI reasoning tokens as a part of the output, never added to it', () => {
    expect(fromOpenAIUsage({ prompt_tokens: 50, completion_tokens: 300, completion_tokens_details: { reasoning_tokens: 256 } })).toEqual({
      inputTokens: 50,
      outputTokens: 300,
      cacheReadTokens: 0,
      cacheWriteTokens: 0,
      reasoningTokens: 256,
    });
    // Zero, null or missing: not reported. More than the output: capped at it.
    expect(fromOpenAIUsage({ prompt_tokens: 5, completion_tokens: 3, completion_tokens_details: { reasoning_tokens: 0 } })).not.toHaveProperty(
      'reasoningTokens',
    );
    expect(fromOpenAIUsage({ prompt_tokens: 5, completion_tokens: 3, completion_tokens_details: null })).not.toHaveProperty('reasoningTokens');
    expect(fromOpenAIUsage({ prompt_tokens: 5, completion_tokens: 3, completion_tokens_details: { reasoning_tokens: 9 } }).reasoningTokens).toBe(3);
  });
});

function conversation(turns: number, summaryAt?: number): WirePlanItem<AnthropicWireMessage>[] {
  const items: WirePlanItem<AnthropicWireMessage>[] = [];
  for (let i = 0; i < turns; i++) {
    const isSummary = i === summaryAt;
    items.push({ id: `u${i}`, kind: isSummary ? 'summary' : 'message', message: { role: isSummary ? 'assistant' : 'user', content: `turn ${i}` } });
    if (!isSummary) items.push({ id: `a${i}`, kind: 'message', message: { role: 'assistant', content: `answer ${i}` } });
  }
  items.push({ id: 'new', kind: 'message', message: { role: 'user', content: 'newest' } });
  return items;
}

describe('placeCacheBreakpoints', () => {
  it('marks the newest item, the summary and the end of the previous request', () => {
    const items = conversation(5, 1);
    // 0 u0, 1 a0, 2 summary, 3 u2, 4 a2, 5 u3, 6 a3, 7 u4, 8 a4, 9 newest
    expect(placeCacheBreakpoints(items, [], { system: true })).toEqual([2, 7, 9]);
    expect(placeCacheBreakpoints(items, [], { system: false })).toEqual([2, 7, 9]);
    expect(placeCacheBreakpoints(items, [0], { system: false })).toEqual([0, 2, 7, 9]);
    // With the system prompt taking one, the caller's boundary outranks the previous request's end.
    expect(placeCacheBreakpoints(items, [0], { system: true })).toEqual([0, 2, 9]);
  });

  it('never exceeds four breakpoints, system included, and returns valid ascending indexes', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 30 }),
        fc.array(fc.integer({ min: -5, max: 80 }), { maxLength: 10 }),
        fc.boolean(),
        fc.option(fc.integer({ min: 0, max: 29 }), { nil: undefined }),
        (turns, boundaries, system, summaryAt) => {
          const items = turns === 0 ? [] : conversation(turns, summaryAt !== undefined && summaryAt < turns ? summaryAt : undefined);
          const chosen = placeCacheBreakpoints(items, boundaries, { system });
          expect(chosen.length + (system ? 1 : 0)).toBeLessThanOrEqual(MAX_CACHE_BREAKPOINTS);
          expect([...chosen].sort((a, b) => a - b)).toEqual(chosen);
          expect(new Set(chosen).size).toBe(chosen.length);
          for (const i of chosen) expect(i >= 0 && i < items.length).toBe(true);
          if (items.length > 0) expect(chosen).toContain(items.length - 1);
        },
      ),
    );
  });

  it('keeps the summary breakpoint in place and reads where the previous request wrote, as the conversation grows', () => {
    const before = conversation(6, 2);
    const after: WirePlanItem<AnthropicWireMessage>[] = [
      ...before,
      { id: 'a-new', kind: 'message', message: { role: 'assistant', content: 'reply' } },
      { id: 'newer', kind: 'message', message: { role: 'user', content: 'next' } },
    ];
    const summaryIndex = before.findIndex((i) => i.kind === 'summary');
    const first = placeCacheBreakpoints(before, [], { system: true });
    const second = placeCacheBreakpoints(after, [], { system: true });
    expect(first).toContain(summaryIndex);
    expect(second).toContain(summaryIndex);
    // The newest item of the first request (where it wrote the cache) is a breakpoint of the second.
    expect(first).toContain(before.length - 1);
    expect(second).toContain(before.length - 1);
  });

  it('ignores out-of-range boundaries and places none on an empty plan', () => {
    expect(placeCacheBreakpoints([], [0, 3])).toEqual([]);
    expect(placeCacheBreakpoints(conversation(1), [-1, 99, 0.5])).toEqual([0, 2]);
  });
});

describe('applyCacheBreakpoints', () => {
  it('marks the last cacheable block, skipping thinking, and leaves the input untouched', () => {
    const messages: AnthropicWireMessage[] = [
      { role: 'user', content: 'Hello' },
      {
        role: 'assistant',
        content: [
          { type: 'text', text: 'Looking.' },
          { type: 'tool_use', id: 'toolu_1', name: 'read', input: {} },
          { type: 'thinking', thinking: 'x', signature: 's' },
        ],
      },
      { role: 'user', content: 'Thanks' },
    ];
    const copy = structuredClone(messages);
    const marked = applyCacheBreakpoints(messages, [0, 1]);
    expect(messages).toEqual(copy);
    expect(marked[0]).toEqual({ role: 'user', content: [{ type: 'text', text: 'Hello', cache_control: { type: 'ephemeral' } }] });
    expect((marked[1]?.content as AnthropicWireBlock[])[1]).toEqual({
      type: 'tool_use',
      id: 'toolu_1',
      name: 'read',
      input: {},
      cache_control: { type: 'ephemeral' },
    });
    expect((marked[1]?.content as AnthropicWireBlock[])[2]).not.toHaveProperty('cache_control');
    expect(marked[2]).toBe(messages[2]);
  });
});
