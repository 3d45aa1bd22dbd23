/**
 * Branches in real Chromium against the fake Anthropic API, with a current model (one that
 * refuses an assistant prefill): regenerating an older answer and editing an older question
 * add versions beside what was written, "Previous version" / "Next version" (mouse and
 * keyboard) move between them, a reload reopens the branch last shown (even at once after a
 * switch, before storage has it), the JSON export keeps every branch and the Markdown export
 * the one shown, and a search hit on a branch not shown opens that branch.
 */
import type { Browser, Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { MODEL_REGISTRY } from '../../src/core/models';
import { startFakeApi, type FakeApi, type RecordedRequest } from '../fake-api/server';
import { launchBrowser, newPage, screenshot } from './browser';
import { exportFile } from './persistenceHelpers';
import { chatRequests, configure, PROVIDER_SETUPS, until, waitIdle } from './providersHelpers';

const WINDOW = 20_000;
// The newest Anthropic model of the registry: like every model from Claude 4.6 on, the fake
// refuses a request that ends with an assistant message for it.
const MODEL = MODEL_REGISTRY.find((m) => m.provider === 'anthropic')!.id;

const Q1 = 'Which fern grows well in deep shade?';
const Q2 = 'How often should the cactus on the windowsill be watered?';
const Q2_EDITED = 'How often should the orchid in the bathroom be misted?';

/** One message as the transcript shows it: who, its text, and "2 / 3" when it has versions. */
interface ShownMessage {
  id: string;
  role: 'user' | 'assistant';
  text: string;
  version: string | null;
}

/** The messages the transcript shows, top to bottom (a short conversation: every row is rendered). */
async function shownMessages(page: Page): Promise<ShownMessage[]> {
  return page.evaluate(() =>
    [...document.querySelectorAll<HTMLElement>('[role="log"][aria-label="Transcript"] .transcript-row')]
      .sort((a, b) => Number(a.dataset.index) - Number(b.dataset.index))
      .flatMap((row) => {
        const article = row.querySelector<HTMLElement>('article[aria-label="User message"], article[aria-label="Assistant message"]');
        if (!article) return [];
        const count = article.querySelector('.versions .version-count');
        return [
          {
            id: article.dataset.messageId ?? '',
            role: article.getAttribute('aria-label') === 'User message' ? ('user' as const) : ('assistant' as const),
            text: (article.querySelector('.message-body')?.textContent ?? '').replace(/\s+/g, ' ').trim(),
            version: count ? (count.textContent ?? '').replace(/\s+/g, ' ').trim() : null,
          },
        ];
      }),
  );
}

/** Waits until the transcript shows exactly `expected` (role, text, version of each message) and returns what it shows. */
async function expectShown(page: Page, expected: Array<Omit<ShownMessage, 'id'>>, what: string): Promise<ShownMessage[]> {
  const strip = (list: Array<Omit<ShownMessage, 'id'>>) => list.map(({ role, text, version }) => ({ role, text, version }));
  await expect.poll(async () => strip(await shownMessages(page)), { message: what, timeout: 15_000, interval: 50 }).toEqual(strip(expected));
  return shownMessages(page);
}

/** The article of the message whose text is exactly `text`. */
function article(page: Page, role: 'user' | 'assistant', text: string): Locator {
  return page
    .getByRole('article', { name: role === 'user' ? 'User message' : 'Assistant message', exact: true })
    .filter({ has: page.locator('.message-body', { hasText: text }) });
}

/** Runs `act` (a click that starts a turn) and waits for the request it makes to be answered and the app to be idle. */
async function answered(page: Page, fake: FakeApi, act: () => Promise<void>, what: string): Promise<RecordedRequest> {
  const before = chatRequests(fake).length;
  await act();
  await until(() => chatRequests(fake).length > before && chatRequests(fake).at(-1)!.completed, what);
  await waitIdle(page);
  const made = chatRequests(fake).slice(before);
  expect(made, what).toHaveLength(1);
  return made[0]!;
}

/** The request's messages as role and flattened text. */
function wire(request: RecordedRequest): Array<{ role: string; text: string }> {
  const body = request.body as { messages: Array<{ role: string; content: unknown }> };
  return body.messages.map(({ role, content }) => ({
    role,
    text:
      typeof content === 'string'
        ? content
        : (content as Array<{ type: string; text?: string }>)
            .filter((b) => b.type === 'text')
            .map((b) => b.text ?? '')
            .join('\n'),
  }));
}

/** The request was accepted and answered, and it was made with the model under test. */
function expectAccepted(request: RecordedRequest, what: string): void {
  expect(request.validation, what).toEqual({ ok: true });
  expect(request.status, what).toBe(200);
  expect((request.body as { model: string }).model, what).toBe(MODEL);
}

/** The activeLeafId stored with each conversation, read from IndexedDB. */
function storedLeaves(page: Page): Promise<string[]> {
  return page.evaluate(
    () =>
      new Promise<string[]>((resolve, reject) => {
        const open = indexedDB.open('windowpane');
        open.onerror = () => reject(open.error);
        open.onsuccess = () => {
          const all = open.result.transaction('conversations').objectStore('conversations').getAll();
          all.onsuccess = () => {
            resolve((all.result as { activeLeafId?: string }[]).map((c) => c.activeLeafId ?? ''));
            open.result.close();
          };
        };
      }),
  );
}

/** Keeps a read-write transaction on the conversations store open until the page goes, so no write to it lands. */
function holdConversations(page: Page): Promise<void> {
  return page.evaluate(
    () =>
      new Promise<void>((resolve, reject) => {
        const open = indexedDB.open('windowpane');
        open.onerror = () => reject(open.error);
        open.onsuccess = () => {
          const store = open.result.transaction('conversations', 'readwrite').objectStore('conversations');
          const spin = () => (store.count().onsuccess = spin);
          spin();
          resolve();
        };
      }),
  );
}

interface ExportedMessage {
  id: string;
  seq: number;
  parentId?: string | null;
  role: string;
  kind: string;
  content: Array<{ type: string; text?: string }>;
}

describe('branches: versions of questions and answers', () => {
  let browser: Browser;
  let fake: FakeApi;
  const appUrl = inject('appUrl');
  beforeAll(async () => {
    [browser, fake] = await Promise.all([launchBrowser(), startFakeApi({ contextWindow: WINDOW, deltaDelayMs: 2 })]);
  });
  afterAll(async () => {
    await Promise.all([browser?.close(), fake?.close()]);
  });

  it('regenerates and edits older messages as versions, switches, reloads, exports and finds every branch', async () => {
    const { page, context, errors } = await newPage(browser);
    page.setDefaultTimeout(10_000);
    await page.goto(appUrl);
    await page.getByRole('textbox', { name: 'Message' }).waitFor();
    await configure(page, fake, { ...PROVIDER_SETUPS.anthropic, model: { fromList: MODEL } }, { contextWindow: WINDOW });
    const noAlerts = async (what: string) => expect(await page.getByRole('alert').allTextContents(), what).toEqual([]);

    // 1. Two questions, two answers.
    const first = await answered(
      page,
      fake,
      async () => {
        await page.getByRole('textbox', { name: 'Message' }).fill(Q1);
        await page.getByRole('button', { name: 'Send', exact: true }).click();
      },
      'the answer to question 1',
    );
    expectAccepted(first, 'question 1');
    const second = await answered(
      page,
      fake,
      async () => {
        await page.getByRole('textbox', { name: 'Message' }).fill(Q2);
        await page.getByRole('button', { name: 'Send', exact: true }).click();
      },
      'the answer to question 2',
    );
    expectAccepted(second, 'question 2');
    const A1 = first.replyText!.trim();
    const A2 = second.replyText!.trim();
    const [q1, a1, q2, a2] = await expectShown(
      page,
      [
        { role: 'user', text: Q1, version: null },
        { role: 'assistant', text: A1, version: null },
        { role: 'user', text: Q2, version: null },
        { role: 'assistant', text: A2, version: null },
      ],
      'two questions and their answers',
    );

    // 2. Regenerate the first (older) answer: a new version answering question 1 alone.
    const regenerated = await answered(
      page,
      fake,
      () => article(page, 'assistant', A1).getByRole('button', { name: 'Regenerate' }).click(),
      'the regenerated answer',
    );
    expectAccepted(regenerated, 'regeneration');
    // Planned from the branch up to question 1: it ends with the user's question, never with an answer to continue.
    expect(wire(regenerated)).toEqual([{ role: 'user', text: Q1 }]);
    const A1_NEW = regenerated.replyText!.trim();
    expect(A1_NEW).not.toBe(A1);
    const [, a1New] = await expectShown(
      page,
      [
        { role: 'user', text: Q1, version: null },
        { role: 'assistant', text: A1_NEW, version: '2 / 2' },
      ],
      'question 1 and its new answer only',
    );
    const newAnswer = article(page, 'assistant', A1_NEW);
    await newAnswer.getByRole('group', { name: 'Version 2 of 2' }).waitFor();
    expect(await newAnswer.getByRole('button', { name: 'Next version' }).isDisabled()).toBe(true);
    await noAlerts('after regenerating');
    // The page, and a close-up of the header holding "‹ 2 / 2 ›", to look at.
    const shot = await screenshot(page, 'branches-regenerated');
    await newAnswer.locator('.message-meta').screenshot({ path: shot.replace(/\.png$/, '-header.png') });

    // 3. Previous version: the old answer and everything after it are back.
    await newAnswer.getByRole('button', { name: 'Previous version' }).click();
    await expectShown(
      page,
      [
        { role: 'user', text: Q1, version: null },
        { role: 'assistant', text: A1, version: '1 / 2' },
        { role: 'user', text: Q2, version: null },
        { role: 'assistant', text: A2, version: null },
      ],
      'the first branch again',
    );
    await article(page, 'assistant', A1).getByRole('group', { name: 'Version 1 of 2' }).waitFor();

    // 4. Edit question 2: a new version of it, answered; the old one is not sent.
    await article(page, 'user', Q2).getByRole('button', { name: 'Edit' }).click();
    const editBox = page.getByRole('textbox', { name: 'Edit message' });
    expect(await editBox.inputValue()).toBe(Q2);
    await editBox.fill(Q2_EDITED);
    const edited = await answered(page, fake, () => page.getByRole('button', { name: 'Save and resend' }).click(), 'the answer to the edited question');
    expectAccepted(edited, 'edit');
    expect(wire(edited)).toEqual([
      { role: 'user', text: Q1 },
      { role: 'assistant', text: A1 },
      { role: 'user', text: Q2_EDITED },
    ]);
    expect(JSON.stringify(edited.body)).not.toContain('cactus');
    const A2_EDITED = edited.replyText!.trim();
    const editedBranch = await expectShown(
      page,
      [
        { role: 'user', text: Q1, version: null },
        { role: 'assistant', text: A1, version: '1 / 2' },
        { role: 'user', text: Q2_EDITED, version: '2 / 2' },
        { role: 'assistant', text: A2_EDITED, version: null },
      ],
      'the edited question and its answer',
    );
    const [, , q2Edited, a2Edited] = editedBranch;
    await article(page, 'user', Q2_EDITED).getByRole('group', { name: 'Version 2 of 2' }).waitFor();
    await noAlerts('after editing');
    await screenshot(page, 'branches-edited');

    // 5. The keyboard: Enter and Space on the version buttons.
    await article(page, 'user', Q2_EDITED).getByRole('button', { name: 'Previous version' }).focus();
    await page.keyboard.press('Enter');
    await expectShown(
      page,
      [
        { role: 'user', text: Q1, version: null },
        { role: 'assistant', text: A1, version: '1 / 2' },
        { role: 'user', text: Q2, version: '1 / 2' },
        { role: 'assistant', text: A2, version: null },
      ],
      'Enter on Previous version of the edited question',
    );
    await article(page, 'assistant', A1).getByRole('button', { name: 'Next version' }).focus();
    await page.keyboard.press('Space');
    await expectShown(
      page,
      [
        { role: 'user', text: Q1, version: null },
        { role: 'assistant', text: A1_NEW, version: '2 / 2' },
      ],
      'Space on Next version of the first answer',
    );
    // Back to the first answer: the newest branch under it, the edited one.
    await article(page, 'assistant', A1_NEW).getByRole('button', { name: 'Previous version' }).focus();
    await page.keyboard.press('Space');
    await expectShown(page, editedBranch, 'Space on Previous version: the newest branch under the first answer');
    await article(page, 'user', Q2_EDITED).getByRole('button', { name: 'Previous version' }).focus();
    await page.keyboard.press('Enter');
    await expectShown(
      page,
      [editedBranch[0]!, editedBranch[1]!, { role: 'user', text: Q2, version: '1 / 2' }, { role: 'assistant', text: A2, version: null }],
      'Enter again',
    );
    await article(page, 'user', Q2).getByRole('button', { name: 'Next version' }).focus();
    await page.keyboard.press('Enter');
    await expectShown(page, editedBranch, 'Enter on Next version: the edited question again');

    // 6. A reload reopens the branch last shown, with its counters. The switch is saved as it
    // is made, in the background: wait until storage has it, as a user's reload seconds later would.
    const shownLeaf = editedBranch.at(-1)!.id;
    await expect.poll(() => storedLeaves(page)).toEqual([shownLeaf]);
    await page.reload();
    await page.getByRole('textbox', { name: 'Message' }).waitFor();
    expect(await expectShown(page, editedBranch, 'the edited branch after a reload')).toEqual(editedBranch);

    // A reload at once after a switch, before storage has it (its store is held busy so the
    // write cannot land first), still reopens the branch switched to: the tab kept it itself.
    await holdConversations(page);
    await article(page, 'user', Q2_EDITED).getByRole('button', { name: 'Previous version' }).click();
    await page.reload();
    await page.getByRole('textbox', { name: 'Message' }).waitFor();
    const q2Branch = [
      editedBranch[0]!,
      editedBranch[1]!,
      { role: 'user' as const, text: Q2, version: '1 / 2' },
      { role: 'assistant' as const, text: A2, version: null },
    ];
    await expectShown(page, q2Branch, 'the branch switched to just before the reload');
    expect(await storedLeaves(page)).toEqual([shownLeaf]);
    await article(page, 'user', Q2).getByRole('button', { name: 'Next version' }).click();
    await expectShown(page, editedBranch, 'the edited branch again');
    await expect.poll(() => storedLeaves(page)).toEqual([shownLeaf]);

    // 7. JSON holds every branch; Markdown the one shown and how many others there are.
    const json = await exportFile(page, 'This conversation (JSON)');
    const exported = JSON.parse(json.text) as {
      version: number;
      conversations: Array<{ conversation: { activeLeafId?: string }; messages: ExportedMessage[] }>;
    };
    expect(exported.version).toBe(2);
    expect(exported.conversations).toHaveLength(1);
    const { conversation, messages } = exported.conversations[0]!;
    // Q1, A1, Q2, A2, the regenerated A1, the edited Q2 and its answer.
    expect(messages).toHaveLength(7);
    expect(messages.every((m) => m.parentId === null || typeof m.parentId === 'string')).toBe(true);
    const byId = new Map(messages.map((m) => [m.id, m]));
    const exportedText = (id: string) => byId.get(id)?.content.find((b) => b.type === 'text')?.text;
    expect([q1, a1, q2, a2, a1New, q2Edited, a2Edited].map((m) => exportedText(m!.id))).toEqual([Q1, A1, Q2, A2, A1_NEW, Q2_EDITED, A2_EDITED]);
    const parents = Object.fromEntries(messages.map((m) => [m.id, m.parentId]));
    expect(parents).toEqual({
      [q1!.id]: null,
      [a1!.id]: q1!.id,
      [q2!.id]: a1!.id,
      [a2!.id]: q2!.id,
      [a1New!.id]: q1!.id,
      [q2Edited!.id]: a1!.id,
      [a2Edited!.id]: q2Edited!.id,
    });
    expect(conversation.activeLeafId).toBe(editedBranch.at(-1)!.id);

    const markdown = await exportFile(page, 'This conversation (Markdown)');
    for (const text of [Q1, A1, Q2_EDITED, A2_EDITED]) expect(markdown.text).toContain(text);
    for (const text of [Q2, A2, A1_NEW]) expect(markdown.text).not.toContain(text);
    expect(markdown.text).toContain('_This conversation has 2 other branches; the JSON export keeps every branch._');

    // 8. Search finds a word only on a branch not shown; opening the hit shows that branch.
    await page.getByRole('button', { name: 'New chat' }).click();
    await page.getByRole('searchbox', { name: 'Search conversations' }).fill('cactus');
    const hit = page.getByRole('navigation', { name: 'Conversations' }).locator('.conversation-link').filter({ hasText: 'cactus' });
    await hit.waitFor();
    await hit.click();
    await expectShown(
      page,
      [
        { role: 'user', text: Q1, version: null },
        { role: 'assistant', text: A1, version: '1 / 2' },
        { role: 'user', text: Q2, version: '1 / 2' },
        { role: 'assistant', text: A2, version: null },
      ],
      'the branch holding the search hit',
    );
    // The same from the conversation already open: a hit on the edited branch, now not shown.
    await page.getByRole('searchbox', { name: 'Search conversations' }).fill('orchid');
    await page.getByRole('navigation', { name: 'Conversations' }).locator('.conversation-link').filter({ hasText: 'orchid' }).click();
    await expectShown(page, editedBranch, 'the edited branch, holding the second search hit');
    await noAlerts('at the end');

    expect(errors).toEqual([]);
    await context.close();
  });
});
