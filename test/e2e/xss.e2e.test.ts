// The XSS corpus in real Chromium: imported as conversation titles, user and assistant
// messages, tool calls and their output, then every conversation opened and the tool rows
// in view expanded (the transcript is virtualized; test/security/xss.test.tsx renders every
// payload in every place). No dialog may open, no canary be set, no error be logged.
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { XSS_CORPUS } from '../security/xssCorpus';
import { launchBrowser, newPage, screenshot } from './browser';
import { openApp } from './persistenceHelpers';

let browser: Browser;
beforeAll(async () => {
  browser = await launchBrowser();
});
afterAll(async () => {
  await browser?.close();
});

const T0 = 1_700_000_000_000;

/** A Windowpane export of `chunks` conversations, each carrying its share of the payloads everywhere. */
function hostileExport(payloads: string[], chunks: number): string {
  const size = Math.ceil(payloads.length / chunks);
  const conversations = Array.from({ length: chunks }, (_, c) => {
    const id = `c-xss-${c}`;
    const mine = payloads.slice(c * size, (c + 1) * size);
    const messages = mine
      .flatMap((payload, i) => [
        { role: 'user', content: [{ type: 'text', text: payload }] },
        {
          role: 'assistant',
          content: [
            { type: 'text', text: payload },
            { type: 'tool_use', id: `t-${c}-${i}`, name: 'run_javascript', input: { code: payload } },
          ],
        },
        { role: 'user', content: [{ type: 'tool_result', tool_use_id: `t-${c}-${i}`, content: payload }] },
        { role: 'assistant', content: [{ type: 'text', text: `done ${i}` }] },
      ])
      .map((m, seq) => ({ id: `${id}-m${seq}`, conversationId: id, seq, kind: 'message', createdAt: T0 + seq, status: 'complete', ...m }));
    return { conversation: { id, title: `XSS ${c} ${mine[0]}`, createdAt: T0, updatedAt: T0 + c, messageCount: messages.length }, messages };
  });
  return JSON.stringify({ format: 'windowpane', version: 1, exportedAt: T0, conversations });
}

describe('XSS payloads in Chromium', () => {
  it('imported everywhere, opened and expanded, none runs', async () => {
    const { context, page, errors } = await newPage(browser);
    const dialogs: string[] = [];
    page.on('dialog', (dialog) => {
      dialogs.push(dialog.message());
      void dialog.dismiss();
    });
    try {
      await openApp(page, inject('appUrl'));
      const chunks = 4;
      await page
        .getByLabel('Import file')
        .setInputFiles({ name: 'xss.json', mimeType: 'application/json', buffer: Buffer.from(hostileExport(Object.values(XSS_CORPUS), chunks)) });
      await page.getByText(`Imported ${chunks} conversations`).waitFor();
      const titles = await page
        .getByRole('navigation', { name: 'Conversations' })
        .getByRole('button', { name: /^XSS \d/ })
        .allInnerTexts();
      expect(titles).toHaveLength(chunks);
      for (let c = 0; c < chunks; c++) {
        await page
          .getByRole('navigation', { name: 'Conversations' })
          .getByRole('button', { name: new RegExp(`^XSS ${c} `) })
          .first()
          .click();
        await page.getByRole('article', { name: 'Assistant message' }).first().waitFor();
        // Open every tool row in view, so arguments and output show too.
        for (const row of await page.locator('.tool-call-toggle[aria-expanded="false"]').all()) await row.click({ timeout: 2000 }).catch(() => undefined);
      }
      await screenshot(page, 'xss-imported');
      expect(await page.evaluate(() => (window as unknown as { __pwned?: unknown }).__pwned)).toBeUndefined();
      expect(dialogs).toEqual([]);
      expect(errors).toEqual([]);
    } finally {
      await context.close();
    }
  });
});
