// A year of history in real Chromium (the built app, served by vite preview): 1,000
// conversations and 200,000 messages written straight into the app's IndexedDB (mixed
// lengths, Markdown and code, tool calls and their results, a few very long messages and
// conversations: one of 5,000 messages, five of 2,000), against a baseline history of 10
// conversations of 20 messages measured in the same run. Each row is the year's time ÷ the
// baseline's, medians of rounds:
// - cold start: a reload until the first conversation is listed;
// - opening the largest conversation until its newest message shows, and until all of it is
//   read and the gauge has counted it (baseline: opening a 20-message conversation of the same
//   history);
// - one search query until its hit is listed;
// - a message sent on the Demo until it is stored and shown;
// - memory: the JS heap after opening the ten largest conversations one after another
//   (garbage collected first), against the heap after opening one 20-message conversation.
// Absolute times are printed for context only; the goals (list under 300 ms, a query under
// 50 ms, any conversation open under 150 ms) are read from them, never asserted.
import type { Page } from 'playwright-core';
import { newPage } from '../e2e/browser';
import { withPreviewBrowser } from './chromium';
import { fmtMs, fmtRatio, type Row } from './harness';

export const title = 'A year of history in Chromium: 1,000 conversations, 200,000 messages (ratio = year ÷ 10-conversation baseline)';

const ROUNDS = 2;
/** A word written once, in one message of one conversation, in both histories. */
const NEEDLE = 'quokkaphile';

export interface HistoryShape {
  /** Messages per conversation; conversation i is titled `Conversation i`. */
  sizes: number[];
  /** Conversation (index) and message (seq) holding NEEDLE. */
  needle: [number, number];
}

export function yearShape(): HistoryShape {
  const sizes = [5_000, 2_000, 2_000, 2_000, 2_000, 2_000];
  let seed = 7;
  const random = () => (seed = (seed * 1_103_515_245 + 12_345) % 2_147_483_648) / 2_147_483_648;
  // 994 more of 20 to 360 messages (even: question and answer), then evened out to 200,000 in all.
  while (sizes.length < 1_000) sizes.push(2 * Math.floor(10 + random() * 171));
  for (let diff = 200_000 - sizes.reduce((a, b) => a + b, 0), i = 6; diff !== 0; i = i === 999 ? 6 : i + 1) {
    const step = diff > 0 ? 2 : -2;
    if (sizes[i]! + step < 2) continue;
    sizes[i]! += step;
    diff -= step;
  }
  return { sizes, needle: [600, 11] };
}

const smallShape = (): HistoryShape => ({ sizes: Array.from({ length: 10 }, () => 20), needle: [6, 11] });

/**
 * Writes the history into the app's database (already created by the app at its current
 * version) in transactions of a few thousand records. Runs in the page: 200,000 messages
 * are made where they are stored, not shipped through the debugging protocol.
 */
export async function seed(page: Page, shape: HistoryShape): Promise<void> {
  await page.evaluate(
    async ({ sizes, needle, word }) => {
      const db = await new Promise<IDBDatabase>((resolve, reject) => {
        const request = indexedDB.open('windowpane');
        request.onsuccess = () => resolve(request.result);
        request.onerror = () => reject(request.error);
      });
      const words = (
        'context window token budget summary trim plan model answer question branch cache prompt estimate stream tool result file ' +
        'conversation history message planner gauge limit window share reserve output input calibration'
      ).split(' ');
      let state = 42;
      const random = () => (state = (state * 1_103_515_245 + 12_345) % 2_147_483_648) / 2_147_483_648;
      const sentence = () => {
        const n = 6 + Math.floor(random() * 14);
        const out: string[] = [];
        for (let i = 0; i < n; i++) out.push(words[Math.floor(random() * words.length)]!);
        return `${out.join(' ')}.`;
      };
      const text = (chars: number) => {
        let s = '';
        while (s.length < chars) {
          const roll = random();
          s +=
            roll < 0.1
              ? `\n\`\`\`ts\nconst plan = window(${Math.floor(random() * 9000)});\n\`\`\`\n`
              : roll < 0.2
                ? `\n- **${sentence()}**\n`
                : ` ${sentence()}`;
        }
        return s;
      };
      const DAY = 86_400_000;
      const start = Date.UTC(2025, 10, 25);
      let batch: { conversations: unknown[]; messages: unknown[] } = { conversations: [], messages: [] };
      const flush = () =>
        new Promise<void>((resolve, reject) => {
          const tx = db.transaction(['conversations', 'messages'], 'readwrite');
          for (const c of batch.conversations) tx.objectStore('conversations').put(c);
          for (const m of batch.messages) tx.objectStore('messages').put(m);
          tx.oncomplete = () => resolve();
          tx.onerror = () => reject(tx.error);
          batch = { conversations: [], messages: [] };
        });
      for (let c = 0; c < sizes.length; c++) {
        const id = `history-${c}`;
        const size = sizes[c]!;
        const createdAt = start + Math.floor((c / sizes.length) * 365) * DAY;
        let parentId: string | null = null;
        for (let seq = 0; seq < size; seq++) {
          const role = seq % 2 === 0 ? 'user' : 'assistant';
          const long = random() < 0.002;
          const chars = long ? 20_000 : role === 'user' ? 40 + random() * 400 : 200 + random() * 1_600;
          const toolCall = role === 'assistant' && seq + 2 < size && random() < 0.05;
          let body = text(chars);
          if (c === needle[0] && seq === needle[1]) body = `${body} The ${word} wrote this once.`;
          const content: unknown[] = [{ type: 'text', text: `${seq === size - 1 ? `Newest of conversation ${c}. ` : ''}${body}` }];
          const messageId = `${id}-${seq}`;
          if (toolCall) content.push({ type: 'tool_use', id: `toolu_${c}_${seq}`, name: 'run_javascript', input: { code: 'plan(history)' } });
          const previousCall = seq > 0 && batch.messages.length > 0 ? (batch.messages.at(-1) as { content: { type: string; id?: string }[] }) : undefined;
          const call = role === 'user' ? previousCall?.content.find((b) => b.type === 'tool_use') : undefined;
          batch.messages.push({
            id: messageId,
            conversationId: id,
            seq,
            parentId,
            role,
            kind: 'message',
            content: call ? [{ type: 'tool_result', tool_use_id: call.id, content: text(300) }] : content,
            createdAt: createdAt + seq * 60_000,
            status: 'complete',
          });
          parentId = messageId;
        }
        batch.conversations.push({
          id,
          title: `Conversation ${c}`,
          createdAt,
          updatedAt: createdAt + size * 60_000,
          messageCount: size,
          activeLeafId: parentId,
        });
        if (batch.messages.length >= 4_000) await flush();
      }
      await flush();
      db.close();
    },
    { ...shape, word: NEEDLE },
  );
}

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? (sorted[mid] as number) : ((sorted[mid - 1] as number) + (sorted[mid] as number)) / 2;
};

/** Scrolls the virtualized conversation list until `title` is in the page (outside any timing). */
async function reveal(page: Page, title: string): Promise<void> {
  await page.evaluate(async (wanted) => {
    const list = document.querySelector<HTMLElement>('.conversation-list');
    if (!list) throw new Error('no conversation list');
    const shown = () => [...list.querySelectorAll('.conversation-link')].some((b) => b.textContent === wanted);
    for (let top = 0; !shown() && top <= list.scrollHeight; top += list.clientHeight / 2) {
      list.scrollTop = top;
      await new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve)));
    }
    if (!shown()) throw new Error(`“${wanted}” is not in the list`);
  }, title);
}

/** Runs `action` in the page and waits, frame by frame, until `selector` matches a visible element holding `marker`; ms from the action. */
async function until(page: Page, action: 'none' | { click: string } | { type: [string, string] }, selector: string, marker: string): Promise<number> {
  return (await untilCounted(page, action, selector, marker)).shown;
}

/**
 * As `until`, and also the ms until the gauge has counted what is shown (a long
 * conversation shows its newest messages before all of it is read and planned).
 */
async function untilCounted(
  page: Page,
  action: 'none' | { click: string } | { type: [string, string] },
  selector: string,
  marker: string,
): Promise<{ shown: number; counted: number }> {
  if (action !== 'none' && 'click' in action) await reveal(page, action.click);
  return page.evaluate(
    async ({ action, selector, marker }) => {
      const begin = performance.now();
      if (action !== 'none' && 'click' in action) {
        const target = [...document.querySelectorAll<HTMLElement>('.conversation-link')].find((b) => b.textContent === action.click);
        if (!target) throw new Error(`no “${action.click}” in the list`);
        target.click();
      } else if (action !== 'none') {
        const [label, value] = action.type;
        const input = document.querySelector<HTMLInputElement | HTMLTextAreaElement>(`[aria-label="${label}"]`)!;
        const setter = Object.getOwnPropertyDescriptor(Object.getPrototypeOf(input), 'value')!.set!;
        setter.call(input, value);
        input.dispatchEvent(new Event('input', { bubbles: true }));
        if (label === 'Message') input.dispatchEvent(new KeyboardEvent('keydown', { key: 'Enter', bubbles: true }));
      }
      let shown: number | undefined;
      while (performance.now() - begin < 120_000) {
        await new Promise((resolve) => requestAnimationFrame(resolve));
        const found = [...document.querySelectorAll(selector)].find((el) => el.textContent?.includes(marker));
        const box = found?.getBoundingClientRect();
        if (box && box.height > 0 && box.bottom > 0 && box.top < window.innerHeight) shown ??= performance.now() - begin;
        else shown = undefined;
        if (shown !== undefined && !document.querySelector('[role="meter"][aria-busy="true"]')) return { shown, counted: performance.now() - begin };
      }
      throw new Error(`“${marker}” did not show within 120 s`);
    },
    { action, selector, marker },
  );
}

/**
 * Has the app index what `seed` wrote behind its back (a search starts the index) and waits
 * until the saved index holds all `total` messages, so the rounds measure a day's use, not
 * the one-time build after an upgrade or import.
 */
export async function indexAll(page: Page, total: number): Promise<void> {
  await page.reload();
  await page.getByRole('searchbox', { name: 'Search conversations' }).fill(NEEDLE);
  await page.waitForFunction(
    async (total) => {
      const db = await new Promise<IDBDatabase>((resolve, reject) => {
        const request = indexedDB.open('windowpane');
        request.onsuccess = () => resolve(request.result);
        request.onerror = () => reject(request.error);
      });
      const saved = await new Promise<{ messageCount?: number } | undefined>((resolve, reject) => {
        const request = db.transaction('searchIndex').objectStore('searchIndex').get('messages');
        request.onsuccess = () => resolve(request.result as { messageCount?: number } | undefined);
        request.onerror = () => reject(request.error);
      });
      db.close();
      return saved?.messageCount === total;
    },
    total,
    { timeout: 900_000, polling: 2_000 },
  );
  await page.getByRole('searchbox', { name: 'Search conversations' }).fill('');
}

/** Reloads and measures from the navigation's start until the first conversation is listed. */
async function coldStart(page: Page): Promise<number> {
  await page.getByRole('button', { name: 'New chat' }).click();
  await page.reload({ waitUntil: 'commit' });
  await page.waitForFunction(() => document.querySelector('.conversation-link') !== null, undefined, { timeout: 120_000, polling: 'raf' });
  return page.evaluate(() => performance.now());
}

async function heapMb(page: Page): Promise<number> {
  const cdp = await page.context().newCDPSession(page);
  await cdp.send('HeapProfiler.collectGarbage');
  const { usedSize } = (await cdp.send('Runtime.getHeapUsage')) as { usedSize: number };
  await cdp.detach();
  return usedSize / 1_048_576;
}

interface Measures {
  start: number[];
  openLargest: number[];
  countedLargest: number[];
  openSmall: number[];
  search: number[];
  append: number[];
  heapOne: number;
  heapTen: number;
}

async function measure(page: Page, shape: HistoryShape): Promise<Measures> {
  const out: Measures = { start: [], openLargest: [], countedLargest: [], openSmall: [], search: [], append: [], heapOne: 0, heapTen: 0 };
  const order = shape.sizes.map((size, i) => [size, i] as const).sort((a, b) => b[0] - a[0]);
  const largest = order[0]![1];
  const small = shape.sizes.findIndex((size) => size === 20);
  for (let round = -1; round < ROUNDS; round++) {
    const start = await coldStart(page);
    await page.waitForTimeout(300);
    const { shown: openLargest, counted: countedLargest } = await untilCounted(
      page,
      { click: `Conversation ${largest}` },
      'article',
      `Newest of conversation ${largest}.`,
    );
    await page.waitForTimeout(200);
    const openSmall = small < 0 ? NaN : await until(page, { click: `Conversation ${small}` }, 'article', `Newest of conversation ${small}.`);
    await page.waitForTimeout(200);
    const search = await until(page, { type: ['Search conversations', NEEDLE] }, '.conversation-link', `Conversation ${shape.needle[0]}`);
    await page.getByRole('searchbox', { name: 'Search conversations' }).fill('');
    await page.getByRole('button', { name: 'New chat' }).click();
    const append = await until(page, { type: ['Message', `Appended in round ${round}`] }, 'article[aria-label="User message"]', `Appended in round ${round}`);
    await page.getByRole('button', { name: 'Send', exact: true }).waitFor({ timeout: 60_000 });
    if (round < 0) continue;
    out.start.push(start);
    out.openLargest.push(openLargest);
    out.countedLargest.push(countedLargest);
    out.openSmall.push(openSmall);
    out.search.push(search);
    out.append.push(append);
  }
  await page.getByRole('button', { name: 'New chat' }).click();
  await page.reload();
  await page.waitForFunction(() => document.querySelector('.conversation-link') !== null, undefined, { timeout: 120_000 });
  const first = small < 0 ? largest : small;
  await until(page, { click: `Conversation ${first}` }, 'article', `Newest of conversation ${first}.`);
  out.heapOne = await heapMb(page);
  for (const [, index] of order.slice(0, 10)) await until(page, { click: `Conversation ${index}` }, 'article', `Newest of conversation ${index}.`);
  out.heapTen = await heapMb(page);
  return out;
}

export async function run(): Promise<Row[]> {
  return withPreviewBrowser(async ({ appUrl, browser }) => {
    const results: Measures[] = [];
    for (const shape of [smallShape(), yearShape()]) {
      const { page, context, errors } = await newPage(browser, { viewport: { width: 1280, height: 800 } });
      page.setDefaultTimeout(120_000);
      // tsx keeps function names with a `__name` helper that the functions run in the page would miss.
      await page.addInitScript('globalThis.__name = globalThis.__name || ((f) => f)');
      await page.goto(appUrl);
      await page.getByRole('textbox', { name: 'Message' }).waitFor();
      await seed(page, shape);
      await indexAll(
        page,
        shape.sizes.reduce((a, b) => a + b, 0),
      );
      results.push(await measure(page, shape));
      if (errors.length > 0) throw new Error(`the page reported errors: ${errors.join('; ')}`);
      await context.close();
    }
    const [small, year] = results as [Measures, Measures];
    const row = (name: string, goal: string, y: number[], s: number[]): Row => ({
      benchmark: name,
      case: `1,000 conversations, 200,000 messages${goal}`,
      value: fmtMs(median(y)),
      baseline: `10 conversations: ${fmtMs(median(s))}`,
      ratio: fmtRatio(median(y) / median(s)),
    });
    return [
      row('cold start until the conversation list shows', ' (goal: under 300 ms)', year.start, small.start),
      {
        benchmark: 'opening the largest conversation (5,000 messages) until its newest message shows',
        case: 'same history (goal: any conversation under 150 ms)',
        value: fmtMs(median(year.openLargest)),
        baseline: `a 20-message conversation: ${fmtMs(median(year.openSmall))}`,
        ratio: fmtRatio(median(year.openLargest) / median(year.openSmall)),
      },
      {
        benchmark: 'opening the largest conversation until all of it is read and the gauge has counted it',
        case: 'same history',
        value: fmtMs(median(year.countedLargest)),
        baseline: `a 20-message conversation: ${fmtMs(median(year.openSmall))}`,
        ratio: fmtRatio(median(year.countedLargest) / median(year.openSmall)),
      },
      row('one search query until its hit is listed', ' (goal: under 50 ms)', year.search, small.search),
      row('a new message stored and shown (Demo)', '', year.append, small.append),
      {
        benchmark: 'JS heap after opening the ten largest conversations in turn',
        case: '1,000 conversations, 200,000 messages',
        value: `${year.heapTen.toFixed(1)} MB`,
        baseline: `after opening one 20-message conversation: ${year.heapOne.toFixed(1)} MB`,
        ratio: fmtRatio(year.heapTen / year.heapOne),
      },
    ];
  });
}
