import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { chromium, type Browser, type BrowserContext, type Download, type Page } from 'playwright-core';

export const OUTPUT_DIR = new URL('../../test-results/e2e/', import.meta.url).pathname;

function chromePath(): string {
  const path = [process.env.CHROME_PATH, '/usr/bin/chromium'].find((p) => p && existsSync(p));
  if (!path) throw new Error('No Chromium found: run `node test/e2e/ensureChromium.mjs` (npm test does) or set CHROME_PATH.');
  return path;
}

const CHROMIUM_ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--disable-dev-shm-usage',
];

/** Real headless Chromium, kept off the network except for loopback. */
export async function launchBrowser(): Promise<Browser> {
  return chromium.launch({ executablePath: chromePath(), headless: true, args: CHROMIUM_ARGS });
}

/**
 * The same Chromium with a profile kept on disk in `userDataDir` (under test-results/), as
 * a person's browser is: only there does Chromium consider installing an app (a
 * throwaway context counts as incognito).
 */
export async function launchProfile(userDataDir: string): Promise<BrowserContext> {
  mkdirSync(userDataDir, { recursive: true });
  return chromium.launchPersistentContext(userDataDir, {
    executablePath: chromePath(),
    headless: true,
    args: CHROMIUM_ARGS,
    viewport: { width: 1280, height: 800 },
  });
}

/** A fresh profile (its own IndexedDB) and a page that fails the test on any page error. */
export async function newPage(
  browser: Browser,
  options: { colorScheme?: 'light' | 'dark'; viewport?: { width: number; height: number } } = {},
): Promise<{ context: BrowserContext; page: Page; errors: string[] }> {
  const context = await browser.newContext({
    viewport: options.viewport ?? { width: 1280, height: 800 },
    colorScheme: options.colorScheme ?? 'light',
  });
  const page = await context.newPage();
  const errors: string[] = [];
  page.on('pageerror', (error) => errors.push(error.message));
  page.on('console', (message) => {
    if (message.type() === 'error') errors.push(message.text());
  });
  return { context, page, errors };
}

/** Saves a full-page screenshot under test-results/e2e/ (git-ignored) and returns its path. */
export async function screenshot(page: Page, name: string): Promise<string> {
  mkdirSync(OUTPUT_DIR, { recursive: true });
  const path = `${OUTPUT_DIR}${name}.png`;
  await page.screenshot({ path, fullPage: true });
  return path;
}

let downloads = 0;

/**
 * Saves a download under test-results/e2e/downloads/ and returns its name and text: the
 * browser's own download folder is a temporary one outside the repository, which tests
 * never read (see test/readGuard.ts).
 */
export async function savedDownload(download: Download): Promise<{ name: string; path: string; text: string }> {
  const dir = `${OUTPUT_DIR}downloads/`;
  mkdirSync(dir, { recursive: true });
  const name = download.suggestedFilename();
  const path = `${dir}${process.pid}-${++downloads}-${name}`;
  await download.saveAs(path);
  return { name, path, text: readFileSync(path, 'utf8') };
}
