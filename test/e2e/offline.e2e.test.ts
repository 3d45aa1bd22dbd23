/**
 * The installed app without a network, in real Chromium: the built app is served by
 * `vite preview` on 127.0.0.1 (a secure context, so the service worker registers). The
 * worker precaches every file of the build and nothing else; once it controls the page the
 * browser goes offline, and the app still opens, lists and shows conversations and answers
 * on the Demo, while a send to a provider across the network is refused with the draft kept.
 */
import { readdirSync, rmSync } from 'node:fs';
import { relative, resolve } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { startFakeApi, type FakeApi } from '../fake-api/server';
import { launchBrowser, launchProfile, newPage, OUTPUT_DIR, screenshot } from './browser';
import {
  conversationTitles,
  openApp,
  openConversation,
  openSettings,
  reloadApp,
  sendAndWait,
  transcriptRows,
  typeAndSend,
  waitForServiceWorker,
} from './persistenceHelpers';
import { chatRequests, configure, PROVIDER_SETUPS, unexpectedErrors } from './providersHelpers';

const OFFLINE_NOTICE = "You're offline, so the message was not sent. It is still in the box: send it when you're back online.";

/** The build the preview serves (see globalSetup.ts). */
const outDir = resolve(new URL('../..', import.meta.url).pathname, process.env.E2E_DIST ?? 'dist');

/** Every file of the build a page can ask for: all but source maps and the service worker's own scripts. */
function builtFiles(): string[] {
  return readdirSync(outDir, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => relative(outDir, resolve(entry.parentPath, entry.name)))
    .filter((path) => !path.endsWith('.map') && path !== 'sw.js' && !/^workbox-[\w-]+\.js$/.test(path))
    .sort();
}

/** Every URL in the page's Cache Storage, with Workbox's revision parameter dropped. */
function cachedUrls(page: Page): Promise<string[]> {
  return page.evaluate(async () => {
    const urls: string[] = [];
    for (const name of await caches.keys()) {
      for (const request of await (await caches.open(name)).keys()) {
        const url = new URL(request.url);
        url.searchParams.delete('__WB_REVISION__');
        urls.push(url.href);
      }
    }
    return urls.sort();
  });
}

describe('offline, as an installed app', () => {
  let browser: Browser;
  let fake: FakeApi;
  const appUrl = inject('appUrl');
  beforeAll(async () => {
    [browser, fake] = await Promise.all([launchBrowser(), startFakeApi({ deltaDelayMs: 1 })]);
  });
  afterAll(async () => {
    await Promise.all([browser?.close(), fake?.close()]);
  });

  it('is installable: a web app manifest Chromium reads without errors, whose icons all load', async () => {
    const response = await fetch(`${appUrl}/manifest.webmanifest`);
    expect(response.status).toBe(200);
    const manifest = (await response.json()) as { icons: { src: string; sizes: string; type: string; purpose: string }[] } & Record<string, unknown>;
    expect(manifest).toMatchObject({ name: 'Windowpane', short_name: 'Windowpane', start_url: '/', scope: '/', display: 'standalone' });
    expect(manifest.icons.map((i) => `${i.sizes} ${i.purpose}`)).toEqual(['192x192 any', '512x512 any', '512x512 maskable']);
    for (const icon of manifest.icons) {
      const image = await fetch(new URL(icon.src, appUrl));
      expect(image.status, icon.src).toBe(200);
      expect(image.headers.get('content-type'), icon.src).toBe('image/png');
      const bytes = new Uint8Array(await image.arrayBuffer());
      // The PNG's own width and height (IHDR) are the sizes the manifest states.
      const view = new DataView(bytes.buffer);
      expect(`${view.getUint32(16)}x${view.getUint32(20)}`, icon.src).toBe(icon.sizes);
    }

    const profileDir = `${OUTPUT_DIR}profile-${process.pid}`;
    const profile = await launchProfile(profileDir);
    try {
      const page = await profile.newPage();
      await openApp(page, appUrl);
      await waitForServiceWorker(page);
      const cdp = await profile.newCDPSession(page);
      const read = (await cdp.send('Page.getAppManifest')) as { url: string; errors: { message: string }[] };
      expect(read.url).toBe(`${appUrl}/manifest.webmanifest`);
      expect(read.errors).toEqual([]);
      expect(await cdp.send('Page.getInstallabilityErrors')).toEqual({ installabilityErrors: [] });
    } finally {
      await profile.close();
      rmSync(profileDir, { recursive: true, force: true });
    }
  });

  it('precaches every file of the build and nothing else; the API is never answered by the worker', async () => {
    fake.reset();
    const { page, context, errors } = await newPage(browser);
    await openApp(page, appUrl);
    await waitForServiceWorker(page);
    expect(await cachedUrls(page)).toEqual(builtFiles().map((file) => `${appUrl}/${file}`));

    const apiResponses: { url: string; fromWorker: boolean }[] = [];
    page.on('response', (response) => {
      if (response.url().startsWith(fake.url)) apiResponses.push({ url: response.url(), fromWorker: response.fromServiceWorker() });
    });
    await configure(page, fake, PROVIDER_SETUPS.anthropic, { contextWindow: 50_000 });
    await sendAndWait(page, 'Through the network, not the cache.');
    expect(chatRequests(fake)).toHaveLength(1);
    expect(apiResponses.length).toBeGreaterThan(0);
    expect(apiResponses.filter((r) => r.fromWorker)).toEqual([]);
    // Nothing the API answered was kept.
    expect((await cachedUrls(page)).filter((url) => url.startsWith(fake.url))).toEqual([]);
    expect(unexpectedErrors(errors)).toEqual([]);
    await context.close();
  });

  it('opens offline: the conversation list, a conversation and the Demo work; a send across the network is refused and the draft kept', async () => {
    fake.reset();
    const { page, context, errors } = await newPage(browser);
    page.setDefaultTimeout(15_000);
    await openApp(page, appUrl);
    const question = 'What does a window pane keep out?';
    await sendAndWait(page, question);
    const title = (await conversationTitles(page))[0]!;
    const rowsOnline = await transcriptRows(page);
    await waitForServiceWorker(page);

    await context.setOffline(true);
    await reloadApp(page);
    expect(await page.evaluate(() => navigator.onLine)).toBe(false);
    expect(await conversationTitles(page)).toEqual([title]);
    await page.getByRole('button', { name: 'New chat' }).click();
    await openConversation(page, title);
    // Read back from IndexedDB and rendered as Markdown, whose module loads lazily: from the cache.
    expect(await transcriptRows(page)).toEqual(rowsOnline);

    // The Demo runs in the page: it still answers.
    await sendAndWait(page, 'Still there without a network?');
    expect((await transcriptRows(page)).at(-1)).toMatch(/^Assistant message \[complete\].*Still there without a network\?/);
    // Its run_javascript sandbox cannot start: Chromium loads a sandboxed (opaque-origin)
    // frame from the network, never through the service worker. The answer says why.
    await sendAndWait(page, 'Compute 12345 * 6789, please.');
    await expect
      .poll(async () => (await transcriptRows(page)).at(-1), { timeout: 15_000 })
      .toMatch(/^Assistant message \[complete\].*This device is offline, and the sandbox's page \(sandbox\.html\) loads only from the network\./);

    // A provider across the network (Anthropic at its own address): nothing is sent.
    const attempts: string[] = [];
    page.on('request', (request) => {
      if (request.url().startsWith('https://api.anthropic.com')) attempts.push(request.url());
    });
    const dialog = await openSettings(page);
    await dialog.getByLabel('Provider', { exact: true }).selectOption('anthropic');
    await dialog.getByLabel('API key').fill(PROVIDER_SETUPS.anthropic.apiKey);
    await dialog.getByRole('button', { name: 'Save' }).click();
    await dialog.waitFor({ state: 'detached' });
    const draft = 'Please summarise this when the train is out of the tunnel.';
    await typeAndSend(page, draft);
    const notice = page.getByRole('status').filter({ hasText: OFFLINE_NOTICE });
    await notice.waitFor();
    await expect.poll(() => page.getByRole('textbox', { name: 'Message' }).inputValue()).toBe(draft);
    expect(await page.getByRole('button', { name: 'Send', exact: true }).isEnabled()).toBe(true);
    expect(await page.getByRole('article', { name: 'User message' }).filter({ hasText: draft }).count()).toBe(0);
    expect(attempts).toEqual([]);
    await screenshot(page, 'offline-send-refused');

    // A server on this machine is tried (a device without a network still reaches it), but
    // Chromium's emulated offline refuses even loopback: the request fails, and the answer
    // says the connection failed.
    await configure(page, fake, PROVIDER_SETUPS['openai-compatible'], { contextWindow: 50_000 });
    await typeAndSend(page, 'And to the server on this machine?');
    await notice.waitFor({ state: 'detached' });
    await page
      .getByRole('article', { name: 'Assistant message' })
      .filter({ hasText: /the connection failed, so this device may be offline/ })
      .first()
      .waitFor({ timeout: 30_000 });
    expect(chatRequests(fake)).toEqual([]);

    expect(unexpectedErrors(errors)).toEqual([]);
    await context.close();
  });
});
