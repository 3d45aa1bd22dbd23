/**
 * The context window made visible, in real Chromium. A long chat on the Demo
 * (4,000-token window) shows a trim, then a summary; summarize is toggled, the page
 * reloaded, the conversation exported; the screens are checked with axe-core in light,
 * dark and at phone width, and screenshotted for a person to look at.
 */
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import type { WindowpaneExport } from '../../src/core';
import { launchBrowser, newPage, savedDownload, screenshot } from './browser';
import { contextUsage, openApp, openSettingsSection, scrollToNewest, scrollUpTo, sendWithEnter, seriousAxeViolations } from './uiHelpers';

const QUESTION = 'How does a context window limit what the model can see, and what happens to the oldest turns once it fills up? ';
const TRUNCATED = /^\[(\d+) earlier messages truncated to fit context window\]/;
const SUMMARIZED = /^(\d+) messages? summarized/;

describe('the context window, visible, in Chromium', () => {
  let browser: Browser;
  const appUrl = inject('appUrl');
  beforeAll(async () => {
    browser = await launchBrowser();
  });
  afterAll(async () => {
    await browser?.close();
  });

  it('a long Demo chat shows a trim, then a summary; summarize toggles; a reload keeps it; it exports', { timeout: 90_000 }, async () => {
    const { page, context, errors } = await newPage(browser);
    page.setDefaultTimeout(15_000);
    await openApp(page, appUrl);

    const settings = page.getByRole('dialog', { name: 'Settings' });
    /** Opens Settings, applies `edit` to the dialog and saves. */
    const changeSettings = async (edit: () => Promise<void>) => {
      await page.getByRole('button', { name: 'Settings' }).click();
      await edit();
      await settings.getByRole('button', { name: 'Save' }).click();
      await settings.waitFor({ state: 'detached' });
    };
    const notes = new Set<string>();
    const statuses = new Set<string>();
    const summary = page.getByRole('article', { name: 'Conversation summary' });
    let sent = 0;
    const exchange = async () => {
      sent++;
      await sendWithEnter(page, `Question ${sent}. ${QUESTION.repeat(6)}`);
      for (const note of await page.getByRole('note').allTextContents()) notes.add(note);
      for (const status of await page.getByRole('status').allTextContents()) statuses.add(status);
      const usage = await contextUsage(page);
      expect(usage.now).toBeLessThanOrEqual(usage.max);
    };
    // Summaries off (the default): the window cuts with the truncation marker.
    while (sent < 10 && ![...notes].some((n) => TRUNCATED.test(n))) await exchange();
    expect(await summary.count()).toBe(0);
    // Summaries on: the next requests put a summary in place of what was cut.
    await changeSettings(async () => {
      await openSettingsSection(page, 'Context');
      await settings.getByLabel('Summarize evicted messages').check();
    });
    // A summary needs 10 set-aside messages, so it comes a few exchanges after the first trim.
    const before = sent;
    while (sent < before + 6 && (await summary.count()) === 0) await exchange();
    // The evicted messages are more than the Demo's 4,000 tokens can read at once: the summary is still written.
    expect([...statuses].filter((s) => s.startsWith('Summarizing failed'))).toEqual([]);

    // First the window cut messages with the truncation marker, then a summary took their place.
    expect([...notes].some((n) => TRUNCATED.test(n))).toBe(true);
    expect([...statuses].some((s) => s.startsWith('Approaching the limit'))).toBe(true);
    expect([...statuses].some((s) => /^[1-9][\d,]* earlier messages? (is|are) left out of this request/.test(s))).toBe(true);
    await summary.waitFor();
    expect((await summary.textContent())?.startsWith('[Conversation Summary]')).toBe(true);
    expect(await summary.textContent()).toMatch(/covers \d+ earlier messages/);
    const summarizedNote = page.getByRole('note').filter({ hasText: SUMMARIZED });
    expect(await scrollUpTo(page, summarizedNote)).toBe(true);
    expect(Number(SUMMARIZED.exec((await summarizedNote.textContent()) ?? '')?.[1])).toBeGreaterThanOrEqual(10);

    // Open the summary to read it, as a user would.
    const collapsed = (await summary.innerText()).length;
    await summary.getByText('[Conversation Summary]').click();
    expect((await summary.innerText()).length).toBeGreaterThan(collapsed + 40);
    // Messages above the summary are dimmed and marked as not sent.
    const notSent = page.getByRole('article').filter({ hasText: 'not sent' });
    expect(await scrollUpTo(page, notSent)).toBe(true);
    expect(await notSent.first().getAttribute('class')).toContain('not-sent');
    await summary.scrollIntoViewIfNeeded();
    expect(await seriousAxeViolations(page)).toEqual([]);
    await screenshot(page, 'ui-window-summary');

    await page.emulateMedia({ colorScheme: 'dark' });
    expect(await seriousAxeViolations(page)).toEqual([]);
    await screenshot(page, 'ui-window-summary-dark');
    await page.getByRole('button', { name: 'Settings' }).click();
    expect(await seriousAxeViolations(page)).toEqual([]);
    await screenshot(page, 'ui-settings-dark');

    // Toggle summarize off, reload: the setting, the conversation and its summary are kept.
    await openSettingsSection(page, 'Context');
    await settings.getByLabel('Summarize evicted messages').uncheck();
    await settings.getByRole('button', { name: 'Save' }).click();
    await settings.waitFor({ state: 'detached' });
    await page.emulateMedia({ colorScheme: 'light' });
    await page.reload();
    await page.getByRole('textbox', { name: 'Message' }).waitFor();
    const nav = page.getByRole('navigation', { name: 'Conversations' });
    if ((await page.getByRole('article').count()) === 0) await nav.getByRole('button', { name: /^Question 1\./ }).click();
    await page.getByRole('article', { name: 'Assistant message' }).last().waitFor();
    await page.getByRole('button', { name: 'Settings' }).click();
    await openSettingsSection(page, 'Context');
    expect(await settings.getByLabel('Summarize evicted messages').isChecked()).toBe(false);
    await settings.getByRole('button', { name: 'Cancel' }).click();
    expect(await scrollUpTo(page, summary)).toBe(true);
    await scrollToNewest(page);

    // Export this conversation as Windowpane JSON: every message and the summary, no key.
    // One click on Export downloads this conversation as JSON.
    const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Export' }).click()]);
    const file = JSON.parse((await savedDownload(download)).text) as WindowpaneExport;
    expect(file.format).toBe('windowpane');
    expect(file.conversations).toHaveLength(1);
    const messages = file.conversations[0]!.messages;
    expect(messages.filter((m) => m.kind === 'message' && m.role === 'user')).toHaveLength(sent);
    expect(messages.filter((m) => m.kind === 'message' && m.role === 'assistant' && m.status === 'complete')).toHaveLength(sent);
    expect(messages.filter((m) => m.kind === 'summary')).toHaveLength(1);

    // At phone width: nothing overflows sideways and the composer stays on screen.
    await page.setViewportSize({ width: 390, height: 844 });
    await scrollToNewest(page);
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
    expect(await page.evaluate(() => document.documentElement.scrollHeight)).toBeLessThanOrEqual(844);
    expect(await seriousAxeViolations(page)).toEqual([]);
    await screenshot(page, 'ui-window-phone');
    await page.getByRole('button', { name: 'More', exact: true }).click();
    await page.getByRole('menu', { name: 'More' }).getByRole('menuitem', { name: 'Settings', exact: true }).click();
    await screenshot(page, 'ui-settings-phone');
    expect(errors).toEqual([]);
    await context.close();
  });
});
