/**
 * Export and import in real Chromium: files saved through the Export menu are
 * the user's conversations without their API key, and a fresh browser profile importing
 * them gets the same conversations, once, while a broken file changes nothing.
 */
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { startFakeApi, type FakeApi } from '../fake-api/server';
import { launchBrowser, newPage, screenshot } from './browser';
import {
  conversationTitles,
  exportFile,
  importFile,
  openApp,
  openConversation,
  openSettings,
  reloadApp,
  sendAndWait,
  transcriptRows,
  useFakeAnthropic,
} from './persistenceHelpers';

/** What a transcript says, whatever the viewer's settings: who, status and text of each message and summary. */
function said(rows: string[]): string[] {
  return rows.filter((row) => !row.startsWith('note:')).map((row) => row.replace(/ not-sent\]/, ']').replace(/ \{[^}]*\} /, ' '));
}

describe('export and import in Chromium', () => {
  let browser: Browser;
  let fake: FakeApi;
  const appUrl = inject('appUrl');
  beforeAll(async () => {
    [browser, fake] = await Promise.all([launchBrowser(), startFakeApi()]);
  });
  afterAll(async () => {
    await Promise.all([browser?.close(), fake?.close()]);
  });

  it('exports JSON and Markdown without the API key, and a fresh profile imports the same conversations once', async () => {
    const apiKey = 'sk-ant-export-must-never-contain-this-4242';
    const { page, context, errors } = await newPage(browser);
    page.setDefaultTimeout(10_000);
    await openApp(page, appUrl);
    // Enough messages under a small count cap to store a summary and leave some messages unsent.
    await useFakeAnthropic(page, fake.url, apiKey, { strategy: 'count', summarize: true, maxMessages: 4, preserveFirst: 1, preserveLast: 2 });
    const title = 'Export me: a conversation worth keeping';
    await sendAndWait(page, title);
    for (let turn = 2; turn <= 8; turn++) await sendAndWait(page, `Point ${turn} worth keeping`);
    await page.getByRole('article', { name: 'Conversation summary' }).waitFor();
    await page.getByRole('button', { name: 'New chat' }).click();
    await sendAndWait(page, 'A second conversation to export');
    await openConversation(page, title);
    const original = await transcriptRows(page);
    expect(original.some((row) => row.includes('not-sent'))).toBe(true);

    const oneJson = await exportFile(page, 'This conversation (JSON)');
    const oneMarkdown = await exportFile(page, 'This conversation (Markdown)');
    const allJson = await exportFile(page, 'All conversations (JSON)');
    const allMarkdown = await exportFile(page, 'All conversations (Markdown)');
    for (const file of [oneJson, oneMarkdown, allJson, allMarkdown]) {
      expect(file.text).not.toContain(apiKey);
      expect(file.text).not.toContain('sk-ant-');
    }
    expect(oneJson.name).toMatch(/^export-me-a-conversation-worth-keeping-\d{4}-\d{2}-\d{2}\.json$/);
    expect(oneMarkdown.name).toMatch(/\.md$/);

    const one = JSON.parse(oneJson.text) as {
      format: string;
      version: number;
      conversations: Array<{
        conversation: { title: string };
        messages: Array<{ kind: string; covers?: string[]; usage?: unknown; model?: string; createdAt: number }>;
      }>;
    };
    expect(one.format).toBe('windowpane');
    expect(one.conversations.map((c) => c.conversation.title)).toEqual([title]);
    const messages = one.conversations[0]!.messages;
    expect(messages.filter((m) => m.kind === 'message')).toHaveLength(16);
    const summary = messages.find((m) => m.kind === 'summary');
    expect(summary?.covers?.length).toBeGreaterThanOrEqual(10);
    expect(messages.filter((m) => m.usage !== undefined && m.model !== undefined).length).toBeGreaterThanOrEqual(8);
    const all = JSON.parse(allJson.text) as typeof one;
    expect(all.conversations.map((c) => c.conversation.title).sort()).toEqual(['A second conversation to export', title]);

    // Markdown: readable, the summary and the unsent messages marked as such.
    expect(oneMarkdown.text).toContain(`# ${title}`);
    expect(oneMarkdown.text).toContain('Point 8 worth keeping');
    expect(oneMarkdown.text).toMatch(/\*\*Conversation Summary \(covers \d+ messages\)\*\*/);
    expect(oneMarkdown.text).toContain('Trim marker');
    expect(allMarkdown.text).toContain('# A second conversation to export');

    // A fresh browser profile: its own, empty IndexedDB.
    const fresh = await newPage(browser);
    fresh.page.setDefaultTimeout(10_000);
    await openApp(fresh.page, appUrl);
    expect(await conversationTitles(fresh.page)).toEqual([]);
    await importFile(fresh.page, oneJson);
    await fresh.page
      .getByRole('status')
      .filter({ hasText: `Imported 1 conversation from ${oneJson.name}` })
      .waitFor();
    await fresh.page.getByRole('heading', { level: 1, name: title }).waitFor();
    const imported = await transcriptRows(fresh.page);
    expect(said(imported)).toEqual(said(original));
    await screenshot(fresh.page, 'persistence-imported');

    // The same file again adds nothing; the file of all conversations adds only the one not here yet.
    await importFile(fresh.page, oneJson);
    await fresh.page.getByRole('status').filter({ hasText: '1 already here, skipped' }).waitFor();
    expect(await conversationTitles(fresh.page)).toEqual([title]);
    await importFile(fresh.page, allJson);
    await fresh.page
      .getByRole('status')
      .filter({ hasText: `Imported 1 conversation, 1 already here, skipped from ${allJson.name}` })
      .waitFor();
    expect((await conversationTitles(fresh.page)).sort()).toEqual(['A second conversation to export', title]);

    // Broken files: a clear error, and nothing changes.
    const before = { titles: await conversationTitles(fresh.page), rows: await transcriptRows(fresh.page) };
    for (const broken of [
      { name: 'truncated.json', text: oneJson.text.slice(0, Math.floor(oneJson.text.length / 2)) },
      { name: 'not-an-export.json', text: '{"hello": "world"}' },
      {
        name: 'bad-role.json',
        text: JSON.stringify({ ...one, conversations: [{ ...one.conversations[0], messages: [{ ...messages[0], role: 'narrator' }] }] }),
      },
    ]) {
      await importFile(fresh.page, broken);
      const alert = fresh.page.getByRole('alert').filter({ hasText: `Nothing was imported from ${broken.name}` });
      await alert.waitFor();
      expect((await alert.textContent())!.length).toBeGreaterThan(`Nothing was imported from ${broken.name}: `.length + 10);
    }
    await screenshot(fresh.page, 'persistence-import-errors');
    expect(await conversationTitles(fresh.page)).toEqual(before.titles);
    expect(await transcriptRows(fresh.page)).toEqual(before.rows);

    // What was imported is stored, and the key the other profile typed is nowhere here.
    await reloadApp(fresh.page);
    // The import of all conversations opened the one it added; the reload reopens it.
    await fresh.page.getByRole('heading', { level: 1, name: 'A second conversation to export' }).waitFor();
    await openConversation(fresh.page, title);
    expect(said(await transcriptRows(fresh.page))).toEqual(said(original));
    const dialog = await openSettings(fresh.page);
    await dialog.getByLabel('Provider', { exact: true }).selectOption('anthropic');
    expect(await dialog.getByLabel('API key').inputValue()).toBe('');
    await dialog.getByRole('button', { name: 'Cancel' }).click();

    expect(errors).toEqual([]);
    expect(fresh.errors).toEqual([]);
    await Promise.all([context.close(), fresh.context.close()]);
  });
});
