// Render time of hostile Markdown in real Chromium (the built app): each render bomb of
// test/security/renderBombCorpus.ts (most of them 100 KB) is imported as the answer of its
// own conversation; the time is from the click in the conversation list until the answer
// is on screen, with the longest gap between animation frames in that span. Baseline, measured in the
// same run: a 40 KB ordinary answer (headings, lists, code, links), the longest that still
// renders as Markdown. Ratio = bomb ÷ baseline. Times are medians of interleaved rounds.
import { mkdirSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { Page } from 'playwright-core';
import { exportToJson, markdownLimitExceeded, type ConversationRecords, type StoredMessage } from '../../src/core';
import { newPage } from '../e2e/browser';
import { RENDER_BOMBS } from '../security/renderBombCorpus';
import { withPreviewBrowser } from './chromium';
import { fmtMs, fmtRatio, type Row } from './harness';

export const title = 'Hostile Markdown in Chromium: time until the answer shows, and the longest frame (ratio = bomb ÷ a 40 KB ordinary answer)';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const WORK = `${ROOT}test-results/bench-markdown/`;
const ROUNDS = 3;
const BASELINE = 'ordinary 40 KB answer';
const ORDINARY = '## Heading\n\nSome *text* with `code` and a [link](https://example.com).\n\n- a\n- b\n\n```js\nconst a = 1;\n```\n\n'.repeat(400);

function conversation(index: number, name: string, answer: string): ConversationRecords {
  const id = `bomb-${index}`;
  const base = Date.UTC(2026, 0, 1) + index * 1000;
  const message = (seq: number, role: 'user' | 'assistant', text: string): StoredMessage => ({
    id: `${id}-m${seq}`,
    conversationId: id,
    seq,
    role,
    kind: 'message',
    content: [{ type: 'text', text }],
    createdAt: base + seq,
    status: 'complete',
  });
  return {
    conversation: { id, title: `#${index} ${name}`, createdAt: base, updatedAt: base + 1, messageCount: 2 },
    messages: [message(0, 'user', 'show me'), message(1, 'assistant', answer)],
  };
}

/**
 * Opens conversation #index from the list; ms until its answer is on screen, and the longest
 * gap between two animation frames meanwhile (how long the page could not paint or answer).
 */
async function open(page: Page, index: number): Promise<{ ms: number; longestFrame: number }> {
  await page.getByRole('button', { name: 'New chat' }).click();
  const item = page.getByRole('navigation', { name: 'Conversations' }).getByRole('button', { name: new RegExp(`^#${index} `) });
  await item.waitFor();
  await page.waitForTimeout(100);
  const handle = await item.elementHandle();
  return page.evaluate(async (button) => {
    const begin = performance.now();
    (button as HTMLElement).click();
    let last = begin;
    let longestFrame = 0;
    while (performance.now() - begin < 60_000) {
      const frame = await new Promise<number>((resolve) => requestAnimationFrame(resolve));
      longestFrame = Math.max(longestFrame, frame - last);
      last = frame;
      const answer = document.querySelector('article[aria-label="Assistant message"] .markdown');
      const box = answer?.getBoundingClientRect();
      if (box && box.height > 0) return { ms: performance.now() - begin, longestFrame };
    }
    throw new Error('the answer did not show within 60 s');
  }, handle);
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] as number;

export async function run(): Promise<Row[]> {
  mkdirSync(WORK, { recursive: true });
  const cases: [string, string][] = [[BASELINE, ORDINARY], ...Object.entries(RENDER_BOMBS)];
  const file = `${WORK}render-bombs.json`;
  writeFileSync(
    file,
    exportToJson(
      cases.map(([name, text], i) => conversation(i, name, text)),
      Date.UTC(2026, 0, 2),
    ),
  );

  return withPreviewBrowser(async ({ appUrl, browser }) => {
    const { page, errors } = await newPage(browser, { viewport: { width: 1280, height: 800 } });
    page.setDefaultTimeout(60_000);
    await page.goto(appUrl);
    await page.getByRole('textbox', { name: 'Message' }).waitFor();
    await page.getByLabel('Import file').setInputFiles(file);
    await page.getByText(`Imported ${cases.length} conversations`).waitFor({ timeout: 120_000 });

    const times = cases.map(() => [] as number[]);
    const longest = cases.map(() => 0);
    for (let round = 0; round < ROUNDS; round++) {
      for (let i = 0; i < cases.length; i++) {
        const { ms, longestFrame } = await open(page, i);
        times[i]!.push(ms);
        longest[i] = Math.max(longest[i]!, longestFrame);
      }
    }
    if (errors.length > 0) throw new Error(`the page reported errors: ${errors.join('; ')}`);
    const baseline = median(times[0]!);
    const rows: Row[] = cases.map(([name, text], i) => ({
      benchmark: 'render',
      case: `${name} (${(text.length / 1000).toFixed(0)} KB${markdownLimitExceeded(text) ? ', plain text' : ''})`,
      value: `${fmtMs(median(times[i]!))}, longest frame ${fmtMs(longest[i]!)}`,
      baseline: `${BASELINE} ${fmtMs(baseline)}`,
      ratio: fmtRatio(median(times[i]!) / baseline),
    }));
    let worst = 1;
    for (let i = 2; i < cases.length; i++) if (median(times[i]!) > median(times[worst]!)) worst = i;
    rows.push({ ...rows[worst]!, benchmark: 'worst hostile message' });
    return rows;
  });
}
