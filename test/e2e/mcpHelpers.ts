import type { Browser, Locator, Page } from 'playwright-core';
import { inject } from 'vitest';
import { startFakeApi, type FakeApi } from '../fake-api/server';
import { startMcpServer, type McpServerOptions, type McpTestServer } from '../mcp/server';
import { launchBrowser } from './browser';
import { configure, PROVIDER_SETUPS } from './providersHelpers';
import { openApp, openSettingsSection } from './uiHelpers';

/**
 * Opens the app on the fake Anthropic API, then Settings → Tools, and adds the MCP server at
 * `url` named Tracker (with the Authorization choice labelled `auth`, if given). Returns the
 * Settings dialog, still open.
 */
export async function addTrackerServer(page: Page, fake: FakeApi, url: string, auth?: string): Promise<Locator> {
  await openApp(page, inject('appUrl'));
  await configure(page, fake, PROVIDER_SETUPS.anthropic, { contextWindow: 200_000 });
  await page.getByRole('button', { name: 'Settings' }).click();
  const dialog = page.getByRole('dialog', { name: 'Settings' });
  await openSettingsSection(page, 'Tools');
  await dialog.getByLabel('MCP server URL', { exact: true }).fill(url);
  await dialog.getByLabel('MCP server name', { exact: true }).fill('Tracker');
  if (auth) await dialog.getByLabel('Authorization', { exact: true }).selectOption({ label: auth });
  await dialog.getByRole('button', { name: 'Add server' }).click();
  return dialog;
}

/** Chromium, the fake provider API and the test MCP server (CORS for the app's origin, with `options`), started together. */
export function startMcpTestbed(options: McpServerOptions = {}): Promise<[Browser, FakeApi, McpTestServer]> {
  return Promise.all([
    launchBrowser(),
    startFakeApi({ contextWindow: 200_000, deltaDelayMs: 1 }),
    startMcpServer({ origin: new URL(inject('appUrl')).origin, ...options }),
  ]);
}
