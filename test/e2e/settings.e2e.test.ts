/**
 * The Settings dialog in real Chromium: its sections, each reached from the keyboard, fit a
 * phone (390×844) and a desktop without sideways scrolling, with Save and Cancel in view
 * and no serious axe finding, in the light and the dark theme. A bad value of a window knob
 * is refused with its reason beside the field and Save unavailable; the browser's own
 * number checks never refuse a value the dialog accepts; once fixed, the settings save and
 * the chat goes on.
 */

const SECTIONS: SettingsSection[] = ['Model and key', 'Context', 'Tools', 'Storage', 'Sync', 'Appearance'];

/**
 * What in the open dialog scrolls sideways or reaches past the viewport's edges, and
 * whether the page itself is wider than the viewport; empty when nothing does.
 */
async function sidewaysOverflow(page: Page): Promise<string[]> {
  return page.evaluate(() => {
    const width = document.documentElement.clientWidth;
    const found: string[] = [];
    if (document.documentElement.scrollWidth > width) found.push(`the page: ${document.documentElement.scrollWidth} > ${width}`);
    const dialog = document.querySelector('[role="dialog"]');
    for (const el of dialog ? [dialog, ...dialog.querySelectorAll('*')] : []) {
      const box = el.getBoundingClientRect();
      if (box.width === 0 && box.height === 0) continue;
      const { overflowX } = getComputedStyle(el);
      const scrolls = (overflowX === 'auto' || overflowX === 'scroll') && el.scrollWidth > el.clientWidth + 1;
      if (scrolls || box.right > width + 1 || box.left < -1) {
        found.push(
          `${el.tagName.toLowerCase()}.${String(el.className)} ${Math.round(box.left)}–${Math.round(box.right)}, scroll ${el.scrollWidth}/${el.clientWidth}`,
        );
      }
    }
    return found;
  });
}
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { launchBrowser, newPage, screenshot } from './browser';
import { openApp, openSettingsSection, sendWithEnter, seriousAxeViolations, type SettingsSection } from './uiHelpers';
import { openSettings } from './persistenceHelpers';

describe('the Settings dialog checks its knobs, in Chromium', () => {
  let browser: Browser;
  const appUrl = inject('appUrl');
  beforeAll(async () => {
    browser = await launchBrowser();
  });
  afterAll(async () => {
    await browser?.close();
  });

  it('refuses a rolling window above 1,000 and "trim down to" above "trim above", then saves the fixed values', { timeout: 60_000 }, async () => {
    const { page, errors } = await newPage(browser);
    page.setDefaultTimeout(15_000);
    await openApp(page, appUrl);
    await sendWithEnter(page, 'Hello there');
    await page.getByRole('button', { name: 'Settings' }).click();
    const dialog = page.getByRole('dialog', { name: 'Settings' });
    const save = dialog.getByRole('button', { name: 'Save' });

    await openSettingsSection(page, 'Context');
    await dialog.getByLabel('Strategy').selectOption('rolling');
    const size = dialog.getByLabel('Rolling window size');
    await size.fill('5000');
    await expect.poll(() => size.getAttribute('aria-invalid')).toBe('true');
    expect(await dialog.getByText('Enter a whole number from 1 to 1,000. The rolling strategy looks at the newest 1,000 messages at most.').isVisible()).toBe(
      true,
    );
    expect(await save.getAttribute('aria-disabled')).toBe('true');
    expect(await save.isEnabled()).toBe(false);
    // Pressed anyway (forced past the disabled state, or Enter in a field): nothing is saved and the field to fix has focus.
    await save.click({ force: true });
    expect(await dialog.isVisible()).toBe(true);
    expect(await size.evaluate((el) => el === document.activeElement)).toBe(true);
    await dialog.getByLabel('Max messages').press('Enter');
    expect(await dialog.isVisible()).toBe(true);
    expect(await size.evaluate((el) => el === document.activeElement)).toBe(true);

    const trigger = dialog.getByLabel('Trim above (% of window)');
    const target = dialog.getByLabel('Trim down to (% of window)');
    await trigger.fill('50');
    await target.fill('70');
    expect(await dialog.getByText('Must be below “Trim above” (50 %): a trim cuts the request down to this share.').isVisible()).toBe(true);
    expect(await dialog.getByText('Save is unavailable until these fields are fixed: Rolling window size, Trim down to.').isVisible()).toBe(true);
    expect(await seriousAxeViolations(page)).toEqual([]);
    await save.click({ force: true });
    await screenshot(page, 'settings-invalid');

    await size.fill('1000');
    await target.fill('42.5');
    // Values the old step and min attributes made the browser itself refuse.
    await dialog.getByLabel('Token budget per request').fill('1500');
    await dialog.getByLabel('Money budget per request (USD)').fill('0.12');
    await dialog.getByLabel('Summary max tokens').fill('32');
    expect(await save.getAttribute('aria-disabled')).toBeNull();
    await save.click();
    await dialog.waitFor({ state: 'detached' });

    // The chat goes on with the saved settings.
    await sendWithEnter(page, 'And again');
    expect(await page.getByRole('article', { name: 'User message' }).count()).toBe(2);
    await page.getByRole('button', { name: 'Settings' }).click();
    await openSettingsSection(page, 'Context');
    expect(await dialog.getByLabel('Rolling window size').inputValue()).toBe('1000');
    expect(await dialog.getByLabel('Trim down to (% of window)').inputValue()).toBe('42.5');
    expect(await dialog.getByLabel('Token budget per request').inputValue()).toBe('1500');
    expect(errors).toEqual([]);
  });

  it.each([
    ['a phone', { width: 390, height: 844 }],
    ['a desktop', { width: 1280, height: 800 }],
  ] as const)(
    'on %s, every section is reached by keyboard, fits without sideways scrolling, keeps Save in view and passes axe, light and dark',
    { timeout: 120_000 },
    async (device, viewport) => {
      const { page, errors } = await newPage(browser, { viewport });
      page.setDefaultTimeout(15_000);
      await openApp(page, appUrl);
      // Conversations with long titles, so Storage has rows to fit.
      await sendWithEnter(page, 'A first conversation whose opening message is long enough to make a title that wraps on a phone screen');
      await page.getByRole('button', { name: 'New chat' }).click();
      await sendWithEnter(page, 'Averyveryverylongwordwithoutanyspacesthatcouldpushatablecellwiderthanthescreen and more');
      const dialog = page.getByRole('dialog', { name: 'Settings' });
      const tab = (name: SettingsSection) => dialog.getByRole('tab', { name, exact: true });
      const name = device === 'a phone' ? 'phone' : 'desktop';

      for (const theme of ['light', 'dark'] as const) {
        await openSettings(page);
        // With a conversation open, focus starts on "Apply to"; Tab goes on to the tab of the section shown.
        expect(await dialog.getByRole('radio', { name: 'All conversations (defaults)' }).evaluate((el) => el === document.activeElement)).toBe(true);
        await page.keyboard.press('Tab');
        expect(await tab('Model and key').evaluate((el) => el === document.activeElement)).toBe(true);
        for (const [i, section] of SECTIONS.entries()) {
          if (i > 0) await page.keyboard.press('ArrowRight');
          expect(await tab(section).evaluate((el) => el === document.activeElement)).toBe(true);
          expect(await tab(section).getAttribute('aria-selected')).toBe('true');
          const panel = dialog.getByRole('tabpanel', { name: section, exact: true });
          await panel.waitFor();
          if (section === 'Storage') await panel.getByText(/^About /).waitFor();
          expect(await dialog.getByRole('tabpanel').count()).toBe(1);
          expect(await sidewaysOverflow(page), `${section}, ${theme}`).toEqual([]);
          for (const button of ['Save', 'Cancel']) {
            const box = await dialog.getByRole('button', { name: button, exact: true }).boundingBox();
            expect(box && box.y >= 0 && box.y + box.height <= viewport.height, `${button} in view in ${section}`).toBe(true);
          }
          expect(await seriousAxeViolations(page), `${section}, ${theme}`).toEqual([]);
          await screenshot(page, `settings-${name}-${theme}-${section.toLowerCase().replace(/ /g, '-')}`);
        }
        // End and Home reach the last and the first section.
        await page.keyboard.press('Home');
        expect(await tab('Model and key').getAttribute('aria-selected')).toBe('true');
        await page.keyboard.press('End');
        expect(await tab('Appearance').getAttribute('aria-selected')).toBe('true');
        if (theme === 'dark') break;
        // Appearance → Dark, saved: the page turns dark, whatever the system says.
        await page.keyboard.press('Tab');
        await dialog.getByRole('radio', { name: 'Dark' }).check();
        await dialog.getByRole('button', { name: 'Save' }).click();
        await dialog.waitFor({ state: 'detached' });
        expect(await page.evaluate(() => document.documentElement.dataset.theme)).toBe('dark');
        expect(await page.evaluate(() => getComputedStyle(document.documentElement).backgroundColor)).toBe('rgb(15, 18, 23)');
        expect(await seriousAxeViolations(page)).toEqual([]);
        await screenshot(page, `settings-${name}-dark-chat`);
      }
      expect(errors).toEqual([]);
    },
  );

  it('follows the system while the theme is "system", and holds light against a dark system', async () => {
    const { page, errors } = await newPage(browser, { colorScheme: 'dark' });
    await openApp(page, appUrl);
    const background = () => page.evaluate(() => getComputedStyle(document.documentElement).backgroundColor);
    // The colour the browser gives its own toolbar: the theme-color meta whose media matches.
    const toolbar = () =>
      page.evaluate(() =>
        [...document.querySelectorAll<HTMLMetaElement>('meta[name="theme-color"]')].filter((m) => matchMedia(m.media || 'all').matches).map((m) => m.content),
      );
    expect(await page.evaluate(() => document.documentElement.dataset.theme)).toBe('system');
    expect(await background()).toBe('rgb(15, 18, 23)');
    expect(await toolbar()).toEqual(['#0f1217']);
    await page.emulateMedia({ colorScheme: 'light' });
    expect(await background()).toBe('rgb(255, 255, 255)');
    expect(await toolbar()).toEqual(['#ffffff']);
    await page.emulateMedia({ colorScheme: 'dark' });
    await page.getByRole('button', { name: 'Settings' }).click();
    const dialog = page.getByRole('dialog', { name: 'Settings' });
    await openSettingsSection(page, 'Appearance');
    await dialog.getByRole('radio', { name: 'Light' }).check();
    await dialog.getByRole('button', { name: 'Save' }).click();
    await dialog.waitFor({ state: 'detached' });
    expect(await background()).toBe('rgb(255, 255, 255)');
    expect(await toolbar()).toEqual(['#ffffff']);
    // Kept for the next visit.
    await page.reload();
    await page.getByRole('textbox', { name: 'Message' }).waitFor();
    await expect.poll(() => page.evaluate(() => document.documentElement.dataset.theme)).toBe('light');
    expect(await background()).toBe('rgb(255, 255, 255)');
    expect(await toolbar()).toEqual(['#ffffff']);
    expect(errors).toEqual([]);
  });
});
