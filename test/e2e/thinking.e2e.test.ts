/**
 * Thinking in real Chromium against the fake APIs: the choice made in Settings and beside the
 * gauge reaches the request as the model takes it, and a switch to a model that does not take
 * the choice keeps a valid one and says so. The thinking streams into a collapsed block that
 * counts its seconds, keeps its length and time across a reload (and what streamed across a
 * reload mid-thought), opens from the keyboard, and stays out of the Markdown export unless
 * asked; OpenAI's reasoning tokens show as a part of the answer's output.
 */
import type { Browser, Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { startFakeApi, type FakeApi } from '../fake-api/server';
import { launchBrowser, newPage, savedDownload, screenshot } from './browser';
import { chatRequests, configure, expectAllAcceptedAndFitting, PROVIDER_SETUPS, sendTurn, userText } from './providersHelpers';
import { openApp, sendWithEnter, seriousAxeViolations } from './uiHelpers';

const THINKING = Array.from({ length: 40 }, (_, i) => `step${i + 1}`).join(' ');

/**
 * Settings for Claude Haiku 4.5 with a thinking budget as the default for new chats, so the
 * fake streams thinking back; `check` is given the Thinking select before the choice.
 */
async function anthropicWithThinking(page: Page, fake: FakeApi, check?: (thinking: Locator) => Promise<void>): Promise<void> {
  await page.getByRole('button', { name: 'Settings' }).click();
  const dialog = page.getByRole('dialog', { name: 'Settings' });
  await dialog.getByLabel('Provider', { exact: true }).selectOption({ label: 'Anthropic' });
  await dialog.getByLabel('API key', { exact: true }).fill('sk-ant-thinking-0123456789');
  await dialog.getByLabel('Base URL', { exact: true }).fill(fake.url);
  await dialog.getByLabel('Model', { exact: true }).selectOption('claude-haiku-4-5');
  const thinking = dialog.getByLabel('Thinking', { exact: true });
  await check?.(thinking);
  await thinking.selectOption({ label: 'Up to 4,096 tokens' });
  await dialog.getByRole('button', { name: 'Save' }).click();
  await dialog.waitFor({ state: 'detached' });
}

async function exportMarkdown(page: Page, withThinking: boolean): Promise<string> {
  await page.getByRole('button', { name: 'Other formats' }).click();
  const include = page.getByRole('menuitemcheckbox', { name: 'Include thinking in Markdown' });
  if ((await include.getAttribute('aria-checked')) !== String(withThinking)) await include.click();
  const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('menuitem', { name: 'This conversation (Markdown)' }).click()]);
  return (await savedDownload(download)).text;
}

/** Sends without waiting for the answer, to watch it stream. */
async function sendNow(page: Page, text: string): Promise<void> {
  const box = page.getByRole('textbox', { name: 'Message' });
  await box.fill(text);
  await box.press('Enter');
}

const noSidewaysScroll = (page: Page) => page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth);

describe('thinking', () => {
  let browser: Browser;
  let fake: FakeApi;
  const appUrl = inject('appUrl');
  beforeAll(async () => {
    [browser, fake] = await Promise.all([launchBrowser(), startFakeApi()]);
  });
  afterAll(async () => {
    await Promise.all([browser?.close(), fake?.close()]);
  });

  it('sends the effort chosen, shows the thinking, and keeps a valid choice across a model switch, saying so', async () => {
    const { page, context, errors } = await newPage(browser);
    page.setDefaultTimeout(10_000);
    await openApp(page, appUrl);
    // The default for new chats: Haiku 4.5 takes a budget, not an effort.
    await anthropicWithThinking(page, fake, async (thinking) => {
      expect(await thinking.locator('option').allTextContents()).toEqual([
        'Model default',
        'Off',
        'Up to 1,024 tokens',
        'Up to 4,096 tokens',
        'Up to 16,384 tokens',
        'Up to 32,768 tokens',
      ]);
    });

    fake.setReply(() => ({ thinking: 'Compare the two routes by time, then by cost.', text: 'Take the coastal road.' }));
    const picker = page.getByRole('combobox', { name: 'Thinking for the next message' });
    expect(await picker.inputValue()).toBe('budget:4096');
    let before = fake.requests.length;
    await sendWithEnter(page, 'Which road to Porto?');
    const [first] = fake.requests.slice(before).filter((r) => r.method === 'POST' && r.path === '/v1/messages');
    expect(first).toMatchObject({ status: 200, validation: { ok: true } });
    expect(first!.body).toMatchObject({ thinking: { type: 'enabled', budget_tokens: 4096 } });
    expect((first!.body as { max_tokens: number }).max_tokens).toBeGreaterThan(4096);
    const answer = page.getByRole('article', { name: 'Assistant message' });
    await answer.getByText('Take the coastal road.').waitFor();
    expect(await answer.textContent()).toContain('Thinking');

    // Opus 5.5 takes no budget: the effort that stands for it replaces it, and the user is told.
    await page.getByRole('combobox', { name: 'Model for the next message' }).selectOption('claude-opus-5-5');
    await page.getByText('Thinking is now “Medium”: Claude Opus 5.5 does not take “Up to 4,096 tokens”.').waitFor();
    expect(await picker.inputValue()).toBe('effort:medium');
    await picker.selectOption({ label: 'High' });
    expect(await seriousAxeViolations(page)).toEqual([]);
    await screenshot(page, 'thinking-desktop');
    before = fake.requests.length;
    await sendWithEnter(page, 'And back by train?');
    const [second] = fake.requests.slice(before).filter((r) => r.method === 'POST' && r.path === '/v1/messages');
    expect(second).toMatchObject({ status: 200, validation: { ok: true } });
    expect(second!.body).toMatchObject({ model: 'claude-opus-5-5', thinking: { type: 'adaptive', display: 'summarized' }, output_config: { effort: 'high' } });

    // A reload keeps the conversation's choice.
    await page.reload();
    await page.getByRole('combobox', { name: 'Thinking for the next message' }).waitFor();
    expect(await page.getByRole('combobox', { name: 'Thinking for the next message' }).inputValue()).toBe('effort:high');

    await page.setViewportSize({ width: 390, height: 844 });
    expect(await page.getByRole('combobox', { name: 'Thinking for the next message' }).isVisible()).toBe(true);
    expect(await page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth)).toBe(true);
    await screenshot(page, 'thinking-phone');
    expect(errors).toEqual([]);
    await context.close();
  });

  it('on a model that checks each thinking block’s prefix, keeps 24 turns accepted across trims, sending thinking only where nothing before it changed', async () => {
    const WINDOW = 6000;
    const local = await startFakeApi({ contextWindow: WINDOW, deltaDelayMs: 0 });
    try {
      const { page, context, errors } = await newPage(browser);
      page.setDefaultTimeout(15_000);
      await openApp(page, appUrl);
      // Claude Haiku 5.5 runs the prefix check: thinking after a changed prefix is refused.
      await configure(page, local, PROVIDER_SETUPS.anthropic, { contextWindow: WINDOW });
      local.setReply((context) => ({ thinking: `Weighing turn ${context.turn} against what came before.`, text: `Answer ${context.turn}.` }));
      // Per request: the answers it carries, and how many of them with their thinking.
      const carried: Array<{ answers: number; withThinking: number }> = [];
      for (let turn = 1; turn <= 24; turn++) {
        const made = await sendTurn(page, local, userText(turn, 150));
        const body = made.at(-1)!.body as { messages: { role: string; content: unknown }[] };
        const answers = body.messages.filter((m) => m.role === 'assistant');
        const withThinking = answers.filter((m) => Array.isArray(m.content) && (m.content as { type: string }[]).some((b) => b.type === 'thinking'));
        carried.push({ answers: answers.length, withThinking: withThinking.length });
      }
      expectAllAcceptedAndFitting(chatRequests(local), WINDOW);
      // Before the first trim every earlier answer goes back with its thinking.
      expect(carried.slice(0, 3)).toEqual([
        { answers: 0, withThinking: 0 },
        { answers: 1, withThinking: 1 },
        { answers: 2, withThinking: 2 },
      ]);
      // The window trimmed (fewer answers than turns before), and the answers written before a trim went without their thinking.
      expect(carried.some((c, turn) => c.answers < turn)).toBe(true);
      expect(carried.some((c) => c.withThinking < c.answers)).toBe(true);
      expect(errors).toEqual([]);
      await context.close();
    } finally {
      await local.close();
    }
  });

  /** A page of the app set up for Claude Haiku 4.5 with a thinking budget. */
  async function anthropicPage() {
    const opened = await newPage(browser);
    opened.page.setDefaultTimeout(15_000);
    await openApp(opened.page, appUrl);
    await anthropicWithThinking(opened.page, fake);
    return opened;
  }

  it('streams thinking into a collapsed block with its length and time, kept on reload, left out of Markdown unless asked', async () => {
    const { page, context, errors } = await anthropicPage();

    // ~14 thinking deltas 200 ms apart: about three seconds of thinking.
    fake.setReply(() => ({ thinking: THINKING, text: 'Take the coastal road.', deltaDelayMs: 200 }));
    await sendNow(page, 'Which road to Porto?');
    const answer = page.getByRole('article', { name: 'Assistant message' });
    const live = answer.locator('summary', { hasText: /^Thinking… \d+ s$/ });
    await live.waitFor();
    expect(await answer.locator('details.thinking-block').getAttribute('open')).toBeNull();
    await answer.getByText('Take the coastal road.').waitFor();
    const summary = answer.locator('details.thinking-block > summary');
    await summary.filter({ hasText: /^Thinking · 40 words · \d+ s$/ }).waitFor();
    const label = (await summary.textContent())!;
    const seconds = Number(/· (\d+) s$/.exec(label)![1]);
    expect(seconds).toBeGreaterThanOrEqual(2);
    expect(seconds).toBeLessThanOrEqual(6);
    expect(await answer.locator('details.thinking-block').getAttribute('open')).toBeNull();
    expect(await answer.getByText('step40').isVisible()).toBe(false);
    await screenshot(page, 'thinking-shown-desktop');

    // Keyboard: the summary takes focus and Enter opens it; its thinking and Copy thinking show.
    await summary.focus();
    await page.keyboard.press('Enter');
    await answer.getByText(/step1 step2 .* step40/).waitFor();
    expect(await answer.getByRole('button', { name: 'Copy thinking' }).isVisible()).toBe(true);
    expect(await seriousAxeViolations(page)).toEqual([]);
    await screenshot(page, 'thinking-shown-open-desktop');

    // A reload keeps the length and the time the answer stored.
    await page.reload();
    await page.getByRole('article', { name: 'Assistant message' }).locator('details.thinking-block > summary').filter({ hasText: label }).waitFor();

    const plain = await exportMarkdown(page, false);
    expect(plain).toContain('Take the coastal road.');
    expect(plain).not.toContain('step1');
    expect(plain).not.toContain('Thinking');
    const withThinking = await exportMarkdown(page, true);
    expect(withThinking).toContain(`<details>\n<summary>${label}</summary>\n\n${THINKING}\n\n</details>\n\nTake the coastal road.`);

    // A phone: the open block wraps, nothing scrolls sideways.
    await page.setViewportSize({ width: 390, height: 844 });
    const onPhone = page.getByRole('article', { name: 'Assistant message' });
    await onPhone.locator('details.thinking-block > summary').click();
    await onPhone.getByText(/step1 step2 .* step40/).waitFor();
    expect(await noSidewaysScroll(page)).toBe(true);
    await screenshot(page, 'thinking-shown-phone');
    expect(errors).toEqual([]);
    await context.close();
  });

  it('keeps what streamed of the thinking when the page reloads mid-thought', async () => {
    const { page, context, errors } = await anthropicPage();
    const long = Array.from({ length: 90 }, (_, i) => `idea${i + 1}`).join(' ');
    fake.setReply(() => ({ thinking: long, text: 'Never reached.', deltaDelayMs: 400 }));
    await sendNow(page, 'Plan the whole trip.');
    const answer = page.getByRole('article', { name: 'Assistant message' });
    await answer.locator('summary', { hasText: /^Thinking… [2-9] s$/ }).waitFor();
    await screenshot(page, 'thinking-shown-live');
    await page.reload();

    const after = page.getByRole('article', { name: 'Assistant message' });
    await after.getByText('Interrupted', { exact: false }).first().waitFor();
    const summary = after.locator('details.thinking-block > summary');
    const words = Number(/^Thinking · (\d+) words$/.exec((await summary.textContent())!)?.[1]);
    expect(words).toBeGreaterThan(3);
    expect(words).toBeLessThan(90);
    await summary.click();
    expect(long.startsWith((await after.locator('.thinking-text').textContent())!)).toBe(true);
    await screenshot(page, 'thinking-shown-interrupted');
    expect(errors.filter((e) => !/network|fetch|abort/i.test(e))).toEqual([]);
    await context.close();
  });

  it('OpenAI (Responses API): the reasoning summary streams into the Thinking block, a tool loop carries the encrypted reasoning, and reasoning tokens show as a part of the output', async () => {
    const { page, context, errors } = await newPage(browser);
    page.setDefaultTimeout(15_000);
    await openApp(page, appUrl);
    await configure(page, fake, { ...PROVIDER_SETUPS.openai, model: { custom: 'gpt-6.2-astra' } }, { contextWindow: 200_000 });
    await page.getByRole('combobox', { name: 'Thinking for the next message' }).selectOption({ label: 'High' });
    fake.setReply((context) =>
      context.answersToolResults
        ? { thinking: 'Weigh the coast against the hills, then the time of year, then the tolls.', text: 'The coast.' }
        : context.lastUserText === 'Which road?'
          ? { thinking: 'Count the tolls first.', toolCalls: [{ name: 'run_javascript', input: { code: '2 + 3' } }] }
          : { text: 'You are welcome.' },
    );
    const before = fake.requests.length;
    await sendWithEnter(page, 'Which road?');
    const answer = page.getByRole('article', { name: 'Assistant message' }).last();
    await answer.getByText('The coast.').waitFor();
    const made = fake.requests.slice(before).filter((r) => r.method === 'POST' && r.path === '/v1/responses');
    expect(made.map((r) => [r.status, r.validation])).toEqual([
      [200, { ok: true }],
      [200, { ok: true }],
    ]);
    expect(made[0]!.body).toMatchObject({ reasoning: { effort: 'high', summary: 'auto' }, include: ['reasoning.encrypted_content'], store: false });
    // The loop's second request sends the first answer's reasoning back, encrypted, before its call; the fake verified it.
    const input = (made[1]!.body as { input: { type?: string; role?: string; encrypted_content?: string }[] }).input;
    expect(input.map((item) => item.type ?? item.role)).toEqual(['user', 'reasoning', 'function_call', 'function_call_output']);
    expect(input[1]!.encrypted_content).toBeTruthy();
    // The summary is the Thinking block's text, collapsed until opened.
    const block = answer.locator('details.thinking-block');
    await block
      .locator('summary')
      .filter({ hasText: /^Thinking · 14 words(?: · \d+ s)?$/ })
      .waitFor();
    expect(await block.getAttribute('open')).toBeNull();
    await block.locator('summary').click();
    await block.getByText(/^Weigh the coast against the hills/).waitFor();

    const badge = answer.getByText(/^[\d,]+ out, of which [\d,]+ reasoning$/);
    await badge.waitFor();
    expect(await badge.getAttribute('title')).toMatch(/^Of the [\d,]+ output tokens the provider reported for this answer, [\d,]+ were reasoning/);
    await page.getByRole('meter', { name: 'Context usage' }).first().click();
    await page.getByText(/^Output so far: [\d,]+ tokens, of which [\d,]+ reasoning/).waitFor();
    await page.getByRole('row', { name: /^Output [\d,]+, of which [\d,]+ reasoning$/ }).waitFor();
    await screenshot(page, 'thinking-shown-reasoning-desktop');
    await page.setViewportSize({ width: 390, height: 844 });
    expect(await noSidewaysScroll(page)).toBe(true);
    await screenshot(page, 'thinking-shown-reasoning-phone');

    // A new question: the API discards reasoning from earlier turns, so none is sent.
    const next = await sendTurn(page, fake, 'Thanks');
    expect(next.map((r) => r.validation)).toEqual([{ ok: true }]);
    expect((next[0]!.body as { input: { type?: string }[] }).input.filter((item) => item.type === 'reasoning')).toEqual([]);
    expect(errors).toEqual([]);
    await context.close();
  });
});
