/**
 * Importing data exports in real Chromium: a ChatGPT .zip by the Import button, a Claude
 * .zip dropped on the window (while a file dropped on the composer is still attached), a
 * large import shown with progress and cancelled midway keeping whole conversations, a
 * search finding an imported message, and the search index, lost, shown being rebuilt.
 */
import { strToU8, zipSync } from 'fflate';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { chatGptConversation, claudeConversation, generatedList } from '../core/transfer/generatedExports';
import { launchBrowser, newPage, screenshot } from './browser';
import { conversationTitles, openApp } from './persistenceHelpers';

const zipOf = (data: unknown) => Buffer.from(zipSync({ 'conversations.json': strToU8(JSON.stringify(data)), 'user.json': strToU8('{}') }));

/** Drags `file` over the element at `selector` and drops it there, as the user's desktop would. */
async function dropFile(page: Page, selector: string, file: { name: string; type: string; bytes: Buffer }, beforeDrop?: () => Promise<void>): Promise<void> {
  const dataTransfer = await page.evaluateHandle(
    ({ name, type, bytes }) => {
      const transfer = new DataTransfer();
      transfer.items.add(new File([new Uint8Array(bytes)], name, { type }));
      return transfer;
    },
    { name: file.name, type: file.type, bytes: [...file.bytes] },
  );
  await page.dispatchEvent(selector, 'dragenter', { dataTransfer });
  await page.dispatchEvent(selector, 'dragover', { dataTransfer });
  await beforeDrop?.();
  await page.dispatchEvent(selector, 'drop', { dataTransfer });
}

/** Conversation id → message count, read straight from IndexedDB. */
function storedCounts(page: Page): Promise<Record<string, number>> {
  return page.evaluate(
    () =>
      new Promise<Record<string, number>>((resolve, reject) => {
        const open = indexedDB.open('windowpane');
        open.onsuccess = () => {
          const tx = open.result.transaction(['conversations', 'messages'], 'readonly');
          const counts: Record<string, number> = {};
          const conversations = tx.objectStore('conversations').getAll();
          conversations.onsuccess = () => {
            for (const c of conversations.result as Array<{ id: string }>) counts[c.id] = 0;
          };
          const cursor = tx.objectStore('messages').openCursor();
          cursor.onsuccess = () => {
            const at = cursor.result;
            if (!at) return;
            const id = (at.value as { conversationId: string }).conversationId;
            counts[id] = (counts[id] ?? 0) + 1;
            at.continue();
          };
          tx.oncomplete = () => {
            open.result.close();
            resolve(counts);
          };
          tx.onerror = () => reject(tx.error);
        };
      }),
  );
}

/** The saved search index: how many messages it holds (-1: none saved), or `remove` deletes it, as a lost one would be. */
function savedSearchIndex(page: Page, remove = false): Promise<number> {
  return page.evaluate(
    (remove) =>
      new Promise<number>((resolve, reject) => {
        const open = indexedDB.open('windowpane');
        open.onsuccess = () => {
          const tx = open.result.transaction('searchIndex', remove ? 'readwrite' : 'readonly');
          const request = remove ? tx.objectStore('searchIndex').delete('messages') : tx.objectStore('searchIndex').get('messages');
          tx.oncomplete = () => {
            open.result.close();
            resolve((request.result as { messageCount?: number } | undefined)?.messageCount ?? -1);
          };
          tx.onerror = () => reject(tx.error);
        };
      }),
    remove,
  );
}

/** Runs in the page before the app: each text the sidebar's search status shows is kept in `searchStatusSeen`. */
function recordSearchStatus() {
  const seen: string[] = [];
  (window as unknown as { searchStatusSeen: string[] }).searchStatusSeen = seen;
  new MutationObserver(() => {
    const text = document.querySelector('nav [role=status]')?.textContent ?? '';
    if (text && seen.at(-1) !== text) seen.push(text);
  }).observe(document, { subtree: true, childList: true, characterData: true });
}

describe('importing data exports in Chromium', () => {
  let browser: Browser;
  const appUrl = inject('appUrl');
  beforeAll(async () => {
    browser = await launchBrowser();
  });
  afterAll(async () => {
    await browser?.close();
  });

  it('imports a ChatGPT .zip by Import (another tab lists it) and a Claude .zip dropped on the window; other files dropped are attached', async () => {
    const { context, page, errors } = await newPage(browser);
    try {
      page.setDefaultTimeout(20_000);
      await openApp(page, appUrl);
      // Another tab of the app, open meanwhile, lists what this one imports.
      const otherTab = await context.newPage();
      await openApp(otherTab, appUrl);
      await page
        .getByLabel('Import file')
        .setInputFiles({ name: 'chatgpt-export.zip', mimeType: 'application/zip', buffer: zipOf(generatedList(chatGptConversation, 3, 4)) });
      await page.getByRole('status').filter({ hasText: 'Imported 3 conversations from chatgpt-export.zip: 12 messages' }).waitFor();
      expect((await conversationTitles(page)).filter((t) => t.startsWith('ChatGPT conversation'))).toHaveLength(3);
      await expect.poll(async () => (await conversationTitles(otherTab)).filter((t) => t.startsWith('ChatGPT conversation')).length).toBe(3);
      await otherTab.close();

      const claudeZip = { name: 'claude-export.zip', type: 'application/zip', bytes: zipOf({ conversations: generatedList(claudeConversation, 2, 6) }) };
      await dropFile(page, 'main', claudeZip, async () => {
        await page.getByText('Drop a ChatGPT, Claude or Windowpane export (.json or .zip) to import it').waitFor();
        await screenshot(page, 'import-drop-hint');
      });
      await page.getByRole('status').filter({ hasText: 'Imported 2 conversations from claude-export.zip: 12 messages' }).waitFor();
      expect((await conversationTitles(page)).filter((t) => t.startsWith('Claude conversation'))).toHaveLength(2);
      expect(await page.locator('.drop-import').count()).toBe(0);

      // A text file dropped on the composer is attached, not imported.
      await dropFile(page, 'form.composer', { name: 'notes.txt', type: 'text/plain', bytes: Buffer.from('some notes') });
      await page.getByRole('list', { name: 'Attached files' }).getByText('notes.txt').waitFor();
      // A picture dropped anywhere else goes with the next message too: the hint says so, and nothing is imported.
      const photo = await page.evaluate(async () => {
        const canvas = new OffscreenCanvas(640, 480);
        const g = canvas.getContext('2d')!;
        g.fillStyle = '#2563eb';
        g.fillRect(0, 0, 640, 480);
        return [...new Uint8Array(await (await canvas.convertToBlob({ type: 'image/png' })).arrayBuffer())];
      });
      await dropFile(page, 'main', { name: 'photo.png', type: 'image/png', bytes: Buffer.from(photo) }, async () => {
        await page.getByText('Drop to add to your next message').waitFor();
      });
      await page.getByRole('list', { name: 'Images to send' }).getByRole('listitem').first().waitFor({ timeout: 15_000 });
      expect(await page.getByRole('list', { name: 'Images to send' }).textContent()).toContain('photo.png');
      expect(await page.getByRole('alert').count()).toBe(0);
      expect(errors).toEqual([]);
    } finally {
      await context.close();
    }
  });

  it('shows progress for a large import, cancels it midway keeping whole conversations, and finds an imported message', async () => {
    const { context, page, errors } = await newPage(browser);
    try {
      page.setDefaultTimeout(60_000);
      await openApp(page, appUrl);
      const count = 1500;
      const perConversation = 30;
      const data = Array.from({ length: count }, (_, n) =>
        chatGptConversation(n, perConversation, (i) => (n === 7 && i === 5 ? 'The quartzite lighthouse keeper' : `Message ${i} of conversation ${n}`)),
      );
      await page
        .getByLabel('Import file')
        .setInputFiles({ name: 'conversations.json', mimeType: 'application/json', buffer: Buffer.from(JSON.stringify(data)) });
      const bar = page.getByRole('progressbar', { name: 'Importing conversations.json' });
      await page.waitForFunction(() => {
        const text = document.querySelector('[role=progressbar]')?.getAttribute('aria-valuetext') ?? '';
        const written = /^Writing (\d[\d,]*) of/.exec(text);
        return written !== null && Number(written[1]!.replace(/,/g, '')) >= 100;
      });
      expect(Number(await bar.getAttribute('aria-valuenow'))).toBeGreaterThan(0);
      // The app stays usable: the search box takes typing while it writes.
      await page.getByRole('searchbox', { name: 'Search conversations' }).fill('typing while importing');
      await page.getByRole('searchbox', { name: 'Search conversations' }).fill('');
      await screenshot(page, 'import-progress-desktop');
      await page.setViewportSize({ width: 390, height: 844 });
      await screenshot(page, 'import-progress-phone');
      await page.setViewportSize({ width: 1280, height: 800 });
      await page.getByRole('button', { name: 'Cancel' }).click();
      const notice = page.getByRole('status').filter({ hasText: 'Import of conversations.json cancelled after' });
      await notice.waitFor();
      expect(await notice.textContent()).toMatch(/what was imported is kept\. Import the file again to continue — conversations already here are skipped\./);
      await bar.waitFor({ state: 'detached' });

      const counts = Object.values(await storedCounts(page));
      expect(counts.length).toBeGreaterThanOrEqual(100);
      expect(counts.length).toBeLessThan(count);
      expect(counts.length % 50).toBe(0); // whole batches of whole conversations
      expect(counts.every((n) => n === perConversation)).toBe(true);

      await page.getByRole('searchbox', { name: 'Search conversations' }).fill('quartzite lighth');
      const hit = page.getByRole('navigation', { name: 'Conversations' }).locator('.conversation-link').filter({ hasText: 'ChatGPT conversation 7' });
      await hit.waitFor();
      expect(await hit.textContent()).toContain('quartzite lighthouse');

      // A lost index is rebuilt on the next visit, and the sidebar says so while it is.
      const stored = counts.reduce((sum, n) => sum + n, 0);
      await expect.poll(() => savedSearchIndex(page), { timeout: 20_000 }).toBe(stored);
      await savedSearchIndex(page, true);
      await page.addInitScript(recordSearchStatus);
      await page.reload();
      const status = page.getByRole('navigation', { name: 'Conversations' }).getByRole('status');
      await page.waitForFunction(() => (window as unknown as { searchStatusSeen: string[] }).searchStatusSeen.length > 0, undefined, { timeout: 20_000 });
      await status.waitFor({ state: 'detached' });
      const seen = await page.evaluate(() => (window as unknown as { searchStatusSeen: string[] }).searchStatusSeen);
      expect(seen[0]).toMatch(new RegExp(`^Indexing messages for search… [\\d,]+ of ${stored.toLocaleString('en-US')}$`));
      expect(await status.count()).toBe(0);
      await page.getByRole('searchbox', { name: 'Search conversations' }).fill('quartzite lighth');
      await hit.waitFor();
      expect(errors).toEqual([]);
    } finally {
      await context.close();
    }
  });
});
