import fc from 'fast-check';
import { afterEach, describe, expect, it, vi } from 'vitest';
import {
  ConfigError,
  ConversationWindow,
  applySummary,
  CONCISE_SUMMARY_PROMPT,
  estimateTokens,
  type ConversationHistoryConfig,
  type WindowMessage,
} from '../../../src/core';
import { validateRequest } from '../validateRequest';
import { buildHistory, conversationArb, messagesOf, SHAPES, type ConversationSpec, type WireShape } from './conversations';

interface Message {
  role: string;
  content: unknown;
}

function makeMessages(count: number): Message[] {
  return Array.from({ length: count }, (_, i) => ({ role: i % 2 === 0 ? 'user' : 'assistant', content: `Message ${i}` }));
}

/** Records warnings instead of printing them. */
function recordingLogger(): { warn(message: string): void; warnings: string[] } {
  const warnings: string[] = [];
  return { warnings, warn: (message: string) => void warnings.push(message) };
}

/** A summarizer that answers with a fixed text and records each prompt. */
function recordingProvider(answer: string | Error = 'Read a.ts, fixed the test.'): { call(prompt: string): Promise<string>; prompts: string[] } {
  const prompts: string[] = [];
  return {
    prompts,
    call: async (prompt: string) => {
      prompts.push(prompt);
      if (answer instanceof Error) throw answer;
      return answer;
    },
  };
}

describe('ConversationWindow config', () => {
  it('applies the defaults 100 / false / 1 / 20 for omitted fields', () => {
    expect(new ConversationWindow().config).toEqual({ max_messages: 100, summarize_on_trim: false, preserve_first_n: 1, preserve_last_n: 20 });
    expect(new ConversationWindow({ max_messages: 30 }).config).toEqual({
      max_messages: 30,
      summarize_on_trim: false,
      preserve_first_n: 1,
      preserve_last_n: 20,
    });
    const messages = makeMessages(150);
    const result = new ConversationWindow({}).trim(messages);
    expect(result.trimmed).toHaveLength(100);
    expect(result.trimmed[0]).toBe(messages[0]);
    expect(result.trimmed.slice(-20)).toEqual(messages.slice(-20));
    expect(result.evicted).toEqual(messages.slice(1, 51));
  });

  it.each([
    ['max_messages', -1],
    ['max_messages', 2.5],
    ['preserve_first_n', -3],
    ['preserve_last_n', 0.5],
    ['preserve_last_n', Number.NaN],
    ['max_messages', '10'],
  ])('rejects %s = %s with a ConfigError naming the field', (field, value) => {
    const make = () => new ConversationWindow({ [field]: value } as ConversationHistoryConfig);
    expect(make).toThrow(ConfigError);
    expect(make).toThrow(field);
    try {
      make();
    } catch (error) {
      expect((error as ConfigError).field).toBe(field);
    }
  });

  it('rejects a non-boolean summarize_on_trim', () => {
    expect(() => new ConversationWindow({ summarize_on_trim: 'yes' as unknown as boolean })).toThrow(/summarize_on_trim/);
  });
});

describe('ConversationWindow.trim (head, newest of the middle, tail)', () => {
  it('returns messages unchanged when under the cap', () => {
    const messages = makeMessages(5);
    const result = new ConversationWindow({ max_messages: 10 }).trim(messages);
    expect(result.trimmed).toBe(messages);
    expect(result.evicted).toEqual([]);
    expect(result.metrics).toEqual({ totalMessages: 5, preservedMessages: 5, evictedMessages: 0, estimatedTokens: estimateTokens(messages) });
  });

  it('returns messages unchanged exactly at the cap', () => {
    const messages = makeMessages(10);
    const result = new ConversationWindow({ max_messages: 10 }).trim(messages);
    expect(result.trimmed).toEqual(messages);
    expect(result.evicted).toEqual([]);
  });

  it('handles an empty array', () => {
    expect(new ConversationWindow({ max_messages: 10 }).trim([])).toEqual({
      trimmed: [],
      evicted: [],
      metrics: { totalMessages: 0, preservedMessages: 0, evictedMessages: 0, estimatedTokens: 0 },
    });
  });

  it('never trims when max_messages is 0', () => {
    const messages = makeMessages(500);
    const result = new ConversationWindow({ max_messages: 0 }).trim(messages);
    expect(result.trimmed).toHaveLength(500);
    expect(result.evicted).toHaveLength(0);
  });

  it('keeps the first N, the newest of the middle and the last N; evicts the oldest middle messages', () => {
    const messages = makeMessages(20);
    const result = new ConversationWindow({ max_messages: 10, preserve_first_n: 2, preserve_last_n: 3 }).trim(messages);
    // keep_middle = 10 - 2 - 3 = 5: messages 12..16 of the middle 2..16.
    expect(result.trimmed).toEqual([...messages.slice(0, 2), ...messages.slice(12, 17), ...messages.slice(17)]);
    expect(result.evicted).toEqual(messages.slice(2, 12));
    expect(result.trimmed.every((m, i) => i === 0 || messages.indexOf(m) > messages.indexOf(result.trimmed[i - 1] as Message))).toBe(true);
  });

  it('computes the metrics of the trim', () => {
    const messages = makeMessages(10);
    const result = new ConversationWindow({ max_messages: 5, preserve_first_n: 1, preserve_last_n: 2 }).trim(messages);
    expect(result.trimmed).toEqual([messages[0], ...messages.slice(6)]);
    expect(result.metrics).toEqual({
      totalMessages: 10,
      preservedMessages: 5,
      evictedMessages: 5,
      estimatedTokens: Math.ceil('Message 0Message 6Message 7Message 8Message 9'.length / 4),
    });
  });

  it('keeps only head and tail, and warns, when preserve_first_n + preserve_last_n >= max_messages', () => {
    const logger = recordingLogger();
    const messages = makeMessages(20);
    const result = new ConversationWindow({ max_messages: 5, preserve_first_n: 3, preserve_last_n: 4 }, logger).trim(messages);
    expect(result.trimmed).toEqual([...messages.slice(0, 3), ...messages.slice(16)]);
    expect(result.evicted).toEqual(messages.slice(3, 16));
    expect(logger.warnings).toHaveLength(1);
    expect(logger.warnings[0]).toMatch(/preserve_first_n \(3\) \+ preserve_last_n \(4\) >= max_messages \(5\)/);
  });

  it('warns through console by default', () => {
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => undefined);
    new ConversationWindow({ max_messages: 4, preserve_first_n: 2, preserve_last_n: 2 }).trim(makeMessages(6));
    expect(warn).toHaveBeenCalledTimes(1);
  });

  it('does not warn when the settings fit', () => {
    const logger = recordingLogger();
    new ConversationWindow({ max_messages: 25 }, logger).trim(makeMessages(30));
    expect(logger.warnings).toEqual([]);
  });

  it('never keeps a message twice when head and tail overlap', () => {
    const messages = makeMessages(6);
    const result = new ConversationWindow({ max_messages: 5, preserve_first_n: 4, preserve_last_n: 4 }, recordingLogger()).trim(messages);
    expect(result.trimmed).toEqual(messages);
    expect(new Set(result.trimmed).size).toBe(result.trimmed.length);
    expect(result.metrics.preservedMessages).toBe(6);
  });

  it('handles fewer messages than preserve_first_n + preserve_last_n', () => {
    const messages = makeMessages(3);
    const result = new ConversationWindow({ max_messages: 100, preserve_first_n: 5, preserve_last_n: 10 }).trim(messages);
    expect(result.trimmed).toEqual(messages);
    expect(result.evicted).toEqual([]);
  });

  it('does not modify its input', () => {
    const messages = makeMessages(30);
    const copy = structuredClone(messages);
    new ConversationWindow({ max_messages: 10 }).trim(Object.freeze(messages));
    expect(messages).toEqual(copy);
  });
});

describe('estimateTokens (chars / 4, rounded up)', () => {
  const window = new ConversationWindow();

  it('counts string content as is', () => {
    expect(window.estimateTokens([{ role: 'user', content: 'Hello world' }])).toBe(3);
    expect(estimateTokens([{ role: 'user', content: 'Hello world' }])).toBe(3);
  });

  it('counts object and block content by its JSON length', () => {
    const blocks = [
      { type: 'text', text: 'Hello' },
      { type: 'tool_result', tool_use_id: 'toolu_1', content: 'World' },
    ];
    expect(window.estimateTokens([{ role: 'user', content: blocks }])).toBe(Math.ceil(JSON.stringify(blocks).length / 4));
    expect(window.estimateTokens([{ role: 'user', content: { foo: 'bar' } }])).toBe(Math.ceil('{"foo":"bar"}'.length / 4));
  });

  it('counts OpenAI tool calls and sums mixed messages', () => {
    const toolCalls = [{ id: 'call_1', type: 'function', function: { name: 'ls', arguments: '{}' } }];
    const messages: WindowMessage[] = [
      { role: 'user', content: 'plain text' },
      { role: 'assistant', content: null, tool_calls: toolCalls },
      { role: 'tool', tool_call_id: 'call_1', content: 'a.ts' },
      { role: 'assistant', content: [{ type: 'text', text: 'array text' }] },
    ];
    const chars = 10 + JSON.stringify(toolCalls).length + 4 + JSON.stringify([{ type: 'text', text: 'array text' }]).length;
    expect(window.estimateTokens(messages)).toBe(Math.ceil(chars / 4));
  });

  it('is 0 for no messages', () => {
    expect(window.estimateTokens([])).toBe(0);
  });
});

// A conversation whose plain count cuts fall inside tool exchanges, in both shapes:
// 0 user, 1-2 call + results (parallel: 2 calls), 3 answer, 4 user, 5 answer, 6 user,
// 7-8 call + result, 9 answer, 10 user. (OpenAI has one more message: two role:"tool" answers.)
const toolSpec: ConversationSpec = {
  turns: [
    {
      user: 'Fix the failing test.',
      steps: [
        {
          calls: [
            { name: 'read_file', input: { path: 'a.ts' }, result: 'export const a = 1;' },
            { name: 'bash', input: { command: 'npm test' }, result: '1 failed' },
          ],
        },
        { text: 'The test expects 2.' },
      ],
    },
    { user: 'Change it.', steps: [{ text: 'Changed.' }] },
    { user: 'Run it again.', steps: [{ calls: [{ name: 'bash', input: { command: 'npm test' }, result: 'all passed' }] }, { text: 'All green.' }] },
    { user: 'Thanks!', steps: [] },
  ],
};

function pairingViolations(messages: readonly WindowMessage[]) {
  return validateRequest(messages, { fragment: true }).violations.filter((v) => v.code !== 'first-not-user');
}

/** The count arithmetic alone, for comparison. */
function arithmeticResult<M>(messages: readonly M[], config: Required<Omit<ConversationHistoryConfig, 'summarize_on_trim'>>): M[] {
  const ranges = new ConversationWindow(config, recordingLogger()).keptRanges(messages.length);
  return ranges ? [...messages.slice(0, ranges.headEnd), ...messages.slice(ranges.tailStart)] : [...messages];
}

describe.each(SHAPES)('validity beats the count arithmetic (%s)', (shape: WireShape) => {
  const messages = messagesOf(buildHistory(toolSpec, shape));
  const n = messages.length;
  const at = (text: string) => messages.findIndex((m) => JSON.stringify(m).includes(text));
  const firstCall = 1;
  const firstAnswer = at('The test expects 2.');

  it('returns exactly the arithmetic’s result when it is valid', () => {
    const config = { max_messages: n - firstAnswer + 1, preserve_first_n: 1, preserve_last_n: 3 };
    const plain = arithmeticResult(messages, config);
    expect(plain[1]).toBe(messages[firstAnswer]);
    const result = new ConversationWindow(config).trim(messages);
    expect(result.trimmed).toEqual(plain);
    expect(pairingViolations(result.trimmed)).toEqual([]);
  });

  it('evicts the whole exchange when the tail would start with a tool result', () => {
    // Keep one message more than above: the arithmetic's tail now starts inside the first exchange.
    const config = { max_messages: n - firstAnswer + 2, preserve_first_n: 1, preserve_last_n: 3 };
    const plain = arithmeticResult(messages, config);
    expect(pairingViolations(plain).length).toBeGreaterThan(0);
    const result = new ConversationWindow(config).trim(messages);
    expect(pairingViolations(result.trimmed)).toEqual([]);
    expect(result.trimmed).toEqual([messages[0], ...messages.slice(firstAnswer)]);
    expect(result.evicted).toEqual(messages.slice(firstCall, firstAnswer));
    expect(result.trimmed.length).toBeLessThan(plain.length);
  });

  it('evicts the head’s tool call when its results fall in the evicted middle', () => {
    const config = { max_messages: 6, preserve_first_n: 2, preserve_last_n: 3 };
    const plain = arithmeticResult(messages, config);
    expect(plain[1]).toBe(messages[firstCall]);
    const result = new ConversationWindow(config).trim(messages);
    expect(pairingViolations(result.trimmed)).toEqual([]);
    expect(result.trimmed).toEqual(plain.filter((m) => m !== messages[firstCall]));
    expect(result.metrics.evictedMessages).toBe(n - result.trimmed.length);
  });

  it('keeps every tool exchange whole over random conversations and settings, never more than the arithmetic', { timeout: 60_000 }, () => {
    fc.assert(
      fc.property(
        conversationArb,
        fc.record({
          max_messages: fc.integer({ min: 0, max: 40 }),
          preserve_first_n: fc.integer({ min: 0, max: 6 }),
          preserve_last_n: fc.integer({ min: 0, max: 25 }),
        }),
        (spec, config) => {
          const history = messagesOf(buildHistory(spec, shape));
          const result = new ConversationWindow(config, recordingLogger()).trim(history);
          const plain = arithmeticResult(history, config);
          const kept = new Set(result.trimmed);
          expect(pairingViolations(result.trimmed)).toEqual([]);
          expect(result.trimmed.length).toBeLessThanOrEqual(plain.length);
          expect(result.trimmed.every((m) => plain.includes(m))).toBe(true);
          expect([...result.trimmed, ...result.evicted]).toHaveLength(history.length);
          expect(result.evicted.every((m) => !kept.has(m))).toBe(true);
          if (pairingViolations(plain).length === 0) expect(result.trimmed).toEqual(plain);
        },
      ),
      { numRuns: 250 },
    );
  });
});

describe('ConversationWindow.summarize (one summary of the evicted messages)', () => {
  const evicted: Message[] = [
    { role: 'user', content: 'Read src/a.ts and fix the bug.' },
    { role: 'assistant', content: 'Fixed the off-by-one in src/a.ts.' },
  ];

  it('sends the concise prompt followed by the messages’ text and returns the summary', async () => {
    const provider = recordingProvider('  Fixed an off-by-one in src/a.ts.  ');
    const summary = await new ConversationWindow({ summarize_on_trim: true }).summarize(evicted, provider);
    expect(summary).toBe('Fixed an off-by-one in src/a.ts.');
    expect(provider.prompts).toHaveLength(1);
    expect(provider.prompts[0]?.startsWith(CONCISE_SUMMARY_PROMPT)).toBe(true);
    expect(provider.prompts[0]).toContain('Read src/a.ts and fix the bug.');
    expect(provider.prompts[0]).toContain('Fixed the off-by-one in src/a.ts.');
  });

  it('skips the call when the messages carry no text (only tool results)', async () => {
    const provider = recordingProvider();
    const toolOnly = messagesOf(buildHistory({ turns: [{ user: 'x', steps: [{ calls: [{ name: 'ls', input: {}, result: 'a.ts' }] }] }] }, 'anthropic')).slice(
      1,
    );
    expect(await new ConversationWindow().summarize(toolOnly, provider)).toBe('');
    expect(await new ConversationWindow().summarize([{ role: 'assistant', content: null }], provider)).toBe('');
    expect(provider.prompts).toEqual([]);
  });

  it('resolves to "" and warns when the call fails, so the caller evicts plainly', async () => {
    const logger = recordingLogger();
    const summary = await new ConversationWindow({}, logger).summarize(evicted, recordingProvider(new Error('API down')));
    expect(summary).toBe('');
    expect(logger.warnings[0]).toContain('API down');
  });
});

describe('the summary message between head and tail', () => {
  it('replaces the evicted messages with one "[Conversation Summary]" assistant message after the head', () => {
    const messages = makeMessages(12);
    const window = new ConversationWindow({ max_messages: 6, preserve_first_n: 2, preserve_last_n: 2 });
    const result = window.trim(messages);
    const summarized = applySummary(messages, result, 'Earlier: set up the project.');
    expect(summarized.trimmed).toEqual([
      messages[0],
      messages[1],
      { role: 'assistant', content: '[Conversation Summary]\nEarlier: set up the project.' },
      ...messages.slice(8),
    ]);
    expect(summarized.evicted).toEqual(result.evicted);
    expect(summarized.metrics).toEqual({ totalMessages: 12, preservedMessages: 7, evictedMessages: 6, estimatedTokens: estimateTokens(summarized.trimmed) });
  });

  it('leaves a result without evictions, or a blank summary, as it was', () => {
    const messages = makeMessages(4);
    const result = new ConversationWindow().trim(messages);
    expect(applySummary(messages, result, 'x')).toBe(result);
    const trimmed = new ConversationWindow({ max_messages: 2, preserve_first_n: 1, preserve_last_n: 1 }, recordingLogger()).trim(messages);
    expect(applySummary(messages, trimmed, '  ')).toBe(trimmed);
  });
});

describe('ConversationWindow.trimWithSummary (summarize on trim, rate-limited)', () => {
  afterEach(() => vi.restoreAllMocks());

  it('puts one summary between head and tail once at least 10 messages are evicted', async () => {
    const provider = recordingProvider('The first steps.');
    const window = new ConversationWindow({ max_messages: 5, preserve_first_n: 1, preserve_last_n: 2, summarize_on_trim: true });
    const messages = makeMessages(18);
    const result = await window.trimWithSummary(messages, provider);
    expect(provider.prompts).toHaveLength(1);
    expect(result.trimmed).toHaveLength(6);
    expect(result.trimmed[0]).toBe(messages[0]);
    expect(result.trimmed[1]).toEqual({ role: 'assistant', content: '[Conversation Summary]\nThe first steps.' });
    expect(result.trimmed.slice(2)).toEqual(messages.slice(14));
    expect(result.trimmed.filter((m) => String(m.content).startsWith('[Conversation Summary]'))).toHaveLength(1);
    expect(provider.prompts[0]).toContain('Message 1');
    expect(provider.prompts[0]).not.toContain('Message 14');
  });

  it('does not summarize every small trim (rate limit: once per 10 evicted messages)', async () => {
    const provider = recordingProvider();
    const window = new ConversationWindow({ max_messages: 8, preserve_first_n: 1, preserve_last_n: 2, summarize_on_trim: true });
    let messages: WindowMessage[] = makeMessages(8);
    const calls: number[] = [];
    // An agent loop: append 3 messages, trim, carry the trimmed array to the next round.
    for (let round = 0; round < 6; round++) {
      messages = [...messages, ...makeMessages(3).map((m, i) => ({ ...m, content: `round ${round} #${i}` }))];
      messages = (await window.trimWithSummary(messages, provider)).trimmed;
      calls.push(provider.prompts.length);
    }
    // 3 evicted per round: the 4th round reaches 12 ≥ 10 and summarizes; the counter then restarts.
    expect(calls).toEqual([0, 0, 0, 1, 1, 1]);
  });

  it('falls back to plain eviction when summarizing fails', async () => {
    const window = new ConversationWindow({ max_messages: 5, preserve_first_n: 1, preserve_last_n: 2, summarize_on_trim: true }, recordingLogger());
    const messages = makeMessages(18);
    const result = await window.trimWithSummary(messages, recordingProvider(new Error('timeout')));
    expect(result).toEqual(window.trim(messages));
    expect(result.trimmed.some((m) => String(m.content).startsWith('[Conversation Summary]'))).toBe(false);
  });

  it('skips the summary when the evicted messages carry no text', async () => {
    const provider = recordingProvider();
    const window = new ConversationWindow({ max_messages: 3, preserve_first_n: 1, preserve_last_n: 1, summarize_on_trim: true }, recordingLogger());
    const messages: Message[] = [
      { role: 'user', content: 'initial' },
      ...Array.from({ length: 12 }, () => ({ role: 'assistant', content: null })),
      { role: 'user', content: 'latest' },
    ];
    const result = await window.trimWithSummary(messages, provider);
    expect(provider.prompts).toEqual([]);
    expect(result.trimmed).toHaveLength(3);
  });

  it('never calls the provider with summarize_on_trim off', async () => {
    const provider = recordingProvider();
    await new ConversationWindow({ max_messages: 5 }).trimWithSummary(makeMessages(40), provider);
    expect(provider.prompts).toEqual([]);
  });
});
