/**
 * The model's window without typing it, in real Chromium against the fake Anthropic API: a
 * key entered in Settings lists the models it can use with their windows by itself, and a
 * model picked in the conversation header moves the gauge to its window before anything is sent.
 */
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { startFakeApi, type FakeApi } from '../fake-api/server';
import { launchBrowser, newPage, screenshot } from './browser';
import { chatRequests, unexpectedErrors } from './providersHelpers';
import { contextUsage, openApp } from './uiHelpers';

describe('models listed from the provider, in Chromium', () => {
  let browser: Browser;
  let fake: FakeApi;
  beforeAll(async () => {
    [browser, fake] = await Promise.all([
      launchBrowser(),
      startFakeApi({
        models: { anthropic: ['claude-next-1', 'claude-haiku-4-5'] },
        contextWindow: { 'claude-next-1': 300_000, '*': 200_000 },
        maxOutputTokens: 32_000,
      }),
    ]);
  });
  afterAll(async () => {
    await browser?.close();
    await fake?.close();
  });

  it('lists the key’s models with their windows unasked; the header picker moves the gauge to the new window', async () => {
    const { page, context, errors } = await newPage(browser);
    page.setDefaultTimeout(15_000);
    await openApp(page, inject('appUrl'));

    await page.getByRole('button', { name: 'Settings' }).click();
    const dialog = page.getByRole('dialog', { name: 'Settings' });
    await dialog.getByLabel('Provider', { exact: true }).selectOption({ label: 'Anthropic' });
    await dialog.getByLabel('API key', { exact: true }).fill('sk-ant-e2e-key-0123456789');
    await dialog.getByLabel('Base URL', { exact: true }).fill(fake.url);
    const list = dialog.getByRole('region', { name: 'Models this key can use' });
    // Listed by itself once the key and address rest, with no button pressed.
    await list.getByRole('status').filter({ hasText: '2 models listed just now.' }).waitFor();
    expect(await list.getByRole('button', { name: 'Refresh' }).isEnabled()).toBe(true);
    const rows = list.getByRole('listitem');
    expect(await rows.allTextContents()).toEqual([
      'claude-next-1300,000 tokens (stated by the provider)',
      'Claude Haiku 4.5 claude-haiku-4-5200,000 tokens (stated by the provider)',
    ]);
    await screenshot(page, 'models-listed');
    await dialog.getByLabel('Model', { exact: true }).selectOption('claude-haiku-4-5');
    await dialog.getByRole('button', { name: 'Save' }).click();
    await dialog.waitFor({ state: 'detached' });

    const listing = fake.requests.filter((r) => r.path === '/v1/models' && r.method === 'GET');
    expect(listing).toHaveLength(1);
    expect(listing[0]).toMatchObject({ status: 200, provider: 'anthropic' });
    expect(listing[0]!.headers['anthropic-dangerous-direct-browser-access']).toBe('true');

    expect((await contextUsage(page)).max).toBe(200_000);
    const picker = page.getByRole('combobox', { name: 'Model for the next message' });
    expect(await picker.locator('option', { hasText: 'claude-next-1' }).textContent()).toBe('claude-next-1 — 300,000 tokens');
    await picker.selectOption('claude-next-1');
    await expect.poll(async () => (await contextUsage(page)).max).toBe(300_000);
    await screenshot(page, 'models-picked');
    // The gauge moved without a request.
    expect(chatRequests(fake)).toEqual([]);

    // After a reload the list is still there, and the choice holds.
    await page.reload();
    await page.getByRole('textbox', { name: 'Message' }).waitFor();
    expect((await contextUsage(page)).max).toBe(300_000);
    expect(fake.requests.filter((r) => r.path === '/v1/models' && r.method === 'GET')).toHaveLength(1);
    expect(unexpectedErrors(errors)).toEqual([]);
    await context.close();
  });
});
