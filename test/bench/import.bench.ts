// Importing a year of history in real Chromium (the built app, served by vite preview): a
// ChatGPT data export of 1,000 conversations and 200,000 messages (the history bench's mix
// of lengths: one conversation of 5,000 messages, five of 2,000, the rest 20 to 360), about
// 170 MB as four conversations.json files, chosen together in the Import picker and imported
// one after another. Baseline in the same run: one file of 10 conversations of 20 messages.
// Measured from choosing the files until the progress bar goes: total time, conversations
// per second, and the longest task on the page's main thread meanwhile (PerformanceObserver
// 'longtask': 50 ms or more) that ended before then; apart, the longest from the task
// that removes the progress bar (and starts opening the first imported conversation) to
// 2 s after. Reported, never asserted.
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { Page } from 'playwright-core';
import { chatGptConversation } from '../core/transfer/generatedExports';
import { newPage } from '../e2e/browser';
import { withPreviewBrowser } from './chromium';
import { fmtMs, fmtRatio, type Row } from './harness';
import { yearShape } from './history.bench';

export const title =
  'Importing a year of ChatGPT history in Chromium: 1,000 conversations, 200,000 messages in 4 files (ratio = year ÷ 10-conversation baseline)';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const WORK = `${ROOT}test-results/bench-import/`;

/** Writes `sizes` (messages per conversation) as ChatGPT conversations.json files of about equal size; returns their paths and total bytes. */
function writeExport(name: string, sizes: readonly number[], files: number): { paths: string[]; bytes: number } {
  const words = (
    'context window token budget summary trim plan model answer question branch cache prompt estimate stream tool result file ' +
    'conversation history message planner gauge limit window share reserve output input calibration'
  ).split(' ');
  let state = 42;
  const random = () => (state = (state * 1_103_515_245 + 12_345) % 2_147_483_648) / 2_147_483_648;
  const text = (chars: number) => {
    let s = '';
    while (s.length < chars) {
      const roll = random();
      if (roll < 0.08) s += `\n\`\`\`python\nplan = window(${Math.floor(random() * 9000)})\n\`\`\`\n`;
      else s += ` ${Array.from({ length: 6 + Math.floor(random() * 14) }, () => words[Math.floor(random() * words.length)]).join(' ')}.`;
    }
    return s;
  };
  const paths: string[] = [];
  let bytes = 0;
  const per = Math.ceil(sizes.length / files);
  for (let f = 0; f < files; f++) {
    const list = sizes
      .slice(f * per, (f + 1) * per)
      .map((size, i) => chatGptConversation(f * per + i, size, (seq) => text(seq % 2 === 0 ? 40 + random() * 400 : 200 + random() * 1_600)));
    const json = JSON.stringify(list);
    const path = `${WORK}${name}-${f + 1}/conversations.json`;
    mkdirSync(`${WORK}${name}-${f + 1}`, { recursive: true });
    writeFileSync(path, json);
    paths.push(path);
    bytes += Buffer.byteLength(json);
  }
  return { paths, bytes };
}

export interface ImportMeasure {
  ms: number;
  /** Longest long task while the import ran, and in the 2 s after it (opening the first imported conversation). */
  longestTask: number;
  afterTask: number;
  conversations: number;
  messages: number;
}

/** How many conversations and messages the page's IndexedDB holds (run in the page). */
function countStored(): Promise<{ conversations: number; messages: number }> {
  return new Promise((resolve, reject) => {
    const open = indexedDB.open('windowpane');
    open.onsuccess = () => {
      const tx = open.result.transaction(['conversations', 'messages'], 'readonly');
      const c = tx.objectStore('conversations').count();
      const m = tx.objectStore('messages').count();
      tx.oncomplete = () => {
        open.result.close();
        resolve({ conversations: c.result, messages: m.result });
      };
      tx.onerror = () => reject(tx.error);
    };
  });
}

export async function importThrough(page: Page, paths: string[], conversations: number): Promise<ImportMeasure> {
  // Page time when the import starts, and when its progress bar goes (then the first imported conversation is opened).
  const pageStart = await page.evaluate(() => {
    const marks = window as unknown as { importDoneAt?: number };
    delete marks.importDoneAt;
    // Several files are imported one after another, and the bar may go between two of them: each time it goes counts, the last is the end.
    let seen = false;
    new MutationObserver(() => {
      const bar = document.querySelector('[role=progressbar]');
      seen ||= bar !== null;
      if (seen && !bar) {
        marks.importDoneAt = performance.now();
        seen = false;
      }
    }).observe(document.body, { childList: true, subtree: true });
    return performance.now();
  });
  await page.getByLabel('Import file').setInputFiles(paths);
  const storedCount = () => page.evaluate(countStored);
  const deadline = Date.now() + 600_000;
  for (;;) {
    await page.waitForFunction(
      () => (window as unknown as { importDoneAt?: number }).importDoneAt !== undefined && !document.querySelector('[role=progressbar]'),
      undefined,
      {
        timeout: Math.max(1, deadline - Date.now()),
        polling: 100,
      },
    );
    if ((await storedCount()).conversations === conversations || Date.now() > deadline) break;
    await page.waitForTimeout(200);
  }
  const ms = (await page.evaluate(() => (window as unknown as { importDoneAt: number }).importDoneAt)) - pageStart;
  await page.waitForTimeout(2_000);
  const [tasks, doneAt] = await page.evaluate(
    () => [(window as unknown as { longTasks: Array<[number, number]> }).longTasks, (window as unknown as { importDoneAt: number }).importDoneAt] as const,
  );
  const longest = (keep: (at: number, duration: number) => boolean) =>
    Math.max(0, ...tasks.filter(([at, duration]) => keep(at, duration)).map(([, duration]) => duration));
  // The task that removes the progress bar also starts opening the first imported conversation: it counts as after.
  const longestTask = longest((at, duration) => at >= pageStart && at + duration <= doneAt);
  const afterTask = longest((at, duration) => at + duration > doneAt);
  const stored = await storedCount();
  if (stored.conversations !== conversations) throw new Error(`expected ${conversations} conversations stored, found ${stored.conversations}`);
  return { ms, longestTask, afterTask, ...stored };
}

export async function run(): Promise<Row[]> {
  return withPreviewBrowser(async ({ appUrl, browser, defer }) => {
    rmSync(WORK, { recursive: true, force: true });
    defer(() => rmSync(WORK, { recursive: true, force: true }));
    const baselineFile = writeExport(
      'baseline',
      Array.from({ length: 10 }, () => 20),
      1,
    );
    const year = writeExport('year', yearShape().sizes, 4);
    const results: ImportMeasure[] = [];
    for (const [files, conversations] of [
      [baselineFile.paths, 10],
      [year.paths, 1_000],
    ] as const) {
      const { page, context, errors } = await newPage(browser, { viewport: { width: 1280, height: 800 } });
      await page.addInitScript(() => {
        const tasks: Array<[number, number]> = [];
        (window as unknown as { longTasks: Array<[number, number]> }).longTasks = tasks;
        new PerformanceObserver((list) => {
          for (const entry of list.getEntries()) tasks.push([entry.startTime, entry.duration]);
        }).observe({ type: 'longtask', buffered: true });
      });
      await page.goto(appUrl);
      await page.getByRole('textbox', { name: 'Message' }).waitFor();
      results.push(await importThrough(page, [...files], conversations));
      if (errors.length > 0) throw new Error(`the page reported errors: ${errors.join('; ')}`);
      await context.close();
    }
    const [base, big] = results as [ImportMeasure, ImportMeasure];
    const rate = (m: ImportMeasure) => m.conversations / (m.ms / 1000);
    const task = (ms: number) => (ms === 0 ? 'none (< 50 ms)' : fmtMs(ms));
    const mb = (bytes: number) => `${Math.round(bytes / 1_048_576)} MB`;
    return [
      {
        benchmark: 'import through the Import button until its progress bar goes',
        case: `1,000 conversations, ${big.messages.toLocaleString('en-US')} messages, ${mb(year.bytes)} in 4 files`,
        value: fmtMs(big.ms),
        baseline: `10 conversations (200 messages): ${fmtMs(base.ms)}`,
        ratio: fmtRatio(big.ms / base.ms),
      },
      {
        benchmark: 'conversations imported per second',
        case: 'same',
        value: `${rate(big).toFixed(1)}/s`,
        baseline: `${rate(base).toFixed(1)}/s`,
        ratio: fmtRatio(rate(big) / rate(base)),
      },
      {
        benchmark: 'longest main-thread task during the import (goal: none over 200 ms)',
        case: 'same',
        value: task(big.longestTask),
        baseline: task(base.longestTask),
        ratio: base.longestTask > 0 && big.longestTask > 0 ? fmtRatio(big.longestTask / base.longestTask) : '—',
      },
      {
        benchmark: 'longest main-thread task as it ends and in the 2 s after: opening the first imported conversation',
        case: 'year: its 5,000-message conversation; baseline: a 20-message one',
        value: task(big.afterTask),
        baseline: task(base.afterTask),
        ratio: base.afterTask > 0 && big.afterTask > 0 ? fmtRatio(big.afterTask / base.afterTask) : '—',
      },
    ];
  });
}
