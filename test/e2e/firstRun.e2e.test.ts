import { existsSync } from 'node:fs';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { launchBrowser, newPage, screenshot } from './browser';

describe('first run in Chromium', () => {
  let browser: Browser;
  beforeAll(async () => {
    browser = await launchBrowser();
  });
  afterAll(async () => {
    await browser?.close();
  });

  it('opens the built app with its conversation list and composer', async () => {
    const { page, context, errors } = await newPage(browser);
    await page.goto(inject('appUrl'));
    await expect(page.title()).resolves.toBe('Windowpane');
    const nav = page.getByRole('navigation', { name: 'Conversations' });
    await nav.waitFor();
    expect(await nav.getByRole('button', { name: 'New chat' }).isVisible()).toBe(true);
    const box = page.getByRole('textbox', { name: 'Message' });
    expect(await box.isVisible()).toBe(true);
    expect(await page.getByRole('button', { name: 'Send' }).isDisabled()).toBe(true);
    await box.fill('Hello');
    expect(await page.getByRole('button', { name: 'Send' }).isEnabled()).toBe(true);
    const shot = await screenshot(page, 'first-run');
    expect(existsSync(shot)).toBe(true);
    expect(errors).toEqual([]);
    await context.close();
  });
});
