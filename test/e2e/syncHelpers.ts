/**
 * Steps the sync browser tests share: two browser profiles as two devices, each turned on
 * through Settings → Sync as a user does, against a CouchDB-protocol server the test runs.
 */
import type { Browser, BrowserContext, Page } from 'playwright-core';
import type { CouchServer } from '../sync/couchServer';
import { rmSync } from 'node:fs';
import { launchProfile, newPage, OUTPUT_DIR } from './browser';
import { openApp, openSettings } from './persistenceHelpers';
import { openSettingsSection } from './uiHelpers';

export const PASSPHRASE = 'correct horse battery staple';
export const USER = { username: 'ada', password: 'lovelace-pw' };

export interface Device {
  context: BrowserContext;
  page: Page;
  errors: string[];
}

export interface SyncServer {
  url: string;
  username: string;
  password: string;
}

/** A new database on the shared server, its member the test user; what Settings → Sync is given. */
export async function newDatabase(couch: CouchServer, name: string): Promise<SyncServer> {
  return { url: await couch.createDatabase(name, [USER.username]), ...USER };
}

/** A new browser profile (its own IndexedDB) with the app open. */
export async function newDevice(browser: Browser, appUrl: string, beforeOpen?: (page: Page) => Promise<void>): Promise<Device> {
  const device = await newPage(browser);
  await beforeOpen?.(device.page);
  await openApp(device.page, appUrl);
  return device;
}

/**
 * A browser profile kept on disk (a fresh folder under test-results/), as a person's browser is:
 * only there does Chromium enforce a quota set through its DevTools protocol. Close its context.
 */
export async function newProfileDevice(name: string, appUrl: string, beforeOpen?: (device: Device) => Promise<void>): Promise<Device> {
  // Removed before it is used, not after: Chromium may still be writing to it as its context closes.
  const dir = `${OUTPUT_DIR}profiles/${name}`;
  rmSync(dir, { recursive: true, force: true });
  const context = await launchProfile(dir);
  const page = context.pages()[0] ?? (await context.newPage());
  const errors: string[] = [];
  page.on('pageerror', (error) => errors.push(error.message));
  page.on('console', (message) => {
    if (message.type() === 'error') errors.push(message.text());
  });
  await beforeOpen?.({ context, page, errors });
  await openApp(page, appUrl);
  return { context, page, errors };
}

/** Turns sync on in Settings → Sync and closes Settings; returns the alert's text if it refused. */
export async function turnOnSync(
  page: Page,
  server: SyncServer,
  passphrase = PASSPHRASE,
  options: { syncApiKeys?: boolean } = {},
): Promise<string | undefined> {
  const dialog = await openSettings(page);
  await openSettingsSection(page, 'Sync');
  const section = dialog.getByRole('region', { name: 'Sync' });
  await section.getByLabel('Server URL').fill(server.url);
  await section.getByLabel('Username').fill(server.username);
  await section.getByLabel('Password', { exact: true }).fill(server.password);
  await section.getByLabel('Passphrase', { exact: true }).fill(passphrase);
  if (options.syncApiKeys) await section.getByLabel('Also sync my keys (encrypted)').check();
  await section.getByRole('button', { name: 'Turn on sync' }).click();
  const outcome = await Promise.race([
    section
      .getByRole('button', { name: 'Sync now' })
      .waitFor({ timeout: 60_000 })
      .then(() => undefined),
    section
      .getByRole('alert')
      .waitFor({ timeout: 60_000 })
      .then(() => section.getByRole('alert').innerText()),
  ]);
  await dialog.getByRole('button', { name: 'Cancel' }).click();
  await dialog.waitFor({ state: 'detached' });
  return outcome;
}

/** The sidebar's sync status line. */
export function syncStatus(page: Page) {
  return page.getByRole('status', { name: 'Sync' });
}

/** Waits until the sidebar's sync status matches `pattern` (its text as shown, counts included). */
export async function waitForStatus(page: Page, pattern: RegExp, timeout = 60_000): Promise<void> {
  await page
    .waitForFunction(
      ([source, flags]) => new RegExp(source, flags).test(document.querySelector('[role="status"][aria-label="Sync"]')?.textContent?.trim() ?? ''),
      [pattern.source, pattern.flags] as const,
      { timeout, polling: 50 },
    )
    .catch(async (error: Error) => {
      const shown = await syncStatus(page)
        .innerText({ timeout: 1000 })
        .catch(() => '(no status)');
      throw new Error(`The sync status never matched ${pattern}; it says “${shown}”. ${error.message}`);
    });
}

/** Waits until the sidebar says "Synced …". */
export async function waitForSynced(page: Page, timeout = 60_000): Promise<void> {
  await waitForStatus(page, /^Synced/, timeout);
}

/** The sidebar's entry for a conversation, by its exact title. */
export function conversationEntry(page: Page, title: string) {
  return page.getByRole('navigation', { name: 'Conversations' }).getByRole('button', { name: title, exact: true });
}

/** Waits until the sidebar lists a conversation with this exact title. */
export async function waitForConversation(page: Page, title: string, timeout = 60_000): Promise<void> {
  await conversationEntry(page, title).waitFor({ timeout });
}

/** Renames a conversation from the sidebar, as a user does. */
export async function renameConversation(page: Page, title: string, next: string): Promise<void> {
  await page.getByRole('button', { name: `Rename ${title}`, exact: true }).click();
  const box = page.getByRole('textbox', { name: 'Conversation title' });
  await box.fill(next);
  await box.press('Enter');
  await conversationEntry(page, next).waitFor();
}

/** The user or assistant article whose text contains `text`. */
export function messageArticle(page: Page, role: 'user' | 'assistant', text: string) {
  return page
    .getByRole('article', { name: role === 'user' ? 'User message' : 'Assistant message', exact: true })
    .filter({ has: page.locator('.message-body', { hasText: text }) });
}

/** Every document the server stores, attachments decoded, as one text to search. */
export async function serverText(couch: CouchServer, db: string): Promise<string> {
  const { rows } = await couch.allDocs(db);
  return rows
    .map((row) => {
      const attachments = Object.values(row.doc?._attachments ?? {}).map((a) => (a.data ? Buffer.from(a.data, 'base64').toString('latin1') : ''));
      return [row.id, JSON.stringify(row.doc), ...attachments].join('\n');
    })
    .join('\n');
}

/** Pastes a generated PNG of `width`×`height` named `name` into the composer, as the clipboard hands over a screenshot. */
export async function pasteImage(page: Page, width: number, height: number, name: string): Promise<void> {
  const list = page.getByRole('list', { name: 'Images to send' });
  const before = await list.getByRole('listitem').count();
  await page.getByRole('textbox', { name: 'Message' }).evaluate(
    async (box, [w, h, fileName]) => {
      const canvas = new OffscreenCanvas(w, h);
      const g = canvas.getContext('2d')!;
      g.fillStyle = '#2563eb';
      g.fillRect(0, 0, w, h);
      g.fillStyle = '#f59e0b';
      g.fillRect(w / 4, h / 4, w / 2, h / 2);
      const data = new DataTransfer();
      data.items.add(new File([await canvas.convertToBlob({ type: 'image/png' })], fileName, { type: 'image/png' }));
      box.dispatchEvent(new ClipboardEvent('paste', { clipboardData: data, bubbles: true, cancelable: true }));
    },
    [width, height, name] as const,
  );
  await list.getByRole('listitem').nth(before).waitFor({ timeout: 15_000 });
}

/** A small valid PDF: one page per text, set in Helvetica (as pdfs.e2e.test.ts makes them). */
export function realPdf(pageTexts: readonly string[]): Buffer {
  const n = pageTexts.length;
  const fontId = 3 + 2 * n;
  const objects = [`<< /Type /Catalog /Pages 2 0 R >>`, `<< /Type /Pages /Count ${n} /Kids [${pageTexts.map((_, i) => `${3 + 2 * i} 0 R`).join(' ')}] >>`];
  for (const [i, text] of pageTexts.entries()) {
    const stream = `BT /F1 18 Tf 72 700 Td (${text.replace(/[\\()]/g, '\\$&')}) Tj ET`;
    objects.push(`<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 ${fontId} 0 R >> >> /Contents ${4 + 2 * i} 0 R >>`);
    objects.push(`<< /Length ${stream.length} >>\nstream\n${stream}\nendstream`);
  }
  objects.push('<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>');
  let body = '%PDF-1.7\n';
  const offsets: number[] = [];
  for (const [i, object] of objects.entries()) {
    offsets.push(body.length);
    body += `${i + 1} 0 obj\n${object}\nendobj\n`;
  }
  const xref = body.length;
  body += `xref\n0 ${objects.length + 1}\n0000000000 65535 f \n${offsets.map((o) => `${String(o).padStart(10, '0')} 00000 n \n`).join('')}`;
  body += `trailer\n<< /Size ${objects.length + 1} /Root 1 0 R >>\nstartxref\n${xref}\n%%EOF\n`;
  return Buffer.from(body, 'latin1');
}

/** Saves an API key for a provider in Settings, then goes back to the Demo provider for answers. */
export async function saveApiKey(page: Page, provider: string, key: string): Promise<void> {
  let dialog = await openSettings(page);
  await dialog.getByLabel('Provider', { exact: true }).selectOption(provider);
  await dialog.getByLabel('API key', { exact: true }).fill(key);
  await dialog.getByRole('button', { name: 'Save' }).click();
  await dialog.waitFor({ state: 'detached' });
  dialog = await openSettings(page);
  await dialog.getByLabel('Provider', { exact: true }).selectOption('demo');
  await dialog.getByRole('button', { name: 'Save' }).click();
  await dialog.waitFor({ state: 'detached' });
}
