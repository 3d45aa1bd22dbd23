/**
 * The Settings dialog's checks in real Chromium: a bad value of a window knob is refused
 * with its reason beside the field and Save unavailable; the browser's own number checks
 * never refuse a value the dialog accepts; once fixed, the settings save and the chat
 * goes on.
 */
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { launchBrowser, newPage, screenshot } from './browser';
import { openApp, sendWithEnter, seriousAxeViolations } from './uiHelpers';

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
    expect(await dialog.getByLabel('Rolling window size').inputValue()).toBe('1000');
    expect(await dialog.getByLabel('Trim down to (% of window)').inputValue()).toBe('42.5');
    expect(await dialog.getByLabel('Token budget per request').inputValue()).toBe('1500');
    expect(errors).toEqual([]);
  });
});
