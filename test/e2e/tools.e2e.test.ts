/**
 * Tool use in real Chromium: the built app against the fake provider API, configured in
 * Settings as a user would. The fake validates every request (tool pairing included) and
 * counts its tokens; run_javascript runs in the app's real Web Worker sandbox.
 */
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { startFakeApi, type FakeApi, type ReplySpec } from '../fake-api/server';
import { countTokens } from '../fake-api/tokens';
import { launchBrowser, newPage, screenshot } from './browser';
import { chooseStrategyAndRounds, toolTask } from './toolLoopHelpers';
import { openApp, openSettingsSection, sendWithEnter } from './uiHelpers';
import {
  appFetchCount,
  chatRequests,
  configure,
  countAppFetches,
  expectAllAcceptedAndFitting,
  PROVIDER_SETUPS,
  sendTurn,
  sentMessages,
  storedRecords,
  unexpectedErrors,
  until,
  waitIdle,
  type ProviderUnderTest,
  type StoredRecord,
} from './providersHelpers';

/** Small enough that the whole tool-heavy history (about 10,000 tokens) would not fit: 30 messages of codeFor's calls fit, 55 calls do not. */
const WINDOW = 6000;
const TOOL_CALLS = 55;

/** A content block as stored, with the fields these tests read. */
interface StoredBlock {
  type: string;
  id?: string;
  input?: { code?: string };
  tool_use_id?: string;
  content?: string;
  is_error?: boolean;
  text?: string;
}

/** Every stored message, with its blocks typed for these tests. */
type StoredContent = Omit<StoredRecord, 'content'> & { content: StoredBlock[] };

async function storedContents(page: Page): Promise<StoredContent[]> {
  return (await storedRecords(page)) as StoredContent[];
}

/** Every tool result stored, by the id of the call it answers. */
async function toolResults(page: Page): Promise<Map<string, StoredBlock>> {
  const results = new Map<string, StoredBlock>();
  for (const message of await storedContents(page))
    for (const block of message.content) if (block.type === 'tool_result') results.set(block.tool_use_id!, block);
  return results;
}

describe('tool use against the fake API', () => {
  let browser: Browser;
  let fake: FakeApi;
  beforeAll(async () => {
    [browser, fake] = await Promise.all([launchBrowser(), startFakeApi({ contextWindow: WINDOW, deltaDelayMs: 1 })]);
  });
  afterAll(async () => {
    await Promise.all([browser?.close(), fake?.close()]);
  });

  describe.each<[ProviderUnderTest, number]>([
    ['anthropic', 1],
    ['openai', 3],
  ])('a long tool loop: %s, %i call(s) per answer', (providerId, perAnswer) => {
    it(
      `completes a task of ${TOOL_CALLS} tool calls with the count strategy at max_messages 30: no context error, every request valid`,
      { timeout: 180_000 },
      async () => {
        fake.reset();
        fake.setReply(toolTask({ calls: TOOL_CALLS, perAnswer }));
        const { page, context, errors } = await newPage(browser);
        await page.goto(inject('appUrl'));
        await configure(page, fake, PROVIDER_SETUPS[providerId], { contextWindow: WINDOW });
        await chooseStrategyAndRounds(page, 'count', { 'Max messages': '30' }, 60);

        const before = chatRequests(fake).length;
        await page.getByRole('textbox', { name: 'Message' }).fill('Work through the 55 steps of the task, one snippet each.');
        await page.getByRole('button', { name: 'Send' }).click();
        await until(() => chatRequests(fake).length > before, 'the first request');
        await waitIdle(page, 150_000);

        const requests = chatRequests(fake);
        const rounds = Math.ceil(TOOL_CALLS / perAnswer);
        expect(requests).toHaveLength(rounds + 1);
        expectAllAcceptedAndFitting(requests, WINDOW);
        expect(requests.every((r) => r.injectedFailure === null)).toBe(true);
        // The window did the work: no request carried more than 30 messages, yet the task's
        // first message went in every one.
        const sizes = requests.map((r) => sentMessages(r).length);
        expect(Math.max(...sizes)).toBeLessThanOrEqual(30);
        for (const request of requests) expect(JSON.stringify(sentMessages(request)[0])).toContain('Work through the 55 steps');
        const tools = (requests[0]!.body as { tools: { name?: string; function?: { name: string } }[] }).tools.map((t) => t.name ?? t.function?.name);
        expect(tools).toEqual(['run_javascript']);
        if (providerId === 'openai') {
          // Parallel calls went back as one assistant message with its three tool messages after it.
          const sent = sentMessages(requests.at(-1)!);
          const caller = sent.findIndex((m) => m.tool_calls?.length === 3);
          expect(caller).toBeGreaterThan(0);
          expect(sent.slice(caller + 1, caller + 4).map((m) => m.role)).toEqual(['tool', 'tool', 'tool']);
        }

        // Every call ran in the sandbox and its result went back; nothing was lost from storage.
        const stored = await storedContents(page);
        const calls = stored.flatMap((m) => m.content.filter((b) => b.type === 'tool_use'));
        expect(calls).toHaveLength(TOOL_CALLS);
        const results = await toolResults(page);
        for (const [index, call] of calls.entries()) {
          const result = results.get(call.id!);
          expect(result?.is_error, `result of call ${index + 1}`).toBeUndefined();
          expect(result?.content).toContain(`step ${index + 1}.8: ${((index + 1) * 31 + 8) ** 2}`);
          expect(result?.content).toMatch(new RegExp(`Result: ${(index + 1) * 2}$`));
        }
        // Unwindowed, the history would not have fit the window: its text alone is over it.
        const historyTokens = stored.reduce(
          (sum, m) => sum + m.content.reduce((n, b) => n + countTokens(b.text ?? b.content ?? JSON.stringify(b.input ?? '')), 0),
          0,
        );
        expect(historyTokens).toBeGreaterThan(WINDOW);
        const last = stored.at(-1)!;
        expect(last).toMatchObject({ role: 'assistant', status: 'complete' });
        expect(last.content.map((b) => b.text).join('')).toContain('I read the tool results');
        await expect(page.getByRole('alert').count()).resolves.toBe(0);

        await screenshot(page, `tools-loop-${providerId}`);

        // The user switches the tool off: the history still holds its calls, and the next message
        // still goes out valid (Anthropic wants the tools named then, and not callable).
        await page.getByRole('button', { name: 'Settings' }).click();
        const dialog = page.getByRole('dialog', { name: 'Settings' });
        await openSettingsSection(page, 'Tools');
        await dialog.getByRole('switch', { name: 'run_javascript — run code in a sandbox' }).uncheck();
        await dialog.getByRole('button', { name: 'Save' }).click();
        await dialog.waitFor({ state: 'hidden' });
        await page.getByRole('textbox', { name: 'Message' }).fill('Thanks, that is all.');
        await page.getByRole('button', { name: 'Send' }).click();
        await until(() => chatRequests(fake).length > requests.length, 'the follow-up request');
        await waitIdle(page, 30_000);
        const followUp = chatRequests(fake).at(-1)!;
        expectAllAcceptedAndFitting([followUp], WINDOW);
        const followUpBody = followUp.body as { tools?: { name?: string }[]; tool_choice?: unknown };
        expect(JSON.stringify(sentMessages(followUp))).toContain(providerId === 'anthropic' ? '"tool_use"' : '"tool_calls"');
        if (providerId === 'anthropic') {
          expect(followUpBody.tool_choice).toEqual({ type: 'none' });
          expect(followUpBody.tools?.map((t) => t.name)).toEqual(['run_javascript']);
        } else {
          expect(followUpBody.tools).toBeUndefined();
        }
        expect((await storedContents(page)).at(-1)).toMatchObject({ role: 'assistant', status: 'complete' });
        await expect(page.getByRole('alert').count()).resolves.toBe(0);
        expect(unexpectedErrors(errors)).toEqual([]);
        await context.close();
      },
    );
  });

  describe('run_javascript in the real Worker', () => {
    it('returns output and the last value, is stopped by its time limit, and cannot reach the network or storage', { timeout: 60_000 }, async () => {
      fake.reset();
      const probe = [
        `const url = ${JSON.stringify(`${fake.url}/v1/models`)};`,
        'const probes = {',
        '  fetch: () => fetch(url),',
        '  xhr: () => new XMLHttpRequest(),',
        "  webSocket: () => new WebSocket(url.replace('http', 'ws')),",
        '  eventSource: () => new EventSource(url),',
        '  importScripts: () => importScripts(url),',
        "  evalImport: () => eval('imp' + 'ort(url)'),",
        "  functionImport: () => new Function('u', 'return imp' + 'ort(u)')(url),",
        "  asyncFunctionImport: () => new (Object.getPrototypeOf(async () => {}).constructor)('u', 'return imp' + 'ort(u)')(url),",
        "  timerString: () => setTimeout('1'),",
        "  indexedDB: () => indexedDB.open('x'),",
        "  caches: () => caches.open('x'),",
        "  broadcast: () => new BroadcastChannel('x'),",
        '  worker: () => new Worker(url),',
        '  storage: () => navigator.storage.getDirectory(),',
        '  document: () => document.title,',
        '  prototypeFetch: () => {',
        '    for (let p = Object.getPrototypeOf(self); p; p = Object.getPrototypeOf(p)) {',
        "      const d = Object.getOwnPropertyDescriptor(p, 'fetch');",
        '      if (d) return (d.value ?? d.get.call(self))(url);',
        '    }',
        "    throw new Error('no fetch on a prototype');",
        '  },',
        '};',
        'const outcome = {};',
        'for (const [name, attempt] of Object.entries(probes)) {',
        '  try {',
        '    const value = attempt();',
        "    outcome[name] = value && typeof value.then === 'function' ? await value.then(() => 'reached', (e) => 'blocked') : 'reached';",
        "  } catch { outcome[name] = 'blocked'; }",
        '}',
        'outcome',
      ].join('\n');
      const script: ReplySpec[] = [
        {
          toolCalls: [
            { name: 'run_javascript', input: { code: "console.log('hello from the worker');\nconsole.error('careful');\n[1, 2, 3].map((x) => x * 2)" } },
          ],
        },
        { toolCalls: [{ name: 'run_javascript', input: { code: 'const v = await new Promise((r) => setTimeout(() => r(21), 20));\nv * 2' } }] },
        { toolCalls: [{ name: 'run_javascript', input: { code: 'while (true) {}' } }] },
        { toolCalls: [{ name: 'run_javascript', input: { code: `await fetch(${JSON.stringify(`${fake.url}/v1/models`)})` } }] },
        { toolCalls: [{ name: 'run_javascript', input: { code: probe } }] },
      ];
      fake.setReply((context) => (context.toolNames.length > 0 ? script.shift() : undefined));
      const { page, context, errors } = await newPage(browser);
      // Settings lists a key's models by itself: the app's own GET /v1/models is told apart from a snippet's by who sent it.
      await countAppFetches(page, '/v1/models');
      await page.goto(inject('appUrl'));
      await configure(page, fake, PROVIDER_SETUPS.anthropic, { contextWindow: WINDOW });

      const started = Date.now();
      await sendTurn(page, fake, 'Try the sandbox.');
      const made = chatRequests(fake);
      expect(made).toHaveLength(6);
      // One snippet ran until the 5 s limit stopped it.
      expect(Date.now() - started).toBeGreaterThan(5000);
      expectAllAcceptedAndFitting(made, WINDOW);

      const stored = await storedContents(page);
      const calls = stored.flatMap((m) => m.content.filter((b) => b.type === 'tool_use'));
      const results = await toolResults(page);
      const [printed, awaited, endless, fetched, probed] = calls.map((c) => results.get(c.id!)!);
      expect(printed).toMatchObject({ content: 'Output:\nhello from the worker\ncareful\nResult: [2,4,6]' });
      expect(printed!.is_error).toBeUndefined();
      expect(awaited).toMatchObject({ content: 'Result: 42' });
      expect(endless).toMatchObject({ is_error: true, content: expect.stringContaining('Stopped after 5 seconds, the time limit') });
      expect(fetched).toMatchObject({ is_error: true, content: expect.stringContaining('fetch is not available') });
      const outcome = JSON.parse(/^Result: (.*)$/m.exec(probed!.content!)![1]!) as Record<string, string>;
      expect(Object.keys(outcome)).toHaveLength(16);
      expect(Object.entries(outcome).filter(([, v]) => v !== 'blocked')).toEqual([]);
      // The worker never reached the fake: every request it saw came from the app's provider calls, and each
      // listing of models it saw carries the key and is one the app page itself sent (the snippet's fetch of the same URL
      // would be one more).
      // (The browser's CORS preflights of the app's own requests aside.)
      const listings = fake.requests.filter((r) => r.method !== 'OPTIONS' && (r.path === '/v1/models' || r.method === 'GET'));
      expect(
        listings.filter((r) => !(r.method === 'GET' && r.path === '/v1/models' && r.authForm !== null)).map((r) => `${r.method} ${r.path} ${r.authForm}`),
      ).toEqual([]);
      expect(listings).toHaveLength(await appFetchCount(page));

      // The call is shown collapsed in the transcript; opened, it shows its code and what came back.
      const firstCall = page.getByText("console.log('hello from the worker')").first();
      await firstCall.scrollIntoViewIfNeeded();
      await firstCall.click();
      const shown = page.getByText('Result: [2,4,6]').first();
      await shown.waitFor();
      await firstCall.scrollIntoViewIfNeeded();
      await screenshot(page, 'tools-run-javascript');
      expect(unexpectedErrors(errors)).toEqual([]);
      await context.close();
    });
  });

  describe('the Demo, with no key', () => {
    it('asked to compute, calls run_javascript in the page and answers from what the sandbox returned', { timeout: 60_000 }, async () => {
      const { page, context, errors } = await newPage(browser);
      await openApp(page, inject('appUrl'));
      await sendWithEnter(page, 'Compute 12345 * 6789, please.');

      const stored = await storedContents(page);
      expect(stored.map((m) => [m.role, m.content.map((b) => b.type).join('+')])).toEqual([
        ['user', 'text'],
        ['assistant', 'text+tool_use'],
        ['user', 'tool_result'],
        ['assistant', 'text'],
      ]);
      expect(stored[1]!.content[1]).toMatchObject({ name: 'run_javascript', input: { code: '12345 * 6789' } });
      expect(stored[2]!.content[0]).toMatchObject({ content: 'Result: 83810205' });
      expect(stored[3]!.content[0]!.text).toContain('Result: 83810205');
      await page.getByText('Result: 83810205').last().waitFor();
      await screenshot(page, 'tools-demo');
      expect(unexpectedErrors(errors)).toEqual([]);
      await context.close();
    });
  });

  describe('Stop in the middle of a tool loop', () => {
    it('terminates the running snippet, answers its call as stopped, and the next message goes out valid', { timeout: 60_000 }, async () => {
      fake.reset();
      const script: ReplySpec[] = [
        { text: 'First a quick one.', toolCalls: [{ name: 'run_javascript', input: { code: '1 + 1' } }] },
        {
          text: 'Now a long one.',
          toolCalls: [
            { name: 'run_javascript', input: { code: 'while (true) {}' } },
            { name: 'run_javascript', input: { code: '2 + 2' } },
          ],
        },
      ];
      fake.setReply((context) => (context.answersToolResults || context.lastUserText.startsWith('Loop') ? script.shift() : undefined));
      const { page, context, errors } = await newPage(browser);
      await page.goto(inject('appUrl'));
      await configure(page, fake, PROVIDER_SETUPS.openai, { contextWindow: WINDOW });

      await page.getByRole('textbox', { name: 'Message' }).fill('Loop until told otherwise.');
      await page.getByRole('button', { name: 'Send' }).click();
      // The endless snippet is running once its call is stored and no further request went out.
      await until(() => chatRequests(fake).length === 2 && chatRequests(fake)[1]!.completed, 'the second answer');
      let stored: StoredContent[] = [];
      for (let i = 0; i < 100 && stored.filter((m) => m.role === 'assistant' && m.status === 'complete').length < 2; i++) {
        await page.waitForTimeout(20);
        stored = await storedContents(page);
      }
      const stopAt = Date.now();
      await page.getByRole('button', { name: 'Stop', exact: true }).click();
      await waitIdle(page);
      // Stopped well before the 5 s time limit would have ended it.
      expect(Date.now() - stopAt).toBeLessThan(3000);
      expect(chatRequests(fake)).toHaveLength(2);

      const results = [...(await toolResults(page)).values()];
      expect(results).toHaveLength(3);
      expect(results[0]).toMatchObject({ content: 'Result: 2' });
      expect(results.slice(1).map((r) => [r.is_error, r.content?.includes('pressed Stop')])).toEqual([
        [true, true],
        [true, true],
      ]);
      await screenshot(page, 'tools-stopped');

      const next = await sendTurn(page, fake, 'What happened?');
      expect(next).toHaveLength(1);
      expect(next[0]!.validation).toEqual({ ok: true });
      expect(next[0]!.status).toBe(200);
      const sent = sentMessages(next[0]!).map((m) => m.role);
      expect(sent).toEqual(['user', 'assistant', 'tool', 'assistant', 'tool', 'tool', 'user']);
      const last = (await storedContents(page)).at(-1)!;
      expect(last).toMatchObject({ role: 'assistant', status: 'complete' });
      expect(unexpectedErrors(errors)).toEqual([]);
      await context.close();
    });
  });
});
