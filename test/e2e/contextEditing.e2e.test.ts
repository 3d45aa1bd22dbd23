/**
 * Clearing on the provider's side, in real Chromium: a 60-call run_javascript loop in one
 * turn on Claude Haiku 5.5 (context editing, preserved thinking whose prefix the fake
 * checks) with thinking at High, on a window the loop outgrows several times over. With
 * "Clear on the provider’s side" on, every request sends the whole history and asks the fake
 * to clear what the plan cleared; the fake clears it as Anthropic documents, counts and caches
 * the edited request, and refuses one that does not fit. Every request must be accepted the
 * first time, the UI must say what the provider cleared, and the stored history must still
 * hold every tool result whole.
 */
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { checkAnthropicRequest } from '../fake-api/anthropic';
import { CONTEXT_MANAGEMENT_BETA } from '../fake-api/contextEditing';
import { startFakeApi, type FakeApi, type RecordedRequest } from '../fake-api/server';
import { launchBrowser, newPage, screenshot } from './browser';
import {
  chatRequests,
  configure,
  expectAllAcceptedAndFitting,
  PROVIDER_SETUPS,
  requestedMaxTokens,
  sendTurn,
  storedRecords,
  unexpectedErrors,
  until,
  waitIdle,
} from './providersHelpers';
import { toolTask } from './toolLoopHelpers';
import { openApp, openSettingsSection } from './uiHelpers';

const WINDOW = 24_000;
const CALLS = 60;
const FINAL = 'All sixty checks are done.';

/** Code whose output is about 500 tokens (40 rows), far longer than the call: clearing it is worth it. */
const codeFor = (n: number) =>
  [
    'const rows = [];',
    `for (let i = 0; i < 40; i++) rows.push('check ${n}.' + i + ': ' + (${n} * 31 + i) ** 2 + ' units counted, status ok');`,
    "console.log(rows.join('\\n'));",
    `${n} * 2`,
  ].join('\n');

const thinkingFor = (n: number) =>
  n > CALLS ? `All ${CALLS} checks printed their rows, so I can close the task.` : `Check ${n} next: it squares ${n * 31} plus i for forty rows.`;

type Json = Record<string, unknown>;
type Block = { type: string; [key: string]: unknown };
type Body = {
  messages: { role: string; content: string | Block[] }[];
  context_management?: { edits: Json[] };
};

const bodyOf = (request: RecordedRequest) => request.body as Body;
const toolEdit = (request: RecordedRequest) => bodyOf(request).context_management?.edits.find((edit) => edit.type === 'clear_tool_uses_20250919');
/** Tool uses the request asks the provider to clear: those older than the newest `keep`. */
const askedToClear = (request: RecordedRequest) => {
  const edit = toolEdit(request);
  if (!edit) return 0;
  const uses = bodyOf(request)
    .messages.flatMap((m) => (Array.isArray(m.content) ? m.content : []))
    .filter((b) => b.type === 'tool_use').length;
  return uses - (edit.keep as { value: number }).value;
};
/** Input tokens of the request as sent, before the provider's edit, by the fake's own count. */
const unedited = (request: RecordedRequest) => {
  const check = checkAnthropicRequest(request.body, 'count_tokens');
  if (!check.ok) throw new Error(check.failure.message);
  return check.request.inputTokens;
};

describe('context editing over a 60-call tool loop on Anthropic', () => {
  let browser: Browser;
  let fake: FakeApi;
  const appUrl = inject('appUrl');
  beforeAll(async () => {
    [browser, fake] = await Promise.all([launchBrowser(), startFakeApi({ contextWindow: WINDOW, deltaDelayMs: 0 })]);
  });
  afterAll(async () => {
    await Promise.all([browser?.close(), fake?.close()]);
  });

  it('clears on the provider every time the plan clears, with every request accepted the first time', { timeout: 300_000 }, async () => {
    const { page, context, errors } = await newPage(browser);
    page.setDefaultTimeout(15_000);
    try {
      await openApp(page, appUrl);
      await configure(page, fake, PROVIDER_SETUPS.anthropic, { contextWindow: WINDOW, maxOutputTokens: 2000 });
      await page.getByRole('button', { name: 'Settings' }).click();
      const dialog = page.getByRole('dialog', { name: 'Settings' });
      const contextTab = await openSettingsSection(page, 'Context');
      // Clearing is a step of Auto (the default, the provider's compaction, clears nothing).
      await contextTab.getByRole('combobox', { name: 'Strategy' }).selectOption('auto');
      await contextTab.getByRole('switch', { name: 'Clear on the provider’s side' }).check();
      await openSettingsSection(page, 'Tools');
      await dialog.getByLabel('Tool rounds per turn', { exact: true }).fill(String(CALLS + 5));
      await dialog.getByRole('button', { name: 'Save' }).click();
      await dialog.waitFor({ state: 'hidden' });
      await page.getByRole('combobox', { name: 'Thinking for the next message' }).selectOption({ label: 'High' });
      fake.reset();
      fake.setReply(() => ({ thinking: 'A greeting first.', text: 'Hello.' }));
      expectAllAcceptedAndFitting(await sendTurn(page, fake, 'Hello.'), WINDOW);

      fake.setReply(toolTask({ calls: CALLS, perAnswer: 1, thinking: thinkingFor, finalText: FINAL, code: codeFor }));
      const before = chatRequests(fake).length;
      await page.getByRole('textbox', { name: 'Message' }).fill(`Run the ${CALLS} checks, one snippet each.`);
      await page.getByRole('button', { name: 'Send' }).click();
      await until(() => chatRequests(fake).length > before, 'the first request');
      await waitIdle(page, 280_000);
      const loop = chatRequests(fake).slice(before);
      await screenshot(page, 'context-editing-notice');
      expect(loop).toHaveLength(CALLS + 1);
      // Accepted the first time, each inside the window as the model read it.
      expectAllAcceptedAndFitting(loop, WINDOW);
      expect(loop.map((r) => r.injectedFailure)).toEqual(loop.map(() => null));
      // The last answer's notice, before it times out.
      const notice = page.getByText(/The provider cleared \d+ old tool results \([\d,]+ tokens\) from this request\./);
      await notice.waitFor({ timeout: 5000 });
      const noticeText = await notice.textContent();

      // The provider did the clearing: the history went whole, and the later requests fit only as edited.
      const clearing = loop.filter((r) => toolEdit(r) !== undefined);
      expect(clearing.length).toBeGreaterThan(20);
      for (const request of loop) {
        expect(JSON.stringify(request.body)).not.toContain('[tool result cleared to save context: ');
        const asked = toolEdit(request) !== undefined;
        expect(request.headers['anthropic-beta']?.split(',').includes(CONTEXT_MANAGEMENT_BETA) ?? false).toBe(asked);
        if (asked) expect(bodyOf(request).context_management!.edits[0]).toEqual({ type: 'clear_thinking_20251015', keep: 'all' });
      }
      expect(loop.filter((r) => unedited(r) + requestedMaxTokens(r) > WINDOW).length).toBeGreaterThan(10);

      // In steps: from one request to the next the same results are cleared and nothing is left out, until the
      // plan's next step (a clearing or a trim), so the edited prefix is read from the cache between steps.
      const usage = (r: RecordedRequest) => r.usage as { cache_read_input_tokens: number; cache_creation_input_tokens: number };
      const sent = (r: RecordedRequest) => bodyOf(r).messages.length;
      const isStep = (r: RecordedRequest, i: number) => i === 0 || askedToClear(r) !== askedToClear(loop[i - 1]!) || sent(r) !== sent(loop[i - 1]!) + 2;
      const report = loop.map(
        (r, i) => `${isStep(r, i) ? 'step' : '    '} ${sent(r)} messages, ${askedToClear(r)} cleared, cache ${usage(r).cache_read_input_tokens} read`,
      );
      console.info(`What each request of the loop asked the provider to clear:\n${report.join('\n')}`);
      const steps = clearing.filter((r) => isStep(r, loop.indexOf(r)));
      expect(steps.length).toBeLessThan(clearing.length / 4);
      const between = clearing.filter((r) => !isStep(r, loop.indexOf(r)));
      expect(between.length).toBeGreaterThan(steps.length);
      expect(between.filter((r) => usage(r).cache_read_input_tokens === 0).map((r) => loop.indexOf(r))).toEqual([]);

      // Clearing on the provider's side costs no thinking: until the plan first leaves messages out, the history
      // sent only grows, so every earlier answer's thinking still passes its prefix check and goes back.
      const firstTrim = loop.findIndex((r, i) => i > 0 && sent(r) < sent(loop[i - 1]!) + 2);
      const firstClearing = loop.indexOf(clearing[0]!);
      expect(firstClearing).toBeGreaterThan(0);
      expect(firstTrim === -1 ? loop.length : firstTrim).toBeGreaterThan(firstClearing + 5);
      for (const request of loop.slice(0, firstTrim === -1 ? undefined : firstTrim)) {
        const answers = bodyOf(request).messages.filter((m) => m.role === 'assistant');
        expect(answers.filter((m) => Array.isArray(m.content) && m.content[0]?.type === 'thinking')).toHaveLength(answers.length);
      }

      // Each answer stored what the provider reported; the history holds every result whole.
      const stored = await storedRecords(page);
      const answers = stored.filter((m) => m.role === 'assistant').slice(1);
      expect(answers).toHaveLength(CALLS + 1);
      for (const [i, request] of loop.entries()) {
        const expected = toolEdit(request)
          ? [{ kind: 'clear_tool_uses', clearedToolUses: askedToClear(request), clearedInputTokens: unedited(request) - request.inputTokens! }]
          : undefined;
        expect((answers[i] as unknown as { contextEdits?: unknown }).contextEdits, `answer ${i + 1}`).toEqual(expected);
      }
      const results = stored.flatMap((m) => m.content).filter((b) => b.type === 'tool_result');
      expect(results).toHaveLength(CALLS);
      for (const [i, block] of results.entries()) expect(JSON.stringify(block)).toContain(`check ${i + 1}.39: `);

      // The UI says what the provider cleared.
      const last = answers.at(-1) as unknown as { contextEdits: { clearedToolUses: number; clearedInputTokens: number }[] };
      const [edit] = last.contextEdits;
      const words = `The provider cleared ${edit!.clearedToolUses} old tool results (${edit!.clearedInputTokens.toLocaleString('en-US')} tokens)`;
      expect(noticeText).toContain(`${words} from this request.`);
      await page.getByRole('article', { name: 'Assistant message' }).last().getByText(FINAL).waitFor();
      await page.locator('.gauge summary').first().click();
      await page.locator('.gauge-provider-cleared').getByText(`${words}.`).waitFor();
      expect(await page.locator('.notice-error, .notice-warning, [role="alert"]').allTextContents()).toEqual([]);
      expect(unexpectedErrors(errors)).toEqual([]);
    } finally {
      await context.close();
    }
  });
});
