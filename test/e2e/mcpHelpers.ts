/**
 * Steps the MCP browser tests share: adding a server in Settings → Tools as a user does, and
 * sending a message whose turn may stop at the approval prompt.
 */
import type { Browser, Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, inject } from 'vitest';
import { startFakeApi, type FakeApi } from '../fake-api/server';
import { startMcpServer, type McpServerOptions, type McpTestServer } from '../mcp/server';
import { launchBrowser, newPage } from './browser';
import { configure, PROVIDER_SETUPS, type ProviderUnderTest, type WindowChoices } from './providersHelpers';
import { openApp, openSettingsSection } from './uiHelpers';

export interface McpWorld {
  browser: Browser;
  fake: FakeApi;
  mcp: McpTestServer;
  /** The window the fake enforces, which a page of the app is configured with. */
  contextWindow: number;
}

/** Chromium, the fake provider API on `contextWindow`, and an MCP server that allows the app's origin (CORS). */
export async function startMcpWorld(appUrl: string, contextWindow: number, server: McpServerOptions = {}): Promise<McpWorld> {
  const [browser, fake, mcp] = await Promise.all([
    launchBrowser(),
    startFakeApi({ contextWindow, deltaDelayMs: 1 }),
    startMcpServer({ origin: new URL(appUrl).origin, ...server }),
  ]);
  return { browser, fake, mcp, contextWindow };
}

/** Starts an McpWorld on `contextWindow` (its MCP server with `server`) before the suite's tests and closes it after them; the tests read it. */
export function mcpWorldFor(contextWindow: number, server: McpServerOptions = {}): McpWorld {
  const world = {} as McpWorld;
  beforeAll(async () => {
    Object.assign(world, await startMcpWorld(inject('appUrl'), contextWindow, server));
  });
  afterAll(async () => {
    const { browser, fake, mcp } = world as Partial<McpWorld>;
    await Promise.all([browser?.close(), fake?.close(), mcp?.close()]);
  });
  return world;
}

/** A page of the app as newPage opened it: the page, its context and the script errors it met. */
export type AppPage = Awaited<ReturnType<typeof newPage>>;

/**
 * Opens a page of the app on the fake API of `provider` (Anthropic unless given) with the
 * world's window (and `choices`), runs `steps` on it, and closes it whatever they did.
 */
export async function onAppPage(
  world: McpWorld,
  steps: (opened: AppPage) => Promise<void>,
  { provider = 'anthropic', ...choices }: { provider?: ProviderUnderTest } & Omit<WindowChoices, 'contextWindow'> = {},
): Promise<void> {
  const opened = await newPage(world.browser);
  try {
    await openApp(opened.page, inject('appUrl'));
    await configure(opened.page, world.fake, PROVIDER_SETUPS[provider], { contextWindow: world.contextWindow, ...choices });
    await steps(opened);
  } finally {
    await opened.context.close();
  }
}

/** Sends a message without waiting for the turn: it may stop at the prompt until the user answers. */
export async function send(page: Page, text: string): Promise<void> {
  const box = page.getByRole('textbox', { name: 'Message' });
  await box.fill(text);
  await box.press('Enter');
}

/**
 * Opens Settings → Tools, adds the server at `url` named `label` and presses Connect. Returns
 * the dialog, still open: the caller waits for the tools (or the failure) and saves.
 */
export async function addMcpServer(page: Page, url: string, label: string): Promise<Locator> {
  await page.getByRole('button', { name: 'Settings' }).click();
  const dialog = page.getByRole('dialog', { name: 'Settings' });
  await openSettingsSection(page, 'Tools');
  await dialog.getByLabel('MCP server URL', { exact: true }).fill(url);
  await dialog.getByLabel('MCP server name', { exact: true }).fill(label);
  await dialog.getByRole('button', { name: 'Add server' }).click();
  await dialog.getByRole('button', { name: 'Connect' }).click();
  return dialog;
}

export interface ServerChoices {
  /** Tools (their own names) that run without asking. */
  alwaysAllow?: string[];
  /** The server's time limit per call, in seconds. */
  timeLimitSeconds?: number;
}

/**
 * Adds the server, waits until Connect listed its tools, sets `choices` and saves. Returns
 * nothing until the dialog is closed.
 */
export async function connectMcpServer(page: Page, url: string, label: string, choices: ServerChoices = {}): Promise<void> {
  const dialog = await addMcpServer(page, url, label);
  await dialog.getByRole('list', { name: `Tools of ${label}` }).waitFor();
  for (const tool of choices.alwaysAllow ?? []) await dialog.getByLabel(`Always allow ${tool}`, { exact: true }).check();
  if (choices.timeLimitSeconds !== undefined) await dialog.getByLabel('Time limit per call (seconds)', { exact: true }).fill(String(choices.timeLimitSeconds));
  await dialog.getByRole('button', { name: 'Save' }).click();
  await dialog.waitFor({ state: 'hidden' });
}

/**
 * Opens the app on the fake API of `provider` (Anthropic unless given), then Settings → Tools,
 * and adds the MCP server at `url` named Tracker (with the Authorization choice labelled
 * `auth`, if given). Returns the Settings dialog, still open.
 */
export async function addTrackerServer(page: Page, fake: FakeApi, url: string, auth?: string, provider: ProviderUnderTest = 'anthropic'): Promise<Locator> {
  await openApp(page, inject('appUrl'));
  await configure(page, fake, PROVIDER_SETUPS[provider], { contextWindow: 200_000 });
  await page.getByRole('button', { name: 'Settings' }).click();
  const dialog = page.getByRole('dialog', { name: 'Settings' });
  await openSettingsSection(page, 'Tools');
  await dialog.getByLabel('MCP server URL', { exact: true }).fill(url);
  await dialog.getByLabel('MCP server name', { exact: true }).fill('Tracker');
  if (auth) await dialog.getByLabel('Authorization', { exact: true }).selectOption({ label: auth });
  await dialog.getByRole('button', { name: 'Add server' }).click();
  return dialog;
}
