/**
 * Sync when things go wrong, in real Chromium against pouchdb-server: the server going away
 * and coming back, the errors a CouchDB sends (through a fault-injecting proxy), records
 * changed on the server, and a receiving device whose storage is full. Each test has its
 * own database; the sidebar's status (role status, "Sync") says what happened.
 */
import type { Browser, CDPSession, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, inject, it } from 'vitest';
import { chatGptConversation } from '../core/transfer/generatedExports';
import { startCouchServer, type CouchServer } from '../sync/couchServer';
import { startFaultProxy, type FaultProxy } from '../sync/faultProxy';
import { launchBrowser, screenshot } from './browser';
import { openConversation, sendAndWait, transcriptRows } from './persistenceHelpers';
import {
  messageArticle,
  newDatabase,
  newDevice,
  type Device,
  newProfileDevice,
  syncStatus,
  turnOnSync,
  USER,
  waitForConversation,
  waitForStatus,
  waitForSynced,
  type SyncServer,
} from './syncHelpers';

const appUrl = inject('appUrl');
let browser: Browser;
let couch: CouchServer;
const proxies: FaultProxy[] = [];
const devices: Device[] = [];

/** A new browser profile with the app open, closed when the test ends. */
async function device(): Promise<Device> {
  const d = await newDevice(browser, appUrl);
  devices.push(d);
  return d;
}

beforeAll(async () => {
  [browser, couch] = await Promise.all([launchBrowser(), startCouchServer()]);
  await couch.createUser(USER.username, USER.password);
});

// Each test's devices stop syncing when it ends: the next test's timing is its own.
afterEach(async () => {
  await Promise.all(devices.splice(0).map((d) => d.context.close()));
});

afterAll(async () => {
  await Promise.all(proxies.map((p) => p.close()));
  await browser?.close();
  await couch?.stop();
});

/** A new database and a fault proxy in front of the server: what the app is pointed at goes through the proxy. */
async function proxied(db: string): Promise<{ direct: SyncServer; viaProxy: SyncServer; proxy: FaultProxy }> {
  const direct = await newDatabase(couch, db);
  const proxy = await startFaultProxy(couch.url);
  proxies.push(proxy);
  return { direct, viaProxy: { ...direct, url: `${proxy.url}/${db}` }, proxy };
}

async function newChat(page: Page, text: string): Promise<void> {
  await page.getByRole('button', { name: 'New chat' }).click();
  await sendAndWait(page, text);
}

describe('the server goes away', () => {
  it('says the server cannot be reached, resumes by itself and loses nothing', async () => {
    const { viaProxy, proxy } = await proxied('outage');
    const a = await device();
    expect(await turnOnSync(a.page, viaProxy)).toBeUndefined();
    await sendAndWait(a.page, 'Outage one');
    await newChat(a.page, 'Outage two');
    await waitForSynced(a.page);

    const b = await device();
    expect(await turnOnSync(b.page, viaProxy)).toBeUndefined();
    await proxy.stop();
    for (const d of [a, b]) await waitForStatus(d.page, /^Sync stopped: The server cannot be reached; sync goes on by itself when it can\.$/);
    await newChat(a.page, 'Written while the server was down');
    await proxy.start();
    for (const title of ['Outage one', 'Outage two', 'Written while the server was down']) await waitForConversation(b.page, title);
    await Promise.all([waitForSynced(a.page), waitForSynced(b.page)]);

    // The server restarts (same port, data kept) while both sync: they go on by themselves.
    await couch.restart();
    await newChat(a.page, 'Written after the restart');
    await waitForConversation(b.page, 'Written after the restart');
    await Promise.all([waitForSynced(a.page), waitForSynced(b.page)]);
    await openConversation(b.page, 'Written while the server was down');
    expect(await transcriptRows(b.page)).toEqual([
      expect.stringMatching(/^User message \[complete\] \{.*\} Written while the server was down$/),
      expect.stringMatching(/^Assistant message \[complete\]/),
    ]);
    expect(a.errors).toEqual([]);
    expect(b.errors).toEqual([]);
  });
});

describe('what the server answers', () => {
  it('refuses a wrong password and a user who is not a member at Turn on sync', async () => {
    const { direct } = await proxied('members-only');
    await couch.createUser('mallory', 'mallory-pw');
    const c = await device();
    expect(await turnOnSync(c.page, { ...direct, password: 'not-the-password' })).toBe('The server refused the username or password.');
    expect(await turnOnSync(c.page, { ...direct, username: 'mallory', password: 'mallory-pw' })).toBe(
      'This user may not use that database; add it to the database’s members on the server.',
    );
    expect(await syncStatus(c.page).count()).toBe(0);
  });

  it('says what 401, 403, 409, 413 and 500 mean, and recovers from 409 and 500 losing nothing', async () => {
    const { direct, viaProxy, proxy } = await proxied('faults');
    const a = await device();
    expect(await turnOnSync(a.page, viaProxy)).toBeUndefined();
    await sendAndWait(a.page, 'Before the faults');
    await waitForSynced(a.page);
    const b = await device();
    expect(await turnOnSync(b.page, direct)).toBeUndefined();
    await waitForConversation(b.page, 'Before the faults');

    const syncNow = () => a.page.getByRole('button', { name: 'Sync now' }).click();
    // Refusals: every request fails until the fault is cleared.
    const refusals: Array<[number, string]> = [
      [401, 'Sync stopped: The server refused the username or password.'],
      [403, 'Sync stopped: This user may not use that database; add it to the database’s members on the server.'],
    ];
    for (const [status, text] of refusals) {
      proxy.failNext({ status, times: 1000 });
      await syncNow();
      await waitForStatus(a.page, new RegExp(`^${text.replace(/[.?()]/g, '\\$&')}$`));
      proxy.clearFaults();
      await syncNow();
      await waitForSynced(a.page);
    }

    // Writes the server refuses: the answer to A's next message is refused, then the fault is cleared.
    const writes: Array<[number, RegExp, string]> = [
      [413, /^Sync stopped: The server refused a record as too large \(HTTP 413\); raise its document size limit\.$/, 'Sent into a 413'],
      [409, /^Sync stopped: The server failed \(HTTP 409.*\); sync retries by itself\.$/, 'Sent into a 409'],
      [500, /^Sync stopped: The server failed \(HTTP 500\); sync retries by itself\.$/, 'Sent into a 500'],
    ];
    for (const [status, text, message] of writes) {
      proxy.failNext({ status, times: 1000, match: (r) => r.method === 'POST' && r.path.includes('/_bulk_docs') });
      await newChat(a.page, message);
      await waitForStatus(a.page, text);
      await screenshot(a.page, `sync-fault-${status}`);
      proxy.clearFaults();
      if (status === 413) await syncNow();
      await waitForSynced(a.page);
      await waitForConversation(b.page, message);
    }
    // Nothing lost: B has every message A wrote.
    await openConversation(b.page, 'Sent into a 500');
    await messageArticle(b.page, 'assistant', 'Sent into a 500').waitFor();
    expect(a.errors).toEqual([]);
    expect(b.errors).toEqual([]);
    // Ten faults in a row: longer than one wait, so a step that never comes names itself.
  }, 120_000);
});

describe('what arrives', () => {
  it('never applies a record changed on the server and keeps what the device has', async () => {
    const server = await newDatabase(couch, 'tamper');
    const a = await device();
    expect(await turnOnSync(a.page, server)).toBeUndefined();
    await sendAndWait(a.page, 'Guard the original');
    await waitForSynced(a.page);
    const b = await device();
    expect(await turnOnSync(b.page, server)).toBeUndefined();
    await waitForConversation(b.page, 'Guard the original');
    await waitForSynced(b.page);
    await openConversation(b.page, 'Guard the original');
    const before = await transcriptRows(b.page);

    // The server changes one character of one record and swaps two others' ciphertexts.
    const records = (await couch.allDocs('tamper')).rows.filter((r) => typeof r.doc?.ct === 'string').map((r) => r.doc!);
    expect(records.length).toBeGreaterThanOrEqual(3);
    const [x, y, z] = records;
    await couch.rewriteDoc('tamper', x!._id, (doc) => {
      const ct = doc.ct as string;
      const at = Math.floor(ct.length / 2);
      doc.ct = ct.slice(0, at) + (ct[at] === 'A' ? 'B' : 'A') + ct.slice(at + 1);
    });
    await couch.rewriteDoc('tamper', y!._id, (doc) => void (doc.ct = z!.ct));
    await couch.rewriteDoc('tamper', z!._id, (doc) => void (doc.ct = y!.ct));

    await waitForStatus(b.page, /3 records from the server failed their integrity check and were not applied\.$/);
    await screenshot(b.page, 'sync-tampered');
    // Nothing was overwritten: the same conversation, title and messages.
    expect(await transcriptRows(b.page)).toEqual(before);
    expect(await b.page.getByRole('heading', { level: 1 }).innerText()).toBe('Guard the original');
    await b.page.reload();
    await openConversation(b.page, 'Guard the original');
    expect(await transcriptRows(b.page)).toEqual(before);
    expect(b.errors).toEqual([]);
  });

  it('says the receiving device’s storage is full, loses nothing, and completes once there is room', async () => {
    const server = await newDatabase(couch, 'quota');
    const a = await device();
    // A long history: one conversation whose first message is 3 MB of text that does not compress.
    const noise = Array.from({ length: 3 * 1024 * 1024 }, () => String.fromCharCode(33 + Math.floor(Math.random() * 90))).join('');
    const big = chatGptConversation(0, 2, (i) => (i === 0 ? `Quota ${noise}` : 'Noted.'));
    await a.page
      .getByLabel('Import file')
      .setInputFiles({ name: 'conversations.json', mimeType: 'application/json', buffer: Buffer.from(JSON.stringify([big])) });
    await a.page.getByRole('status').filter({ hasText: 'Imported 1 conversation from conversations.json' }).waitFor();
    expect(await turnOnSync(a.page, server)).toBeUndefined();
    await waitForSynced(a.page);

    // B's storage holds 2 MB (set through Chromium's DevTools protocol before the app first opens it): the 3 MB message cannot be saved.
    const cdp = { session: undefined as CDPSession | undefined };
    const b = await newProfileDevice('quota-b', appUrl, async ({ context, page }) => {
      cdp.session = await context.newCDPSession(page);
      await cdp.session.send('Storage.overrideQuotaForOrigin', { origin: appUrl, quotaSize: 2 * 1024 * 1024 });
    });
    await sendAndWait(b.page, 'My own note on B');
    expect(await turnOnSync(b.page, server)).toBeUndefined();
    await waitForStatus(
      b.page,
      /^Sync stopped: This device’s storage is full: records from the server cannot be saved\. Free some space \(Settings → Storage\); sync retries\.$/,
    );
    await screenshot(b.page, 'sync-quota');
    await openConversation(b.page, 'My own note on B');
    await messageArticle(b.page, 'assistant', '').waitFor();

    await cdp.session!.send('Storage.overrideQuotaForOrigin', { origin: appUrl });
    await waitForConversation(b.page, 'ChatGPT conversation 0', 60_000);
    await waitForSynced(b.page, 60_000);
    await openConversation(b.page, 'ChatGPT conversation 0');
    await messageArticle(b.page, 'user', 'Quota ').waitFor();
    await waitForConversation(a.page, 'My own note on B');
    await b.context.close();
    // PouchDB says so in the console when IndexedDB refuses a write: expected here, and nothing else.
    expect(b.errors.filter((e) => e !== 'Database has a global failure QuotaExceededError')).toEqual([]);
  }, 120_000);
});
