/**
 * Every windowing strategy on the Demo (the no-key default, a tiny window), in real
 * Chromium: chosen in Settings, then 30 exchanges, short messages with a long one every
 * fifth, so each trimming strategy has to trim several times. Every request the Demo gets
 * must be accepted (it answers one over its window with the API's "prompt is too long"),
 * so no answer fails, no error or recovery notice appears, and the gauge never shows a
 * request over the window. `off` trims nothing: once the conversation outgrows the window
 * the app says so, the Demo refuses the requests, and the page carries on.
 */
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { launchBrowser, newPage, screenshot } from './browser';
import { openApp, scrollUpTo } from './uiHelpers';

const EXCHANGES = 30;
const SHORT = 'How does the window decide what to keep? ';
const LONG = 'A longer note, to fill the window faster: every request is planned before it is sent, and the oldest turns go first. '.repeat(12);

/** What the page showed while the test ran: notices, trim rows and every value the gauge took. */
interface Seen {
  /** Texts of notices (role status or alert, with the notice's tone) and trim rows, in the order they appeared. */
  texts: { kind: string; text: string }[];
  /** Every value the gauge showed, with its maximum. */
  gauge: { now: number; max: number }[];
}

/**
 * Records what appears in the page: notices come and go (info ones fade after seconds) and
 * the gauge changes while an answer streams, so reading them after each exchange alone
 * could miss one.
 */
function record(): void {
  const seen: Seen = { texts: [], gauge: [] };
  (window as unknown as { __seen: Seen }).__seen = seen;
  const shown = new WeakMap<Element, string>();
  const note = (el: Element) => {
    const text = el.textContent ?? '';
    if (shown.get(el) === text) return;
    shown.set(el, text);
    const tone = /\bnotice-(\w+)/.exec(el.className)?.[1];
    seen.texts.push({ kind: tone ? `notice ${tone}` : el.getAttribute('role') === 'note' ? 'trim' : 'status', text });
  };
  const scan = () => {
    for (const el of document.querySelectorAll('[role="status"], [role="alert"], [role="note"]')) note(el);
    const meter = document.querySelector('[role="meter"][aria-label="Context usage"]');
    if (meter) {
      const sample = { now: Number(meter.getAttribute('aria-valuenow')), max: Number(meter.getAttribute('aria-valuemax')) };
      const prev = seen.gauge.at(-1);
      if (!prev || prev.now !== sample.now || prev.max !== sample.max) seen.gauge.push(sample);
    }
  };
  new MutationObserver(scan).observe(document.body, { subtree: true, childList: true, characterData: true, attributes: true, attributeFilter: ['aria-valuenow', 'aria-valuemax'] });
  scan();
}

/**
 * The Demo waits 250 ms before it answers and 20 ms between stream events, to look like a
 * model typing: over 200 answers at that pace take minutes. In this page those two waits
 * end at the next turn of the event loop (a message on a channel, which the browser never
 * stretches as it does nested timers); every other timer keeps its delay. Nothing here
 * stops an answer, so the Demo never cancels one of these waits.
 */
function hurryTheDemo(): void {
  const original = window.setTimeout;
  const due: (() => void)[] = [];
  const channel = new MessageChannel();
  channel.port1.onmessage = () => due.shift()?.();
  window.setTimeout = ((handler: TimerHandler, timeout?: number, ...args: unknown[]) => {
    if ((timeout !== 20 && timeout !== 250) || typeof handler !== 'function') return original(handler, timeout, ...args);
    due.push(() => handler(...args));
    channel.port2.postMessage(null);
    return 0;
  }) as typeof window.setTimeout;
}

async function seen(page: Page): Promise<Seen> {
  return page.evaluate(() => (window as unknown as { __seen: Seen }).__seen);
}

/**
 * Sends `text` and waits until its answer is done: a new newest answer, no longer
 * streaming, and Send back. Returns the answer's status (complete, error, …).
 */
async function exchange(page: Page, text: string): Promise<string> {
  const answers = 'article[aria-label="Assistant message"]';
  const before = await page.evaluate((selector) => document.querySelectorAll(selector).item(document.querySelectorAll(selector).length - 1)?.getAttribute('data-message-id') ?? null, answers);
  const box = page.getByRole('textbox', { name: 'Message' });
  await box.fill(text);
  await box.press('Enter');
  const handle = await page.waitForFunction(
    ({ selector, previous }) => {
      const all = document.querySelectorAll(selector);
      const last = all.item(all.length - 1);
      if (!last || last.getAttribute('data-message-id') === previous) return null;
      const status = last.getAttribute('data-status');
      return status && status !== 'streaming' ? status : null;
    },
    { selector: answers, previous: before },
    { timeout: 30_000 },
  );
  await page.getByRole('button', { name: 'Send', exact: true }).waitFor();
  return (await handle.jsonValue()) as string;
}

interface Case {
  strategy: string;
  /** Settings beyond the strategy, so its own rule (not only the window) trims within 30 exchanges. */
  fields?: Record<string, string>;
  /** What the compaction notice gives as the reason for this strategy's trims. */
  reason?: RegExp;
}

const TRIMMING: Case[] = [
  { strategy: 'auto' },
  { strategy: 'count', fields: { 'Max messages': '8', 'Preserve first messages': '1', 'Preserve last messages': '4' }, reason: /: \d+ messages > max_messages \(8\)/ },
  { strategy: 'rolling', fields: { 'Rolling window size': '6' }, reason: /: \d+ messages > 6/ },
  { strategy: 'truncate', reason: /tokens > 80 % of the [\d,]+ max input tokens/ },
  { strategy: 'summarize', reason: /and a summary is sent in their place/ },
  // Its tiers (80k and 120k tokens) are far above the Demo's window: only the window trims.
  { strategy: 'two-tier', reason: /left out to fit the model's [\d,]+ max input tokens/ },
];

describe('every strategy on the Demo, 30 exchanges, in Chromium', () => {
  let browser: Browser;
  const appUrl = inject('appUrl');
  beforeAll(async () => {
    browser = await launchBrowser();
  });
  afterAll(async () => {
    await browser?.close();
  });

  /** A fresh profile on the Demo with `strategy` and its fields saved in Settings, the recorder running. */
  async function chatWith({ strategy, fields = {} }: Case) {
    const opened = await newPage(browser);
    const { page } = opened;
    page.setDefaultTimeout(15_000);
    await page.addInitScript(hurryTheDemo);
    await openApp(page, appUrl);
    await page.getByRole('button', { name: 'Settings' }).click();
    const dialog = page.getByRole('dialog', { name: 'Settings' });
    expect(await dialog.getByLabel('Provider').inputValue()).toBe('demo');
    await dialog.getByLabel('Strategy').selectOption(strategy);
    for (const [label, value] of Object.entries(fields)) await dialog.getByLabel(label, { exact: true }).fill(value);
    await dialog.getByRole('button', { name: 'Save' }).click();
    await dialog.waitFor({ state: 'detached' });
    await page.evaluate(record);
    return opened;
  }

  const message = (n: number) => `Question ${n}. ${n % 5 === 0 ? LONG : SHORT}`;

  it.each(TRIMMING)('$strategy: every request is accepted and inside the window, and it trims', { timeout: 120_000 }, async (strategyCase) => {
    const { page, context, errors } = await chatWith(strategyCase);
    const statuses: string[] = [];
    for (let n = 1; n <= EXCHANGES; n++) {
      statuses.push(await exchange(page, message(n)));
      const meter = page.getByRole('meter', { name: 'Context usage' });
      const now = Number(await meter.getAttribute('aria-valuenow'));
      const max = Number(await meter.getAttribute('aria-valuemax'));
      expect(now, `gauge after exchange ${n}`).toBeLessThanOrEqual(max);
    }
    const { texts, gauge } = await seen(page);

    // Every answer came back whole: the Demo accepted every request.
    expect(statuses).toEqual(Array(EXCHANGES).fill('complete'));
    // No error, no recovery from a refused request, no failed summary, no request over a limit.
    const problems = texts.filter((t) => t.kind === 'notice error' || t.kind === 'notice warning');
    expect(problems).toEqual([]);
    // The gauge never showed a request over the window, not even for a moment.
    expect(gauge.length).toBeGreaterThan(EXCHANGES);
    expect(gauge.filter((g) => g.now > g.max)).toEqual([]);
    // It trimmed, and for the strategy's own reason.
    const compaction = texts.filter((t) => t.kind === 'notice info' && /earlier messages? (is|are) left out of this request/.test(t.text));
    expect(compaction.length).toBeGreaterThan(0);
    if (strategyCase.reason) expect(compaction.map((t) => t.text).join('\n')).toMatch(strategyCase.reason);
    expect(texts.some((t) => t.kind === 'trim')).toBe(true);
    if (strategyCase.strategy === 'summarize') expect(await page.getByRole('article', { name: 'Conversation summary' }).count()).toBe(1);
    if (strategyCase.strategy === 'count') {
      const note = page.getByRole('note', { name: 'Trim notice' });
      expect(await scrollUpTo(page, note)).toBe(true);
      await screenshot(page, 'strategies-count-trimmed');
    }
    expect(errors).toEqual([]);
    await context.close();
  });

  it('off: trims nothing; once the conversation outgrows the window it says so, and the page carries on', { timeout: 120_000 }, async () => {
    const { page, context, errors } = await chatWith({ strategy: 'off' });
    const statuses: string[] = [];
    for (let n = 1; n <= EXCHANGES; n++) statuses.push(await exchange(page, message(n)));
    const { texts, gauge } = await seen(page);

    // Nothing was trimmed: no trim row, no compaction notice.
    expect(texts.filter((t) => t.kind === 'trim' || /left out of this request/.test(t.text))).toEqual([]);
    // The first answers fit; later requests were over the window, flagged before they were sent …
    expect(statuses[0]).toBe('complete');
    expect(statuses.at(-1)).toBe('error');
    expect(texts.some((t) => t.kind === 'notice warning' && t.text.startsWith('This request is over its limit even after trimming:'))).toBe(true);
    expect(gauge.some((g) => g.now > g.max)).toBe(true);
    // … and refused by the Demo as too long, which is the only error the user saw.
    const alerts = texts.filter((t) => t.kind === 'notice error');
    expect(alerts.length).toBeGreaterThan(0);
    expect(alerts.filter((t) => !/^The conversation is too long for windowpane-demo/.test(t.text))).toEqual([]);
    // No crash: the composer still takes a message.
    expect(await page.getByRole('textbox', { name: 'Message' }).isEditable()).toBe(true);
    await screenshot(page, 'strategies-off-over');
    expect(errors).toEqual([]);
    await context.close();
  });
});
