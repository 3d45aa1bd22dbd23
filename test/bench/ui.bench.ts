// The chat UI in real Chromium (the built app, served by vite preview):
// - opening a 5,000-message conversation: time from the click in the conversation list
//   until the newest message's article is on screen, against the same for a 50-message
//   conversation (both imported through the Import file input, read back from IndexedDB
//   after a reload); ratio = 5,000 ÷ 50. A virtualized transcript keeps it near 1×.
// - long tasks (gaps of 50 ms or more between animation frames) while a
//   2,000-token answer streams from the local fake Anthropic API, in that 5,000-message
//   conversation against a new one; ratio = long-task time with 5,000 ÷ without.
// Times are medians of interleaved runs and printed for context only; nothing is asserted.
import { mkdirSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { Page } from 'playwright-core';
import { exportToJson, type ConversationRecords, type StoredMessage } from '../../src/core';
import { newPage } from '../e2e/browser';
import { startFakeApi, type FakeApi } from '../fake-api/server';
import { seededRandom } from './conversations';
import { withPreviewBrowser } from './chromium';
import { fmtMs, fmtRatio, type Row } from './harness';

export const title = 'Chat UI in Chromium: opening a long conversation, and long tasks while an answer streams';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const WORK = `${ROOT}test-results/bench-ui/`;
const BIG = 5_000;
const SMALL = 50;
const ROUNDS = 5;
const STREAM_TOKENS = 2_000;

const WORDS = 'context window token model answer request summary message budget cache prompt stream browser history trim plan limit reply user tool'.split(' ');

/** Markdown-ish text of about `chars` characters: sentences, sometimes a list or a code block. */
export function text(random: () => number, chars: number): string {
  const parts: string[] = [];
  let length = 0;
  while (length < chars) {
    const roll = random();
    let part: string;
    if (roll < 0.1) part = `\`\`\`ts\nconst ${WORDS[Math.floor(random() * WORDS.length)]} = plan(messages, { limit: ${Math.floor(random() * 9000)} });\n\`\`\``;
    else if (roll < 0.2) part = Array.from({ length: 3 }, () => `- **${WORDS[Math.floor(random() * WORDS.length)]}**: ${sentence(random)}`).join('\n');
    else part = Array.from({ length: 3 }, () => sentence(random)).join(' ');
    parts.push(part);
    length += part.length + 2;
  }
  return parts.join('\n\n');
}

function sentence(random: () => number): string {
  const words = Array.from({ length: 8 + Math.floor(random() * 10) }, () => WORDS[Math.floor(random() * WORDS.length)]);
  const first = words[0] ?? 'the';
  return `${first[0]?.toUpperCase()}${first.slice(1)} ${words.slice(1).join(' ')}.`;
}

/** One finished conversation of `count` messages, the last one's text ending in a marker to look for. */
function conversation(id: string, count: number): ConversationRecords {
  const random = seededRandom(count);
  const start = Date.UTC(2026, 0, 1);
  const messages: StoredMessage[] = Array.from({ length: count }, (_, seq) => {
    const role = seq % 2 === 0 ? 'user' : 'assistant';
    const body = text(random, role === 'user' ? 80 + random() * 300 : 300 + random() * 1200);
    return {
      id: `${id}-m${seq}`,
      conversationId: id,
      seq,
      role,
      kind: 'message',
      content: [{ type: 'text', text: seq === count - 1 ? `${body}\n\nNewest message of ${id}.` : body }],
      createdAt: start + seq * 60_000,
      status: 'complete',
    };
  });
  return { conversation: { id, title: `${count} messages`, createdAt: start, updatedAt: start + count * 60_000, messageCount: count }, messages };
}

/**
 * Registered before the app loads: every gap of 50 ms or more between two animation frames
 * (the page could neither paint nor answer input), for the runs to read. PerformanceObserver's
 * 'longtask' entries are not used: this Chromium reports none, even for a 200 ms busy loop.
 * A string, not a function: the bench runner's compiler would wrap a named inner function
 * in a helper the page does not have.
 */
const OBSERVE_LONG_TASKS = `
  const tasks = (window.__longTasks = []);
  let last = performance.now();
  requestAnimationFrame(function frame(now) {
    if (now - last >= 50) tasks.push({ start: last, duration: now - last });
    last = now;
    requestAnimationFrame(frame);
  });
`;

interface Span {
  ms: number;
  longTasks: number;
  longTaskMs: number;
}

/** Long tasks that began between two page times. */
async function longTasksBetween(page: Page, from: number, to: number): Promise<{ count: number; ms: number }> {
  return page.evaluate(
    ([a, b]) => {
      const tasks = (window as unknown as { __longTasks: { start: number; duration: number }[] }).__longTasks.filter((t) => t.start >= a && t.start <= b);
      return { count: tasks.length, ms: tasks.reduce((sum, t) => sum + t.duration, 0) };
    },
    [from, to] as const,
  );
}

/**
 * Reloads (so no messages are in memory), clicks the conversation and waits until its
 * newest message is on screen. New chat first, or the reload would reopen the last one.
 */
async function openConversation(page: Page, count: number): Promise<Span> {
  await page.getByRole('button', { name: 'New chat' }).click();
  await page.reload();
  const item = page.getByRole('navigation', { name: 'Conversations' }).getByRole('button', { name: `${count} messages`, exact: true });
  await item.waitFor();
  await page.waitForTimeout(200); // let start-up work settle so it is not counted
  const handle = await item.elementHandle();
  const marker = `Newest message of c${count}.`;
  // Clicked and watched inside the page, so the timing carries no round trips to the test.
  const { start, end } = await page.evaluate(
    async ([button, wanted]) => {
      const begin = performance.now();
      (button as HTMLElement).click();
      while (performance.now() - begin < 60_000) {
        await new Promise((resolve) => requestAnimationFrame(resolve));
        const article = [...document.querySelectorAll('article[aria-label="Assistant message"]')].find((a) => a.textContent?.includes(wanted as string));
        const box = article?.getBoundingClientRect();
        if (box && box.height > 0 && box.bottom > 0 && box.top < window.innerHeight) return { start: begin, end: performance.now() };
      }
      throw new Error(`the newest message (“${wanted as string}”) did not show within 60 s`);
    },
    [handle, marker] as const,
  );
  const tasks = await longTasksBetween(page, start, end);
  return { ms: end - start, longTasks: tasks.count, longTaskMs: tasks.ms };
}

/** Sends a message that the fake answers with about 2,000 tokens, and watches until the answer is complete. */
async function streamLongAnswer(page: Page): Promise<Span> {
  const box = page.getByRole('textbox', { name: 'Message' });
  await box.fill('Write the long answer, please.');
  const start = await page.evaluate(() => performance.now());
  await box.press('Enter');
  await page.getByRole('button', { name: 'Stop', exact: true }).waitFor();
  await page.getByRole('button', { name: 'Send', exact: true }).waitFor({ timeout: 120_000 });
  const end = await page.evaluate(() => performance.now());
  const tasks = await longTasksBetween(page, start, end);
  return { ms: end - start, longTasks: tasks.count, longTaskMs: tasks.ms };
}

/** Points the app at the local fake Anthropic API through Settings, as a user would. */
export async function answerFromFakeAnthropic(page: Page, fake: FakeApi): Promise<void> {
  await page.getByRole('button', { name: 'Settings' }).click();
  const dialog = page.getByRole('dialog', { name: 'Settings' });
  await dialog.getByLabel('Provider', { exact: true }).selectOption({ label: 'Anthropic' });
  await dialog.getByLabel('API key', { exact: true }).fill('sk-ant-bench-0123456789');
  await dialog.getByLabel('Base URL', { exact: true }).fill(fake.url);
  await dialog.getByLabel('Model', { exact: true }).selectOption('claude-haiku-4-5');
  await dialog.getByRole('button', { name: 'Save' }).click();
  await dialog.waitFor({ state: 'detached' });
}

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? (sorted[mid] as number) : ((sorted[mid - 1] as number) + (sorted[mid] as number)) / 2;
};

const describe = (spans: Span[]) =>
  `${fmtMs(median(spans.map((s) => s.ms)))} (long tasks: ${median(spans.map((s) => s.longTasks))}, ${fmtMs(median(spans.map((s) => s.longTaskMs)))})`;

export async function run(): Promise<Row[]> {
  mkdirSync(WORK, { recursive: true });
  const file = `${WORK}long-conversations.json`;
  writeFileSync(file, exportToJson([conversation(`c${SMALL}`, SMALL), conversation(`c${BIG}`, BIG)], Date.UTC(2026, 0, 2)));
  const longAnswer = text(seededRandom(7), STREAM_TOKENS * 4.2);

  return withPreviewBrowser(async ({ appUrl, browser, defer }) => {
    const fake = await startFakeApi({ script: () => ({ text: longAnswer, deltas: 400, deltaDelayMs: 5 }) });
    defer(() => fake.close());
    const { page, errors } = await newPage(browser, { viewport: { width: 1280, height: 800 } });
    page.setDefaultTimeout(60_000);
    await page.addInitScript({ content: OBSERVE_LONG_TASKS });
    await page.goto(appUrl);
    await page.getByRole('textbox', { name: 'Message' }).waitFor();
    await page.getByLabel('Import file').setInputFiles(file);
    await page
      .getByRole('navigation', { name: 'Conversations' })
      .getByRole('button', { name: `${BIG} messages`, exact: true })
      .waitFor({ timeout: 120_000 });

    const open: Record<number, Span[]> = { [SMALL]: [], [BIG]: [] };
    await openConversation(page, SMALL); // warm-up: loads the lazy chunks once
    for (let round = 0; round < ROUNDS; round++) {
      for (const count of round % 2 ? [BIG, SMALL] : [SMALL, BIG]) open[count]?.push(await openConversation(page, count));
    }

    await answerFromFakeAnthropic(page, fake);
    const stream: { fresh: Span[]; long: Span[] } = { fresh: [], long: [] };
    for (let round = 0; round < 2; round++) {
      await page.getByRole('button', { name: 'New chat' }).click();
      stream.fresh.push(await streamLongAnswer(page));
      await page
        .getByRole('navigation', { name: 'Conversations' })
        .getByRole('button', { name: `${BIG} messages`, exact: true })
        .click();
      await page.getByRole('heading', { level: 1, name: `${BIG} messages` }).waitFor();
      await page.getByRole('article', { name: 'Assistant message' }).last().waitFor();
      // Its newest messages show before all of it is read and planned: the stream starts after that.
      await page.locator('[role="meter"][aria-busy="true"]').waitFor({ state: 'detached' });
      stream.long.push(await streamLongAnswer(page));
    }
    if (errors.length > 0) throw new Error(`the page reported errors: ${errors.join('; ')}`);

    const openSmall = median((open[SMALL] ?? []).map((s) => s.ms));
    const openBig = median((open[BIG] ?? []).map((s) => s.ms));
    const freshTaskMs = median(stream.fresh.map((s) => s.longTaskMs));
    const longTaskMs = median(stream.long.map((s) => s.longTaskMs));
    return [
      {
        benchmark: 'open conversation until newest message shows',
        case: `${BIG.toLocaleString('en-US')} messages`,
        value: describe(open[BIG] ?? []),
        baseline: `${SMALL} messages: ${describe(open[SMALL] ?? [])}`,
        ratio: fmtRatio(openBig / openSmall),
      },
      {
        benchmark: `long tasks while ${STREAM_TOKENS.toLocaleString('en-US')} tokens stream (400 deltas)`,
        case: `in the ${BIG.toLocaleString('en-US')}-message conversation`,
        value: describe(stream.long),
        baseline: `new conversation: ${describe(stream.fresh)}`,
        ratio: freshTaskMs > 0 ? fmtRatio(longTaskMs / freshTaskMs) : longTaskMs > 0 ? '∞ (no long task without history)' : '— (no long tasks either way)',
      },
    ];
  });
}
