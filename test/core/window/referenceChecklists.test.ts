// Every item of the checklists Windowpane's context strategies were specified with, each
// proved here directly through the public API (src/core, and the store where the app turns
// settings into a plan): the message-count window module's definition of done, its unit-test
// list and summarize-on-trim's, the rolling window's acceptance criteria, the token-ratio
// strategies with the window they are shares of, and two-tier summarization's two tiers.
// Items about another runtime (executor source lines, a DSL grammar, logging to stdout, build
// gates) have no counterpart here and no test. Inputs are real wire-shaped histories; the only
// stand-ins are the model calls a summary needs, which the API takes as an injected function.
import { describe, expect, it } from 'vitest';
import {
  ConfigError,
  ConversationWindow,
  DEFAULT_CONTEXT_WINDOW,
  SLOT_ITEM_ID,
  emptyCalibration,
  estimateTokens,
  getStrategy,
  planContext,
  resolveModelInfo,
  resolvePlanSummary,
  type ContextPlan,
  type ConversationHistoryConfig,
  type ConversationMetrics,
  type ModelLimits,
  type PlanItem,
  type StrategyOptions,
  type TokenCounter,
  parseToolArguments,
  toolCallsOf,
  type TrimResult,
  type WindowMessage,
} from '../../../src/core';
import * as conversationWindowModule from '../../../src/core/window/conversationWindow';
import { browserDeps } from '../../../src/browserRuntime';
import { createRuntime } from '../../../src/store/runtime';
import { planFor } from '../../../src/store/planning';
import { announcePlan } from '../../../src/store/request';
import { planReport } from '../../../src/store/planReport';
import { DEFAULT_SETTINGS, DEFAULT_TOOLS, DEFAULT_WINDOW, type ConversationOverrides, type Settings, type WindowSettings } from '../../../src/store/settings';
import { settingsProblems } from '../../../src/store/settingsRules';
import { turnContext } from '../../../src/store/turn';
import { buildHistory, chatTurn, deepFreeze, SHAPES, type ConversationSpec, type TurnSpec } from './conversations';

interface Message {
  role: string;
  content: unknown;
}

/** `count` alternating user / assistant messages with string content "Message i". */
function numbered(count: number): Message[] {
  return Array.from({ length: count }, (_, i) => ({ role: i % 2 === 0 ? 'user' : 'assistant', content: `Message ${i}` }));
}

/** Records the window's warnings instead of printing them. */
function recordingLogger(): { warn(message: string): void; warnings: string[] } {
  const warnings: string[] = [];
  return { warnings, warn: (message: string) => void warnings.push(message) };
}

/** The model call a summary needs, as the API injects it: answers `answer` (or throws it) and keeps every prompt. */
function summaryProvider(answer: string | Error = 'Read a.ts, fixed the failing test.'): { call(prompt: string): Promise<string>; prompts: string[] } {
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

/** Runs `run` with console.warn collected, and gives back what was warned. */
function consoleWarnings(run: () => void): string[] {
  const warnings: string[] = [];
  const original = console.warn;
  console.warn = (...args: unknown[]) => void warnings.push(args.map(String).join(' '));
  try {
    run();
  } finally {
    console.warn = original;
  }
  return warnings;
}

const SUMMARY = '[Conversation Summary]';
const isSummary = (message: { content: unknown }) => typeof message.content === 'string' && message.content.startsWith(SUMMARY);

/** n characters of string content cost n tokens; any other content its characters ÷ 4. */
const lengthCounter: TokenCounter = (message) =>
  typeof message.content === 'string' ? message.content.length : Math.ceil(JSON.stringify(message.content ?? '').length / 4);

/** Alternating user / assistant text items m0, m1, ... whose contents have the given lengths. */
function textHistory(sizes: readonly number[]): PlanItem[] {
  return sizes.map((size, i) => ({ id: `m${i}`, message: { role: i % 2 === 0 ? 'user' : 'assistant', content: `m${i} `.padEnd(size, '.').slice(0, size) } }));
}

const ids = (plan: { messages: readonly PlanItem[] }) => plan.messages.map((item) => item.id);
const range = (from: number, to: number) => Array.from({ length: to - from }, (_, i) => `m${from + i}`);

function plan(
  strategy: string,
  history: readonly PlanItem[],
  model: ModelLimits,
  options: StrategyOptions = {},
  counter: TokenCounter = lengthCounter,
): ContextPlan {
  return planContext({ history, policy: { strategy, options }, model, counter });
}

/** A model whose window never binds in these tests: only the strategy's own rule trims. */
const LARGE: ModelLimits = { contextWindow: 1_000_000, maxOutputTokens: 128_000 };

/** Settings for the app: Anthropic's Claude Haiku 4.5 (200k window in the registry) and the given window settings. */
function appSettings(window: Partial<WindowSettings>, patch: Partial<Settings> = {}): Settings {
  return { ...DEFAULT_SETTINGS, provider: 'anthropic', models: { anthropic: 'claude-haiku-4-5' }, window: { ...DEFAULT_WINDOW, ...window }, ...patch };
}

/** The plan the app makes for `history` with these settings (and a conversation's overrides). */
function appPlan(settings: Settings, overrides: ConversationOverrides | undefined, history: readonly PlanItem[]): ContextPlan {
  const ctx = turnContext(settings, overrides, emptyCalibration());
  const { contextWindow, maxOutputTokens, maxInputTokens } = ctx.model;
  return planContext({ history, policy: ctx.policy, model: { contextWindow, maxOutputTokens, maxInputTokens }, counter: ctx.counter });
}

/** The notices the app shows for a plan about to be sent. */
function announced(plan: ContextPlan): string[] {
  const rt = createRuntime({ ...browserDeps(), session: undefined, newId: () => 'notice' });
  announcePlan(rt, plan);
  return rt.store.getState().notices.map((notice) => notice.text);
}

describe('the message-count window module, its definition of done', () => {
  it('is a module of its own in the core, src/core/window/conversationWindow.ts', () => {
    expect(typeof conversationWindowModule.ConversationWindow).toBe('function');
    expect(typeof conversationWindowModule.estimateTokens).toBe('function');
    expect(conversationWindowModule.DEFAULT_CONVERSATION_HISTORY_CONFIG).toEqual({
      max_messages: 100,
      summarize_on_trim: false,
      preserve_first_n: 1,
      preserve_last_n: 20,
    });
  });

  it('is exported from the core with its class, its estimate and its types', () => {
    expect(ConversationWindow).toBe(conversationWindowModule.ConversationWindow);
    expect(estimateTokens).toBe(conversationWindowModule.estimateTokens);
    const config: ConversationHistoryConfig = { max_messages: 10 };
    const window = new ConversationWindow(config);
    const messages = numbered(3);
    const result: TrimResult<Message> = window.trim(messages);
    const metrics: ConversationMetrics = result.metrics;
    expect(metrics).toEqual({ totalMessages: 3, preservedMessages: 3, evictedMessages: 0, estimatedTokens: estimateTokens(messages) });
    expect(window.estimateTokens(messages)).toBe(estimateTokens(messages));
  });

  it('takes the history config in its constructor: max_messages, summarize_on_trim, preserve_first_n, preserve_last_n', () => {
    const window = new ConversationWindow({ max_messages: 6, summarize_on_trim: true, preserve_first_n: 2, preserve_last_n: 3 });
    expect(window.config).toEqual({ max_messages: 6, summarize_on_trim: true, preserve_first_n: 2, preserve_last_n: 3 });
    const messages = numbered(10);
    // 2 first, the newest 6 - 2 - 3 = 1 of the middle, 3 last.
    expect(window.trim(messages).trimmed).toEqual([messages[0], messages[1], messages[6], messages[7], messages[8], messages[9]]);
  });

  it('applies the defaults for omitted fields: max_messages 100, summarize_on_trim false, preserve_first_n 1, preserve_last_n 20', () => {
    const defaults = { max_messages: 100, summarize_on_trim: false, preserve_first_n: 1, preserve_last_n: 20 };
    expect(new ConversationWindow().config).toEqual(defaults);
    expect(new ConversationWindow({}).config).toEqual(defaults);
    expect(new ConversationWindow({ preserve_last_n: 5 }).config).toEqual({ ...defaults, preserve_last_n: 5 });
    const messages = numbered(150);
    const { trimmed, evicted } = new ConversationWindow({}).trim(messages);
    expect(trimmed).toHaveLength(100);
    expect(trimmed[0]).toBe(messages[0]);
    expect(trimmed.slice(1)).toEqual(messages.slice(51));
    expect(evicted).toEqual(messages.slice(1, 51));
  });

  it('trim() runs the sliding window: unchanged under the cap, else head, the newest of the middle and tail, returned with the evicted and the metrics', () => {
    const window = new ConversationWindow({ max_messages: 10, preserve_first_n: 2, preserve_last_n: 3 });
    // Step 1: at most max_messages, nothing to do.
    const few = numbered(10);
    expect(window.trim(few).trimmed).toBe(few);
    // Steps 2-6: head [0, 2), middle [2, 27), tail [27, 30); keep_middle = 10 - 2 - 3 = 5, the last 5 of the middle.
    const messages = numbered(30);
    const result = window.trim(messages);
    expect(result.trimmed).toEqual([...messages.slice(0, 2), ...messages.slice(22, 27), ...messages.slice(27)]);
    result.trimmed.forEach((message, i) => expect(message).toBe([...messages.slice(0, 2), ...messages.slice(22)][i]));
    expect(result.evicted).toEqual(messages.slice(2, 22));
    expect(result.metrics).toEqual({ totalMessages: 30, preservedMessages: 10, evictedMessages: 20, estimatedTokens: estimateTokens(result.trimmed) });
  });

  it('trim() returns messages under the cap unchanged, with an empty evicted array and computed metrics', () => {
    const messages = numbered(7);
    const result = new ConversationWindow({ max_messages: 10 }).trim(messages);
    expect(result.trimmed).toEqual(messages);
    result.trimmed.forEach((message, i) => expect(message).toBe(messages[i]));
    expect(result.evicted).toEqual([]);
    expect(result.metrics).toEqual({ totalMessages: 7, preservedMessages: 7, evictedMessages: 0, estimatedTokens: estimateTokens(messages) });
  });

  it('trim() keeps only head and tail, and warns on the console, when preserve_first_n + preserve_last_n >= max_messages', () => {
    const messages = numbered(20);
    let equal: TrimResult<Message> | undefined;
    const warnedEqual = consoleWarnings(() => (equal = new ConversationWindow({ max_messages: 5, preserve_first_n: 2, preserve_last_n: 3 }).trim(messages)));
    expect(equal?.trimmed).toEqual([messages[0], messages[1], messages[17], messages[18], messages[19]]);
    expect(equal?.evicted).toEqual(messages.slice(2, 17));
    expect(warnedEqual).toHaveLength(1);
    expect(warnedEqual[0]).toMatch(/preserve_first_n.*preserve_last_n.*max_messages/);
    let over: TrimResult<Message> | undefined;
    const warnedOver = consoleWarnings(() => (over = new ConversationWindow({ max_messages: 5, preserve_first_n: 3, preserve_last_n: 4 }).trim(messages)));
    expect(over?.trimmed).toEqual([...messages.slice(0, 3), ...messages.slice(16)]);
    expect(warnedOver).toHaveLength(1);
    // Settings that fit warn nothing.
    expect(consoleWarnings(() => new ConversationWindow({ max_messages: 10, preserve_first_n: 2, preserve_last_n: 3 }).trim(messages))).toEqual([]);
  });

  it('trim() handles an empty message array', () => {
    const result = new ConversationWindow().trim([]);
    expect(result).toEqual({ trimmed: [], evicted: [], metrics: { totalMessages: 0, preservedMessages: 0, evictedMessages: 0, estimatedTokens: 0 } });
  });

  it('trim() keeps the most recent middle messages and evicts the oldest', () => {
    const messages = numbered(30);
    // Middle [1, 26); keep_middle = 10 - 1 - 4 = 5: the newest five of it, 21 to 25.
    const result = new ConversationWindow({ max_messages: 10, preserve_first_n: 1, preserve_last_n: 4 }).trim(messages);
    expect(result.trimmed.slice(1, 6)).toEqual(messages.slice(21, 26));
    expect(result.evicted).toEqual(messages.slice(1, 21));
  });

  it('estimateTokens() handles string content, object content and arrays of content blocks', () => {
    const window = new ConversationWindow();
    expect(window.estimateTokens([{ role: 'user', content: 'abcdefgh' }])).toBe(2);
    const object = { note: 'a plain object' };
    expect(window.estimateTokens([{ role: 'user', content: object }])).toBe(Math.ceil(JSON.stringify(object).length / 4));
    const anthropicBlocks = [
      { type: 'text', text: 'Reading it.' },
      { type: 'tool_use', id: 'toolu_1', name: 'read_attachment', input: { name: 'a.ts' } },
    ];
    const anthropicResult = [{ type: 'tool_result', tool_use_id: 'toolu_1', content: 'export const a = 1;' }];
    expect(window.estimateTokens([{ role: 'assistant', content: anthropicBlocks }])).toBe(Math.ceil(JSON.stringify(anthropicBlocks).length / 4));
    expect(window.estimateTokens([{ role: 'user', content: anthropicResult }])).toBe(Math.ceil(JSON.stringify(anthropicResult).length / 4));
    const toolCalls = [{ id: 'call_1', type: 'function', function: { name: 'read_attachment', arguments: '{"name":"a.ts"}' } }];
    const openai: WindowMessage[] = [
      { role: 'assistant', content: null, tool_calls: toolCalls },
      { role: 'tool', tool_call_id: 'call_1', content: 'export const a = 1;' },
    ];
    expect(window.estimateTokens(openai)).toBe(Math.ceil((JSON.stringify(toolCalls).length + 'export const a = 1;'.length) / 4));
  });

  it('estimateTokens() is the characters of all messages divided by 4', () => {
    const window = new ConversationWindow();
    // Two messages of 6 characters: 12 / 4 = 3 (not 2 + 2 rounded per message).
    expect(
      window.estimateTokens([
        { role: 'user', content: 'abcdef' },
        { role: 'assistant', content: 'ghijkl' },
      ]),
    ).toBe(3);
    expect(window.estimateTokens([{ role: 'user', content: 'x'.repeat(4000) }])).toBe(1000);
    // Characters that do not divide by 4 give a whole number within one token of chars / 4.
    const eleven = window.estimateTokens([{ role: 'user', content: 'Hello world' }]);
    expect(Number.isInteger(eleven) && Math.abs(eleven - 11 / 4) < 1).toBe(true);
  });

  it('is provider-agnostic: any { role, content } messages, Anthropic and OpenAI wire messages alike, come back as the same objects', () => {
    interface Tagged {
      role: string;
      content: unknown;
      tag: number;
    }
    const tagged: Tagged[] = numbered(12).map((message, tag) => ({ ...message, tag }));
    const kept: Tagged[] = new ConversationWindow({ max_messages: 4, preserve_first_n: 1, preserve_last_n: 2 }).trim(tagged).trimmed;
    expect(kept.map((message) => message.tag)).toEqual([0, 9, 10, 11]);
    const spec: ConversationSpec = {
      turns: Array.from({ length: 6 }, (_, i) => ({
        user: `Step ${i}`,
        steps: [{ calls: [{ name: 'read_attachment', input: { name: `f${i}.ts` }, result: `file ${i}` }] }, { text: `Done ${i}.` }],
      })),
    };
    for (const shape of SHAPES) {
      const messages = buildHistory(spec, shape).map((item) => item.message);
      const result = new ConversationWindow({ max_messages: 10, preserve_first_n: 1, preserve_last_n: 4 }).trim(messages);
      expect(result.trimmed.length + result.evicted.length).toBe(messages.length);
      expect(result.trimmed.length).toBeLessThanOrEqual(10);
      // The kept messages are the caller's own objects, in their order.
      let at = 0;
      for (const message of result.trimmed) {
        at = messages.indexOf(message, at);
        expect(at).toBeGreaterThanOrEqual(0);
      }
    }
  });
});

describe('the message-count window and summarize on trim, their unit-test lists', () => {
  describe('trim() and estimateTokens()', () => {
    it('trim() returns messages unchanged when under the cap', () => {
      const messages = numbered(40);
      const result = new ConversationWindow().trim(messages);
      expect(result.trimmed).toBe(messages);
      expect(result.evicted).toEqual([]);
    });

    it('trim() preserves the first N and the last N messages', () => {
      const messages = numbered(50);
      const { trimmed } = new ConversationWindow({ max_messages: 12, preserve_first_n: 3, preserve_last_n: 5 }).trim(messages);
      expect(trimmed.slice(0, 3)).toEqual(messages.slice(0, 3));
      expect(trimmed.slice(-5)).toEqual(messages.slice(-5));
      trimmed.slice(0, 3).forEach((message, i) => expect(message).toBe(messages[i]));
    });

    it('trim() evicts the oldest middle messages first', () => {
      const messages = numbered(50);
      const window = new ConversationWindow({ max_messages: 12, preserve_first_n: 3, preserve_last_n: 5 });
      // 50 messages, 12 kept: the 38 evicted are the oldest after the head, 3 to 40.
      expect(window.trim(messages).evicted).toEqual(messages.slice(3, 41));
      // One message more evicts one more, again the oldest of the middle.
      const more = [...messages, { role: 'user', content: 'Message 50' }];
      expect(window.trim(more).evicted).toEqual(more.slice(3, 42));
    });

    it('trim() handles fewer messages than preserve_first_n + preserve_last_n', () => {
      const few = numbered(15);
      expect(new ConversationWindow().trim(few).trimmed).toBe(few);
      // Over a cap of 4, head (2) and tail (4) overlap on 5 messages: each is kept once.
      const five = numbered(5);
      const logger = recordingLogger();
      const result = new ConversationWindow({ max_messages: 4, preserve_first_n: 2, preserve_last_n: 4 }, logger).trim(five);
      expect(result.trimmed).toEqual(five);
      expect(result.evicted).toEqual([]);
      expect(logger.warnings).toHaveLength(1);
    });

    it('trim() handles exactly max_messages messages without trimming', () => {
      const messages = numbered(100);
      const result = new ConversationWindow().trim(messages);
      expect(result.trimmed).toBe(messages);
      expect(result.metrics).toMatchObject({ totalMessages: 100, preservedMessages: 100, evictedMessages: 0 });
    });

    it('trim() handles an empty message array', () => {
      expect(new ConversationWindow({ max_messages: 1, preserve_first_n: 0, preserve_last_n: 0 }).trim([])).toEqual({
        trimmed: [],
        evicted: [],
        metrics: { totalMessages: 0, preservedMessages: 0, evictedMessages: 0, estimatedTokens: 0 },
      });
    });

    it('estimateTokens() gives reasonable estimates for string content, object content and mixed arrays', () => {
      const window = new ConversationWindow();
      const prose = 'The parser now reports every syntax error it finds, with its line and column.';
      const object = { path: 'src/parser.ts', lines: [1, 200] };
      const blocks = [
        { type: 'text', text: prose },
        { type: 'tool_use', id: 'toolu_1', name: 'read_attachment', input: { name: 'parser.ts' } },
      ];
      const mixed: WindowMessage[] = [
        { role: 'user', content: prose },
        { role: 'assistant', content: blocks },
        { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_1', content: 'export function parse() {}' }] },
        { role: 'assistant', content: object },
      ];
      const chars = prose.length + JSON.stringify(blocks).length + JSON.stringify(mixed[2]?.content).length + JSON.stringify(object).length;
      expect(window.estimateTokens([{ role: 'user', content: prose }])).toBe(Math.ceil(prose.length / 4));
      expect(window.estimateTokens([{ role: 'assistant', content: object }])).toBe(Math.ceil(JSON.stringify(object).length / 4));
      expect(window.estimateTokens(mixed)).toBe(Math.ceil(chars / 4));
      // Reasonable: 1 token ~ 4 characters, and more text never estimates fewer tokens.
      expect(window.estimateTokens(mixed)).toBeGreaterThan(window.estimateTokens(mixed.slice(0, 2)));
    });

    it('computes the metrics after trimming: total, preserved, evicted, and the kept messages’ estimated tokens', () => {
      const messages = numbered(30);
      const result = new ConversationWindow({ max_messages: 10, preserve_first_n: 1, preserve_last_n: 4 }).trim(messages);
      expect(result.metrics).toEqual({ totalMessages: 30, preservedMessages: 10, evictedMessages: 20, estimatedTokens: estimateTokens(result.trimmed) });
      expect(result.metrics.estimatedTokens).toBe(Math.ceil(result.trimmed.reduce((sum, m) => sum + String(m.content).length, 0) / 4));
    });

    it('applies the config defaults when fields are omitted', () => {
      const window = new ConversationWindow({ max_messages: 30 });
      expect(window.config).toEqual({ max_messages: 30, summarize_on_trim: false, preserve_first_n: 1, preserve_last_n: 20 });
      const messages = numbered(40);
      const { trimmed } = window.trim(messages);
      // First 1, the newest 30 - 1 - 20 = 9 of the middle, last 20.
      expect(trimmed).toEqual([messages[0], ...messages.slice(11)]);
    });
  });

  describe('summary on trim', () => {
    const window = () => new ConversationWindow({ max_messages: 5, preserve_first_n: 1, preserve_last_n: 2, summarize_on_trim: true }, recordingLogger());

    it('replaces the evicted messages with a single synthetic summary message', async () => {
      const messages = numbered(18);
      const result = await window().trimWithSummary(messages, summaryProvider('The first steps.'));
      expect(result.evicted).toEqual(messages.slice(1, 14));
      expect(result.trimmed).toHaveLength(messages.length - result.evicted.length + 1);
      expect(result.trimmed.filter(isSummary)).toEqual([{ role: 'assistant', content: `${SUMMARY}\nThe first steps.` }]);
      for (const gone of result.evicted) expect(result.trimmed).not.toContain(gone);
    });

    it('puts the summary message between head and tail', async () => {
      const messages = numbered(18);
      const result = await window().trimWithSummary(messages, summaryProvider('The first steps.'));
      expect(result.trimmed[0]).toBe(messages[0]);
      expect(result.trimmed[1]).toEqual({ role: 'assistant', content: `${SUMMARY}\nThe first steps.` });
      expect(result.trimmed.slice(2)).toEqual(messages.slice(14));
      // The app's count strategy with summarize on puts it in the same place.
      const history = textHistory(Array(18).fill(20));
      const counted = plan(
        'count',
        history,
        { contextWindow: 200_000, maxOutputTokens: 8192 },
        { maxMessages: 5, preserveFirst: 1, preserveLast: 2, summarize: true },
      );
      expect(ids(counted)).toEqual(['m0', SLOT_ITEM_ID, ...range(14, 18)]);
      const resolved = await resolvePlanSummary(counted, { summarize: async () => 'The first steps.' });
      expect(resolved.messages[1]?.message).toEqual({ role: 'assistant', content: `${SUMMARY}\nThe first steps.` });
    });

    it('falls back to plain eviction when summarizing fails', async () => {
      const messages = numbered(18);
      const failing = window();
      const result = await failing.trimWithSummary(messages, summaryProvider(new Error('timeout')));
      expect(result).toEqual(failing.trim(messages));
      expect(result.trimmed.some(isSummary)).toBe(false);
      // The app's count strategy: no summary is sent, and the evicted messages stay out.
      const history = textHistory(Array(18).fill(20));
      const counted = plan(
        'count',
        history,
        { contextWindow: 200_000, maxOutputTokens: 8192 },
        { maxMessages: 5, preserveFirst: 1, preserveLast: 2, summarize: true },
      );
      const resolved = await resolvePlanSummary(counted, {
        summarize: async () => {
          throw new Error('timeout');
        },
      });
      expect(resolved.outcome).toBe('fallback');
      expect(resolved.messages.some((item) => isSummary(item.message))).toBe(false);
      expect(resolved.messages.map((item) => item.id).filter((id) => id !== SLOT_ITEM_ID)).toEqual(['m0', ...range(14, 18)]);
    });

    it('skips summarization when the evicted messages have no text content', async () => {
      const provider = summaryProvider();
      const messages: Message[] = [
        { role: 'user', content: 'initial task' },
        ...Array.from({ length: 14 }, () => ({ role: 'assistant', content: null })),
        { role: 'user', content: 'latest' },
      ];
      const result = await new ConversationWindow(
        { max_messages: 3, preserve_first_n: 1, preserve_last_n: 1, summarize_on_trim: true },
        recordingLogger(),
      ).trimWithSummary(messages, provider);
      expect(provider.prompts).toEqual([]);
      expect(result.trimmed.some(isSummary)).toBe(false);
      // Tool calls and results alone carry no text either.
      const toolOnly = buildHistory(
        {
          turns: [
            { user: 'List them.', steps: Array.from({ length: 12 }, (_, i) => ({ calls: [{ name: 'read_attachment', input: {}, result: `f${i}.ts` }] })) },
          ],
        },
        'anthropic',
      ).map((item) => item.message);
      const toolProvider = summaryProvider();
      await new ConversationWindow({ max_messages: 3, preserve_first_n: 1, preserve_last_n: 2, summarize_on_trim: true }, recordingLogger()).trimWithSummary(
        toolOnly,
        toolProvider,
      );
      expect(toolProvider.prompts).toEqual([]);
    });

    it('does not summarize on every small trim: at most once per 10 evicted messages', async () => {
      const provider = summaryProvider();
      const loop = new ConversationWindow({ max_messages: 8, preserve_first_n: 1, preserve_last_n: 2, summarize_on_trim: true }, recordingLogger());
      let messages: Message[] = numbered(8);
      const calls: number[] = [];
      // An agent loop: 3 messages appended, trimmed, the trimmed array carried to the next round.
      for (let round = 0; round < 7; round++) {
        messages = [...messages, ...numbered(3).map((m, i) => ({ ...m, content: `round ${round} #${i}` }))];
        messages = (await loop.trimWithSummary(messages, provider)).trimmed;
        calls.push(provider.prompts.length);
      }
      // 3 evicted per round: the 4th round reaches 12 and summarizes; the count starts again.
      expect(calls).toEqual([0, 0, 0, 1, 1, 1, 2]);
    });

    it('asks the injected model call with the summarization prompt, followed by the evicted messages’ text', async () => {
      const provider = summaryProvider();
      const messages = numbered(18);
      await window().trimWithSummary(messages, provider);
      expect(provider.prompts).toHaveLength(1);
      const prompt = provider.prompts[0] ?? '';
      expect(
        prompt.startsWith(
          'Summarize the following conversation history concisely. Focus on: what files were read/written, what decisions were made, what problems were encountered, and what the current state of the task is. Be factual and brief.',
        ),
      ).toBe(true);
      // The evicted messages (1 to 13), one line each, and nothing of the kept ones.
      const lines = prompt.split('\n');
      for (let i = 1; i < 14; i++) expect(lines).toContain(`[${i % 2 === 0 ? 'user' : 'assistant'}]: Message ${i}`);
      expect(lines).not.toContain('[user]: Message 0');
      expect(lines).not.toContain('[user]: Message 14');
    });
  });
});

describe('the rolling window, its acceptance criteria', () => {
  it('keeps the last 50 messages by default; the limit can be set in Settings and for one conversation', () => {
    expect(getStrategy('rolling')?.defaults.rollingMax).toBe(50);
    expect(DEFAULT_WINDOW.rollingMax).toBe(50);
    const history = textHistory(Array(80).fill(10));
    expect(ids(plan('rolling', history, LARGE))).toEqual(range(30, 80));
    // The app, from its settings.
    expect(turnContext(appSettings({ strategy: 'rolling' }), undefined, emptyCalibration()).policy).toMatchObject({
      strategy: 'rolling',
      options: { rollingMax: 50 },
    });
    expect(ids(appPlan(appSettings({ strategy: 'rolling' }), undefined, history))).toEqual(range(30, 80));
    // Overridden in Settings, and for one conversation (the others keep the global value).
    const global = appSettings({ strategy: 'rolling', rollingMax: 24 });
    expect(ids(appPlan(global, undefined, history))).toEqual(range(56, 80));
    expect(ids(appPlan(global, { window: { rollingMax: 10 } }, history))).toEqual(range(70, 80));
  });

  it('refuses a limit that is not above 0', () => {
    for (const rollingMax of [0, -1, 2.5]) {
      expect(() => plan('rolling', textHistory([10, 10]), LARGE, { rollingMax })).toThrow(ConfigError);
      try {
        plan('rolling', textHistory([10, 10]), LARGE, { rollingMax });
      } catch (error) {
        expect((error as ConfigError).field).toBe('rollingMax');
      }
      expect(settingsProblems(appSettings({ strategy: 'rolling', rollingMax })).rollingMax).toBeTruthy();
    }
  });

  it('after every message appended, the request never holds more than the limit, and pruning is silent', () => {
    // Turns of each kind the app appends: a question and its answer, a tool call and its result, parallel calls and their results.
    const turns: TurnSpec[] = Array.from({ length: 45 }, (_, i) => {
      if (i % 3 === 0) return chatTurn(`Question ${i}?`, `Answer ${i}.`);
      if (i % 3 === 1)
        return {
          user: `Read f${i}.ts`,
          steps: [{ calls: [{ name: 'read_attachment', input: { name: `f${i}.ts` }, result: `file ${i}` }] }, { text: `Read ${i}.` }],
        };
      return {
        user: `Compare f${i}.ts and g${i}.ts`,
        steps: [
          {
            text: 'Reading both.',
            calls: [
              { name: 'read_attachment', input: { name: `f${i}.ts` }, result: `file f${i}` },
              { name: 'read_attachment', input: { name: `g${i}.ts` }, result: `file g${i}` },
            ],
          },
          { text: `Compared ${i}.` },
        ],
      };
    });
    for (const shape of SHAPES) {
      const history = buildHistory({ turns }, shape);
      expect(history.length).toBeGreaterThan(100);
      for (let n = 1; n <= history.length; n++) {
        const sent = plan('rolling', history.slice(0, n), LARGE);
        expect(sent.messages.length).toBeLessThanOrEqual(50);
        expect(sent.metrics.overBudget).toBe(false);
        // Silent: nothing stands in for the pruned messages.
        expect(sent.slot).toBeNull();
      }
    }
  });

  it('prunes after every kind of append, tool results and parallel tool results included, in a tool loop longer than the limit too', () => {
    // One question answered by as many tool rounds as a turn may have (single and parallel calls, alternately), then the answer.
    const loop: TurnSpec = {
      user: 'Read every attachment and list what each exports.',
      steps: [
        ...Array.from({ length: DEFAULT_TOOLS.maxRounds }, (_, i) =>
          i % 2 === 0
            ? { calls: [{ name: 'read_attachment', input: { name: `f${i}.ts` }, result: `file ${i}` }] }
            : {
                text: 'Two more.',
                calls: [
                  { name: 'read_attachment', input: { name: `f${i}.ts` }, result: `file f${i}` },
                  { name: 'read_attachment', input: { name: `g${i}.ts` }, result: `file g${i}` },
                ],
              },
        ),
        { text: 'Each file exports one function.' },
      ],
    };
    for (const shape of SHAPES) {
      const history = buildHistory({ turns: [chatTurn('Hello?', 'Hi. What shall I read?'), loop] }, shape);
      expect(history.length).toBeGreaterThan(50);
      for (let n = 1; n <= history.length; n++) {
        const sent = plan('rolling', history.slice(0, n), LARGE);
        expect(sent.messages.length, `${shape}: ${sent.messages.length} messages sent after ${n} appended`).toBeLessThanOrEqual(50);
      }
    }
  });

  it('discards the oldest messages first, always keeps the most recent, and keeps their order', () => {
    const history = textHistory(Array(60).fill(10));
    const pruned = plan('rolling', history, LARGE);
    expect(ids(pruned)).toEqual(range(10, 60));
    expect(pruned.evicted.map((entry) => entry.id)).toEqual(range(0, 10));
    // A question and its answer more: the two oldest kept go next, first in, first out.
    const grown = plan('rolling', textHistory(Array(62).fill(10)), LARGE);
    expect(ids(grown)).toEqual(range(12, 62));
  });

  it('reports each pruning with the message counts before and after', () => {
    const pruned = plan('rolling', textHistory(Array(60).fill(10)), LARGE);
    expect(pruned.metrics).toMatchObject({ totalMessages: 60, keptMessages: 50, evictedMessages: 10, trimmed: true });
    expect(planReport(pruned).pruned).toBe('Pruning from 60 to 50 messages (~600 → ~500 tokens)');
    expect(announced(pruned).join('\n')).toContain('Pruning from 60 to 50 messages (~600 → ~500 tokens).');
    // No pruning, nothing reported.
    const kept = plan('rolling', textHistory(Array(50).fill(10)), LARGE);
    expect(planReport(kept).pruned).toBeNull();
    expect(announced(kept)).toEqual([]);
  });

  it('changes nothing for a history within the limit, and never modifies the caller’s history', () => {
    const within = deepFreeze(textHistory(Array(50).fill(10)));
    const sent = plan('rolling', within, LARGE);
    expect(sent.messages).toHaveLength(50);
    sent.messages.forEach((item, i) => expect(item).toBe(within[i]));
    expect(sent.evicted).toEqual([]);
    // Over the limit, planning reads a frozen history (a write would throw) and leaves it as it was.
    const over = deepFreeze(textHistory(Array(80).fill(10)));
    const before = JSON.stringify(over);
    expect(ids(plan('rolling', over, LARGE))).toEqual(range(30, 80));
    expect(JSON.stringify(over)).toBe(before);
  });

  it('cuts a history of 500 messages and more to 50, and the tokens sent by 90 %', () => {
    for (const count of [500, 800]) {
      const sent = plan('rolling', textHistory(Array(count).fill(200)), LARGE);
      expect(sent.messages).toHaveLength(50);
      expect(sent.metrics.inputTokens).toBeLessThanOrEqual(0.1 * sent.metrics.fullInputTokens);
    }
  });
});

describe('token-ratio truncation and summarization, and the window they are shares of', () => {
  describe('the window: an explicit setting, else the model registry, else 4,096 tokens', () => {
    it('an explicit value wins over the model registry', () => {
      expect(resolveModelInfo('claude-haiku-4-5', { explicit: { contextWindow: 50_000 } })).toMatchObject({ contextWindow: 50_000, known: true });
      expect(resolveModelInfo('claude-haiku-4-5', { explicit: { maxInputTokens: 40_000 } }).maxInputTokens).toBe(40_000);
      // The app: Settings' "Context window", and a conversation's own.
      const explicit = turnContext(appSettings({}, { contextWindow: 50_000 }), undefined, emptyCalibration());
      expect(explicit.model.contextWindow).toBe(50_000);
      expect(planFor(explicit, []).metrics.contextWindow).toBe(50_000);
      expect(turnContext(appSettings({}), { contextWindow: 64_000 }, emptyCalibration()).model.contextWindow).toBe(64_000);
    });

    it('the model registry gives the window when none is set', () => {
      expect(resolveModelInfo('claude-haiku-4-5')).toMatchObject({ contextWindow: 200_000, known: true });
      const registry = turnContext(appSettings({}), undefined, emptyCalibration());
      expect(registry.model.contextWindow).toBe(200_000);
      expect(planFor(registry, []).metrics.contextWindow).toBe(200_000);
    });

    it('a model no registry knows gets the default of 4,096 tokens', () => {
      expect(DEFAULT_CONTEXT_WINDOW).toBe(4096);
      expect(resolveModelInfo('my-local-model', { provider: 'openai-compatible' })).toMatchObject({ contextWindow: 4096, maxOutputTokens: 4096, known: false });
      const unknown = turnContext(
        appSettings({}, { provider: 'openai-compatible', models: { 'openai-compatible': 'my-local-model' } }),
        undefined,
        emptyCalibration(),
      );
      expect(unknown.model.contextWindow).toBe(4096);
      expect(planFor(unknown, []).metrics.contextWindow).toBe(4096);
    });
  });

  describe('truncate', () => {
    // The max input tokens are 1,000: truncate above 800, down to 700.
    const model: ModelLimits = { contextWindow: 1_000_000, maxOutputTokens: 8192, maxInputTokens: 1000 };

    it('leaves the history alone up to 80 % of the max input tokens, and truncates above it', () => {
      expect(getStrategy('truncate')?.defaults).toMatchObject({ triggerRatio: 0.8, targetRatio: 0.7 });
      const at = plan('truncate', textHistory(Array(8).fill(100)), model);
      expect(at.metrics).toMatchObject({ maxInputTokens: 1000, inputTokens: 800, trimmed: false });
      expect(at.evicted).toEqual([]);
      const over = plan('truncate', textHistory([...Array(7).fill(100), 101]), model);
      expect(over.metrics.trimmed).toBe(true);
      expect(over.evicted.length).toBeGreaterThan(0);
    });

    it('keeps the first user message and the newest messages that fit 70 %, stopping at the first that does not', () => {
      // 700 - 100 for the first message leaves 600: five messages of 100 leave 100, a sixth would leave nothing.
      const even = plan('truncate', textHistory(Array(10).fill(100)), model);
      expect(ids(even)).toEqual(['m0', SLOT_ITEM_ID, ...range(5, 10)]);
      // Walking back from the newest: 200 and 100 fit, 400 does not, and the walk stops there (50 older would fit).
      const uneven = plan('truncate', textHistory([100, 100, 50, 400, 100, 200]), model);
      expect(ids(uneven)).toEqual(['m0', SLOT_ITEM_ID, 'm4', 'm5']);
    });

    it('puts "[N earlier messages truncated to fit context window]" between the first message and the kept ones, N the messages dropped', () => {
      const truncated = plan('truncate', textHistory(Array(10).fill(100)), model);
      expect(truncated.messages[1]?.message).toEqual({ role: 'assistant', content: '[4 earlier messages truncated to fit context window]' });
      expect(truncated.slot).toMatchObject({ kind: 'marker', index: 1, standsFor: 4 });
      expect(truncated.evicted.map((entry) => entry.id)).toEqual(range(1, 5));
      // Nothing dropped, no marker.
      expect(ids(plan('truncate', textHistory(Array(8).fill(100)), model))).toEqual(range(0, 8));
    });
  });

  describe('summarize', () => {
    // The max input tokens are 10,000: summarize above 8,000, down to 7,000.
    const model: ModelLimits = { contextWindow: 1_000_000, maxOutputTokens: 8192, maxInputTokens: 10_000 };

    it('leaves the history alone up to 80 % of the max input tokens, and summarizes above it', () => {
      expect(getStrategy('summarize')?.defaults).toMatchObject({ triggerRatio: 0.8, targetRatio: 0.7 });
      const at = plan('summarize', textHistory(Array(40).fill(200)), model);
      expect(at.metrics).toMatchObject({ maxInputTokens: 10_000, inputTokens: 8000, trimmed: false });
      expect(at.slot).toBeNull();
      const over = plan('summarize', textHistory([...Array(39).fill(200), 201]), model);
      expect(over.slot).toMatchObject({ kind: 'summary', summary: { status: 'needed', prompt: 'concise' } });
    });

    it('keeps the goal, the first user message, with one "[Conversation Summary]" message after it', async () => {
      const history = textHistory(Array(60).fill(200));
      const summarized = plan('summarize', history, model);
      expect(summarized.slot).toMatchObject({ kind: 'summary', index: 1, role: 'assistant' });
      const prompts: string[] = [];
      const resolved = await resolvePlanSummary(summarized, {
        summarize: async (prompt) => {
          prompts.push(prompt);
          return 'Refactored the parser.';
        },
      });
      expect(resolved.outcome).toBe('summarized');
      expect(resolved.messages[0]).toBe(history[0]);
      expect(resolved.messages[1]?.message).toEqual({ role: 'assistant', content: '[Conversation Summary]\nRefactored the parser.' });
      expect(resolved.messages.filter((item) => isSummary(item.message))).toHaveLength(1);
      expect(resolved.messages.at(-1)).toBe(history.at(-1));
      // The summary is asked about what was left out.
      expect(prompts).toHaveLength(1);
      expect(prompts[0]).toContain(String(history[1]?.message.content));
    });

    it('keeps the latest tool results of the last 10 files read after the summary, then the newest messages; the summary request carries the goal and the files', async () => {
      const names = [
        'lexer.ts',
        'ast.ts',
        'parser.ts',
        'printer.ts',
        'scope.ts',
        'types.ts',
        'errors.ts',
        'tokens.ts',
        'visitor.ts',
        'emit.ts',
        'config.ts',
        'index.ts',
      ];
      const goal = 'Make the parser report every syntax error it finds, not just the first.';
      // Twelve files read, then parser.ts read again: the last 10 are parser.ts and the 9 read after it (all but lexer.ts and ast.ts).
      const lastTen = ['parser.ts', ...names.slice(3)];
      const spec: ConversationSpec = {
        turns: [
          chatTurn(goal, 'I will read the sources first.'),
          {
            user: 'Read every file.',
            steps: [...names.map((name) => ({ calls: [{ name: 'read_attachment', input: { name }, result: `contents of ${name}` }] })), { text: 'All read.' }],
          },
          {
            user: 'Read parser.ts again.',
            steps: [
              { calls: [{ name: 'read_attachment', input: { name: 'parser.ts' }, result: 'contents of parser.ts, edited' }] },
              { text: 'Read it again.' },
            ],
          },
          ...Array.from({ length: 40 }, (_, i) => chatTurn(`Question ${i} about the error list?`, `Answer ${i}.`)),
        ],
      };
      const filesOf = (item: PlanItem) =>
        toolCallsOf(item.message).flatMap((call) => {
          const parsed = parseToolArguments(call.input);
          return parsed.ok && typeof parsed.args.name === 'string' ? [parsed.args.name] : [];
        });
      for (const shape of SHAPES) {
        const history = buildHistory(spec, shape);
        // 100 tokens a message: about 11,000 in all, over 8,000.
        const summarized = plan('summarize', history, model, {}, () => 100);
        const sent = summarized.messages;
        expect(sent[0]?.message.content, shape).toBe(goal);
        expect(sent[1]?.id, shape).toBe(SLOT_ITEM_ID);
        expect(summarized.slot?.summary?.status, shape).toBe('needed');
        // The latest exchange (call and results) of each of the last 10 files, right after the summary.
        const called = sent.flatMap(filesOf);
        expect([...called].sort(), shape).toEqual([...lastTen].sort());
        const text = JSON.stringify(sent.map((item) => item.message));
        for (const name of lastTen.slice(1)) expect(text, shape).toContain(`contents of ${name}`);
        expect(text, shape).toContain('contents of parser.ts, edited');
        // The first read of parser.ts is not sent: only its latest result.
        expect(text, shape).not.toContain('contents of parser.ts"');
        // Goal, summary, the 10 exchanges (a call and its result each), then the newest messages as they are, up to the last.
        const isFileItem = (item: PlanItem) => filesOf(item).length > 0 || JSON.stringify(item.message).includes('contents of ');
        expect(
          sent.flatMap((item, i) => (isFileItem(item) ? [i] : [])),
          shape,
        ).toEqual(Array.from({ length: 20 }, (_, i) => 2 + i));
        const rest = sent.slice(22);
        expect(rest.length, shape).toBeGreaterThan(0);
        expect(rest, shape).toEqual(history.slice(history.length - rest.length));
        // The summary request carries the goal and the files kept.
        const prompts: string[] = [];
        await resolvePlanSummary(summarized, {
          summarize: async (prompt) => {
            prompts.push(prompt);
            return 'Read the sources; the error list is being reworked.';
          },
        });
        expect(prompts[0], shape).toContain(goal);
        for (const name of lastTen) expect(prompts[0], shape).toContain(name);
      }
    });
  });

  it('shows each compaction to the user as "[History compacted using <strategy> strategy]"', () => {
    const truncated = plan('truncate', textHistory(Array(10).fill(100)), { contextWindow: 1_000_000, maxOutputTokens: 8192, maxInputTokens: 1000 });
    expect(planReport(truncated).compacted).toBe('[History compacted using truncate strategy]');
    expect(announced(truncated).join('\n')).toContain('[History compacted using truncate strategy]');
    const summarized = plan('summarize', textHistory(Array(60).fill(200)), { contextWindow: 1_000_000, maxOutputTokens: 8192, maxInputTokens: 10_000 });
    expect(planReport(summarized).compacted).toBe('[History compacted using summarize strategy]');
    expect(announced(summarized).join('\n')).toContain('[History compacted using summarize strategy]');
    // Nothing compacted, nothing shown.
    const whole = plan('truncate', textHistory(Array(8).fill(100)), { contextWindow: 1_000_000, maxOutputTokens: 8192, maxInputTokens: 1000 });
    expect(planReport(whole).compacted).toBeNull();
    expect(announced(whole)).toEqual([]);
  });
});

describe('two-tier summarization, its two tiers', () => {
  /**
   * Ten steps of an agent, four wire messages each: a question naming a file, a read and a
   * command run in parallel (each result `resultChars` long), their results, and an answer.
   */
  function agentSteps(resultChars: number): PlanItem[] {
    const turns: TurnSpec[] = Array.from({ length: 10 }, (_, i) => ({
      user: `Step ${i}: check src/file${i}.ts`,
      steps: [
        {
          text: 'Looking.',
          calls: [
            { name: 'read_file', input: { path: `src/file${i}.ts` }, result: 'x'.repeat(resultChars) },
            { name: 'bash', input: { command: `npm test -- file${i}` }, result: 'ok' },
          ],
        },
        { text: `Done with step ${i}.` },
      ],
    }));
    return buildHistory({ turns }, 'anthropic');
  }

  /** A model call that answers `answer` and keeps each prompt and its max_tokens. */
  function recordingSummarizer(answer = 'Steps 0 to 7 are done.') {
    const calls: { prompt: string; maxTokens: number }[] = [];
    return {
      calls,
      summarize: async (prompt: string, request: { maxTokens: number }) => {
        calls.push({ prompt, maxTokens: request.maxTokens });
        return answer;
      },
    };
  }

  it('summarizes nothing up to 80,000 tokens', () => {
    expect(getStrategy('two-tier')?.defaults).toMatchObject({ heuristicThreshold: 80_000, aiThreshold: 120_000, keepLast: 8 });
    // 20 messages of 16,000 characters: 80,000 tokens.
    const at = plan('two-tier', textHistory(Array(20).fill(16_000)), LARGE, {}, () => 1);
    expect(at.evicted).toEqual([]);
    expect(at.slot).toBeNull();
  });

  it('estimates tokens as characters ÷ 4, rounded up', () => {
    // 20 × ceil(16,001 / 4) = 80,020 tokens, whatever the model's own estimate says (1 a message here).
    const over = plan('two-tier', textHistory(Array(20).fill(16_001)), LARGE, {}, () => 1);
    expect(over.metrics.trigger).toBe('80020 tokens > 80000 (heuristic summary)');
  });

  it('tier one, above 80,000 tokens: keeps the last 8 messages intact', () => {
    const history = agentSteps(40_000);
    const summarized = plan('two-tier', history, LARGE);
    expect(summarized.slot?.summary?.status).toBe('heuristic');
    expect(summarized.messages).toHaveLength(9);
    summarized.messages.slice(1).forEach((item, i) => expect(item).toBe(history[history.length - 8 + i]));
  });

  it('tier one: the summary lists the tools used, files explored and commands run, without a model call', async () => {
    const summarized = plan('two-tier', agentSteps(40_000), LARGE);
    const text = String(summarized.messages[0]?.message.content);
    expect(text.startsWith(`${SUMMARY}\n`)).toBe(true);
    expect(text).toContain('Tools used: read_file (8), bash (8)');
    expect(text).toContain(`Files explored: ${Array.from({ length: 8 }, (_, i) => `src/file${i}.ts`).join(', ')}`);
    expect(text).toContain(`Commands run: ${Array.from({ length: 8 }, (_, i) => `npm test -- file${i}`).join('; ')}`);
    const model = recordingSummarizer();
    const resolved = await resolvePlanSummary(summarized, { summarize: model.summarize });
    expect(resolved.outcome).toBe('unchanged');
    expect(model.calls).toEqual([]);
  });

  it('tier one holds up to 120,000 tokens', () => {
    // 30 messages of 16,000 characters: 120,000 tokens, not above the second tier.
    const at = plan('two-tier', textHistory(Array(30).fill(16_000)), LARGE, {}, () => 1);
    expect(at.slot?.summary?.status).toBe('heuristic');
    expect(at.metrics.trigger).toBe('120000 tokens > 80000 (heuristic summary)');
  });

  it('tier two, above 120,000 tokens: keeps the last 8 messages intact and asks the model for the summary', async () => {
    const over = plan('two-tier', textHistory(Array(30).fill(16_001)), LARGE, {}, () => 1);
    expect(over.slot?.summary).toMatchObject({ status: 'needed', prompt: 'structured' });
    const history = agentSteps(60_000);
    const summarized = plan('two-tier', history, LARGE);
    expect(summarized.slot?.summary).toMatchObject({ status: 'needed', prompt: 'structured' });
    const model = recordingSummarizer();
    const resolved = await resolvePlanSummary(summarized, { summarize: model.summarize });
    expect(resolved.outcome).toBe('summarized');
    expect(model.calls).toHaveLength(1);
    expect(resolved.messages[0]?.message.content).toBe(`${SUMMARY}\nSteps 0 to 7 are done.`);
    expect(resolved.messages).toHaveLength(9);
    resolved.messages.slice(1).forEach((item, i) => expect(item).toBe(history[history.length - 8 + i]));
  });

  it('tier two asks for the six-part summary: progress, decisions, files, errors, focus, context', async () => {
    const model = recordingSummarizer();
    await resolvePlanSummary(plan('two-tier', agentSteps(60_000), LARGE), { summarize: model.summarize });
    const prompt = model.calls[0]?.prompt ?? '';
    expect(
      prompt.startsWith(
        [
          'Create a detailed, structured summary that includes:',
          '1. Task Progress: What has been accomplished so far?',
          '2. Key Decisions: Important choices made and why',
          '3. Files & Changes: What files were created, modified, or read?',
          '4. Errors & Solutions: Any errors and how they were resolved',
          '5. Current Focus: What was the agent working on most recently?',
          '6. Important Context: Domain-specific knowledge discovered',
        ].join('\n'),
      ),
    ).toBe(true);
    // Then the messages it condenses: steps 0 to 7.
    expect(prompt).toContain('Step 7: check src/file7.ts');
    expect(prompt).not.toContain('Step 8: check src/file8.ts');
  });

  it('tier two allows up to 2,000 output tokens', async () => {
    const summarized = plan('two-tier', agentSteps(60_000), LARGE);
    expect(summarized.slot?.summary?.maxTokens).toBe(2000);
    const model = recordingSummarizer();
    await resolvePlanSummary(summarized, { summarize: model.summarize });
    expect(model.calls.map((call) => call.maxTokens)).toEqual([2000]);
  });

  it('tier two caches its summaries: unchanged content is not summarized again', async () => {
    const history = agentSteps(60_000);
    const cache = new Map<string, string>();
    const model = recordingSummarizer();
    const first = await resolvePlanSummary(plan('two-tier', history, LARGE), { summarize: model.summarize, cache });
    const again = await resolvePlanSummary(plan('two-tier', history, LARGE), { summarize: model.summarize, cache });
    expect(first.outcome).toBe('summarized');
    expect(again.outcome).toBe('cached');
    expect(model.calls).toHaveLength(1);
    expect(again.messages[0]?.message).toEqual(first.messages[0]?.message);
  });

  it('tier two needs more than 8 messages to summarize', () => {
    // 160,000 tokens or more either way: 16 messages leave 8 to summarize (the first tier), 17 leave 9 (the second).
    const eight = plan('two-tier', textHistory(Array(16).fill(40_000)), LARGE, {}, () => 1);
    expect(eight.slot?.summary?.status).toBe('heuristic');
    const nine = plan('two-tier', textHistory(Array(17).fill(40_000)), LARGE, {}, () => 1);
    expect(nine.slot?.summary).toMatchObject({ status: 'needed', prompt: 'structured' });
  });
});
