/**
 * Sync in real Chromium: two browser profiles are two devices, each turned on through
 * Settings → Sync, against pouchdb-server (a CouchDB-protocol server) started on a free
 * port and configured as docs/sync-server.md tells users to configure theirs. Each test
 * has its own database on the one server. Answers come from the Demo provider.
 */
import type { Browser, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, inject, it } from 'vitest';
import { startCouchServer, type CouchServer } from '../sync/couchServer';
import { launchBrowser, screenshot } from './browser';
import { openApp, openConversation, openSettings, sendAndWait, transcriptRows, typeAndSend, waitForAnswer, waitForServiceWorker } from './persistenceHelpers';
import { openSettingsSection } from './uiHelpers';
import {
  conversationEntry,
  messageArticle,
  newDatabase,
  newDevice,
  renameConversation,
  syncStatus,
  turnOnSync,
  USER,
  waitForConversation,
  waitForStatus,
  waitForSynced,
  pasteImage,
  PASSPHRASE,
  realPdf,
  saveApiKey,
  serverText,
  type Device,
} from './syncHelpers';
import { DEMO_MODEL_ID } from '../../src/core/models';
import { chatGptConversation, generatedList } from '../core/transfer/generatedExports';

const appUrl = inject('appUrl');
let browser: Browser;
let couch: CouchServer;
const devices: Device[] = [];

beforeAll(async () => {
  [browser, couch] = await Promise.all([launchBrowser(), startCouchServer()]);
  await couch.createUser(USER.username, USER.password);
});

// Each test's devices stop syncing when it ends: the next test's timing is its own.
afterEach(async () => {
  await Promise.all(devices.splice(0).map((d) => d.context.close()));
});

afterAll(async () => {
  await browser?.close();
  await couch?.stop();
});

async function device(): Promise<Device> {
  const d = await newDevice(browser, appUrl);
  devices.push(d);
  return d;
}

/** The "n / m" of every message that has versions, top to bottom. */
async function versionCounts(page: Page): Promise<string[]> {
  return page
    .locator('[role="log"][aria-label="Transcript"] .versions .version-count')
    .evaluateAll((els) => els.map((e) => (e.textContent ?? '').replace(/\s+/g, ' ').trim()));
}

/** Edits a user message through its Edit button and waits for the new answer. */
async function editMessage(page: Page, from: string, to: string): Promise<void> {
  await messageArticle(page, 'user', from).getByRole('button', { name: 'Edit' }).click();
  await page.getByRole('textbox', { name: 'Edit message' }).fill(to);
  await page.getByRole('button', { name: 'Save and resend' }).click();
  await waitForAnswer(page, to);
}

/** Two devices syncing with the same new database, A having sent `first` and B having received it. */
async function twoDevices(db: string, first: string): Promise<{ a: Device; b: Device }> {
  const server = await newDatabase(couch, db);
  const a = await device();
  expect(await turnOnSync(a.page, server)).toBeUndefined();
  await sendAndWait(a.page, first);
  await waitForSynced(a.page);
  const b = await device();
  expect(await turnOnSync(b.page, server)).toBeUndefined();
  await waitForConversation(b.page, first);
  await waitForSynced(b.page);
  return { a, b };
}

describe('two devices', () => {
  it('A writes and B sees it; B answers and A sees the answer without a reload', async () => {
    const { a, b } = await twoDevices('live', 'Plan the Lisbon trip');
    await openConversation(b.page, 'Plan the Lisbon trip');
    await b.page.getByRole('article', { name: 'Assistant message', exact: true }).first().waitFor();
    await sendAndWait(b.page, 'Add a day in Sintra');
    // A has the conversation open: the transcript grows by itself.
    await messageArticle(a.page, 'user', 'Add a day in Sintra').waitFor({ timeout: 30_000 });
    await a.page.getByRole('article', { name: 'Assistant message', exact: true }).nth(1).waitFor({ timeout: 30_000 });
    expect(await a.page.getByRole('article', { name: 'User message', exact: true }).count()).toBe(2);
    await screenshot(a.page, 'sync-a-live');
    expect(a.errors).toEqual([]);
    expect(b.errors).toEqual([]);
  });

  it('merges edits, regenerated answers and a rename made offline on both devices', async () => {
    const { a, b } = await twoDevices('offline-branches', 'Name three ferns');
    await openConversation(b.page, 'Name three ferns');
    await b.page.getByRole('article', { name: 'Assistant message', exact: true }).waitFor();
    // Installed, as an app used offline is: its Demo model is loaded from the service worker's cache.
    await Promise.all([waitForServiceWorker(a.page), waitForServiceWorker(b.page)]);
    await Promise.all([a.context.setOffline(true), b.context.setOffline(true)]);
    await waitForStatus(a.page, /cannot be reached/);

    await editMessage(a.page, 'Name three ferns', 'Name three mosses');
    await renameConversation(a.page, 'Name three ferns', 'Shade plants');
    await messageArticle(b.page, 'assistant', '').getByRole('button', { name: 'Regenerate' }).click();
    await b.page.getByRole('group', { name: 'Version 2 of 2' }).waitFor();
    await waitForAnswer(b.page, 'Name three ferns');
    await editMessage(b.page, 'Name three ferns', 'Name three lichens');

    await Promise.all([a.context.setOffline(false), b.context.setOffline(false)]);
    // Every question version is on both: the original, A's edit and B's edit.
    for (const d of [a, b]) {
      await waitForConversation(d.page, 'Shade plants');
      await d.page
        .getByRole('article', { name: 'User message', exact: true })
        .getByText(/\d \/ 3/)
        .waitFor({ timeout: 30_000 });
    }
    await Promise.all([waitForSynced(a.page), waitForSynced(b.page)]);
    for (const d of [a, b]) {
      // Back to the first question: its answer has two versions (B regenerated it).
      const question = d.page.getByRole('article', { name: 'User message', exact: true });
      while (!(await question.getByRole('group', { name: 'Version 1 of 3' }).isVisible()))
        await question.getByRole('button', { name: 'Previous version' }).click();
      await messageArticle(d.page, 'user', 'Name three ferns').waitFor();
      await d.page
        .getByRole('article', { name: 'Assistant message', exact: true })
        .getByRole('group', { name: /Version \d of 2/ })
        .waitFor();
      expect(await versionCounts(d.page)).toEqual(['1 / 3', expect.stringMatching(/^\d \/ 2$/)]);
      expect(await d.page.getByRole('heading', { level: 1 }).innerText()).toBe('Shade plants');
      expect(await conversationEntry(d.page, 'Name three ferns').count()).toBe(0);
    }
    expect(a.errors).toEqual([]);
    expect(b.errors).toEqual([]);
  }, 120_000);

  it('keeps a conversation deleted on A while B, offline, added to it; a plain deletion reaches B', async () => {
    const { a, b } = await twoDevices('deletions', 'Sketch a garden shed');
    await a.page.getByRole('button', { name: 'New chat' }).click();
    await sendAndWait(a.page, 'Draft a packing list');
    await waitForConversation(b.page, 'Draft a packing list');
    await Promise.all([waitForSynced(a.page), waitForSynced(b.page)]);

    // B, offline, goes on with the shed while A deletes it.
    await openConversation(b.page, 'Sketch a garden shed');
    await waitForServiceWorker(b.page);
    await b.context.setOffline(true);
    await sendAndWait(b.page, 'Add a window facing south');
    await a.page.getByRole('button', { name: 'Delete Sketch a garden shed', exact: true }).click();
    await conversationEntry(a.page, 'Sketch a garden shed').waitFor({ state: 'detached' });
    await waitForSynced(a.page);
    await b.context.setOffline(false);
    // A, which deleted it, is told it was kept (whichever device settled it first).
    await a.page.getByText('“Sketch a garden shed”, deleted on this device, was kept: another device added to it meanwhile.').waitFor({ timeout: 30_000 });
    // Kept on both, with every message.
    await waitForConversation(a.page, 'Sketch a garden shed', 30_000);
    await Promise.all([waitForSynced(a.page), waitForSynced(b.page)]);
    // A looks in a new tab: this tab keeps showing the branch it had before the deletion (its own leaf, see store/branches.ts).
    const aTab = await a.context.newPage();
    await openApp(aTab, appUrl);
    for (const page of [aTab, b.page]) {
      await openConversation(page, 'Sketch a garden shed');
      await expect
        .poll(() => transcriptRows(page), { timeout: 30_000 })
        .toEqual([
          expect.stringMatching(/^User message \[complete\] \{.*\} Sketch a garden shed$/),
          expect.stringMatching(/^Assistant message \[complete\]/),
          expect.stringMatching(/^User message \[complete\] \{.*\} Add a window facing south$/),
          expect.stringMatching(/^Assistant message \[complete\]/),
        ]);
    }

    // A plain deletion: B added nothing, so it goes from B too, with a notice.
    await a.page.getByRole('button', { name: 'Delete Draft a packing list', exact: true }).click();
    await b.page.getByText('“Draft a packing list” was deleted on another device.').waitFor({ timeout: 30_000 });
    await conversationEntry(b.page, 'Draft a packing list').waitFor({ state: 'detached' });
    await Promise.all([waitForSynced(a.page), waitForSynced(b.page)]);
    expect(await conversationEntry(b.page, 'Sketch a garden shed').count()).toBe(1);
    expect(a.errors).toEqual([]);
    expect(b.errors).toEqual([]);
  }, 120_000);

  it('refuses a wrong passphrase on the second device and leaves sync off', async () => {
    const server = await newDatabase(couch, 'wrong-passphrase');
    const a = await device();
    expect(await turnOnSync(a.page, server)).toBeUndefined();
    await sendAndWait(a.page, 'Count the stars');
    await waitForSynced(a.page);
    const b = await device();
    expect(await turnOnSync(b.page, server, 'not the passphrase at all')).toBe(
      'Wrong passphrase: it does not open the records on this server. Use the passphrase of your first device.',
    );
    // Sync stays off: no status in the sidebar, the form still offered, nothing received.
    expect(await syncStatus(b.page).count()).toBe(0);
    const dialog = await openSettings(b.page);
    await openSettingsSection(b.page, 'Sync');
    await dialog.getByRole('region', { name: 'Sync' }).getByRole('button', { name: 'Turn on sync' }).waitFor();
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    await b.page.waitForTimeout(1500); // proves that nothing arrives
    expect(await conversationEntry(b.page, 'Count the stars').count()).toBe(0);
    expect(b.errors).toEqual([]);
  });

  it('sends the server nothing it can read: no title, text, model, file name or API key', async () => {
    const API_KEY = 'sk-ant-api03-privacy-check-1234567890abcdef';
    const server = await newDatabase(couch, 'privacy');
    const a = await device();
    await saveApiKey(a.page, 'anthropic', API_KEY);
    expect(await turnOnSync(a.page, server)).toBeUndefined();
    await pasteImage(a.page, 320, 200, 'quokka-selfie-7731.png');
    await typeAndSend(a.page, 'Flibbertigibbet marmalade xylophone');
    await a.page.locator('article[aria-label="Assistant message"][data-status="complete"]').waitFor({ timeout: 30_000 });
    await renameConversation(a.page, 'Flibbertigibbet marmalade xylophone', 'Zanzibar quokka itinerary');
    // Once another device has the new title, the server has it too.
    const b = await device();
    expect(await turnOnSync(b.page, server)).toBeUndefined();
    await waitForConversation(b.page, 'Zanzibar quokka itinerary');
    await Promise.all([waitForSynced(a.page), waitForSynced(b.page)]);
    const stored = (await serverText(couch, 'privacy')).toLowerCase();
    expect(stored).toContain('windowpane-passphrase-check'); // the reading works: the one clear id is there
    for (const word of ['Flibbertigibbet', 'marmalade', 'xylophone', 'Zanzibar', 'quokka', 'itinerary', DEMO_MODEL_ID, 'selfie-7731', API_KEY, 'sk-ant']) {
      expect(stored, word).not.toContain(word.toLowerCase());
    }
    // The key stayed on A: "Also sync my API keys" was off.
    const dialog = await openSettings(b.page);
    await dialog.getByLabel('Provider', { exact: true }).selectOption('anthropic');
    expect(await dialog.getByLabel('API key', { exact: true }).inputValue()).toBe('');
    await dialog.getByRole('button', { name: 'Cancel' }).click();

    // With "Also sync my API keys" on, the key travels, encrypted.
    const keysServer = await newDatabase(couch, 'privacy-keys');
    const c = await device();
    await saveApiKey(c.page, 'anthropic', API_KEY);
    expect(await turnOnSync(c.page, keysServer, PASSPHRASE, { syncApiKeys: true })).toBeUndefined();
    await waitForSynced(c.page);
    const d = await device();
    expect(await turnOnSync(d.page, keysServer, PASSPHRASE, { syncApiKeys: true })).toBeUndefined();
    await waitForSynced(d.page);
    await expect
      .poll(async () => {
        const settings = await openSettings(d.page);
        await settings.getByLabel('Provider', { exact: true }).selectOption('anthropic');
        const key = await settings.getByLabel('API key', { exact: true }).inputValue();
        await settings.getByRole('button', { name: 'Cancel' }).click();
        return key;
      })
      .toBe(API_KEY);
    const storedWithKeys = await serverText(couch, 'privacy-keys');
    expect(storedWithKeys).not.toContain(API_KEY);
    expect(storedWithKeys).not.toContain('privacy-check-1234567890');
    expect([...a.errors, ...b.errors, ...c.errors, ...d.errors]).toEqual([]);
  }, 120_000);

  it('brings images and PDFs to the other device, and its search finds what arrived', async () => {
    const { a, b } = await twoDevices('files', 'Start the garden plan');
    await pasteImage(a.page, 400, 300, 'garden-plan.png');
    await a.page
      .getByLabel('Files to attach')
      .setInputFiles({ name: 'plan.pdf', mimeType: 'application/pdf', buffer: realPdf(['Raised beds', 'Quillwort corner']) });
    await a.page.getByRole('list', { name: 'PDFs to send' }).getByRole('listitem').first().waitFor({ timeout: 30_000 });
    await typeAndSend(a.page, 'Where should the quillwort grow?');
    await a.page.locator('article[aria-label="Assistant message"][data-status="complete"]').nth(1).waitFor({ timeout: 30_000 });
    await waitForSynced(a.page);

    // B finds the new message by a word of it (the search index follows what arrives), opens it there, and sees the picture and the PDF.
    await b.page.getByLabel('Search conversations').fill('quillwort');
    const hit = b.page
      .getByRole('navigation', { name: 'Conversations' })
      .locator('.conversation-link', { hasText: 'quillwort' })
      .filter({ hasText: 'Start the garden plan' });
    await hit.waitFor({ timeout: 30_000 });
    await waitForSynced(b.page);
    await hit.click();
    const question = messageArticle(b.page, 'user', 'Where should the quillwort grow?');
    await question.waitFor({ timeout: 30_000 });
    await question.getByRole('img', { name: 'garden-plan.png' }).waitFor({ timeout: 30_000 });
    await b.page.waitForFunction(
      () => [...document.querySelectorAll('img')].some((i) => i.alt === 'garden-plan.png' && i.complete && i.naturalWidth === 400),
      undefined,
      {
        timeout: 30_000,
      },
    );
    expect(await question.getByRole('list', { name: 'PDFs' }).textContent()).toContain('plan.pdf2 pages');
    await screenshot(b.page, 'sync-b-files');
    expect(a.errors).toEqual([]);
    expect(b.errors).toEqual([]);
  }, 90_000);

  it('receives a first sync of 1,000 messages without a long task on the page, showing progress, paused and resumed', async () => {
    const server = await newDatabase(couch, 'first-sync');
    const a = await device();
    const history = generatedList((n, count) => chatGptConversation(n, count), 50, 20);
    await a.page
      .getByLabel('Import file')
      .setInputFiles({ name: 'conversations.json', mimeType: 'application/json', buffer: Buffer.from(JSON.stringify(history)) });
    await a.page.getByRole('status').filter({ hasText: 'Imported 50 conversations from conversations.json' }).waitFor({ timeout: 30_000 });
    expect(await turnOnSync(a.page, server)).toBeUndefined();
    await waitForSynced(a.page, 90_000);

    // B records every task over 50 ms on its page's thread from the start.
    const b = await newDevice(browser, appUrl, async (page) => {
      await page.addInitScript(() => {
        const seen: number[] = [];
        (window as unknown as { longTasks: number[] }).longTasks = seen;
        new PerformanceObserver((list) => list.getEntries().forEach((entry) => seen.push(entry.duration))).observe({ type: 'longtask', buffered: true });
        // And every text its sync status shows, in order.
        const shown: string[] = [];
        (window as unknown as { statusTexts: string[] }).statusTexts = shown;
        setInterval(() => {
          const text = document.querySelector('[role="status"][aria-label="Sync"]')?.textContent?.trim();
          if (text && text !== shown.at(-1)) shown.push(text);
        }, 20);
      });
    });
    devices.push(b);
    const longTasks = () => b.page.evaluate(() => (window as unknown as { longTasks: number[] }).longTasks.splice(0));
    await longTasks(); // opening the app is not sync's
    expect(await turnOnSync(b.page, server)).toBeUndefined();
    await waitForStatus(b.page, /^(Receiving|Sending) [\d,]+ of [\d,]+…$/);
    await b.page.getByRole('button', { name: 'Pause' }).click();
    await waitForStatus(b.page, /^Sync paused\.$/);
    const received = async () => (await storedCounts(b.page)).messages;
    // What had arrived is still saved: wait until the count holds still, then prove that nothing more comes.
    let whilePaused = -1;
    await expect.poll(async () => whilePaused === (whilePaused = await received()), { timeout: 30_000, interval: 500 }).toBe(true);
    await b.page.waitForTimeout(2000); // proves that nothing more arrives while paused
    expect(await received()).toBe(whilePaused);
    expect(whilePaused).toBeLessThan(1000);
    expect(await syncStatus(b.page).innerText()).toBe('Sync paused.');

    await b.page.getByRole('button', { name: 'Resume' }).click();
    await expect.poll(received, { timeout: 90_000, interval: 500 }).toBe(1000);
    await waitForSynced(b.page, 60_000);
    expect(await storedCounts(b.page)).toEqual({ conversations: 50, messages: 1000 });
    const tasks = await longTasks();
    expect(tasks.filter((ms) => ms > 200)).toEqual([]);
    // The status never lied on the way: each count of a stretch of moving records only grew, and never past its total.
    const texts = await b.page.evaluate(() => (window as unknown as { statusTexts: string[] }).statusTexts);
    expect(countsGoingBack(texts)).toEqual([]);
    expect(texts.filter((text) => text.startsWith('Receiving')).length).toBeGreaterThan(1);
    await openConversation(b.page, 'ChatGPT conversation 49');
    await expect.poll(async () => (await transcriptRows(b.page)).length).toBe(20);
    expect(a.errors).toEqual([]);
    expect(b.errors).toEqual([]);
  }, 240_000);
});

/**
 * The status texts that counted back from the one before in the same direction, or past
 * their total ("Receiving 100 of 50…"). A status that rests (paused, synced) starts afresh.
 */
function countsGoingBack(texts: readonly string[]): string[] {
  const wrong: string[] = [];
  const last = new Map<string, number>();
  const number = (digits: string) => Number(digits.replaceAll(',', ''));
  for (const text of texts) {
    const match = /^(Sending|Receiving) ([\d,]+)(?: of ([\d,]+))?…$/.exec(text);
    if (!match) {
      last.clear();
      continue;
    }
    const [, verb, done, total] = match;
    if (number(done!) < (last.get(verb!) ?? 0) || (total !== undefined && number(done!) > number(total))) wrong.push(text);
    last.set(verb!, number(done!));
  }
  return wrong;
}

/** How many conversations and messages the device stores, read from IndexedDB. */
function storedCounts(page: Page): Promise<{ conversations: number; messages: number }> {
  return page.evaluate(
    () =>
      new Promise<{ conversations: number; messages: number }>((resolve, reject) => {
        const open = indexedDB.open('windowpane');
        open.onsuccess = () => {
          const tx = open.result.transaction(['conversations', 'messages'], 'readonly');
          const conversations = tx.objectStore('conversations').count();
          const messages = tx.objectStore('messages').count();
          tx.oncomplete = () => {
            open.result.close();
            resolve({ conversations: conversations.result, messages: messages.result });
          };
          tx.onerror = () => reject(tx.error);
        };
      }),
  );
}
