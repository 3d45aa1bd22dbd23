// What every Chromium bench stands on: the built app served by vite preview on a free
// loopback port, and a headless Chromium to load it in, both closed when the bench ends.
import { existsSync, readdirSync, statSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { Browser } from 'playwright-core';
import { build, preview } from 'vite';
import { launchBrowser } from '../e2e/browser';
import { withCleanup, type Defer } from './harness';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

/** What a bench's body gets: the served app's address, the browser, and `defer` to register how to close what it opens itself. */
export interface PreviewBrowser {
  appUrl: string;
  browser: Browser;
  defer: Defer;
}

/**
 * Builds the app unless dist/ is newer than every source file, serves it with vite preview,
 * launches Chromium, and runs `body` with them. When `body` returns or throws, what it
 * registered with `defer` is closed, then the browser, then the server (see withCleanup).
 */
export async function withPreviewBrowser<T>(body: (env: PreviewBrowser) => Promise<T>): Promise<T> {
  await ensureBuilt();
  return withCleanup(async (defer) => {
    const server = await preview({ root: ROOT, logLevel: 'warn', preview: { host: '127.0.0.1', port: 0, open: false } });
    defer(() => server.close());
    const appUrl = server.resolvedUrls?.local[0];
    if (!appUrl) throw new Error('vite preview did not report a URL');
    const browser = await launchBrowser();
    defer(() => browser.close());
    return body({ appUrl, browser, defer });
  });
}

/** dist/ as it is when it is newer than every source file, else a fresh build. */
export async function ensureBuilt(): Promise<void> {
  const built = `${ROOT}dist/index.html`;
  const newestSource = Math.max(...[`${ROOT}index.html`, ...filesUnder(`${ROOT}src`), ...filesUnder(`${ROOT}public`)].map((f) => statSync(f).mtimeMs));
  if (existsSync(built) && statSync(built).mtimeMs > newestSource) return;
  await build({ root: ROOT, logLevel: 'warn' });
}

function filesUnder(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile())
    .map((entry) => `${entry.parentPath}/${entry.name}`);
}
