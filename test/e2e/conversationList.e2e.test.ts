/**
 * A year of history in the sidebar, in real Chromium: a thousand conversations imported at
 * once are listed newest first, only those in view are in the page, the keyboard
 * reaches every one (arrows, Home, End) and opens it, and a search lists its hits from the top.
 */
import type { Browser, Locator } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { launchBrowser, newPage, screenshot } from './browser';
import { openApp } from './uiHelpers';

const COUNT = 1000;
const DAY = 86_400_000;

/** A Windowpane export of `COUNT` one-exchange conversations, one a day back from now (conversation 1 the newest). */
function history(now: number): string {
  const conversations = Array.from({ length: COUNT }, (_, i) => {
    const id = `year-${i + 1}`;
    const at = now - i * DAY;
    const message = (n: number, role: 'user' | 'assistant', text: string) => ({
      id: `${id}-m${n}`,
      conversationId: id,
      seq: n,
      parentId: n === 0 ? null : `${id}-m${n - 1}`,
      role,
      kind: 'message',
      content: [{ type: 'text', text }],
      createdAt: at,
      status: 'complete',
    });
    return {
      conversation: { id, title: `Day ${i + 1} of the year`, createdAt: at, updatedAt: at, messageCount: 2 },
      messages: [message(0, 'user', `Question of day ${i + 1}`), message(1, 'assistant', `Answer of day ${i + 1}`)],
    };
  });
  return JSON.stringify({ format: 'windowpane', version: 2, exportedAt: now, conversations });
}

/** Whether the element is on screen inside the scrolled conversation list. */
function inView(locator: Locator): Promise<boolean> {
  return locator.evaluate((el) => {
    const box = el.getBoundingClientRect();
    const list = el.closest('.conversation-list')!.getBoundingClientRect();
    return box.height > 0 && box.top >= list.top - 1 && box.bottom <= list.bottom + 1;
  });
}

describe('the conversation list at a thousand conversations', () => {
  let browser: Browser;
  const appUrl = inject('appUrl');
  beforeAll(async () => {
    browser = await launchBrowser();
  });
  afterAll(async () => {
    await browser?.close();
  });

  it('lists them newest first, holds only those in view, the keyboard reaches and opens any, and a search starts at the top', async () => {
    const { page, context, errors } = await newPage(browser);
    page.setDefaultTimeout(20_000);
    await openApp(page, appUrl);
    await page.getByLabel('Import file').setInputFiles({ name: 'year.json', mimeType: 'application/json', buffer: Buffer.from(history(Date.now())) });
    // The list fills in as the import writes; the notice comes once all are stored.
    await page.getByRole('status').filter({ hasText: 'Imported 1,000 conversations from year.json' }).waitFor();
    const nav = page.getByRole('navigation', { name: 'Conversations' });
    await nav.getByRole('button', { name: 'Day 1 of the year', exact: true }).waitFor();

    const rendered = await nav.locator('.conversation-link').count();
    expect(rendered).toBeGreaterThan(5);
    expect(rendered).toBeLessThan(80);
    const titles = await nav.locator('.conversation-link .conversation-title').allTextContents();
    expect(titles.slice(0, 3)).toEqual(['Day 1 of the year', 'Day 2 of the year', 'Day 3 of the year']);

    await nav.getByRole('button', { name: 'Day 1 of the year', exact: true }).focus();
    await page.keyboard.press('ArrowDown');
    await page.keyboard.press('ArrowDown');
    expect(await page.evaluate(() => document.activeElement?.textContent)).toBe('Day 3 of the year');
    await page.keyboard.press('End');
    await expect.poll(() => page.evaluate(() => document.activeElement?.textContent)).toBe(`Day ${COUNT} of the year`);
    await page.keyboard.press('ArrowUp');
    await expect.poll(() => page.evaluate(() => document.activeElement?.textContent)).toBe(`Day ${COUNT - 1} of the year`);
    await page.keyboard.press('Enter');
    await page
      .getByRole('article', { name: 'Assistant message' })
      .filter({ hasText: `Answer of day ${COUNT - 1}` })
      .waitFor();
    expect(await nav.locator('.conversation-link').count()).toBeLessThan(80);
    await screenshot(page, 'conversation-list-end');

    await nav.getByRole('button', { name: `Day ${COUNT - 1} of the year`, exact: true }).focus();
    await page.keyboard.press('Home');
    await expect.poll(() => page.evaluate(() => document.activeElement?.textContent)).toBe('Day 1 of the year');

    // A search typed with the list scrolled to its end lists the most recent hits, those its answer read, from the top.
    await page.keyboard.press('End');
    await expect.poll(() => page.evaluate(() => document.activeElement?.textContent)).toBe(`Day ${COUNT} of the year`);
    const search = nav.getByRole('searchbox', { name: 'Search conversations' });
    await search.fill('answer');
    const first = nav.getByRole('button', { name: /^Day 1 of the year\b/ });
    await first.locator('.conversation-snippet mark', { hasText: 'Answer' }).waitFor();
    expect(await inView(first)).toBe(true);
    // Cleared, the list is back at its top.
    await search.fill('');
    await nav.getByRole('button', { name: 'Day 1 of the year', exact: true }).waitFor();
    expect(await inView(nav.getByRole('button', { name: 'Day 1 of the year', exact: true }))).toBe(true);
    expect(errors).toEqual([]);
    await context.close();
  });
});
