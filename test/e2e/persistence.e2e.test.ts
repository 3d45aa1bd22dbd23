/**
 * Persistence in real Chromium with real IndexedDB: what a user wrote survives reloads,
 * interrupted streams, a second tab, and storage that fills up. The mid-stream reload uses
 * the Demo provider (the first-run default, streaming for about two seconds); the others
 * point Settings at the local fake Anthropic API, whose short answers keep the file fast.
 */
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { startFakeApi, type FakeApi } from '../fake-api/server';
import { launchBrowser, newPage, screenshot } from './browser';
import {
  conversationTitles,
  gaugeState,
  openApp,
  openConversation,
  openSettings,
  reloadApp,
  sendAndWait,
  transcriptRows,
  typeAndSend,
  useFakeAnthropic,
  waitForAnswer,
} from './persistenceHelpers';
import { openSettingsSection } from './uiHelpers';

describe('persistence in Chromium', () => {
  let browser: Browser;
  let fake: FakeApi;
  const appUrl = inject('appUrl');
  beforeAll(async () => {
    [browser, fake] = await Promise.all([launchBrowser(), startFakeApi()]);
  });
  afterAll(async () => {
    await Promise.all([browser?.close(), fake?.close()]);
  });

  it('with IndexedDB refused, the tab says nothing will be kept and still chats and searches in memory', async () => {
    const { page, context, errors } = await newPage(browser);
    page.setDefaultTimeout(10_000);
    // As a browser that blocks site storage does: every open of IndexedDB fails.
    await page.addInitScript(() => {
      IDBFactory.prototype.open = () => {
        throw new DOMException('The user denied permission to access the database.', 'UnknownError');
      };
    });
    await openApp(page, appUrl);
    await page.getByRole('alert').filter({ hasText: 'Nothing you write now will be kept after you close this tab.' }).waitFor();
    const question = 'Which climbing plants cope with a north-facing wall in a windy garden? Thinking of ivy.';
    await sendAndWait(page, question);
    await page.getByRole('searchbox', { name: 'Search conversations' }).fill('ivy');
    await page.getByRole('navigation', { name: 'Conversations' }).getByText('Thinking of ivy', { exact: false }).waitFor();
    await screenshot(page, 'persistence-in-memory');
    expect(errors).toEqual([]);
    await context.close();
  });

  it('a reload keeps conversations, messages, titles, the summary and settings exactly as shown', async () => {
    const { page, context, errors } = await newPage(browser);
    page.setDefaultTimeout(10_000);
    await openApp(page, appUrl);

    // A small count cap with summaries on, so sixteen messages produce a stored summary
    // (a summary needs 10 evicted messages). The fake API answers in milliseconds.
    await useFakeAnthropic(page, fake.url, 'sk-ant-persistence-reload', {
      strategy: 'count',
      summarize: true,
      maxMessages: 4,
      preserveFirst: 1,
      preserveLast: 2,
    });

    await sendAndWait(page, 'First conversation: how do context windows work?');
    for (let turn = 2; turn <= 8; turn++) await sendAndWait(page, `Question ${turn} about the window`);
    await page.getByRole('article', { name: 'Conversation summary' }).waitFor();

    await page.getByRole('button', { name: 'New chat' }).click();
    await sendAndWait(page, 'Second conversation about token budgets');
    await openConversation(page, 'First conversation: how do context windows work?');

    const before = {
      titles: await conversationTitles(page),
      rows: await transcriptRows(page),
      gauge: await gaugeState(page),
    };
    expect(before.titles).toEqual(['Second conversation about token budgets', 'First conversation: how do context windows work?']);
    expect(before.rows.filter((row) => row.startsWith('User message'))).toHaveLength(8);
    expect(before.rows.filter((row) => row.startsWith('Assistant message'))).toHaveLength(8);
    expect(before.rows.some((row) => row.startsWith('Conversation summary') && row.includes('[Conversation Summary]'))).toBe(true);
    await screenshot(page, 'persistence-reload-before');

    await reloadApp(page);
    // The conversation that was open is open again.
    await page.getByRole('heading', { level: 1, name: 'First conversation: how do context windows work?' }).waitFor();
    expect(await conversationTitles(page)).toEqual(before.titles);
    expect(await transcriptRows(page)).toEqual(before.rows);
    expect(await gaugeState(page)).toEqual(before.gauge);
    await screenshot(page, 'persistence-reload-after');

    const dialog = await openSettings(page);
    expect(await dialog.getByLabel('Provider', { exact: true }).inputValue()).toBe('anthropic');
    expect(await dialog.getByLabel('Base URL').inputValue()).toBe(fake.url);
    await openSettingsSection(page, 'Context');
    expect(await dialog.getByLabel('Strategy').inputValue()).toBe('count');
    expect(await dialog.getByLabel('Summarize evicted messages').isChecked()).toBe(true);
    expect(await dialog.getByLabel('Max messages').inputValue()).toBe('4');
    expect(await dialog.getByLabel('Preserve last messages').inputValue()).toBe('2');
    await dialog.getByRole('button', { name: 'Cancel' }).click();

    await openConversation(page, 'Second conversation about token budgets');
    const second = await transcriptRows(page);
    expect(second).toHaveLength(2);
    expect(second[0]).toContain('Second conversation about token budgets');
    expect(errors).toEqual([]);
    await context.close();
  });

  it('a reload mid-stream keeps the partial answer, marked interrupted, and the conversation keeps working', async () => {
    const { page, context, errors } = await newPage(browser);
    page.setDefaultTimeout(10_000);
    await openApp(page, appUrl);
    // The Demo provider (the first-run default) streams its answer over about two seconds.
    await typeAndSend(page, 'Tell me how Windowpane decides what to send');
    const streaming = page.locator('article[aria-label="Assistant message"][data-status="streaming"]');
    // Reload within the writer's first 500 ms interval, so only the flush on the way out can keep the text.
    await page.waitForFunction(
      () => (document.querySelector('article[aria-label="Assistant message"][data-status="streaming"] .message-body')?.textContent ?? '').length > 40,
    );
    const shown = ((await streaming.locator('.message-body').textContent()) ?? '').trim();
    await reloadApp(page);
    await page.getByRole('heading', { level: 1, name: 'Tell me how Windowpane decides what to send' }).waitFor();
    const interrupted = page.locator('article[aria-label="Assistant message"][data-status="interrupted"]');
    await interrupted.waitFor();
    expect(await interrupted.locator('.badge-status').textContent()).toMatch(/^Interrupted/);
    const kept = ((await interrupted.locator('.message-body').textContent()) ?? '').trim();
    // Everything shown before the reload is kept (the page keeps a copy of the stream as it goes away).
    expect(kept.slice(0, shown.length)).toBe(shown);
    expect(await page.getByRole('status').filter({ hasText: 'interrupted when the page closed' }).count()).toBe(1);
    await screenshot(page, 'persistence-midstream-after-reload');

    await sendAndWait(page, 'Please go on');
    const rows = await transcriptRows(page);
    expect(rows.map((row) => row.slice(0, row.indexOf(']') + 1))).toEqual([
      'User message [complete]',
      'Assistant message [interrupted]',
      'User message [complete]',
      'Assistant message [complete]',
    ]);
    await reloadApp(page);
    await page.getByRole('heading', { level: 1, name: 'Tell me how Windowpane decides what to send' }).waitFor();
    expect(await transcriptRows(page)).toEqual(rows);
    expect(errors).toEqual([]);
    await context.close();
  });

  it("two tabs on one conversation show each other's messages, renames and deletes without a reload, and lose nothing", async () => {
    const { page: tabA, context, errors } = await newPage(browser);
    tabA.setDefaultTimeout(10_000);
    await openApp(tabA, appUrl);
    await useFakeAnthropic(tabA, fake.url, 'sk-ant-two-tabs');
    const title = 'Planning a trip in two tabs';
    await sendAndWait(tabA, title);

    const tabB = await context.newPage();
    tabB.setDefaultTimeout(10_000);
    tabB.on('pageerror', (error) => errors.push(error.message));
    await openApp(tabB, appUrl);
    await openConversation(tabB, title);
    const rowsB = await transcriptRows(tabB);
    // A user looks at one tab at a time; a tab in the background renders only when brought to the front.
    await tabA.bringToFront();
    expect(await transcriptRows(tabA)).toEqual(rowsB);

    // In turn: each tab's message and answer appear in the other.
    await sendAndWait(tabA, 'Sent from tab A');
    await tabB.bringToFront();
    await waitForAnswer(tabB, 'Sent from tab A');
    await sendAndWait(tabB, 'Sent from tab B');
    await tabA.bringToFront();
    await waitForAnswer(tabA, 'Sent from tab B');

    // At once, both from the same message: each becomes a version of that turn (two branches), none overwrites the other.
    await tabA.getByRole('textbox', { name: 'Message' }).fill('Both at once, from A');
    await tabB.getByRole('textbox', { name: 'Message' }).fill('Both at once, from B');
    await Promise.all([tabA.getByRole('button', { name: 'Send', exact: true }).click(), tabB.getByRole('button', { name: 'Send', exact: true }).click()]);
    await Promise.all([waitForAnswer(tabA, 'Both at once, from A'), waitForAnswer(tabB, 'Both at once, from B')]);
    await tabB.bringToFront();
    await screenshot(tabB, 'persistence-two-tabs-b');
    const rowsAtB = await transcriptRows(tabB);
    await tabA.bringToFront();
    await screenshot(tabA, 'persistence-two-tabs-a');
    const rowsA = await transcriptRows(tabA);
    expect(rowsA.some((row) => row.includes('Both at once, from A'))).toBe(true);
    expect(rowsAtB.some((row) => row.includes('Both at once, from B'))).toBe(true);
    // Whichever tab stored first, both questions and both answers are stored: the two become versions
    // of the same turn, or one follows the other when it reached that tab before its own Send.
    const stored = await tabA.evaluate(
      () =>
        new Promise<{ role: string; text: string; status: string }[]>((resolve, reject) => {
          const open = indexedDB.open('windowpane');
          open.onerror = () => reject(open.error);
          open.onsuccess = () => {
            const read = open.result.transaction('messages').objectStore('messages').getAll();
            read.onerror = () => reject(read.error);
            read.onsuccess = () => {
              open.result.close();
              resolve(
                (read.result as { role: string; status: string; content: { type: string; text?: string }[] }[]).map((m) => ({
                  role: m.role,
                  status: m.status,
                  text: m.content.map((b) => b.text ?? '').join(''),
                })),
              );
            };
          };
        }),
    );
    expect(stored.filter((m) => m.role === 'user').map((m) => m.text)).toEqual(expect.arrayContaining(['Both at once, from A', 'Both at once, from B']));
    expect(stored.filter((m) => m.role === 'user')).toHaveLength(5);
    expect(stored.filter((m) => m.role === 'assistant' && m.status === 'complete')).toHaveLength(5);
    // A reload reopens the branch written last, as one of the two tabs shows it.
    await reloadApp(tabA);
    await tabA.getByRole('heading', { level: 1, name: title }).waitFor();
    const reopened = await transcriptRows(tabA);
    expect([rowsA, rowsAtB]).toContainEqual(reopened);

    // A rename in one tab shows in the other's list and header.
    await tabA.getByRole('button', { name: `Rename ${title}` }).click();
    await tabA.getByRole('textbox', { name: 'Conversation title' }).fill('Trip, renamed in tab A');
    await tabA.getByRole('textbox', { name: 'Conversation title' }).press('Enter');
    await tabB.bringToFront();
    await tabB.getByRole('heading', { level: 1, name: 'Trip, renamed in tab A' }).waitFor();
    expect(await conversationTitles(tabB)).toEqual(['Trip, renamed in tab A']);

    // A delete in the other tab empties this one's list and closes the conversation; Undo brings it back in both.
    await tabB.getByRole('button', { name: 'Delete Trip, renamed in tab A' }).click();
    await tabA.bringToFront();
    await tabA.getByRole('heading', { level: 1, name: 'New chat' }).waitFor();
    expect(await conversationTitles(tabA)).toEqual([]);
    await tabB.bringToFront();
    await tabB.getByRole('status').filter({ hasText: 'Deleted' }).getByRole('button', { name: 'Undo' }).click();
    await tabA.bringToFront();
    await tabA.getByRole('navigation', { name: 'Conversations' }).getByText('Trip, renamed in tab A').waitFor();
    await openConversation(tabA, 'Trip, renamed in tab A');
    expect(await transcriptRows(tabA)).toEqual(reopened);
    expect(errors).toEqual([]);
    await context.close();
  });

  it('search, rename and delete with Undo work in the sidebar and last across a reload', async () => {
    const { page, context, errors } = await newPage(browser);
    page.setDefaultTimeout(10_000);
    await openApp(page, appUrl);
    await useFakeAnthropic(page, fake.url, 'sk-ant-sidebar');
    await sendAndWait(page, 'Apples and pears for the orchard');
    await sendAndWait(page, 'Which variety ripens first?');
    await page.getByRole('button', { name: 'New chat' }).click();
    await sendAndWait(page, 'Budget spreadsheet for March');
    await page.getByRole('button', { name: 'New chat' }).click();
    await sendAndWait(page, 'Notes about the orchard fence');
    expect(await conversationTitles(page)).toEqual(['Notes about the orchard fence', 'Budget spreadsheet for March', 'Apples and pears for the orchard']);

    const search = page.getByRole('searchbox', { name: 'Search conversations' });
    const nav = page.getByRole('navigation', { name: 'Conversations' });
    await search.fill('orchard');
    await expect.poll(() => conversationTitles(page)).toEqual(['Notes about the orchard fence', 'Apples and pears for the orchard']);
    await search.fill('RIPENS'); // only in a message, any case
    await expect.poll(() => conversationTitles(page)).toEqual(['Apples and pears for the orchard']);
    expect(await nav.locator('.conversation-snippet').textContent()).toContain('ripens first');
    expect(await nav.locator('.conversation-snippet mark').textContent()).toBe('ripens');
    // The index answered from its Worker: had the Worker failed, the page would have ended it and searched by itself.
    expect(page.workers().map((w) => w.url())).toEqual(expect.arrayContaining([expect.stringMatching(/searchWorker-[\w-]+\.js$/)]));
    await search.fill('no such words anywhere');
    await nav.getByText('No conversation matches.').waitFor();
    await screenshot(page, 'persistence-search-empty');
    await search.fill('');
    await expect.poll(() => conversationTitles(page)).toHaveLength(3);

    await nav.getByRole('button', { name: 'Rename Budget spreadsheet for March' }).click();
    await nav.getByRole('textbox', { name: 'Conversation title' }).fill('March budget');
    await nav.getByRole('textbox', { name: 'Conversation title' }).press('Enter');
    await nav.getByRole('button', { name: 'Rename March budget' }).waitFor();

    // Delete, then Undo: the conversation comes back whole.
    await nav.getByRole('button', { name: 'Delete Apples and pears for the orchard' }).click();
    await expect.poll(() => conversationTitles(page)).toEqual(['Notes about the orchard fence', 'March budget']);
    const undoNotice = page.getByRole('status').filter({ hasText: 'Deleted “Apples and pears for the orchard”' });
    await screenshot(page, 'persistence-deleted-undo');
    await undoNotice.getByRole('button', { name: 'Undo' }).click();
    await expect.poll(() => conversationTitles(page)).toEqual(['Notes about the orchard fence', 'March budget', 'Apples and pears for the orchard']);
    // Delete the open conversation for good.
    await nav.getByRole('button', { name: 'Delete Notes about the orchard fence' }).click();
    await page.getByRole('heading', { level: 1, name: 'New chat' }).waitFor();

    await reloadApp(page);
    expect(await conversationTitles(page)).toEqual(['March budget', 'Apples and pears for the orchard']);
    await openConversation(page, 'Apples and pears for the orchard');
    const rows = await transcriptRows(page);
    expect(rows.map((row) => row.slice(0, row.indexOf(' ['))).filter((label) => label.endsWith('message'))).toEqual([
      'User message',
      'Assistant message',
      'User message',
      'Assistant message',
    ]);
    await search.fill('ripens');
    await expect.poll(() => conversationTitles(page)).toEqual(['Apples and pears for the orchard']);
    await search.fill('fence'); // its messages went with it
    await nav.getByText('No conversation matches.').waitFor();
    await search.fill('march');
    await expect.poll(() => conversationTitles(page)).toEqual(['March budget']);
    expect(errors).toEqual([]);
    await context.close();
  });

  it('when storage is full the user is told, what is on screen stays, and what was stored is kept', async () => {
    const { page, context, errors } = await newPage(browser);
    page.setDefaultTimeout(10_000);
    // Every IndexedDB write fails as a full disk makes it fail, once the test says so.
    await page.addInitScript(`
      for (const name of ['put', 'add']) {
        const original = IDBObjectStore.prototype[name];
        IDBObjectStore.prototype[name] = function (...args) {
          if (window.__storageFull) throw new DOMException('The quota has been exceeded.', 'QuotaExceededError');
          return original.apply(this, args);
        };
      }
    `);
    await openApp(page, appUrl);
    await useFakeAnthropic(page, fake.url, 'sk-ant-quota');
    const title = 'Saved before the disk filled up';
    await sendAndWait(page, title);
    const stored = await transcriptRows(page);

    await page.evaluate(() => ((window as unknown as { __storageFull: boolean }).__storageFull = true));
    await sendAndWait(page, 'Typed while the disk is full');
    const alert = page.getByRole('alert').filter({ hasText: 'Browser storage is full' }).first();
    await alert.waitFor();
    expect(await alert.textContent()).toContain('What is on screen is kept');
    // Both the question and the answer failed to save: one alert says so, not one per write.
    expect(await page.getByRole('alert').count()).toBe(1);
    const rows = await transcriptRows(page);
    expect(rows.slice(0, 2)).toEqual(stored);
    expect(rows[2]).toContain('Typed while the disk is full');
    expect(rows[3]).toMatch(/^Assistant message \[complete\]/);
    await screenshot(page, 'persistence-quota-existing');

    // A new conversation cannot be stored either; its first message still stays on screen.
    await page.getByRole('button', { name: 'New chat' }).click();
    await sendAndWait(page, 'First words of a conversation that cannot be saved');
    await page.getByRole('heading', { level: 1, name: 'First words of a conversation that cannot be saved' }).waitFor();
    await screenshot(page, 'persistence-quota-new');

    await page.evaluate(() => ((window as unknown as { __storageFull: boolean }).__storageFull = false));
    await reloadApp(page);
    await openConversation(page, title);
    expect(await transcriptRows(page)).toEqual(stored);
    expect(errors).toEqual([]);
    await context.close();
  });
});
