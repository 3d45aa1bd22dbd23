/**
 * The phone layout in real Chromium at 390×844, a touch screen: the conversations are a
 * drawer (the header's button, a swipe from the left edge; Escape, a choice or a tap
 * outside closes it, and focus goes back to the button), the header is one line, the
 * transcript has most of the height, every target is 44px, nothing scrolls sideways, the
 * composer stays above a keyboard, and axe finds nothing serious. Desktop stays as it was.
 */
import type { Browser, BrowserContext, CDPSession, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { launchBrowser, screenshot } from './browser';
import { openApp, sendWithEnter, seriousAxeViolations } from './uiHelpers';

const PHONE = { width: 390, height: 844 };

/** A phone: a touch screen that has no hover, at 390×844, failing the test on any page error. */
async function phonePage(browser: Browser): Promise<{ context: BrowserContext; page: Page; errors: string[] }> {
  const context = await browser.newContext({ viewport: PHONE, hasTouch: true, isMobile: true, colorScheme: 'light' });
  const page = await context.newPage();
  page.setDefaultTimeout(15_000);
  const errors: string[] = [];
  page.on('pageerror', (error) => errors.push(error.message));
  page.on('console', (message) => {
    if (message.type() === 'error') errors.push(message.text());
  });
  return { context, page, errors };
}

/** A finger moving from `from` to `to` in a few steps, as Chromium's touch input. */
async function swipe(cdp: CDPSession, from: { x: number; y: number }, to: { x: number; y: number }): Promise<void> {
  await cdp.send('Input.dispatchTouchEvent', { type: 'touchStart', touchPoints: [from] });
  for (let step = 1; step <= 5; step++) {
    const at = { x: from.x + ((to.x - from.x) * step) / 5, y: from.y + ((to.y - from.y) * step) / 5 };
    await cdp.send('Input.dispatchTouchEvent', { type: 'touchMove', touchPoints: [at] });
  }
  await cdp.send('Input.dispatchTouchEvent', { type: 'touchEnd', touchPoints: [] });
}

/** The accessible name of the element holding focus. */
const focusedName = (page: Page) => page.evaluate(() => document.activeElement?.getAttribute('aria-label') ?? document.activeElement?.textContent ?? '');

/** Every visible control under `selector` smaller than 44×44 px, by its name and size. */
function smallTargets(page: Page, selector: string): Promise<string[]> {
  return page.evaluate((root) => {
    const small: string[] = [];
    for (const scope of document.querySelectorAll(root)) {
      for (const el of scope.querySelectorAll<HTMLElement>('button, select, input, textarea, summary, [role="menuitem"]')) {
        const box = el.getBoundingClientRect();
        if ((box.width === 0 && box.height === 0) || el.classList.contains('visually-hidden')) continue; // not shown
        if (box.width < 44 || box.height < 44) {
          small.push(`${el.getAttribute('aria-label') ?? el.textContent?.trim().slice(0, 30)} ${Math.round(box.width)}×${Math.round(box.height)}`);
        }
      }
    }
    return small;
  }, selector);
}

describe('the phone layout, in Chromium at 390×844', () => {
  let browser: Browser;
  const appUrl = inject('appUrl');
  beforeAll(async () => {
    browser = await launchBrowser();
  });
  afterAll(async () => {
    await browser?.close();
  });

  it('the conversations are a drawer: the button or an edge swipe opens it; Escape, a tap outside or a choice closes it', async () => {
    const { context, page, errors } = await phonePage(browser);
    await openApp(page, appUrl);
    await sendWithEnter(page, 'Tulips in the first chat');
    await page.getByRole('button', { name: 'New chat', exact: true }).click();
    await page.getByRole('article').first().waitFor({ state: 'detached' });
    await sendWithEnter(page, 'Otters in the second chat');

    const nav = page.getByRole('navigation', { name: 'Conversations' });
    const drawer = page.getByRole('dialog', { name: 'Conversations' });
    const button = page.getByRole('button', { name: 'Conversations', exact: true });
    // The list is not above the chat any more: it waits behind one labelled button.
    expect(await nav.isVisible()).toBe(false);
    expect(await button.getAttribute('aria-expanded')).toBe('false');

    // The button opens it as a modal dialog: focus moves inside, the page behind is inert.
    await button.click();
    await drawer.waitFor();
    expect(await nav.isVisible()).toBe(true);
    expect(await button.getAttribute('aria-expanded')).toBe('true');
    expect(await drawer.evaluate((dialog) => dialog.matches(':modal') && dialog.contains(document.activeElement))).toBe(true);
    expect(await page.evaluate(() => document.elementFromPoint(370, 800)?.closest('main'))).toBeNull();
    expect(await seriousAxeViolations(page)).toEqual([]);
    expect(await smallTargets(page, '.drawer')).toEqual([]);
    // A phone has no Ctrl+K: the search field does not offer it.
    expect(await drawer.getByRole('searchbox', { name: 'Search conversations' }).getAttribute('placeholder')).toBe('Search');
    await screenshot(page, 'phone-drawer');
    await page.emulateMedia({ colorScheme: 'dark' });
    expect(await seriousAxeViolations(page)).toEqual([]);
    await screenshot(page, 'phone-drawer-dark');
    await page.emulateMedia({ colorScheme: 'light' });

    // Escape while renaming ends the rename and leaves the drawer open.
    await drawer.getByRole('button', { name: 'Rename Tulips in the first chat' }).click();
    await drawer.getByRole('textbox', { name: 'Conversation title' }).waitFor();
    await page.keyboard.press('Escape');
    await drawer.getByRole('textbox', { name: 'Conversation title' }).waitFor({ state: 'detached' });
    expect(await drawer.isVisible()).toBe(true);

    // Escape in a search clears it and leaves the drawer open.
    const search = drawer.getByRole('searchbox', { name: 'Search conversations' });
    await search.fill('otters');
    await nav.locator('.conversation-link').filter({ hasText: 'Tulips in the first chat' }).waitFor({ state: 'detached' });
    await page.keyboard.press('Escape');
    await nav.locator('.conversation-link').filter({ hasText: 'Tulips in the first chat' }).waitFor();
    expect(await search.inputValue()).toBe('');
    expect(await drawer.isVisible()).toBe(true);

    // Escape closes it, and focus is back on the button.
    await page.keyboard.press('Escape');
    await drawer.waitFor({ state: 'hidden' });
    expect(await focusedName(page)).toBe('Conversations');
    expect(await button.getAttribute('aria-expanded')).toBe('false');

    // A tap on the dimmed page beside it closes it.
    await button.click();
    await drawer.waitFor();
    const width = (await drawer.boundingBox())!.width;
    expect(width).toBeLessThan(PHONE.width - 44);
    await page.touchscreen.tap(PHONE.width - 20, 420);
    await drawer.waitFor({ state: 'hidden' });
    expect(await focusedName(page)).toBe('Conversations');

    // Choosing a conversation opens it and closes the drawer.
    await button.click();
    await drawer.waitFor();
    await nav.locator('.conversation-link').filter({ hasText: 'Tulips in the first chat' }).click();
    await drawer.waitFor({ state: 'hidden' });
    await page.getByRole('heading', { level: 1, name: 'Tulips in the first chat' }).waitFor();
    await page.getByRole('article', { name: 'User message' }).filter({ hasText: 'Tulips in the first chat' }).waitFor();
    expect(await focusedName(page)).toBe('Conversations');

    // New chat in the drawer starts one and closes it too.
    await button.click();
    await drawer.getByRole('button', { name: 'New chat', exact: true }).click();
    await drawer.waitFor({ state: 'hidden' });
    await page.getByRole('heading', { level: 1, name: 'New chat' }).waitFor();

    // A swipe right from the left edge opens it; a finger moving down the edge does not.
    const cdp = await context.newCDPSession(page);
    await swipe(cdp, { x: 4, y: 300 }, { x: 8, y: 520 });
    await page.waitForTimeout(200);
    expect(await drawer.isVisible()).toBe(false);
    await swipe(cdp, { x: 4, y: 400 }, { x: 160, y: 410 });
    await drawer.waitFor();
    expect(await nav.isVisible()).toBe(true);
    await page.keyboard.press('Escape');
    await drawer.waitFor({ state: 'hidden' });

    expect(errors).toEqual([]);
    await context.close();
  });

  it(
    'after three Demo exchanges: one-line header, ≥65 % for the transcript, 44px targets, no sideways scroll, a gauge in words',
    { timeout: 90_000 },
    async () => {
      const { context, page, errors } = await phonePage(browser);
      await openApp(page, appUrl);
      for (const text of ['What is a context window?', 'How long can a conversation get?', 'What happens to the oldest messages?']) {
        await sendWithEnter(page, text);
      }
      expect(await page.getByRole('article', { name: 'Assistant message' }).count()).toBe(3);

      const transcript = await page.getByRole('log', { name: 'Transcript' }).boundingBox();
      expect(transcript!.height / PHONE.height).toBeGreaterThanOrEqual(0.65);

      // One line: every part of the header overlaps every other vertically.
      const header = page.locator('header.chat-header');
      const rows = await header.evaluate((el) => [...el.children].map((child) => child.getBoundingClientRect()).map((r) => ({ top: r.top, bottom: r.bottom })));
      expect(rows.length).toBeGreaterThanOrEqual(4);
      expect(Math.max(...rows.map((r) => r.top))).toBeLessThan(Math.min(...rows.map((r) => r.bottom)));
      expect(await header.getByRole('heading', { level: 1 }).evaluate((h) => getComputedStyle(h).textOverflow)).toBe('ellipsis');

      // The gauge keeps its words.
      const label = page.locator('.gauge-label');
      expect(await label.isVisible()).toBe(true);
      expect(await label.textContent()).toMatch(/^[\d,]+ \/ 4,000 tokens/);

      // Nothing scrolls sideways: not the page, not the transcript, not the header.
      const sideways = await page.evaluate(() =>
        [document.documentElement, document.querySelector('[role="log"]'), document.querySelector('.chat-header')].map(
          (el) => el!.scrollWidth - el!.clientWidth,
        ),
      );
      expect(sideways).toEqual([0, 0, 0]);
      expect(await page.evaluate(() => document.documentElement.scrollHeight)).toBeLessThanOrEqual(PHONE.height);

      expect(await smallTargets(page, 'main')).toEqual([]);
      expect(await seriousAxeViolations(page)).toEqual([]);
      await screenshot(page, 'phone-chat');

      // "More" holds Export and Settings, each a 44px target.
      const more = page.getByRole('button', { name: 'More', exact: true });
      await more.click();
      const menu = page.getByRole('menu', { name: 'More' });
      expect(await smallTargets(page, '[role="menu"]')).toEqual([]);
      expect(await seriousAxeViolations(page)).toEqual([]);
      await screenshot(page, 'phone-more');
      const [download] = await Promise.all([page.waitForEvent('download'), menu.getByRole('menuitem', { name: 'Export this conversation (JSON)' }).click()]);
      expect(download.suggestedFilename()).toMatch(/\.json$/);
      await menu.waitFor({ state: 'detached' });
      await more.click();
      await menu.getByRole('menuitem', { name: 'Settings', exact: true }).click();
      await page.getByRole('dialog', { name: 'Settings' }).waitFor();
      await page.getByRole('dialog', { name: 'Settings' }).getByRole('button', { name: 'Cancel' }).click();

      // With an on-screen keyboard covering the bottom 300px, the composer sits above it.
      await page.evaluate(() => document.documentElement.style.setProperty('--keyboard-inset', '300px'));
      for (const control of [page.getByRole('textbox', { name: 'Message' }), page.getByRole('button', { name: 'Send', exact: true })]) {
        const box = await control.boundingBox();
        expect(box!.y + box!.height).toBeLessThanOrEqual(PHONE.height - 300);
      }
      expect(errors).toEqual([]);
      await context.close();
    },
  );

  it('at desktop width the sidebar stays beside the chat with no drawer; narrowed, the drawer takes its place', async () => {
    const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
    const page = await context.newPage();
    page.setDefaultTimeout(15_000);
    await openApp(page, appUrl);
    const nav = page.getByRole('navigation', { name: 'Conversations' });
    expect(await nav.isVisible()).toBe(true);
    expect(await page.getByRole('dialog', { name: 'Conversations' }).count()).toBe(0);
    for (const name of ['Conversations', 'More']) expect(await page.getByRole('button', { name, exact: true }).count(), name).toBe(0);
    for (const name of ['Export', 'Settings']) expect(await page.getByRole('button', { name, exact: true }).isVisible(), name).toBe(true);
    expect(await seriousAxeViolations(page)).toEqual([]);

    await page.setViewportSize(PHONE);
    await page.getByRole('button', { name: 'Conversations', exact: true }).waitFor();
    expect(await nav.isVisible()).toBe(false);
    await page.setViewportSize({ width: 1280, height: 800 });
    await nav.waitFor();
    expect(await page.getByRole('button', { name: 'Conversations', exact: true }).count()).toBe(0);
    await context.close();
  });
});
