/**
 * The send loop's tool round-trips, through `send` as the composer calls it, on the real
 * store and fake IndexedDB, with a scripted provider standing in for the model and a fake
 * JavaScript runner standing in for the Web Worker. Every request the loop sends is checked
 * against the target API's rules.
 */
import { IDBFactory } from 'fake-indexeddb';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import {
  STAND_IN_TOOL_DESCRIPTION,
  WindowpaneError,
  type ContentBlock,
  type StoredMessage,
  type ToolResultBlock,
  type ToolUseBlock,
  type WindowMessage,
} from '../../src/core';
import { validateRequest } from '../core/validateRequest';
import { openWindowpaneStorage, randomUuid } from '../../src/persistence';
import type { ChatProvider, ChatRequest, ChatResult, StreamCallbacks } from '../../src/providers';
import { createRuntime, type Runtime } from '../../src/store/runtime';
import { attachFiles } from '../../src/store/attachmentActions';
import * as planning from '../../src/store/planning';
import * as chat from '../../src/store/sendPipeline';
import { hydrate } from '../../src/store/hydrate';
import { switchModel } from '../../src/store/modelSwitch';
import { DEFAULT_SETTINGS, type Settings } from '../../src/store/settings';
import type { JavascriptRun, JavascriptRunner } from '../../src/sandbox/javascriptRunner';

type Answer = (request: ChatRequest, index: number, callbacks: StreamCallbacks) => ChatResult | Promise<ChatResult>;

interface Harness {
  rt: Runtime;
  /** Every request the provider received, in order, as sent (messages copied). */
  requests: ChatRequest[];
  /** Codes run by run_javascript, in order. */
  runs: string[];
}

const call = (id: string, name: string, input: unknown): ToolUseBlock => ({ type: 'tool_use', id, name, input });
const text = (t: string): ContentBlock => ({ type: 'text', text: t });

function answer(content: ContentBlock[], stopReason?: string): ChatResult {
  return {
    content,
    usage: { inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0 },
    usageReported: false,
    stopReason: stopReason ?? (content.some((b) => b.type === 'tool_use') ? 'tool_use' : 'end_turn'),
    model: 'scripted-model',
  };
}

/** Resolves when `signal` aborts. */
function aborted(signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve) => {
    if (!signal || signal.aborted) return resolve();
    signal.addEventListener('abort', () => resolve(), { once: true });
  });
}

const printsCode: JavascriptRunner = async (code) => ({ logs: [`ran ${code}`], result: '42', truncated: false });

async function start(
  provider: 'anthropic' | 'openai',
  reply: Answer,
  options: { settings?: (s: Settings) => Settings; runJavascript?: JavascriptRunner; model?: string } = {},
): Promise<Harness> {
  globalThis.indexedDB = new IDBFactory();
  const requests: ChatRequest[] = [];
  const runs: string[] = [];
  const runner = options.runJavascript ?? printsCode;
  const fake: ChatProvider = {
    id: provider,
    wireShape: provider,
    async send(request, callbacks = {}) {
      requests.push({ ...request, messages: structuredClone(request.messages) as ChatRequest['messages'] });
      return reply(request, requests.length - 1, callbacks);
    },
    async complete() {
      return 'Summary of the earlier work.';
    },
  };
  const rt = createRuntime({
    openStorage: () => openWindowpaneStorage(),
    createProvider: async () => fake,
    now: () => Date.now(),
    newId: randomUuid,
    runJavascript: (code, signal) => {
      runs.push(code);
      return runner(code, signal);
    },
  });
  await hydrate(rt);
  const base: Settings = {
    ...DEFAULT_SETTINGS,
    provider,
    apiKeys: { [provider]: 'sk-test-key-0123456789' },
    models: { [provider]: options.model ?? (provider === 'anthropic' ? 'claude-sonnet-4-6' : 'gpt-5.5') },
  };
  rt.store.setState({ settings: options.settings ? options.settings(base) : base });
  return { rt, requests, runs };
}

/** Sends as the composer does and waits until the turn (every round of it) is over. */
async function sendAndSettle(rt: Runtime, message: string): Promise<string> {
  expect(chat.send(rt, rt.store.getState().activeId, message)).toBe(true);
  await vi.waitFor(
    () => {
      expect(rt.store.getState().sendingId).toBeNull();
      expect(rt.controllers.size).toBe(0);
    },
    { timeout: 5000 },
  );
  return rt.store.getState().activeId!;
}

function messagesOf(rt: Runtime, conversationId: string): StoredMessage[] {
  return rt.store.getState().messages[conversationId] ?? [];
}

async function storedMessagesOf(rt: Runtime, conversationId: string): Promise<StoredMessage[]> {
  return rt.storage!.repositories.conversations.getMessages(conversationId);
}

function resultsIn(message: StoredMessage | undefined): ToolResultBlock[] {
  return (message?.content ?? []).filter((b): b is ToolResultBlock => b.type === 'tool_result');
}

function expectValid(requests: ChatRequest[], provider: 'anthropic' | 'openai'): void {
  for (const [i, request] of requests.entries()) {
    expect(validateRequest(request.messages as WindowMessage[], { provider }), `request ${i + 1}`).toEqual({ ok: true, violations: [] });
  }
}

function noticeTexts(rt: Runtime): string[] {
  return rt.store.getState().notices.map((n) => n.text);
}

beforeEach(() => {
  vi.useRealTimers();
});

afterEach(() => {
  vi.restoreAllMocks();
});

describe('tool round-trips', () => {
  it('Anthropic: runs the call, sends one user message of tool_result blocks, and the model answers from it', async () => {
    const { rt, requests, runs } = await start('anthropic', (_request, i) =>
      i === 0 ? answer([text('Let me compute.'), call('toolu_1', 'run_javascript', { code: '6 * 7' })]) : answer([text('It is 42.')]),
    );
    const id = await sendAndSettle(rt, 'What is 6 * 7?');

    expect(runs).toEqual(['6 * 7']);
    const stored = await storedMessagesOf(rt, id);
    expect(stored.map((m) => [m.role, m.content.map((b) => b.type).join('+'), m.status])).toEqual([
      ['user', 'text', 'complete'],
      ['assistant', 'text+tool_use', 'complete'],
      ['user', 'tool_result', 'complete'],
      ['assistant', 'text', 'complete'],
    ]);
    expect(resultsIn(stored[2])).toEqual([{ type: 'tool_result', tool_use_id: 'toolu_1', content: 'Output:\nran 6 * 7\nResult: 42' }]);

    expect(requests).toHaveLength(2);
    // No files are attached, so read_attachment is not offered.
    expect(requests.every((r) => r.tools?.map((t) => t.name).join() === 'run_javascript')).toBe(true);
    const last = requests[1]!.messages.at(-1)!;
    expect(last).toEqual({ role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_1', content: 'Output:\nran 6 * 7\nResult: 42' }] });
    expectValid(requests, 'anthropic');
    expect(rt.store.getState().toolRun).toBeNull();
  });

  it('OpenAI: parallel calls are answered by one stored message, sent as one role:"tool" message per call', async () => {
    const { rt, requests, runs } = await start('openai', (_request, i) =>
      i === 0
        ? answer([call('call_a', 'run_javascript', { code: '1 + 1' }), call('call_b', 'run_javascript', { code: '2 + 2' })])
        : answer([text('Both done.')]),
    );
    const id = await sendAndSettle(rt, 'Add two pairs.');

    expect(runs).toEqual(['1 + 1', '2 + 2']);
    const stored = messagesOf(rt, id);
    expect(stored).toHaveLength(4);
    expect(resultsIn(stored[2]).map((r) => r.tool_use_id)).toEqual(['call_a', 'call_b']);
    const sent = requests[1]!.messages as { role: string; tool_call_id?: string; tool_calls?: { id: string }[] }[];
    expect(sent.map((m) => m.role)).toEqual(['user', 'assistant', 'tool', 'tool']);
    expect(sent[1]!.tool_calls!.map((c) => c.id)).toEqual(['call_a', 'call_b']);
    expect(sent.slice(2).map((m) => m.tool_call_id)).toEqual(['call_a', 'call_b']);
    expectValid(requests, 'openai');
  });

  it('OpenAI: inside the loop each answer goes back with its encrypted reasoning; once the user writes again, none does', async () => {
    const sealed = (id: string): ContentBlock => ({ type: 'thinking', thinking: `Summary ${id}`, reasoningItem: { id, encryptedContent: `gAAAA-${id}` } });
    const { rt, requests } = await start(
      'openai',
      (_request, i) =>
        i === 0
          ? answer([sealed('rs_1'), call('call_a', 'run_javascript', { code: '1 + 1' })])
          : i === 1
            ? answer([sealed('rs_2'), call('call_b', 'run_javascript', { code: '2 + 2' })])
            : answer([sealed(`rs_${i + 1}`), text('Done.')]),
      { model: 'gpt-6.1-terra' },
    );
    const id = await sendAndSettle(rt, 'Add two pairs.');
    await sendAndSettle(rt, 'Thanks');
    type Sent = { role: string; reasoning?: { id: string; encrypted_content: string }[] };
    const reasoningOf = (r: ChatRequest) => (r.messages as Sent[]).map((m) => (m.reasoning ?? []).map((x) => `${x.id}:${x.encrypted_content}`).join());
    expect(requests.map(reasoningOf)).toEqual([
      [''],
      ['', 'rs_1:gAAAA-rs_1', ''],
      ['', 'rs_1:gAAAA-rs_1', '', 'rs_2:gAAAA-rs_2', ''],
      ['', '', '', '', '', '', ''],
    ]);
    // Stored with the answer, so a reload or another device can continue the loop.
    expect(messagesOf(rt, id)[1]!.content[0]).toEqual(sealed('rs_1'));
    expect(requests.every((r) => r.thinking?.reasons === true)).toBe(true);
    expectValid(requests, 'openai');
  });

  it('a model switched while the loop runs answers from the next message: the loop keeps its model and thinking', async () => {
    const sealed = (id: string): ContentBlock => ({ type: 'thinking', thinking: `Summary ${id}`, reasoningItem: { id, encryptedContent: `gAAAA-${id}` } });
    const harness: Harness = await start(
      'openai',
      async (_request, i) => {
        if (i === 0) {
          // The user picks a model that does not reason while the first answer streams.
          await switchModel(harness.rt, 'gpt-4o-mini');
          return answer([sealed('rs_1'), call('call_a', 'run_javascript', { code: '1 + 1' })]);
        }
        return answer([text(`Answer ${i}.`)]);
      },
      { model: 'gpt-6.1-terra', settings: (s) => ({ ...s, thinking: { kind: 'effort', effort: 'high' } }) },
    );
    const { rt, requests } = harness;
    await sendAndSettle(rt, 'Add a pair.');
    await sendAndSettle(rt, 'Thanks');
    expect(requests.map((r) => r.model)).toEqual(['gpt-6.1-terra', 'gpt-6.1-terra', 'gpt-4o-mini']);
    expect(requests.map((r) => r.thinking?.reasoningEffort)).toEqual(['high', 'high', undefined]);
    // The loop's reasoning went back to the model that wrote it, and only there.
    expect((requests[1]!.messages as { reasoning?: unknown[] }[]).some((m) => m.reasoning?.length)).toBe(true);
    expect(noticeTexts(rt).some((t) => t.startsWith('Thinking is now “Model default”'))).toBe(true);
    expectValid(requests, 'openai');
  });

  it('stops at the per-turn round limit, answers the calls left, says so naming the setting, and the next message works', async () => {
    let n = 0;
    const { rt, requests, runs } = await start(
      'anthropic',
      (request) => {
        const last = request.messages.at(-1)!;
        const fromUser = typeof last.content === 'string';
        if (fromUser && /thanks/i.test(last.content as string)) return answer([text('You are welcome.')]);
        n++;
        return answer([call(`toolu_${n}`, 'run_javascript', { code: `${n}` })]);
      },
      { settings: (s) => ({ ...s, tools: { ...s.tools, maxRounds: 3 } }) },
    );
    const id = await sendAndSettle(rt, 'Loop forever.');

    expect(runs).toEqual(['1', '2', '3']);
    expect(requests).toHaveLength(4);
    const stored = messagesOf(rt, id);
    const lastResults = resultsIn(stored.at(-1));
    expect(lastResults).toHaveLength(1);
    expect(lastResults[0]).toMatchObject({ tool_use_id: 'toolu_4', is_error: true });
    expect(lastResults[0]!.content).toContain('limit of 3 tool rounds');
    expect(noticeTexts(rt).some((t) => t.includes('Stopped after 3 tool rounds') && t.includes('Tool rounds per turn'))).toBe(true);

    await sendAndSettle(rt, 'Thanks, that is enough.');
    expect(requests).toHaveLength(5);
    expect(messagesOf(rt, id).at(-1)).toMatchObject({ role: 'assistant', status: 'complete', content: [text('You are welcome.')] });
    expectValid(requests, 'anthropic');
  });

  it('re-plans every round: a long tool loop stays within max_messages and every request is valid', async () => {
    let n = 0;
    const { rt, requests } = await start(
      'openai',
      () => {
        n++;
        return n <= 24
          ? answer([call(`call_${n}a`, 'run_javascript', { code: `${n}` }), call(`call_${n}b`, 'run_javascript', { code: `-${n}` })])
          : answer([text('All done.')]);
      },
      {
        settings: (s) => ({
          ...s,
          window: { ...s.window, strategy: 'count', maxMessages: 12, preserveFirst: 1, preserveLast: 6 },
          tools: { ...s.tools, maxRounds: 30 },
        }),
      },
    );
    const id = await sendAndSettle(rt, 'Run 48 snippets.');

    expect(requests).toHaveLength(25);
    expect(Math.max(...requests.map((r) => r.messages.length))).toBeLessThanOrEqual(12);
    expect(requests.at(-1)!.messages[0]).toEqual({ role: 'user', content: 'Run 48 snippets.' });
    expectValid(requests, 'openai');
    // Nothing stored is lost: 1 user message + 24 rounds of (answer, results) + the final answer.
    expect(await storedMessagesOf(rt, id)).toHaveLength(50);
    expect(noticeTexts(rt).some((t) => /^\d+ earlier messages are left out of this request to keep it within its limits/.test(t))).toBe(true);
  });
});

describe('the default strategy in a small window', () => {
  it('clears old tool results before it leaves any message out, and says so in plain words', async () => {
    const seen = new Set<string>();
    let n = 0;
    const bigOutput: JavascriptRunner = async (code) => ({ logs: [`${code}: ${'row of output data '.repeat(150)}`], result: 'undefined', truncated: false });
    const { rt, requests } = await start(
      'anthropic',
      () => {
        n++;
        return n <= 12 ? answer([call(`toolu_${n}`, 'run_javascript', { code: `step(${n})` })]) : answer([text('Done.')]);
      },
      { runJavascript: bigOutput, settings: (s) => ({ ...s, contextWindow: 12_000 }) },
    );
    const unsubscribe = rt.store.subscribe((state) => state.notices.forEach((notice) => seen.add(notice.text)));
    await sendAndSettle(rt, 'Run twelve steps.');
    unsubscribe();

    expectValid(requests, 'anthropic');
    // Every request still opens with the user's message: clearing made room, nothing was evicted.
    for (const request of requests) expect(request.messages[0]).toEqual({ role: 'user', content: 'Run twelve steps.' });
    const cleared = [...seen].filter((t) =>
      /^(1 older tool result is sent as a short placeholder|\d+ older tool results are sent as short placeholders) to save about [\d,]+ tokens\. The full output stays in the conversation\. \[History compacted using auto strategy\]$/.test(
        t,
      ),
    );
    expect(cleared.length).toBeGreaterThan(0);
    expect(JSON.stringify(requests.at(-1)!.messages)).toContain('[tool result cleared to save context: run_javascript');
    expect([...seen].some((t) => t.includes('left out of this request') || t.includes('high-water'))).toBe(false);
  });
});

describe('a provider with a smaller window than configured', () => {
  it('is met once: the rounds after the retry are planned within the window it stated', async () => {
    let refused = 0;
    const { rt, requests } = await start('anthropic', (request, i) => {
      // A server whose window is 3,000 tokens refuses the output reserve planned for the model's own window.
      if (request.maxTokens > 750) {
        refused++;
        throw new WindowpaneError('context_length', 'The conversation is too long for claude-sonnet-4-6: 8,300 tokens, limit 3,000.', {
          promptTokens: 8300,
          limit: 3000,
        });
      }
      return i < 4 ? answer([call(`toolu_${i}`, 'run_javascript', { code: `${i}` })]) : answer([text('Done.')]);
    });
    await sendAndSettle(rt, 'Work in three steps.');
    expect(refused).toBe(1);
    expect(requests[0]!.maxTokens).toBeGreaterThan(750);
    expect(requests.slice(1).map((r) => r.maxTokens)).toEqual([750, 750, 750, 750]);
    expect(noticeTexts(rt).filter((t) => t.startsWith('The provider counted'))).toHaveLength(1);
    expectValid(requests, 'anthropic');
  });
});

describe('a refusal for length that states no counts (OpenAI’s Responses API)', () => {
  it('is retried once, planned within 90 % of the window, and says so', async () => {
    let refused = 0;
    const { rt, requests } = await start(
      'openai',
      (request) => {
        if (refused === 0) {
          refused++;
          throw new WindowpaneError(
            'context_length',
            'The conversation is too long for gpt-6.1-terra. Your input exceeds the context window of this model.',
            {},
          );
        }
        return answer([text(`Answer ${request.messages.length}`)]);
      },
      { model: 'gpt-6.1-terra', settings: (s) => ({ ...s, contextWindow: 8000 }) },
    );
    await sendAndSettle(rt, 'Hello');
    expect(refused).toBe(1);
    expect(requests).toHaveLength(2);
    expect(requests[1]!.maxTokens).toBeLessThan(requests[0]!.maxTokens);
    expect(noticeTexts(rt).filter((t) => t.includes('too long for its window, without counts') && t.includes('within 7,200 tokens'))).toHaveLength(1);
    expect(messagesOf(rt, rt.store.getState().activeId!).at(-1)!.status).toBe('complete');
  });
});

describe('a conversation too long for the model with nothing left to trim', () => {
  it('is not sent again unchanged, and each refusal replaces the last notice instead of piling up', async () => {
    const { rt, requests } = await start(
      'anthropic',
      () => {
        throw new WindowpaneError('context_length', 'The conversation is too long for claude-sonnet-4-6: 9,000 tokens, limit 8,000.', {
          promptTokens: 9000,
          limit: 8000,
        });
      },
      { settings: (s) => ({ ...s, window: { ...s.window, strategy: 'off' } }) },
    );
    await sendAndSettle(rt, 'One.');
    expect(requests).toHaveLength(1);
    await sendAndSettle(rt, 'Two.');
    await sendAndSettle(rt, 'Three.');
    expect(requests).toHaveLength(3);
    expect(noticeTexts(rt).filter((t) => t.startsWith('The conversation is too long'))).toHaveLength(1);
    expect(noticeTexts(rt).filter((t) => t.startsWith('The provider counted'))).toHaveLength(0);
  });
});

describe('Stop in the middle of a tool loop', () => {
  it('during a stream: a finished call gets a result saying the user stopped it, nothing runs, and the next message works', async () => {
    const { rt, requests, runs } = await start('anthropic', async (request, i, callbacks) => {
      if (i === 0) {
        callbacks.onText?.('Starting');
        await aborted(request.signal);
        return answer([text('Starting'), call('toolu_s', 'run_javascript', { code: 'slow()' })], 'stopped');
      }
      return answer([text('Fresh answer.')]);
    });
    expect(chat.send(rt, null, 'Do something slow.')).toBe(true);
    await vi.waitFor(() => expect(rt.store.getState().streaming?.text).toBe('Starting'));
    chat.stop(rt, rt.store.getState().activeId!);
    await vi.waitFor(() => expect(rt.store.getState().sendingId).toBeNull());
    const id = await sendAndSettle(rt, 'Never mind.');

    expect(runs).toEqual([]);
    const stored = await storedMessagesOf(rt, id);
    expect(stored[1]).toMatchObject({ role: 'assistant', status: 'stopped' });
    expect(resultsIn(stored[2])).toEqual([{ type: 'tool_result', tool_use_id: 'toolu_s', content: expect.stringContaining('pressed Stop'), is_error: true }]);
    expect(stored.at(-1)).toMatchObject({ role: 'assistant', status: 'complete', content: [text('Fresh answer.')] });
    expect(requests).toHaveLength(2);
    expectValid(requests, 'anthropic');
  });

  it('while a tool runs: the runner is stopped, the remaining calls do not run, and the history stays valid', async () => {
    let runnerSignal: AbortSignal | undefined;
    const slowRunner: JavascriptRunner = async (_code, signal): Promise<JavascriptRun> => {
      runnerSignal = signal;
      await aborted(signal);
      return { logs: ['half way'], stopped: true, truncated: false };
    };
    const { rt, requests, runs } = await start(
      'openai',
      (_request, i) =>
        i === 0
          ? answer([call('call_1', 'run_javascript', { code: 'while (true) {}' }), call('call_2', 'run_javascript', { code: '1' })])
          : answer([text('Back.')]),
      { runJavascript: slowRunner },
    );
    expect(chat.send(rt, null, 'Spin.')).toBe(true);
    await vi.waitFor(() => expect(rt.store.getState().toolRun?.running?.name).toBe('run_javascript'));
    expect(rt.store.getState().toolRun).toMatchObject({ round: 1, maxRounds: 25 });
    chat.stop(rt, rt.store.getState().activeId!);
    await vi.waitFor(() => expect(rt.store.getState().sendingId).toBeNull());
    const id = rt.store.getState().activeId!;

    expect(runnerSignal?.aborted).toBe(true);
    expect(runs).toEqual(['while (true) {}']);
    expect(requests).toHaveLength(1);
    const results = resultsIn(messagesOf(rt, id).at(-1));
    expect(results.map((r) => [r.tool_use_id, r.is_error])).toEqual([
      ['call_1', true],
      ['call_2', true],
    ]);
    expect(results[0]!.content).toContain('half way');
    expect(results.every((r) => r.content.includes('pressed Stop'))).toBe(true);

    await sendAndSettle(rt, 'Carry on.');
    expect(requests).toHaveLength(2);
    expect(messagesOf(rt, id).at(-1)).toMatchObject({ role: 'assistant', content: [text('Back.')] });
    expectValid(requests, 'openai');
  });
});

describe('what the model gets wrong becomes a result it can read', () => {
  it('arguments that were not JSON, of the wrong type, or unknown: is_error results, and the loop goes on', async () => {
    const { rt, requests, runs } = await start('openai', (_request, i) =>
      i === 0
        ? answer([
            call('call_json', 'run_javascript', '{"code": "1 +'),
            call('call_type', 'run_javascript', { code: 42 }),
            call('call_extra', 'read_attachment', { name: 'a.txt', lines: 3 }),
          ])
        : answer([text('I will fix my arguments.')]),
    );
    const id = await sendAndSettle(rt, 'Go.');

    expect(runs).toEqual([]);
    const results = resultsIn(messagesOf(rt, id)[2]);
    expect(results.map((r) => r.is_error)).toEqual([true, true, true]);
    expect(results[0]!.content).toMatch(/not valid JSON/);
    expect(results[1]!.content).toMatch(/needs "code"/);
    expect(results[2]!.content).toMatch(/does not take "lines"/);
    expect(messagesOf(rt, id).at(-1)).toMatchObject({ role: 'assistant', status: 'complete' });
    // The raw arguments go back as the model sent them, with the error after them.
    const sent = requests[1]!.messages as { role: string; content: string | null; tool_calls?: { function: { arguments: string } }[] }[];
    expect(sent[1]!.tool_calls![0]!.function.arguments).toBe('{"code": "1 +');
    expect(sent[2]!.content).toMatch(/^Error: The arguments of run_javascript were not valid JSON/);
    expectValid(requests, 'openai');
  });

  it('an unknown tool name gets an error listing the tools there are', async () => {
    const { rt, requests } = await start('anthropic', (_request, i) =>
      i === 0 ? answer([call('toolu_x', 'browse_web', { url: 'https://example.com' })]) : answer([text('OK.')]),
    );
    const id = await sendAndSettle(rt, 'Look it up.');
    expect(resultsIn(messagesOf(rt, id)[2])).toEqual([
      {
        type: 'tool_result',
        tool_use_id: 'toolu_x',
        is_error: true,
        content: 'There is no tool named "browse_web". Tools available: read_attachment, run_javascript.',
      },
    ]);
    expectValid(requests, 'anthropic');
  });
});

describe('tools switched in settings', () => {
  it('sends no tools when both are off, and a call to one anyway is refused, not run', async () => {
    const { rt, requests, runs } = await start(
      'anthropic',
      (_request, i) => (i === 0 ? answer([call('toolu_off', 'run_javascript', { code: '1' })]) : answer([text('Understood.')])),
      { settings: (s) => ({ ...s, tools: { ...s.tools, readAttachment: false, runJavascript: false } }) },
    );
    const id = await sendAndSettle(rt, 'Compute 1.');
    expect(requests.map((r) => r.tools)).toEqual([[], []]);
    expect(runs).toEqual([]);
    expect(resultsIn(messagesOf(rt, id)[2])[0]).toMatchObject({
      is_error: true,
      content: 'The tool run_javascript is switched off in Settings. Tools available: none.',
    });

    // The next request names run_javascript again (Anthropic requires it with tool blocks in
    // the history; the adapter sends it not callable), so the plan and the gauge count it.
    const ctx = planning.contextFor(rt, id);
    expect(ctx.tools).toEqual([]);
    expect(JSON.parse(ctx.toolsText)).toEqual([
      { name: 'run_javascript', description: STAND_IN_TOOL_DESCRIPTION, inputSchema: { type: 'object', properties: {} } },
    ]);
    const counted = planning.planFor(ctx, messagesOf(rt, id)).metrics.systemTokens;
    expect(counted).toBeGreaterThan(planning.planFor({ ...ctx, toolsText: '' }, messagesOf(rt, id)).metrics.systemTokens);
    // A conversation without tool calls pays nothing for them.
    expect(planning.contextFor(rt, null).toolsText).toBe('');
  });

  it('offers read_attachment once the conversation has a file, and only the tools switched on', async () => {
    const { rt, requests } = await start('openai', () => answer([text('Hi.')]));
    const id = await sendAndSettle(rt, 'Hello.');
    await attachFiles(rt, id, [new File(['a\nb\n'], 'notes.txt', { type: 'text/plain' })]);
    await sendAndSettle(rt, 'I attached a file.');
    rt.store.setState((s) => ({ settings: { ...s.settings, tools: { ...s.settings.tools, runJavascript: false } } }));
    await sendAndSettle(rt, 'No code, please.');
    expect(requests.map((r) => r.tools?.map((t) => t.name))).toEqual([['run_javascript'], ['read_attachment', 'run_javascript'], ['read_attachment']]);
  });
});

describe('read_attachment', () => {
  it('reads the conversation’s attachments from storage when the model calls it', async () => {
    const { rt, requests } = await start('anthropic', (request) => {
      const last = request.messages.at(-1)!;
      if (last.content === 'Hello.') return answer([text('Hi.')]);
      if (typeof last.content === 'string') return answer([call('toolu_list', 'read_attachment', {})]);
      const answering = (last.content?.[0] as { tool_use_id?: string } | undefined)?.tool_use_id;
      return answering === 'toolu_list'
        ? answer([call('toolu_read', 'read_attachment', { name: 'app.log', start_line: 2, end_line: 3 })])
        : answer([text('Line 2 says beta.')]);
    });
    // The first turn creates the conversation; the file is attached before the model asks for it.
    const id = await sendAndSettle(rt, 'Hello.');
    await attachFiles(rt, id, [new File(['alpha\nbeta\ngamma\ndelta\n'], 'app.log', { type: 'text/plain' })]);
    requests.length = 0;
    await sendAndSettle(rt, 'What does line 2 of the log say?');

    const messages = messagesOf(rt, id);
    const reads = messages.filter((m) => m.role === 'user').flatMap(resultsIn);
    expect(reads.map((r) => r.is_error ?? false)).toEqual([false, false]);
    expect(reads[0]!.content).toContain('app.log');
    expect(reads[0]!.content).toContain('4 lines');
    expect(reads[1]!.content).toContain('2\tbeta\n3\tgamma');
    expect(reads[1]!.content).not.toContain('alpha');
    expectValid(requests, 'anthropic');
  });
});

describe('an endpoint that refuses tools', () => {
  it('is told clearly, and the turn is sent again once without tools; later turns go without them', async () => {
    const { rt, requests } = await start(
      'openai',
      (request) => {
        if (request.tools && request.tools.length > 0) {
          throw new WindowpaneError(
            'bad_request',
            'The server at http://localhost:11434/v1 cannot use tools with tiny-model: registry.ollama.ai/library/tiny-model:latest does not support tools',
            {
              toolsUnsupported: true,
              status: 400,
            },
          );
        }
        return answer([text('Plain answer.')]);
      },
      { model: 'tiny-model-without-tools' },
    );
    const id = await sendAndSettle(rt, 'Hello?');
    expect(requests.map((r) => r.tools?.length ?? 0)).toEqual([1, 0]);
    expect(messagesOf(rt, id).at(-1)).toMatchObject({ role: 'assistant', status: 'complete', content: [text('Plain answer.')] });
    const notice = noticeTexts(rt).find((t) => t.includes('does not support tools'));
    expect(notice).toContain('sent the message again without tools');
    expect(rt.store.getState().notices.filter((n) => n.tone === 'error')).toEqual([]);

    await sendAndSettle(rt, 'Again?');
    expect(requests.map((r) => r.tools?.length ?? 0)).toEqual([1, 0, 0]);
  });
});
