/**
 * A long tool loop with thinking on, in real Chromium: 40 run_javascript calls in one turn,
 * every answer thinking before its call, at effort High, on a window the loop outgrows, for
 * each provider (Anthropic's preserved thinking on Claude Haiku 5.5, which checks each
 * block's prefix; OpenAI's Responses API on GPT-6 Luna, which wants the loop's reasoning
 * back) and each strategy that fits the window (`off` sends everything by design). The fake
 * refuses a thinking block whose prefix changed, a tool loop whose last answer lost its
 * thinking, and reasoning it did not seal; every request must be accepted the first time.
 */
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { prefixHash } from '../fake-api/preservedThinking';
import { thinkingOfSignature, prefixOfSignature } from '../fake-api/replies';
import { startFakeApi, type FakeApi, type RecordedRequest } from '../fake-api/server';
import { launchBrowser, newPage, screenshot } from './browser';
import {
  chatRequests,
  configure,
  expectAllAcceptedAndFitting,
  PROVIDER_SETUPS,
  requestTexts,
  sendTurn,
  sentMessages,
  storedRecords,
  unexpectedErrors,
  until,
  waitIdle,
  type ProviderSetup,
} from './providersHelpers';
import { chooseStrategyAndRounds, toolTask } from './toolLoopHelpers';
import { openApp } from './uiHelpers';

/**
 * 40 calls with their thinking come to about 9,000 tokens, 20 to about 4,500: over 8,000 and
 * 5,000 (less the answer's reserve of 2,000), the window must trim, clear or summarize.
 */
const WINDOW = 8000;
const CALLS = 40;
const FINAL = 'All the steps are done.';

/** A few dozen words of thinking, different for each call (n) and for the final answer (n > calls). */
const thinkingFor = (calls: number) => (n: number) =>
  n > calls
    ? `Every one of the ${calls} snippets ran and printed its squares; the last value was ${calls * 2}, so the task is complete and I can say so briefly.`
    : `Before snippet ${n} I check that step ${n - 1} printed nine rows; this one squares ${n * 31} plus i for rows ${n}.0 to ${n}.8 ` +
      `and should end on ${n * 2}, so one run is enough before step ${n + 1}.`;

interface ProviderCase {
  name: 'anthropic' | 'openai';
  setup: ProviderSetup;
}

const PROVIDERS: ProviderCase[] = [
  // Claude Haiku 5.5: adaptive thinking, and a thinking block sent back is checked against its prefix.
  { name: 'anthropic', setup: PROVIDER_SETUPS.anthropic },
  // GPT-6 Luna on the Responses API: the loop's reasoning goes back encrypted.
  { name: 'openai', setup: { ...PROVIDER_SETUPS.openai, model: { custom: 'gpt-6-luna' } } },
];

interface StrategyCase {
  strategy: string;
  /** Settings beyond the strategy, so its own rule trims (not only the window). */
  fields: Record<string, string>;
}

const STRATEGIES: StrategyCase[] = [
  { strategy: 'auto', fields: {} },
  { strategy: 'count', fields: { 'Max messages': '30' } },
  { strategy: 'rolling', fields: { 'Rolling window size': '24' } },
  { strategy: 'truncate', fields: {} },
  { strategy: 'summarize', fields: {} },
  // Its tiers (80k and 120k tokens) are far above this window: the window itself trims.
  { strategy: 'two-tier', fields: {} },
];

interface LoopRun extends StrategyCase {
  calls: number;
  window: number;
}

/**
 * Every strategy runs the full 40 calls on Anthropic. On OpenAI the default strategy does,
 * and the others run 20 calls on a 5,000-token window (still over it), to keep the file's
 * time down.
 */
function runsFor(provider: ProviderCase): LoopRun[] {
  return STRATEGIES.map((strategyCase) => {
    const full = provider.name === 'anthropic' || strategyCase.strategy === 'auto';
    return { ...strategyCase, calls: full ? CALLS : 20, window: full ? WINDOW : 5000 };
  });
}

type Block = { type: string; signature?: string; thinking?: string; [key: string]: unknown };
type AnthropicBody = { messages: { role: string; content: string | Block[] }[]; thinking?: { block_binding?: { prefix_mismatch_behavior?: string } } };
type ResponsesItem = { type?: string; role?: string; encrypted_content?: string; summary?: { text: string }[]; call_id?: string };

/** A summary request offers no tools; every request of the loop offers run_javascript. */
const offersTools = (request: RecordedRequest) => ((request.body as { tools?: unknown[] }).tools?.length ?? 0) > 0;

/** What the window did to the loop's requests, read from what they carried. */
interface LoopReport {
  /** Requests that carried fewer messages than the one before plus the answer and its result. */
  trims: number;
  /** Requests with at least one tool result cleared. */
  cleared: number;
  /** Requests carrying a "[Conversation Summary]". */
  withSummary: number;
  /** Requests carrying the truncation marker. */
  withMarker: number;
  summaryRequests: number;
  /** Anthropic: requests whose loop answer's thinking was written after another prefix (the API drops it). */
  staleLoopThinking: number;
  /** Anthropic: requests that left out an earlier answer's thinking. */
  earlierThinkingLeftOut: number;
  /** Messages the last request carried, against the conversation's. */
  lastSent: number;
}

function reportOf(loop: RecordedRequest[], summaryRequests: number, provider: ProviderCase['name']): LoopReport {
  const sizes = loop.map((r) => sentMessages(r).length);
  const texts = loop.map(
    (r) =>
      requestTexts(r).join('\n') +
      JSON.stringify(
        sentMessages(r)
          .filter((m) => m.role === 'tool')
          .map((m) => m.content),
      ),
  );
  const anthropic = (r: RecordedRequest) => r.body as AnthropicBody;
  const thoughtAnswers = (r: RecordedRequest) =>
    anthropic(r).messages.filter((m) => m.role === 'assistant' && Array.isArray(m.content) && m.content[0]?.type === 'thinking').length;
  const answers = (r: RecordedRequest) => anthropic(r).messages.filter((m) => m.role === 'assistant').length;
  return {
    trims: sizes.filter((size, i) => i > 0 && size < sizes[i - 1]! + 2).length,
    cleared: texts.filter((t) => t.includes('[tool result cleared to save context: ')).length,
    withSummary: texts.filter((t) => t.includes('[Conversation Summary]')).length,
    withMarker: texts.filter((t) => /earlier messages? truncated/.test(t)).length,
    summaryRequests,
    staleLoopThinking: provider === 'anthropic' ? loop.filter((r, i) => i > 0 && !loopThinkingBound(r)).length : 0,
    earlierThinkingLeftOut: provider === 'anthropic' ? loop.filter((r) => thoughtAnswers(r) < answers(r)).length : 0,
    lastSent: sizes.at(-1)!,
  };
}

/** Messages as content, their thinking and cache markers aside: what the window decides. */
function withoutThinking(messages: AnthropicBody['messages']): string {
  return JSON.stringify(
    messages.map((m) => ({
      role: m.role,
      content: (typeof m.content === 'string' ? [{ type: 'text', text: m.content }] : m.content)
        .filter((b) => b.type !== 'thinking' && b.type !== 'redacted_thinking')
        .map(({ cache_control: _marker, ...block }) => block),
    })),
  );
}

/** The loop answer's thinking is bound to the prefix it is sent after (the API keeps it). */
function loopThinkingBound(request: RecordedRequest): boolean {
  const body = request.body as AnthropicBody;
  const answerIndex = body.messages.length - 2;
  const first = (body.messages[answerIndex]!.content as Block[])[0]!;
  return prefixOfSignature(first.signature!) === prefixHash(body as unknown as Record<string, unknown>, answerIndex, 0);
}

/**
 * Anthropic: the answer whose calls a request answers comes back first with its thinking, as
 * the fake signed it for that call, and before its tool_use. That thinking stays bound to its
 * prefix (the API keeps it) unless the window changed what comes before it since the request
 * that wrote it (`previous`): the app never changes a prefix by leaving thinking out alone,
 * which would cost every later answer of the loop its thinking in turn. The request asks the
 * API to drop a block bound elsewhere (`drop_block`) exactly when it sends one.
 */
function expectAnthropicLoopThinking(request: RecordedRequest, previous: RecordedRequest, thought: string, where: string): void {
  const body = request.body as AnthropicBody;
  const messages = body.messages;
  const answerIndex = messages.length - 2;
  const answer = messages[answerIndex]!;
  const results = messages.at(-1)!;
  expect(results.role, where).toBe('user');
  expect(
    (results.content as Block[]).every((b) => b.type === 'tool_result'),
    where,
  ).toBe(true);
  expect(answer.role, where).toBe('assistant');
  const blocks = answer.content as Block[];
  expect(blocks[0]?.type, where).toBe('thinking');
  const thinking = blocks.filter((b) => b.type === 'thinking');
  expect(thinking, where).toHaveLength(1);
  expect(thinking[0]!.thinking, where).toBe(thought);
  expect(thinkingOfSignature(thinking[0]!.signature!), where).toBe(thought);
  expect(
    blocks.findIndex((b) => b.type === 'tool_use'),
    where,
  ).toBeGreaterThan(0);
  const windowChanged = withoutThinking(messages.slice(0, answerIndex)) !== withoutThinking((previous.body as AnthropicBody).messages);
  if (!windowChanged) expect(loopThinkingBound(request), `${where}: the loop answer's thinking is bound when only thinking changed before it`).toBe(true);
  const wire = body as unknown as Record<string, unknown>;
  let unbound = 0;
  for (const [m, message] of messages.entries()) {
    if (typeof message.content === 'string') continue;
    for (const [b, block] of message.content.entries())
      if (block.type === 'thinking' && prefixOfSignature(block.signature!) !== prefixHash(wire, m, b)) unbound++;
  }
  expect(body.thinking?.block_binding?.prefix_mismatch_behavior, `${where}: drop_block when a block is bound elsewhere`).toBe(
    unbound > 0 ? 'drop_block' : undefined,
  );
}

/**
 * OpenAI: a request answering a call carries the reasoning of the answer that made it, right
 * before that answer's items (its text, then the call), and no reasoning from before the
 * user's message (the API drops it).
 */
function expectResponsesLoopReasoning(request: RecordedRequest, call: number, thought: string, where: string): void {
  const input = (request.body as { input: ResponsesItem[] }).input;
  expect(input.at(-1)?.type, where).toBe('function_call_output');
  const lastCall = input.findLastIndex((item) => item.type === 'function_call');
  expect(input[lastCall - 1], where).toMatchObject({ role: 'assistant' });
  expect(JSON.stringify(input[lastCall - 1]), where).toContain(`Step ${call}.`);
  const reasoning = input[lastCall - 2];
  expect(reasoning?.type, where).toBe('reasoning');
  expect(reasoning?.encrypted_content, where).toBeTruthy();
  expect(reasoning?.summary?.map((s) => s.text).join(''), where).toBe(thought);
  const userMessage = input.findLastIndex((item) => item.role === 'user');
  expect(userMessage, where).toBeGreaterThanOrEqual(0);
  expect(
    input.slice(0, userMessage).filter((item) => item.type === 'reasoning'),
    where,
  ).toEqual([]);
}

describe('a 40-call tool loop with thinking at High on a small window', () => {
  let browser: Browser;
  let fake: FakeApi;
  const appUrl = inject('appUrl');
  const reports: string[] = [];
  beforeAll(async () => {
    [browser, fake] = await Promise.all([launchBrowser(), startFakeApi({ contextWindow: WINDOW, deltaDelayMs: 0 })]);
  });
  afterAll(async () => {
    if (reports.length > 0) console.info(`What each strategy did in the loop:\n${reports.join('\n')}`);
    await Promise.all([browser?.close(), fake?.close()]);
  });

  /** A fresh profile with the provider, the window, the strategy and High thinking chosen; one earlier exchange that thought. */
  async function readyPage(provider: ProviderCase, { strategy, fields, window }: LoopRun) {
    const opened = await newPage(browser);
    const { page } = opened;
    page.setDefaultTimeout(15_000);
    await openApp(page, appUrl);
    await configure(page, fake, provider.setup, { contextWindow: window });
    await chooseStrategyAndRounds(page, strategy, fields, 60);
    await page.getByRole('combobox', { name: 'Thinking for the next message' }).selectOption({ label: 'High' });
    fake.reset();
    fake.setReply(() => ({ thinking: 'A greeting first; the work comes in the next message.', text: 'Hello.' }));
    const greeting = await sendTurn(page, fake, 'Hello.');
    expectAllAcceptedAndFitting(greeting, window);
    return opened;
  }

  async function errorNotices(page: Page): Promise<string[]> {
    return page.locator('.notice-error, .notice-warning, [role="alert"]').allTextContents();
  }

  async function runLoop(provider: ProviderCase, run: LoopRun): Promise<void> {
    const { calls, window, strategy } = run;
    const thought = thinkingFor(calls);
    const { page, context, errors } = await readyPage(provider, run);
    try {
      fake.setReply(toolTask({ calls, perAnswer: 1, thinking: thought, finalText: FINAL }));
      const before = chatRequests(fake).length;
      await page.getByRole('textbox', { name: 'Message' }).fill(`Work through the ${calls} steps of the task, one snippet each.`);
      await page.getByRole('button', { name: 'Send' }).click();
      await until(() => chatRequests(fake).length > before, 'the first request');
      await waitIdle(page, 170_000);

      const requests = chatRequests(fake).slice(before);
      // Each accepted the first time: no refusal, no injected failure, no retry.
      expectAllAcceptedAndFitting(requests, window);
      expect(requests.map((r) => r.injectedFailure)).toEqual(requests.map(() => null));
      const loop = requests.filter(offersTools);
      const summaries = requests.filter((r) => !offersTools(r));
      expect(loop).toHaveLength(calls + 1);
      if (strategy !== 'summarize') expect(summaries).toEqual([]);

      // Every request after the first answers the call of the answer before it, with that answer's thinking.
      for (const [index, request] of loop.entries()) {
        if (index === 0) continue;
        const where = `${provider.name}/${strategy}: request ${index + 1}, answering call ${index}`;
        if (provider.name === 'anthropic') expectAnthropicLoopThinking(request, loop[index - 1]!, thought(index), where);
        else expectResponsesLoopReasoning(request, index, thought(index), where);
      }

      // The window did its work: the last request carried far fewer messages than the turn made.
      const report = reportOf(loop, summaries.length, provider.name);
      reports.push(`${provider.name} ${strategy} (${calls} calls, window ${window}): ${JSON.stringify(report)}`);
      const stored = await storedRecords(page);
      expect(stored.filter((m) => m.content.some((b) => b.type === 'tool_use'))).toHaveLength(calls);
      expect(report.lastSent).toBeLessThan(stored.length);
      expect(report.trims + report.cleared).toBeGreaterThan(0);

      // The final answer shows, and nothing went wrong on the page.
      expect(stored.at(-1)).toMatchObject({ role: 'assistant', status: 'complete' });
      await page.getByRole('article', { name: 'Assistant message' }).last().getByText(FINAL).waitFor();
      expect(await errorNotices(page)).toEqual([]);
      expect(unexpectedErrors(errors)).toEqual([]);
      if (strategy === 'auto') await screenshot(page, `thinking-tool-loop-${provider.name}`);
    } finally {
      await context.close();
    }
  }

  for (const provider of PROVIDERS) {
    describe(provider.name, () => {
      for (const run of runsFor(provider)) {
        const name = `${run.strategy}: ${run.calls} calls on a ${run.window}-token window, each answer thinking first, every request accepted the first time and inside the window`;
        it(name, { timeout: 180_000 }, () => runLoop(provider, run));
      }
    });
  }
});
