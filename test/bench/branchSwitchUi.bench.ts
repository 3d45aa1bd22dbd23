// Switching branch in real Chromium (the built app, served by vite preview): the
// 5,000-message conversation of 50 branches of branchedConversation.ts (Markdown-ish text
// as in ui.bench.ts), imported through the Import file input into IndexedDB, planned for
// claude-haiku-4-5 (set in Settings, as ui.bench.ts does).
// - baseline: opening it after a reload (nothing in memory), from the click in the
//   conversation list until the newest branch's last message is on screen;
// - "Previous version" on that branch's last user message (version 3 of 3, on screen at
//   the bottom), from the click until the last message of the branch it leads to (version
//   2 of 3, 2,646 messages like the first) is on screen; then "Next version" back, the same
//   way. The first is a branch not shown since the reload, the second one shown before.
// Also the longest gap between two animation frames in each span. Ratio = switch ÷ open;
// the absolute times are context (the goal is a switch under 100 ms), nothing is asserted.
// Times are medians of rounds, each a reload, an open and the two switches.
import { mkdirSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { ElementHandle, Page } from 'playwright-core';
import { exportToJson } from '../../src/core';
import { newPage } from '../e2e/browser';
import { startFakeApi } from '../fake-api/server';
import { branchedConversation } from './branchedConversation';
import { seededRandom } from './conversations';
import { withPreviewBrowser } from './chromium';
import { fmtMs, fmtRatio, type Row } from './harness';
import { answerFromFakeAnthropic, text } from './ui.bench';

export const title = 'Branch switching in Chromium: 5,000 messages over 50 branches (ratio = switch ÷ opening the conversation)';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const WORK = `${ROOT}test-results/bench-branches/`;
const COUNT = 5_000;
const ROUNDS = 5;
const TITLE = '5,000 messages, 50 branches';

const endOf = (leaf: string) => `End of branch ${leaf}.`;

interface Span {
  ms: number;
  longestFrame: number;
}

/**
 * Clicks `button` inside the page and waits, frame by frame, until an assistant message
 * holding `wanted` is on screen. Clicked and watched inside the page, so the timing
 * carries no round trips to the bench.
 */
async function clickUntilShown(page: Page, button: ElementHandle | null, wanted: string): Promise<Span> {
  return page.evaluate(
    async ([target, marker]) => {
      const begin = performance.now();
      (target as HTMLElement).click();
      let last = begin;
      let longestFrame = 0;
      while (performance.now() - begin < 60_000) {
        const frame = await new Promise<number>((resolve) => requestAnimationFrame(resolve));
        longestFrame = Math.max(longestFrame, frame - last);
        last = frame;
        const article = [...document.querySelectorAll('article[aria-label="Assistant message"]')].find((a) => a.textContent?.includes(marker as string));
        const box = article?.getBoundingClientRect();
        if (box && box.height > 0 && box.bottom > 0 && box.top < window.innerHeight) return { ms: performance.now() - begin, longestFrame };
      }
      throw new Error(`“${marker as string}” did not show within 60 s`);
    },
    [button, wanted] as const,
  );
}

/** Reloads (nothing in memory) and opens the conversation from the list; New chat first, or the reload would reopen it. */
async function open(page: Page, newest: string): Promise<Span> {
  await page.getByRole('button', { name: 'New chat' }).click();
  await page.reload();
  const item = page.getByRole('navigation', { name: 'Conversations' }).getByRole('button', { name: TITLE, exact: true });
  await item.waitFor();
  await page.waitForTimeout(200); // let start-up work settle so it is not counted
  return clickUntilShown(page, await item.elementHandle(), endOf(newest));
}

/** Clicks "Previous version" or "Next version" of the message showing version `index` of 3, which must be on screen, until `leaf`'s message shows. */
async function step(page: Page, index: number, name: 'Previous version' | 'Next version', leaf: string): Promise<Span> {
  const button = page.getByRole('group', { name: `Version ${index} of 3` }).getByRole('button', { name, exact: true });
  await page.waitForTimeout(200); // the open's or the last switch's write of the branch shown, and its renders
  const box = await button.boundingBox();
  const viewport = page.viewportSize();
  if (!box || !viewport || box.y < 0 || box.y + box.height > viewport.height) throw new Error(`“${name}” of version ${index} of 3 is not on screen`);
  return clickUntilShown(page, await button.elementHandle(), endOf(leaf));
}

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? (sorted[mid] as number) : ((sorted[mid - 1] as number) + (sorted[mid] as number)) / 2;
};

const describe = (spans: Span[]) => `${fmtMs(median(spans.map((s) => s.ms)))} (longest frame ${fmtMs(Math.max(...spans.map((s) => s.longestFrame)))})`;

export async function run(): Promise<Row[]> {
  mkdirSync(WORK, { recursive: true });
  const random = seededRandom(COUNT);
  const conversation = branchedConversation(
    'branched',
    COUNT,
    (_seq, role) => text(random, role === 'user' ? 80 + random() * 300 : 300 + random() * 1200),
    endOf,
  );
  const start = Date.UTC(2026, 0, 1);
  const file = `${WORK}branched-conversation.json`;
  writeFileSync(
    file,
    exportToJson(
      [
        {
          conversation: { id: 'branched', title: TITLE, createdAt: start, updatedAt: start + COUNT * 60_000, messageCount: COUNT },
          messages: conversation.messages,
        },
      ],
      Date.UTC(2026, 0, 2),
    ),
  );

  return withPreviewBrowser(async ({ appUrl, browser, defer }) => {
    // Nothing is sent: the fake only makes Anthropic the provider, so the plan is the Node bench's (200k window).
    const fake = await startFakeApi();
    defer(() => fake.close());
    const { page, errors } = await newPage(browser, { viewport: { width: 1280, height: 800 } });
    page.setDefaultTimeout(60_000);
    await page.goto(appUrl);
    await page.getByRole('textbox', { name: 'Message' }).waitFor();
    await answerFromFakeAnthropic(page, fake);
    await page.getByLabel('Import file').setInputFiles(file);
    await page.getByRole('navigation', { name: 'Conversations' }).getByRole('button', { name: TITLE, exact: true }).waitFor({ timeout: 120_000 });

    const spans: { open: Span[]; previous: Span[]; next: Span[] } = { open: [], previous: [], next: [] };
    // Warm-up round: loads the lazy chunks once.
    for (let round = -1; round < ROUNDS; round++) {
      const opened = await open(page, conversation.newestLeaf);
      const previous = await step(page, 3, 'Previous version', conversation.previousLeaf);
      const next = await step(page, 2, 'Next version', conversation.newestLeaf);
      if (round < 0) continue;
      spans.open.push(opened);
      spans.previous.push(previous);
      spans.next.push(next);
    }
    if (errors.length > 0) throw new Error(`the page reported errors: ${errors.join('; ')}`);

    const openMs = median(spans.open.map((s) => s.ms));
    const baseline = `open until the newest message shows: ${describe(spans.open)}`;
    const row = (name: string, list: Span[]): Row => ({
      benchmark: `branch switch until the new branch's last message shows (goal: under 100 ms)`,
      case: name,
      value: describe(list),
      baseline,
      ratio: fmtRatio(median(list.map((s) => s.ms)) / openMs),
    });
    return [
      row(`“Previous version”, 3 / 3 → 2 / 3 (branch of ${conversation.branchLength.toLocaleString('en-US')}, not shown since the reload)`, spans.previous),
      row('“Next version”, 2 / 3 → 3 / 3 (back to the branch opened)', spans.next),
    ];
  });
}
