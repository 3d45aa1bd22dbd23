/**
 * Sync in real Chromium: two browser profiles are two devices, each turned on through
 * Settings → Sync, against pouchdb-server (a CouchDB-protocol server) started on a free
 * port and configured as docs/sync-server.md tells users to configure theirs. Each test
 * has its own database on the one server. Answers come from the Demo provider.
 */
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { startCouchServer, type CouchServer } from '../sync/couchServer';
import { launchBrowser, screenshot } from './browser';
import { openConversation, openSettings, sendAndWait, typeAndSend } from './persistenceHelpers';
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
  waitForSynced,
  pasteImage,
  PASSPHRASE,
  saveApiKey,
  serverText,
  type Device,
} from './syncHelpers';
import { DEMO_MODEL_ID } from '../../src/core/models';

const appUrl = inject('appUrl');
let browser: Browser;
let couch: CouchServer;
const devices: Device[] = [];

beforeAll(async () => {
  [browser, couch] = await Promise.all([launchBrowser(), startCouchServer()]);
  await couch.createUser(USER.username, USER.password);
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
    // The key stayed on A: "Also sync my keys" was off.
    const dialog = await openSettings(b.page);
    await dialog.getByLabel('Provider').selectOption('anthropic');
    expect(await dialog.getByLabel('API key', { exact: true }).inputValue()).toBe('');
    await dialog.getByRole('button', { name: 'Cancel' }).click();

    // With "Also sync my keys" on, the key travels, encrypted.
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
        await settings.getByLabel('Provider').selectOption('anthropic');
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
});
