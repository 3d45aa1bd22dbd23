/**
 * Steps the persistence browser tests share. They drive the app only through what a user
 * sees: accessible names, the visible transcript and the conversation list.
 */
import type { Page } from 'playwright-core';
import { savedDownload } from './browser';
import { openSettingsSection } from './uiHelpers';

export interface ExportedFile {
  name: string;
  path: string;
  text: string;
}

/** Chooses an item of the export options menu and returns the file the browser downloaded. */
export async function exportFile(page: Page, item: string): Promise<ExportedFile> {
  await page.getByRole('button', { name: 'Other formats' }).click();
  const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('menuitem', { name: item }).click()]);
  return savedDownload(download);
}

/** Imports a file through the sidebar's Import control. */
export async function importFile(page: Page, file: { name: string; text: string }): Promise<void> {
  await page.getByLabel('Import file').setInputFiles({ name: file.name, mimeType: 'application/json', buffer: Buffer.from(file.text) });
}

/** Opens the app and waits until storage is read (the conversation list is shown). */
export async function openApp(page: Page, appUrl: string): Promise<void> {
  await page.goto(appUrl);
  await page.getByRole('navigation', { name: 'Conversations' }).waitFor();
}

/**
 * Waits until the service worker is active and controls the page: from then on every part
 * of the app, lazily loaded ones too, opens without a network.
 */
export async function waitForServiceWorker(page: Page): Promise<void> {
  await page.evaluate(async () => {
    await navigator.serviceWorker.ready;
  });
  await page.waitForFunction(() => navigator.serviceWorker.controller?.state === 'activated');
}

/** Reloads the page and waits until the app has read its storage again. */
export async function reloadApp(page: Page): Promise<void> {
  await page.reload();
  await page.getByRole('navigation', { name: 'Conversations' }).waitFor();
}

/** Types `text` into the composer and presses Send. */
export async function typeAndSend(page: Page, text: string): Promise<void> {
  await page.getByRole('textbox', { name: 'Message' }).fill(text);
  await page.getByRole('button', { name: 'Send', exact: true }).click();
}

/**
 * Resolves once the newest user message reading `text` has a complete answer after it
 * and the composer offers Send again.
 */
export async function waitForAnswer(page: Page, text: string, timeout = 20_000): Promise<void> {
  await page.waitForFunction(
    (sent) => {
      if ([...document.querySelectorAll('button')].some((b) => b.textContent === 'Stop')) return false;
      const rows = [...document.querySelectorAll<HTMLElement>('.transcript-row')].sort((a, b) => Number(a.dataset.index) - Number(b.dataset.index));
      const articles = rows.map((row) => row.querySelector('article'));
      const userAt = articles.findLastIndex((a) => a?.getAttribute('aria-label') === 'User message' && a.querySelector('.message-body')?.textContent === sent);
      if (userAt < 0) return false;
      return articles.slice(userAt + 1).some((a) => a?.getAttribute('aria-label') === 'Assistant message' && a.dataset.status === 'complete');
    },
    text,
    { timeout, polling: 50 },
  );
}

/** Sends `text` and waits for the complete answer. */
export async function sendAndWait(page: Page, text: string): Promise<void> {
  await typeAndSend(page, text);
  await waitForAnswer(page, text);
}

/** The titles in the sidebar's conversation list, top to bottom. */
export async function conversationTitles(page: Page): Promise<string[]> {
  return page.getByRole('navigation', { name: 'Conversations' }).locator('.conversation-title').allTextContents();
}

/** Opens a conversation from the sidebar by its exact title. */
export async function openConversation(page: Page, title: string): Promise<void> {
  await page
    .getByRole('navigation', { name: 'Conversations' })
    .locator('.conversation-link')
    .filter({ has: page.locator('.conversation-title', { hasText: title }) })
    .first()
    .click();
  await page.getByRole('heading', { level: 1, name: title }).waitFor();
  // The title shows at once; the messages are read from storage after the click (the log is busy and empty meanwhile).
  await page.waitForFunction(() => {
    const log = document.querySelector('[role="log"][aria-label="Transcript"]');
    return log !== null && (log.getAttribute('aria-busy') !== 'true' || log.querySelector('article') !== null);
  });
}

/**
 * Every transcript row as the user sees it, top to bottom: the role (article label or
 * note), status, badges and full text (a collapsed summary included). The transcript is
 * virtualized, so this scrolls through it and collects each row once by its index.
 * Waits first until every answer is rendered as Markdown (its module loads lazily).
 */
export async function transcriptRows(page: Page): Promise<string[]> {
  await page.waitForFunction(
    () =>
      !document.querySelector('article[aria-label="Assistant message"] .message-body > p.plain, article[aria-label="Conversation summary"] details > p.plain'),
  );
  // No named inner functions: the test runner's transform would wrap them in a helper
  // that does not exist inside the page.
  return page.evaluate(async () => {
    const log = document.querySelector<HTMLElement>('[role="log"][aria-label="Transcript"]');
    if (!log) return [];
    const rows = new Map<number, string>();
    const bottom = log.scrollTop;
    log.scrollTop = 0;
    for (let step = 0; step < 500; step++) {
      await new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve)));
      for (const row of log.querySelectorAll<HTMLElement>('.transcript-row')) {
        const article = row.querySelector('article');
        let text: string;
        if (!article) {
          text = `note: ${row.querySelector('[role="note"]')?.textContent ?? ''}`;
        } else {
          const badges = [...article.querySelectorAll('.message-meta .badge')].map((b) => b.textContent).join(' | ');
          const body = article.querySelector('.message-body, details')?.textContent ?? '';
          const dimmed = article.classList.contains('not-sent') ? ' not-sent' : '';
          text = `${article.getAttribute('aria-label')} [${article.getAttribute('data-status') ?? ''}${dimmed}] {${badges}} ${body}`;
        }
        rows.set(Number(row.dataset.index), text.replace(/\s+/g, ' ').trim());
      }
      if (log.scrollTop + log.clientHeight >= log.scrollHeight - 1) break;
      log.scrollTop += Math.max(100, log.clientHeight / 2);
    }
    log.scrollTop = bottom;
    return [...rows.entries()].sort((a, b) => a[0] - b[0]).map(([, text]) => text);
  });
}

/** The context gauge as shown: its value, maximum and the text of its breakdown. */
export async function gaugeState(page: Page): Promise<{ now: string | null; max: string | null; text: string }> {
  const meter = page.getByRole('meter', { name: 'Context usage' });
  return {
    now: await meter.getAttribute('aria-valuenow'),
    max: await meter.getAttribute('aria-valuemax'),
    text: ((await page.locator('.gauge').textContent()) ?? '').replace(/\s+/g, ' ').trim(),
  };
}

/** Opens Settings and returns the dialog: from the header on a desktop, from its More menu on a phone. */
export async function openSettings(page: Page) {
  const more = page.getByRole('button', { name: 'More', exact: true });
  if (await more.isVisible()) {
    await more.click();
    await page.getByRole('menu', { name: 'More' }).getByRole('menuitem', { name: 'Settings', exact: true }).click();
  } else await page.getByRole('button', { name: 'Settings', exact: true }).click();
  const dialog = page.getByRole('dialog', { name: 'Settings' });
  await dialog.waitFor();
  return dialog;
}

/**
 * Points the app at the local fake Anthropic API (its answers are short and quick) and
 * saves the given windowing knobs, all through the Settings dialog.
 */
export async function useFakeAnthropic(
  page: Page,
  fakeUrl: string,
  apiKey: string,
  window: { strategy?: string; summarize?: boolean; maxMessages?: number; preserveFirst?: number; preserveLast?: number } = {},
): Promise<void> {
  const dialog = await openSettings(page);
  await dialog.getByLabel('Provider', { exact: true }).selectOption('anthropic');
  await dialog.getByLabel('API key').fill(apiKey);
  await dialog.getByLabel('Base URL').fill(fakeUrl);
  if (Object.keys(window).length > 0) await openSettingsSection(page, 'Context');
  if (window.strategy) await dialog.getByLabel('Strategy').selectOption(window.strategy);
  if (window.summarize !== undefined) await dialog.getByLabel('Summarize evicted messages').setChecked(window.summarize);
  if (window.maxMessages !== undefined) await dialog.getByLabel('Max messages').fill(String(window.maxMessages));
  if (window.preserveFirst !== undefined) await dialog.getByLabel('Preserve first messages').fill(String(window.preserveFirst));
  if (window.preserveLast !== undefined) await dialog.getByLabel('Preserve last messages').fill(String(window.preserveLast));
  await dialog.getByRole('button', { name: 'Save' }).click();
  await dialog.waitFor({ state: 'detached' });
}
