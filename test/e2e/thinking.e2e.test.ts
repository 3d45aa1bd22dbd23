/**
 * Thinking in real Chromium against the fake Anthropic API: the choice made in Settings and
 * beside the gauge reaches the request as the model takes it, the thinking is shown with the
 * answer, and a switch to a model that does not take the choice keeps a valid one and says so.
 */
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { startFakeApi, type FakeApi } from '../fake-api/server';
import { launchBrowser, newPage, screenshot } from './browser';
import { chatRequests, configure, expectAllAcceptedAndFitting, PROVIDER_SETUPS, sendTurn, userText } from './providersHelpers';
import { openApp, sendWithEnter, seriousAxeViolations } from './uiHelpers';

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
    await page.getByRole('button', { name: 'Settings' }).click();
    const dialog = page.getByRole('dialog', { name: 'Settings' });
    await dialog.getByLabel('Provider', { exact: true }).selectOption({ label: 'Anthropic' });
    await dialog.getByLabel('API key', { exact: true }).fill('sk-ant-thinking-0123456789');
    await dialog.getByLabel('Base URL', { exact: true }).fill(fake.url);
    await dialog.getByLabel('Model', { exact: true }).selectOption('claude-haiku-4-5');
    // The default for new chats: Haiku 4.5 takes a budget, not an effort.
    const defaultThinking = dialog.getByLabel('Thinking', { exact: true });
    expect(await defaultThinking.locator('option').allTextContents()).toEqual([
      'Model default',
      'Off',
      'Up to 1,024 tokens',
      'Up to 4,096 tokens',
      'Up to 16,384 tokens',
      'Up to 32,768 tokens',
    ]);
    await defaultThinking.selectOption({ label: 'Up to 4,096 tokens' });
    await dialog.getByRole('button', { name: 'Save' }).click();
    await dialog.waitFor({ state: 'detached' });

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
});
