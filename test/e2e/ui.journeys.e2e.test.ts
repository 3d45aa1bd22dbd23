/**
 * User journeys in real Chromium: the first run on the Demo, the keyboard, and adding a key.
 * Everything is found by role and by the accessible names the app promises.
 */
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { startFakeApi, type FakeApi } from '../fake-api/server';
import { launchBrowser, newPage, screenshot } from './browser';
import { contextUsage, openApp, sendWithEnter, seriousAxeViolations } from './uiHelpers';

describe('UI journeys in Chromium', () => {
  let browser: Browser;
  let fake: FakeApi;
  const appUrl = inject('appUrl');
  beforeAll(async () => {
    [browser, fake] = await Promise.all([launchBrowser(), startFakeApi()]);
  });
  afterAll(async () => {
    await Promise.all([browser?.close(), fake?.close()]);
  });

  it('first run: the Demo is ready with nothing blank or broken, at desktop and phone width', async () => {
    const { page, context, errors } = await newPage(browser);
    page.setDefaultTimeout(10_000);
    await openApp(page, appUrl);
    await expect(page.title()).resolves.toBe('Windowpane');
    expect(await page.getByRole('main').textContent()).toContain('Demo');
    expect(await page.getByRole('navigation', { name: 'Conversations' }).getByRole('button', { name: 'New chat' }).isVisible()).toBe(true);
    expect(await page.getByRole('button', { name: 'Send' }).isDisabled()).toBe(true);
    expect(await contextUsage(page)).toMatchObject({ max: 4000 });
    expect(await seriousAxeViolations(page)).toEqual([]);
    await screenshot(page, 'ui-first-run');

    await page.setViewportSize({ width: 390, height: 844 });
    // At phone width every control stays reachable and nothing overflows sideways: the conversations
    // are behind one button, Export and Settings in the "More" menu.
    for (const name of ['New chat', 'More', 'Send']) {
      expect(await page.getByRole('button', { name, exact: true }).isVisible(), name).toBe(true);
      // Unique even by the default substring match, so no other control shadows the name.
      expect(await page.getByRole('button', { name }).count(), name).toBe(1);
    }
    // A sample question of the welcome holds the word, so this one is unique by its exact name.
    const conversations = page.getByRole('button', { name: 'Conversations', exact: true });
    expect(await conversations.isVisible()).toBe(true);
    expect(await conversations.count()).toBe(1);
    await page.getByRole('button', { name: 'More', exact: true }).click();
    const more = page.getByRole('menu', { name: 'More' });
    for (const name of ['Settings', 'Export all conversations (JSON)']) {
      expect(await more.getByRole('menuitem', { name, exact: true }).isVisible(), name).toBe(true);
      expect(await page.getByRole('menuitem', { name }).count(), name).toBe(1);
    }
    await page.keyboard.press('Escape');
    await more.waitFor({ state: 'detached' });
    expect(await page.getByRole('textbox', { name: 'Message' }).isVisible()).toBe(true);
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
    // The page itself never scrolls: the composer stays on screen and the welcome scrolls inside.
    expect(await page.evaluate(() => document.documentElement.scrollHeight)).toBeLessThanOrEqual(844);
    const composer = await page.getByRole('textbox', { name: 'Message' }).boundingBox();
    expect((composer?.y ?? Infinity) + (composer?.height ?? 0)).toBeLessThanOrEqual(844);
    expect(await seriousAxeViolations(page)).toEqual([]);
    await screenshot(page, 'ui-first-run-phone');
    expect(errors).toEqual([]);
    await context.close();
  });

  it('keyboard first: Shift+Enter adds a line, Enter sends, Esc stops, Ctrl+Shift+O starts a chat, Ctrl+K searches', async () => {
    const { page, context, errors } = await newPage(browser);
    page.setDefaultTimeout(10_000);
    await openApp(page, appUrl);
    const box = page.getByRole('textbox', { name: 'Message' });
    await box.focus();
    await page.keyboard.type('First line');
    await page.keyboard.press('Shift+Enter');
    await page.keyboard.type('second line');
    expect(await box.inputValue()).toBe('First line\nsecond line');
    expect(await page.getByRole('article', { name: 'User message' }).count()).toBe(0);

    await page.keyboard.press('Enter');
    const stop = page.getByRole('button', { name: 'Stop', exact: true });
    await stop.waitFor();
    expect(await box.inputValue()).toBe('');
    expect(await page.getByRole('article', { name: 'User message' }).textContent()).toContain('First line\nsecond line');
    // Let a little of the answer arrive, then stop it from the keyboard.
    const answer = page.getByRole('article', { name: 'Assistant message' });
    await page.waitForFunction(() => (document.querySelector('article[aria-label="Assistant message"]')?.textContent ?? '').length > 60);
    await page.keyboard.press('Escape');
    await page.getByRole('button', { name: 'Send', exact: true }).waitFor();
    expect(await answer.textContent()).toContain('Stopped');
    // Nothing more arrives after Stop. (Whitespace is ignored: the streamed text's trailing
    // space is gone once the stopped answer renders from storage.)
    const words = async () => ((await answer.textContent()) ?? '').replace(/\s+/g, '');
    const stoppedText = await words();
    await page.waitForTimeout(300);
    expect(await words()).toBe(stoppedText);

    await page.keyboard.press('Control+Shift+O');
    await page.getByRole('article').first().waitFor({ state: 'detached' });
    expect(await box.evaluate((el) => el === document.activeElement)).toBe(true);

    await page.keyboard.press('Control+K');
    expect(await page.getByRole('searchbox', { name: 'Search conversations' }).evaluate((el) => el === document.activeElement)).toBe(true);
    expect(errors).toEqual([]);
    await context.close();
  });

  it('on a touch phone the actions of a message are shown, since there is no hover to reveal them', async () => {
    const context = await browser.newContext({ viewport: { width: 390, height: 844 }, hasTouch: true, isMobile: true });
    const page = await context.newPage();
    page.setDefaultTimeout(10_000);
    await openApp(page, appUrl);
    await sendWithEnter(page, 'Hello from a phone');
    const copy = page.getByRole('article', { name: 'Assistant message' }).getByRole('button', { name: 'Copy', exact: true });
    const opacity = await copy.evaluate((button) => {
      let shown = 1;
      for (let el: Element | null = button; el; el = el.parentElement) shown *= Number(getComputedStyle(el).opacity);
      return shown;
    });
    expect(opacity).toBe(1);
    await screenshot(page, 'ui-chat-touch-phone');
    await context.close();
  });

  it('adds a key: Settings → Anthropic, key, base URL; the next message goes to that API', async () => {
    const { page, context, errors } = await newPage(browser);
    page.setDefaultTimeout(10_000);
    await openApp(page, appUrl);
    await page.getByRole('button', { name: 'Settings' }).click();
    const dialog = page.getByRole('dialog', { name: 'Settings' });
    await dialog.getByLabel('Provider', { exact: true }).selectOption({ label: 'Anthropic' });
    const key = dialog.getByLabel('API key', { exact: true });
    await key.fill('sk-ant-ui-journey-0123456789');
    expect(await key.getAttribute('type')).toBe('password');
    await dialog.getByLabel('Base URL', { exact: true }).fill(fake.url);
    await dialog.getByLabel('Model', { exact: true }).selectOption('claude-haiku-4-5');
    expect(await seriousAxeViolations(page)).toEqual([]);
    await screenshot(page, 'ui-settings-anthropic');
    await dialog.getByRole('button', { name: 'Save' }).click();
    await dialog.waitFor({ state: 'detached' });
    expect(await page.getByRole('main').textContent()).not.toContain('Demo');
    expect(await contextUsage(page)).toMatchObject({ max: 200_000 });

    const before = fake.requests.length;
    await sendWithEnter(page, 'Hello from the journey');
    const chat = fake.requests.slice(before).filter((r) => r.method === 'POST' && r.path === '/v1/messages');
    expect(chat).toHaveLength(1);
    expect(chat[0]).toMatchObject({ status: 200, authForm: expect.any(String), validation: { ok: true } });
    expect(await page.getByRole('article', { name: 'Assistant message' }).textContent()).toContain('Your last message began');
    await screenshot(page, 'ui-chat-anthropic');
    expect(errors).toEqual([]);
    await context.close();
  });
});
