// The page is never blank in Chromium: an imported answer that is a render bomb (6,000
// nested quotes, 100 KB of emphasis marks) shows as plain text, before and after a reload
// that reopens it; stored messages another version wrote in a form this one cannot read are
// left out with a notice, and the rest of the conversation shows.
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { launchBrowser, newPage, screenshot } from './browser';
import { openApp, openConversation, reloadApp } from './persistenceHelpers';

let browser: Browser;
beforeAll(async () => {
  browser = await launchBrowser();
});
afterAll(async () => {
  await browser?.close();
});

function windowpaneFile(title: string, answers: string[]): string {
  const conversationId = 'c-hostile';
  const messages = ['show me', ...answers].map((text, seq) => ({
    id: `m-${seq}`,
    conversationId,
    seq,
    role: seq % 2 === 0 ? 'user' : 'assistant',
    kind: 'message',
    content: [{ type: 'text', text }],
    createdAt: 1_700_000_000_000 + seq,
    status: 'complete',
  }));
  const conversation = { id: conversationId, title, createdAt: 1_700_000_000_000, updatedAt: 1_700_000_000_100, messageCount: messages.length };
  return JSON.stringify({ format: 'windowpane', version: 1, exportedAt: 1_700_000_000_200, conversations: [{ conversation, messages }] });
}

describe('render bombs in Chromium', () => {
  it('an imported answer of 6,000 nested quotes shows as plain text, and the page is not blank after a reload', async () => {
    const { context, page, errors } = await newPage(browser);
    try {
      await openApp(page, inject('appUrl'));
      const text = windowpaneFile('Quote bomb', [`${'>'.repeat(6000)} deep`]);
      await page.getByLabel('Import file').setInputFiles({ name: 'bomb.json', mimeType: 'application/json', buffer: Buffer.from(text) });
      await openConversation(page, 'Quote bomb');
      const answer = page.getByRole('article', { name: 'Assistant message' });
      await answer.getByText('Shown as plain text: it nests more than 32 quotes or lists.').waitFor();
      await screenshot(page, 'render-bomb-quotes');
      await reloadApp(page);
      await page.getByRole('article', { name: 'Assistant message' }).getByText('Shown as plain text').waitFor();
      expect(await page.getByRole('textbox', { name: 'Message' }).isVisible()).toBe(true);
      expect(errors).toEqual([]);
    } finally {
      await context.close();
    }
  });

  it('100 KB of emphasis marks does not hold the page: the composer takes typing at once', async () => {
    const { context, page, errors } = await newPage(browser);
    try {
      await openApp(page, inject('appUrl'));
      const text = windowpaneFile('Emphasis storm', ['*_'.repeat(50_000)]);
      await page.getByLabel('Import file').setInputFiles({ name: 'storm.json', mimeType: 'application/json', buffer: Buffer.from(text) });
      await openConversation(page, 'Emphasis storm');
      await page
        .getByRole('article', { name: 'Assistant message' })
        .getByText(/Shown as plain text: it is longer than 50,000 characters/)
        .waitFor();
      await page.getByRole('textbox', { name: 'Message' }).fill('still responsive');
      expect(await page.getByRole('textbox', { name: 'Message' }).inputValue()).toBe('still responsive');
      expect(errors).toEqual([]);
    } finally {
      await context.close();
    }
  });

  it('stored messages this version cannot read are left out with a notice, and the conversation still shows', async () => {
    const { context, page } = await newPage(browser);
    try {
      await openApp(page, inject('appUrl'));
      await page
        .getByLabel('Import file')
        .setInputFiles({ name: 'two.json', mimeType: 'application/json', buffer: Buffer.from(windowpaneFile('Will break', ['fine so far', 'kept'])) });
      await openConversation(page, 'Will break');
      // Another version (or a hand edit) leaves a record planning cannot read.
      await page.evaluate(
        () =>
          new Promise<void>((resolve, reject) => {
            const open = indexedDB.open('windowpane');
            open.onsuccess = () => {
              const tx = open.result.transaction('messages', 'readwrite');
              const store = tx.objectStore('messages');
              const all = store.getAll();
              all.onsuccess = () => {
                for (const record of all.result as { content: unknown; seq: number }[]) if (record.seq < 2) store.put({ ...record, content: [null] });
              };
              tx.oncomplete = () => {
                open.result.close();
                resolve();
              };
              tx.onerror = () => reject(tx.error);
            };
          }),
      );
      await reloadApp(page);
      await page.getByText('2 stored messages are in a form this version cannot read, so they are left out here').waitFor();
      await page.getByRole('article', { name: 'User message' }).getByText('kept').waitFor();
      await screenshot(page, 'never-blank-unreadable');
      expect(await page.getByRole('textbox', { name: 'Message' }).isVisible()).toBe(true);
    } finally {
      await context.close();
    }
  });
});
