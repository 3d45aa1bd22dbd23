/**
 * The README's screenshots, taken from the built app so they show what it is today:
 * `npm run build && npm run screenshots`. It builds nothing itself: it serves `dist/` with
 * `vite preview`, has a short conversation with the Demo in Chromium at desktop and at
 * phone size, and writes docs/screenshots/desktop.png and docs/screenshots/phone.png.
 */
import { existsSync, mkdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { Browser, Page } from 'playwright-core';
import { preview } from 'vite';
import { launchBrowser } from '../e2e/browser';
import { openApp, sendWithEnter } from '../e2e/uiHelpers';

const root = fileURLToPath(new URL('../..', import.meta.url));
const outDir = `${root}docs/screenshots/`;

const QUESTIONS = ['What does a context window limit?', 'What happens to the oldest messages once it fills up?'];

/** A fresh profile at `viewport`, a short Demo conversation in it, and the screen saved as `name`.png. */
async function shoot(browser: Browser, appUrl: string, name: string, viewport: { width: number; height: number }, phone: boolean): Promise<void> {
  const context = await browser.newContext({ viewport, colorScheme: 'light', hasTouch: phone, isMobile: phone, deviceScaleFactor: 1 });
  const page: Page = await context.newPage();
  page.setDefaultTimeout(20_000);
  await openApp(page, appUrl);
  for (const question of QUESTIONS) await sendWithEnter(page, question);
  // The composer keeps focus after a send; its focus ring is not part of the picture.
  await page.evaluate(() => (document.activeElement as HTMLElement | null)?.blur());
  await page.evaluate(() => document.fonts.ready);
  await page.screenshot({ path: `${outDir}${name}.png`, animations: 'disabled', caret: 'hide' });
  console.log(`wrote docs/screenshots/${name}.png`);
  await context.close();
}

async function main(): Promise<void> {
  if (!existsSync(`${root}dist/index.html`)) throw new Error('dist/ has no build: run `npm run build` first.');
  mkdirSync(outDir, { recursive: true });
  const server = await preview({ root, logLevel: 'warn', preview: { host: '127.0.0.1', port: 0, open: false } });
  const url = server.resolvedUrls?.local[0]?.replace(/\/$/, '');
  if (!url) throw new Error('vite preview did not report a URL');
  const browser = await launchBrowser();
  try {
    await shoot(browser, url, 'desktop', { width: 1280, height: 800 }, false);
    await shoot(browser, url, 'phone', { width: 390, height: 844 }, true);
  } finally {
    await browser.close();
    await server.close();
  }
}

await main();
