/**
 * Attachments and tool rows in real Chromium, through the built app against the fake
 * provider API: a user attaches a log with the file picker, asks about it, the model reads
 * a line range with read_attachment, and the answer comes with a collapsed tool row that
 * opens to exactly those lines. The file is in IndexedDB, not the prompt, and survives a
 * reload. Screenshots of the composer and the rows at desktop and phone width.
 */
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { startFakeApi, type FakeApi, type ReplyContext, type ReplySpec } from '../fake-api/server';
import { launchBrowser, newPage, screenshot } from './browser';
import { chatRequests, configure, PROVIDER_SETUPS, unexpectedErrors, until, waitIdle } from './providersHelpers';
import { openApp, seriousAxeViolations } from './uiHelpers';

const LOG_LINES = Array.from({ length: 600 }, (_, i) =>
  i + 1 === 212
    ? '2026-11-23T04:12:09Z ERROR storage: disk full on /var/lib/app (0 bytes free)'
    : `2026-11-23T04:${String(Math.floor(i / 60)).padStart(2, '0')}:${String(i % 60).padStart(2, '0')}Z INFO worker ${i % 7}: handled request ${1000 + i}`,
);
const LOG = `${LOG_LINES.join('\n')}\n`;

/** The text of the newest tool result in an Anthropic request, whatever shape its content has. */
function lastToolResult(body: Record<string, unknown>): string {
  const messages = body.messages as Array<{ role: string; content: unknown }>;
  for (const message of [...messages].reverse()) {
    if (!Array.isArray(message.content)) continue;
    for (const block of message.content as Array<{ type: string; content?: unknown }>) {
      if (block.type !== 'tool_result') continue;
      return typeof block.content === 'string' ? block.content : (block.content as Array<{ text?: string }>).map((b) => b.text ?? '').join('');
    }
  }
  return '';
}

/** A model that reads lines 210–215 of server.log when asked, then answers with what line 212 said. */
function logReader(context: ReplyContext): ReplySpec | undefined {
  if (context.isSummaryRequest || !context.toolNames.includes('read_attachment')) return undefined;
  if (!context.answersToolResults) {
    return {
      text: 'I will read the lines around 212.',
      toolCalls: [{ name: 'read_attachment', input: { name: 'server.log', start_line: 210, end_line: 215 } }],
    };
  }
  // The line with the error, with or without a line-number prefix.
  const line212 = /^(?:212\t)?(.*ERROR.*)$/m.exec(lastToolResult(context.body))?.[1] ?? 'nothing';
  return { text: `Line 212 of server.log says: ${line212}` };
}

async function attachWithPicker(page: Page, files: Array<{ name: string; text: string }>): Promise<void> {
  const [chooser] = await Promise.all([page.waitForEvent('filechooser'), page.getByRole('button', { name: 'Attach files' }).click()]);
  expect(chooser.isMultiple()).toBe(true);
  await chooser.setFiles(files.map((f) => ({ name: f.name, mimeType: 'text/plain', buffer: Buffer.from(f.text) })));
}

const chips = (page: Page) => page.getByRole('list', { name: 'Attached files' }).getByRole('listitem');

describe('attachments and tool rows in Chromium against the fake API', () => {
  let browser: Browser;
  let fake: FakeApi;
  beforeAll(async () => {
    [browser, fake] = await Promise.all([launchBrowser(), startFakeApi({ contextWindow: 50_000, deltaDelayMs: 2 })]);
  });
  afterAll(async () => {
    await Promise.all([browser?.close(), fake?.close()]);
  });

  it(
    'attaches a log, the model reads lines 210–215, and the answer comes with a collapsed row that opens to those lines; all of it survives a reload',
    { timeout: 90_000 },
    async () => {
      fake.reset();
      fake.setReply(logReader);
      const { context, page, errors } = await newPage(browser);
      await openApp(page, inject('appUrl'));
      await configure(page, fake, PROVIDER_SETUPS.anthropic, { contextWindow: 50_000 });

      // Attach through the file picker, in a new chat: the conversation is created and named after the file.
      await attachWithPicker(page, [
        { name: 'server.log', text: LOG },
        { name: 'notes.md', text: '# Incident notes\n\nDisk alerts were muted.\n' },
      ]);
      await expect.poll(() => chips(page).allTextContents()).toEqual(['server.log33 KB×', 'notes.md42 B×']);
      await expect.poll(() => page.getByRole('navigation', { name: 'Conversations' }).getByRole('button', { name: 'server.log', exact: true }).count()).toBe(1);
      const box = page.getByRole('textbox', { name: 'Message' });
      await box.fill('What went wrong around line 212 of the log?');
      await screenshot(page, 'tools-composer-attachments');

      await page.getByRole('button', { name: 'Send' }).click();
      await until(() => chatRequests(fake).length === 2, 'the question and the answer after the tool result');
      await waitIdle(page);

      // Two requests, both accepted by the fake; the file text went only in the tool result, never in the prompt.
      const requests = chatRequests(fake);
      expect(requests).toHaveLength(2);
      for (const request of requests) expect(request.validation).toEqual({ ok: true });
      expect(JSON.stringify(requests[0]!.body)).not.toContain('disk full');
      const read = lastToolResult(requests[1]!.body as Record<string, unknown>);
      for (const line of LOG_LINES.slice(209, 215)) expect(read).toContain(line);
      expect(read).not.toContain(LOG_LINES[208]!);
      expect(read).not.toContain(LOG_LINES[215]!);

      const transcript = page.getByRole('log', { name: 'Transcript' });
      await transcript.getByText('Line 212 of server.log says: 2026-11-23T04:12:09Z ERROR storage: disk full on /var/lib/app (0 bytes free)').waitFor();
      // The result is under its call, not a "You" bubble of its own.
      expect(await transcript.getByRole('article', { name: 'User message' }).count()).toBe(1);
      const row = transcript.getByRole('button', { name: /^read_attachment server\.log lines 210–215/ });
      expect(await row.getAttribute('aria-expanded')).toBe('false');
      const details = page.locator(`[id="${await row.getAttribute('aria-controls')}"]`);
      expect(await details.isVisible()).toBe(false);
      await screenshot(page, 'tools-row-collapsed');

      await row.click();
      expect(await row.getAttribute('aria-expanded')).toBe('true');
      await details.waitFor({ state: 'visible' });
      const shown = await details.innerText();
      for (const line of LOG_LINES.slice(209, 215)) expect(shown).toContain(line);
      expect(shown).not.toContain(LOG_LINES[208]!);
      expect(shown).not.toContain(LOG_LINES[215]!);
      expect(shown).toMatch(/"start_line": 210/);
      await screenshot(page, 'tools-row-expanded');
      expect(await seriousAxeViolations(page)).toEqual([]);
      await page.emulateMedia({ colorScheme: 'dark' });
      await screenshot(page, 'tools-row-expanded-dark');
      expect(await seriousAxeViolations(page)).toEqual([]);
      await page.emulateMedia({ colorScheme: 'light' });

      // Keyboard: the row closes with Enter from where focus is.
      await row.focus();
      await page.keyboard.press('Enter');
      expect(await row.getAttribute('aria-expanded')).toBe('false');

      // Phone width: the chips, the row and the composer still fit the screen.
      await page.setViewportSize({ width: 390, height: 844 });
      await row.scrollIntoViewIfNeeded();
      await screenshot(page, 'tools-row-collapsed-phone');
      await row.click();
      await details.waitFor({ state: 'visible' });
      await row.scrollIntoViewIfNeeded();
      await screenshot(page, 'tools-row-expanded-phone');
      const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
      expect(overflow).toBe(0);
      expect(await seriousAxeViolations(page)).toEqual([]);
      await page.setViewportSize({ width: 1280, height: 800 });

      // A reload reopens the conversation with its files and its tool row.
      await page.reload();
      await box.waitFor();
      await expect.poll(() => chips(page).allTextContents()).toEqual(['server.log33 KB×', 'notes.md42 B×']);
      await transcript.getByRole('button', { name: /^read_attachment server\.log lines 210–215/ }).waitFor();
      expect(unexpectedErrors(errors)).toEqual([]);
      await context.close();
    },
  );

  it('marks old results the next request sends as placeholders "cleared from context — not sent"', { timeout: 90_000 }, async () => {
    const WINDOW = 6000;
    const small = await startFakeApi({ contextWindow: WINDOW, deltaDelayMs: 1 });
    try {
      const build = Array.from({ length: 400 }, (_, i) => `step ${i + 1}: compiled module number ${i + 1} of the build without warnings`).join('\n');
      let reads = 0;
      small.setReply((context) => {
        if (context.isSummaryRequest || !context.toolNames.includes('read_attachment')) return undefined;
        if (reads === 8) return { text: 'No error in build.log.' };
        reads++;
        return { toolCalls: [{ name: 'read_attachment', input: { name: 'build.log', start_line: (reads - 1) * 40 + 1, end_line: reads * 40 } }] };
      });
      const { context, page, errors } = await newPage(browser);
      await openApp(page, inject('appUrl'));
      await configure(page, small, PROVIDER_SETUPS.anthropic, { contextWindow: WINDOW, maxOutputTokens: 500 });
      await attachWithPicker(page, [{ name: 'build.log', text: build }]);
      await expect.poll(() => chips(page).count()).toBe(1);
      await page.getByRole('textbox', { name: 'Message' }).fill('Is there an error in build.log?');
      await page.getByRole('button', { name: 'Send' }).click();
      await page.getByText('No error in build.log.').waitFor({ timeout: 30_000 });
      await waitIdle(page);

      // Every request was valid.
      const requests = chatRequests(small);
      expect(requests).toHaveLength(9);
      for (const request of requests) expect(request.validation).toEqual({ ok: true });
      const rows = page.getByRole('log', { name: 'Transcript' }).getByRole('button', { name: /^read_attachment build\.log lines/ });
      const marks = async () =>
        (await rows.evaluateAll((buttons) => buttons.map((b) => b.textContent ?? ''))).map((name) => name.endsWith('cleared from context — not sent'));
      // The marks show the plan of the next request, as the gauge does: type one, then send it.
      const box = page.getByRole('textbox', { name: 'Message' });
      await box.fill('Thanks. Anything else?');
      await page.waitForTimeout(300);
      const cleared = await marks();
      expect(cleared).toHaveLength(8);
      expect(cleared[0]).toBe(true);
      expect(cleared.slice(-3)).toEqual([false, false, false]);
      const before = chatRequests(small).length;
      await box.press('Enter');
      await until(() => chatRequests(small).length > before, 'the request of the follow-up');
      await waitIdle(page);
      const next = chatRequests(small).at(-1)!;
      expect(next.validation).toEqual({ ok: true });
      const sent = (
        (next.body as { messages: Array<{ content: unknown }> }).messages.flatMap((m) => (Array.isArray(m.content) ? m.content : [])) as Array<{
          type: string;
          content?: unknown;
        }>
      ).filter((b) => b.type === 'tool_result');
      expect(sent.map((b) => JSON.stringify(b.content).includes('tool result cleared to save context'))).toEqual(cleared);
      await rows.first().scrollIntoViewIfNeeded();
      await screenshot(page, 'tools-rows-cleared');
      expect(await seriousAxeViolations(page)).toEqual([]);
      expect(unexpectedErrors(errors)).toEqual([]);
      await context.close();
    } finally {
      await small.close();
    }
  });

  it('shows the phone composer with files attached', { timeout: 60_000 }, async () => {
    const { context, page, errors } = await newPage(browser, { viewport: { width: 390, height: 844 } });
    await openApp(page, inject('appUrl'));
    await attachWithPicker(page, [
      { name: 'a-rather-long-file-name-from-the-build-server.log', text: 'ok\n'.repeat(2000) },
      { name: 'data.csv', text: 'a,b\n1,2\n' },
    ]);
    await expect.poll(() => chips(page).count()).toBe(2);
    await page.getByRole('textbox', { name: 'Message' }).fill('Compare the two files.');
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
    expect(overflow).toBe(0);
    expect(await page.getByRole('button', { name: 'Send' }).isVisible()).toBe(true);
    await screenshot(page, 'tools-composer-attachments-phone');
    expect(await seriousAxeViolations(page)).toEqual([]);
    expect(unexpectedErrors(errors)).toEqual([]);
    await context.close();
  });
});
