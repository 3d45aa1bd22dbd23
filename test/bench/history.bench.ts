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
// - two search queries until a hit is listed (a word written once; one in every conversation,
//   100 hits), each split into the page before the search Worker, the Worker (its lookup, reads
//   and snippets) and the page after, and the Worker's load of the saved index after the reload
//   (read, parsed, caught up with storage), which a query typed before it ends waits for;
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

const ROUNDS = 5;
/** A word written once, in one message of one conversation, in both histories. */
const NEEDLE = 'quokkaphile';
/** A word of the generated text found in every conversation: a query with the most hits listed (100). */
const COMMON = 'budget';
/** Only a search result's snippet holds a <mark>: the list before the search never matches it. */
const HIT = '.conversation-snippet mark';

export interface HistoryShape {
  /** Messages per conversation; conversation i is titled `Conversation i`. */
  sizes: number[];
  /** Conversation (index) and message (seq) holding NEEDLE. */
  needle: [number, number];
}

/**
 * The year: 1,000 conversations of 200,000 messages. `conversations` scales it down for a
 * quicker run (same mix, 200 messages a conversation on average, the long ones shortened
 * in proportion); the needle stays 60% of the way down the list.
 */
export function yearShape(conversations = 1_000): HistoryShape {
  const scale = conversations / 1_000;
  const sizes = [5_000, 2_000, 2_000, 2_000, 2_000, 2_000].map((size) => Math.max(20, 2 * Math.round((size * scale) / 2)));
  let seed = 7;
  const random = () => (seed = (seed * 1_103_515_245 + 12_345) % 2_147_483_648) / 2_147_483_648;
  // The rest of 20 to 360 messages (even: question and answer), then evened out to 200 a conversation in all.
  while (sizes.length < conversations) sizes.push(2 * Math.floor(10 + random() * 171));
  const last = conversations - 1;
  for (let diff = 200 * conversations - sizes.reduce((a, b) => a + b, 0), i = 6; diff !== 0; i = i === last ? 6 : i + 1) {
    const step = diff > 0 ? 2 : -2;
    if (sizes[i]! + step < 2) continue;
    sizes[i]! += step;
    diff -= step;
  }
  return { sizes, needle: [Math.floor(conversations * 0.6), 11] };
}

/** `WINDOWPANE_HISTORY_CONVERSATIONS=100 npm run bench history` runs a tenth of the year (20,000 messages), for a quicker look. */
function wantedConversations(): number {
  const wanted = Number(process.env.WINDOWPANE_HISTORY_CONVERSATIONS ?? 1_000);
  if (!Number.isInteger(wanted) || wanted < 10) throw new Error('WINDOWPANE_HISTORY_CONVERSATIONS must be a whole number of at least 10');
  return wanted;
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
): Promise<{ begin: number; shown: number; counted: number }> {
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
        // Any one on screen: a virtualized list also holds rows just out of view.
        const onScreen = [...document.querySelectorAll(selector)].some((el) => {
          if (!el.textContent?.includes(marker)) return false;
          const box = el.getBoundingClientRect();
          return box.height > 0 && box.bottom > 0 && box.top < window.innerHeight;
        });
        if (onScreen) shown ??= performance.now() - begin;
        else shown = undefined;
        if (shown !== undefined && !document.querySelector('[role="meter"][aria-busy="true"]')) return { begin, shown, counted: performance.now() - begin };
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
  // Polled from here: waitForFunction takes the promise an async predicate returns for a truthy answer, and would not wait.
  const began = Date.now();
  for (;;) {
    const saved = await page.evaluate(async () => {
      const db = await new Promise<IDBDatabase>((resolve, reject) => {
        const request = indexedDB.open('windowpane');
        request.onsuccess = () => resolve(request.result);
        request.onerror = () => reject(request.error);
      });
      const record = await new Promise<{ messageCount?: number } | undefined>((resolve, reject) => {
        const request = db.transaction('searchIndex').objectStore('searchIndex').get('messages');
        request.onsuccess = () => resolve(request.result as { messageCount?: number } | undefined);
        request.onerror = () => reject(request.error);
      });
      db.close();
      return record?.messageCount;
    });
    if (saved === total) break;
    if (Date.now() - began > 900_000) throw new Error(`the search index was not saved whole within 15 minutes (${saved ?? 0} of ${total})`);
    await page.waitForTimeout(2_000);
  }
  await page.getByRole('searchbox', { name: 'Search conversations' }).fill('');
}

/**
 * Registered before the app loads: the page time each search request is posted to the
 * search Worker and each answer comes back (heard before the app's own listener), so a
 * query's time splits into the page before the Worker, the Worker, and the page after it.
 * A string: the bench runner's compiler would wrap a class in a helper the page lacks.
 */
const WATCH_SEARCH_WORKER = `
  const times = (window.__searchTimes = []);
  const Native = window.Worker;
  window.Worker = class extends Native {
    constructor(url, options) {
      super(url, options);
      this.addEventListener('message', (event) => {
        if (event.data && event.data.type === 'hits') times.push({ id: event.data.id, replied: performance.now() });
      });
    }
    postMessage(message, transfer) {
      if (message && message.type === 'search') times.push({ id: message.id, query: message.query, asked: performance.now() });
      return super.postMessage(message, transfer);
    }
  };
`;

/** Where one query's time went, in ms from the input event: see `search`. */
interface SearchPhases {
  /** Until the hit is on screen. */
  shown: number;
  /** The page, from the input event until the query is posted to the Worker. */
  /** How many times it was asked until the answer that showed the hit: more than once while the index loads. */
  askings: number;
  toWorker: number;
  /** From the post until the Worker's answer arrives: waiting for it, the lookup, the reads, the snippets and the messages' crossing. */
  inWorker: number;
  /**
   * Its parts: from the post until the Worker took the request up (the Worker busy with other work, its load's tasks),
   * until it answered (as the Worker timed it), and until the answer reached the page (the page busy).
   */
  queued: number;
  handled: number;
  back: number;
  /** Inside it: waiting until the index could answer (its load's next part, or the end of its load; the Worker's own measure). */
  wait: number;
  /** Inside it: the index lookup, reading the hits' messages from IndexedDB, cutting their snippets (the Worker's own measures). */
  lookup: number;
  read: number;
  cut: number;
  /** The page, from the answer until the hit is on screen: the store, React and the frame drawn. */
  toScreen: number;
  /**
   * The Worker's load of the saved index after the round's reload: until its first part (the most recent conversations)
   * can answer, and until all of it can; reading its parts, parsing them (each summed over the parts), catching up with
   * storage; and reading storage's keys for the catch-up (from the load's start, beside the reads and parses).
   */
  loadFirst: number;
  loadAll: number;
  loadRead: number;
  loadParse: number;
  loadCatchUp: number;
  loadKeys: number;
}

/** Types `word` into the search box in one input event and waits until a hit highlighting `marker` is listed; where the time went. */
async function search(page: Page, word: string, marker: string): Promise<SearchPhases> {
  const { begin, shown } = await untilCounted(page, { type: ['Search conversations', word] }, HIT, marker);
  // While the index loads, the query is asked again as more of it loads: from the first asking to the last answer before the hit showed.
  // Only this query's askings and their answers count: an earlier query's asking again, or the details of rows past the first, answer too.
  const times = await page.evaluate(
    ({ from, until, word }) => {
      const all = (window as unknown as { __searchTimes: { id: number; query?: string; asked?: number; replied?: number }[] }).__searchTimes;
      const asked = all.filter((t) => t.asked !== undefined && t.asked >= from && t.query === word);
      const ids = new Set(asked.map((t) => t.id));
      const replied = all.filter((t) => t.replied !== undefined && ids.has(t.id) && t.replied <= until).at(-1);
      return {
        asked: asked[0]?.asked,
        replied: replied?.replied,
        id: replied?.id,
        askings: asked.filter((t) => t.asked! <= (replied?.replied ?? until)).length,
        origin: performance.timeOrigin,
      };
    },
    { from: begin, until: begin + shown, word },
  );
  const worker = page.workers().find((w) => w.url().includes('searchWorker'));
  // When the answering request arrived in the Worker and was answered there, in the page's time.
  const request = worker
    ? await worker.evaluate(
        ({ id, origin }) => {
          const entry = performance.getEntriesByName(`search: request ${id}`).at(-1);
          return entry ? { arrived: performance.timeOrigin + entry.startTime - origin, took: entry.duration } : undefined;
        },
        { id: times.id, origin: times.origin },
      )
    : undefined;
  const measures = worker
    ? await worker.evaluate(() =>
        Object.fromEntries(
          ['wait', 'lookup', 'snippets read', 'snippets cut', 'load first part', 'load', 'load read', 'load parse', 'load catch up', 'load keys'].map(
            (phase) => [phase, performance.getEntriesByName(`search: ${phase}`).at(-1)?.duration ?? NaN],
          ),
        ),
      )
    : {};
  const asked = times.asked ?? NaN;
  const replied = times.replied ?? NaN;
  return {
    shown,
    askings: times.askings,
    toWorker: asked - begin,
    inWorker: replied - asked,
    queued: (request?.arrived ?? NaN) - asked,
    handled: request?.took ?? NaN,
    back: replied - (request ? request.arrived + request.took : NaN),
    wait: measures.wait ?? NaN,
    lookup: measures.lookup ?? NaN,
    read: measures['snippets read'] ?? NaN,
    cut: measures['snippets cut'] ?? NaN,
    toScreen: shown - (replied - begin),
    loadFirst: measures['load first part'] ?? NaN,
    loadAll: measures.load ?? NaN,
    loadRead: measures['load read'] ?? NaN,
    loadParse: measures['load parse'] ?? NaN,
    loadCatchUp: measures['load catch up'] ?? NaN,
    loadKeys: measures['load keys'] ?? NaN,
  };
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
  /** The word written once; the word in every conversation. */
  search: SearchPhases[];
  searchCommon: SearchPhases[];
  append: number[];
  heapOne: number;
  heapTen: number;
}

async function measure(page: Page, shape: HistoryShape): Promise<Measures> {
  const out: Measures = { start: [], openLargest: [], countedLargest: [], openSmall: [], search: [], searchCommon: [], append: [], heapOne: 0, heapTen: 0 };
  const order = shape.sizes.map((size, i) => [size, i] as const).sort((a, b) => b[0] - a[0]);
  const largest = order[0]![1];
  // The shortest conversation (20 messages in the year; more in a smaller run, whose lengths are shorter too).
  const small = shape.sizes.indexOf(Math.min(...shape.sizes));
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
    const found = await search(page, NEEDLE, NEEDLE);
    await page.getByRole('searchbox', { name: 'Search conversations' }).fill('');
    await page.waitForTimeout(200);
    const common = await search(page, COMMON, COMMON);
    await page.getByRole('searchbox', { name: 'Search conversations' }).fill('');
    await page.getByRole('button', { name: 'New chat' }).click();
    const append = await until(page, { type: ['Message', `Appended in round ${round}`] }, 'article[aria-label="User message"]', `Appended in round ${round}`);
    await page.getByRole('button', { name: 'Send', exact: true }).waitFor({ timeout: 60_000 });
    if (round < 0) continue;
    out.start.push(start);
    out.openLargest.push(openLargest);
    out.countedLargest.push(countedLargest);
    out.openSmall.push(openSmall);
    out.search.push(found);
    out.searchCommon.push(common);
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
    const conversations = wantedConversations();
    const yearSizes = yearShape(conversations).sizes;
    for (const shape of [smallShape(), yearShape(conversations)]) {
      const { page, context, errors } = await newPage(browser, { viewport: { width: 1280, height: 800 } });
      page.setDefaultTimeout(120_000);
      // tsx keeps function names with a `__name` helper that the functions run in the page would miss.
      await page.addInitScript('globalThis.__name = globalThis.__name || ((f) => f)');
      await page.addInitScript(WATCH_SEARCH_WORKER);
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
    const history = `${conversations.toLocaleString('en-US')} conversations, ${(conversations * 200).toLocaleString('en-US')} messages`;
    // A phase that did not happen in a round (the whole load not over before its query) is NaN, and left out of the median; n/a if it never did.
    const row = (name: string, goal: string, y: number[], s: number[], fmt = fmtMs): Row => {
      const [my, ms] = [y, s].map((values) => {
        const seen = values.filter((v) => !Number.isNaN(v));
        return seen.length === 0 ? NaN : median(seen);
      }) as [number, number];
      const missing = y.filter((v) => Number.isNaN(v)).length;
      return {
        benchmark: name,
        case: `${history}${goal}${missing > 0 ? ` (${missing} of ${y.length} rounds had none)` : ''}`,
        value: Number.isNaN(my) ? 'n/a' : fmt(my),
        baseline: `10 conversations: ${Number.isNaN(ms) ? 'n/a' : fmt(ms)}`,
        ratio: fmtRatio(my / ms),
      };
    };
    const phase = (key: keyof SearchPhases) => (m: Measures, which: 'search' | 'searchCommon') => m[which].map((p) => p[key]);
    const searchRows = (which: 'search' | 'searchCommon', name: string): Row[] => [
      row(name, ' (goal: under 50 ms, within 3× the baseline)', phase('shown')(year, which), phase('shown')(small, which)),
      ...(
        [
          ['toWorker', 'the page, from the input event until the query is posted to the search Worker'],
          ['askings', 'how many times the query was asked until the answer that listed it (asked again while the index loads)'],
          ['inWorker', 'the Worker, from the first post until the answer that listed it'],
          ['queued', '… of which until the Worker took it up (busy with its load)'],
          ['handled', '… of which the Worker answering it, from then until its answer'],
          ['wait', '… … of which waiting until the index could answer (its load)'],
          ['lookup', '… … of which the index lookup'],
          ['read', "… … of which reading the hits' messages from IndexedDB"],
          ['cut', '… … of which cutting their snippets'],
          ['back', '… of which until its answer reached the page (the page busy)'],
          ['toScreen', 'the page, from the answer until the hit is drawn (store, React, frame)'],
          ...(which === 'search'
            ? ([
                ['loadFirst', "the Worker's load of the saved index after the reload: until its newest part answers"],
                ['loadAll', '… until all of it answers'],
                ['loadRead', '… of which reading its parts (summed)'],
                ['loadParse', '… parsing them (summed)'],
                ['loadCatchUp', '… catching up with storage'],
                ['loadKeys', "… of which storage's keys read (from the load's start)"],
              ] as const)
            : []),
        ] as const
      ).map(([key, label]) =>
        row(`${name}: ${label}`, '', phase(key)(year, which), phase(key)(small, which), key === 'askings' ? (n: number) => n.toFixed(1) : fmtMs),
      ),
    ];
    const under = (values: number[], ms: number) => `${values.filter((v) => v < ms).length} of ${values.length} under ${ms} ms`;
    return [
      row('cold start until the conversation list shows', ` (goal: under 300 ms in at least four of five; ${under(year.start, 300)})`, year.start, small.start),
      {
        benchmark: 'opening the largest conversation (5,000 messages) until its newest message shows',
        case: 'same history (goal: any conversation under 150 ms)',
        value: fmtMs(median(year.openLargest)),
        baseline: `a ${Math.min(...yearSizes)}-message conversation: ${fmtMs(median(year.openSmall))}`,
        ratio: fmtRatio(median(year.openLargest) / median(year.openSmall)),
      },
      {
        benchmark: 'opening the largest conversation until all of it is read and the gauge has counted it',
        case: 'same history',
        value: fmtMs(median(year.countedLargest)),
        baseline: `a ${Math.min(...yearSizes)}-message conversation: ${fmtMs(median(year.openSmall))}`,
        ratio: fmtRatio(median(year.countedLargest) / median(year.openSmall)),
      },
      ...searchRows('search', 'a search for a word written once until its hit is listed'),
      ...searchRows('searchCommon', `a search for “${COMMON}”, in every conversation, until its first hit is listed`),
      row('a new message stored and shown (Demo)', '', year.append, small.append),
      {
        benchmark: 'JS heap after opening the ten largest conversations in turn',
        case: history,
        value: `${year.heapTen.toFixed(1)} MB`,
        baseline: `after opening one 20-message conversation: ${year.heapOne.toFixed(1)} MB`,
        ratio: fmtRatio(year.heapTen / year.heapOne),
      },
    ];
  });
}
