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
import { openApp, openSettingsSection, scrollUpTo } from './uiHelpers';

const EXCHANGES = 30;
const SHORT = 'How does the window decide what to keep? ';
const LONG = 'A longer note, to fill the window faster: every request is planned before it is sent, and the oldest turns go first. '.repeat(12);

/** What the page showed while the test ran. */
interface Seen {
  /** Notices (kind "notice" and its tone), trim rows ("trim") and other status lines ("status"), in the order they appeared or changed. */
  texts: { kind: string; text: string }[];
  /** Every value the gauge took, with its maximum. */
  gauge: { now: number; max: number }[];
  /** The last status seen of each answer (by message id): streaming, complete, error… */
  answers: Record<string, string>;
  /** Turns ended: Stop gave way to Send. */
  turns: number;
  busy: boolean;
}

/**
 * Records what the page shows as it changes: notices come and go (info ones fade after
 * seconds), the gauge moves while an answer streams, and the transcript renders only the
 * rows near the view, so reading them after each exchange could miss some.
 */
function record(): void {
  const seen: Seen = { texts: [], gauge: [], answers: {}, turns: 0, busy: false };
  (window as unknown as { __seen: Seen }).__seen = seen;
  const shown = new WeakMap<Element, string>();
  const scan = () => {
    for (const el of document.querySelectorAll('[role="status"], [role="alert"], [role="note"]')) {
      const text = el.textContent ?? '';
      if (shown.get(el) === text) continue;
      shown.set(el, text);
      const tone = /\bnotice-(\w+)/.exec(el.className)?.[1];
      seen.texts.push({ kind: tone ? `notice ${tone}` : el.getAttribute('role') === 'note' ? 'trim' : 'status', text });
    }
    const meter = document.querySelector('[role="meter"][aria-label="Context usage"]');
    if (meter) {
      const sample = { now: Number(meter.getAttribute('aria-valuenow')), max: Number(meter.getAttribute('aria-valuemax')) };
      const prev = seen.gauge.at(-1);
      if (!prev || prev.now !== sample.now || prev.max !== sample.max) seen.gauge.push(sample);
    }
    for (const answer of document.querySelectorAll('article[aria-label="Assistant message"]')) {
      const id = answer.getAttribute('data-message-id');
      if (id) seen.answers[id] = answer.getAttribute('data-status') ?? '';
    }
    const busy = [...document.querySelectorAll('button')].some((button) => button.textContent?.trim() === 'Stop');
    if (seen.busy && !busy) seen.turns++;
    seen.busy = busy;
  };
  new MutationObserver(scan).observe(document.body, {
    subtree: true,
    childList: true,
    characterData: true,
    attributes: true,
    attributeFilter: ['aria-valuenow', 'aria-valuemax', 'data-status'],
  });
  scan();
}

/**
 * The Demo waits 250 ms before it answers and 20 ms between stream events, to look like a
 * model typing: over 200 answers at that pace take minutes. In this page those two waits
 * end as soon as the running task does, so an answer arrives in one go and is drawn a few
 * times rather than once per three words; every other timer keeps its delay. Nothing here
 * stops an answer, so the Demo never cancels one of these waits.
 */
function hurryTheDemo(): void {
  const original = window.setTimeout;
  window.setTimeout = ((handler: TimerHandler, timeout?: number, ...args: unknown[]) => {
    if ((timeout !== 20 && timeout !== 250) || typeof handler !== 'function') return original(handler, timeout, ...args);
    void Promise.resolve().then(() => handler(...args));
    return 0;
  }) as typeof window.setTimeout;
}

async function seen(page: Page): Promise<Seen> {
  return page.evaluate(() => (window as unknown as { __seen: Seen }).__seen);
}

/** Sends `text` and waits until its turn is over (Stop gave way to Send), whether the answer came or failed. */
async function exchange(page: Page, text: string): Promise<void> {
  const before = await page.evaluate(() => (window as unknown as { __seen: Seen }).__seen.turns);
  const box = page.getByRole('textbox', { name: 'Message' });
  await box.fill(text);
  await box.press('Enter');
  await page.waitForFunction((turns) => (window as unknown as { __seen: Seen }).__seen.turns > turns, before, { timeout: 30_000 });
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
  {
    strategy: 'count',
    fields: { 'Max messages': '8', 'Preserve first messages': '1', 'Preserve last messages': '4' },
    reason: /: \d+ messages > max_messages \(8\)/,
  },
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
    expect(await dialog.getByLabel('Provider', { exact: true }).inputValue()).toBe('demo');
    await openSettingsSection(page, 'Context');
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
    const meter = page.getByRole('meter', { name: 'Context usage' });
    for (let n = 1; n <= EXCHANGES; n++) {
      await exchange(page, message(n));
      const now = Number(await meter.getAttribute('aria-valuenow'));
      const max = Number(await meter.getAttribute('aria-valuemax'));
      expect(now, `gauge after exchange ${n}`).toBeLessThanOrEqual(max);
    }
    const { texts, gauge, answers, turns } = await seen(page);

    // Every answer came back whole: the Demo accepted every request.
    expect(turns).toBe(EXCHANGES);
    expect(Object.values(answers)).toEqual(Array(EXCHANGES).fill('complete'));
    // No error, no recovery from a refused request, no failed summary, no request over a limit.
    expect(texts.filter((t) => t.kind === 'notice error' || t.kind === 'notice warning')).toEqual([]);
    // The gauge never showed a request over the window, not even for a moment.
    expect(gauge.length).toBeGreaterThan(EXCHANGES);
    expect(gauge.filter((g) => g.now > g.max)).toEqual([]);
    // It trimmed, for the strategy's own reason, and the transcript shows where.
    const compaction = texts.filter((t) => t.kind === 'notice info' && /earlier messages? (is|are) left out of this request/.test(t.text));
    expect(compaction.length).toBeGreaterThan(0);
    if (strategyCase.reason) expect(compaction.map((t) => t.text).join('\n')).toMatch(strategyCase.reason);
    const trimRow = page.getByRole('note', { name: 'Trim notice' });
    expect(texts.some((t) => t.kind === 'trim') || (await scrollUpTo(page, trimRow))).toBe(true);
    if (strategyCase.strategy === 'summarize') expect(await scrollUpTo(page, page.getByRole('article', { name: 'Conversation summary' }))).toBe(true);
    if (strategyCase.strategy === 'count') {
      expect(await scrollUpTo(page, trimRow)).toBe(true);
      await screenshot(page, 'strategies-count-trimmed');
    }
    expect(errors).toEqual([]);
    await context.close();
  });

  it('off: trims nothing; once the conversation outgrows the window it says so, and the page carries on', { timeout: 120_000 }, async () => {
    const { page, context, errors } = await chatWith({ strategy: 'off' });
    for (let n = 1; n <= EXCHANGES; n++) await exchange(page, message(n));
    const { texts, gauge, answers, turns } = await seen(page);

    expect(turns).toBe(EXCHANGES);
    // Nothing was trimmed: no trim row, no compaction notice.
    expect(texts.filter((t) => t.kind === 'trim' || /left out of this request/.test(t.text))).toEqual([]);
    // The first answers fit; then the requests outgrew the window, flagged before they were sent …
    expect(Object.values(answers)[0]).toBe('complete');
    expect(Object.values(answers)).toContain('error');
    expect(texts.some((t) => t.kind === 'notice warning' && t.text.startsWith('This request is over its limit'))).toBe(true);
    expect(gauge.some((g) => g.now > g.max)).toBe(true);
    // … and refused by the Demo as too long, the only error the user saw.
    const alerts = texts.filter((t) => t.kind === 'notice error');
    expect(alerts.length).toBeGreaterThan(0);
    expect(alerts.filter((t) => !t.text.startsWith('The conversation is too long for windowpane-demo'))).toEqual([]);
    // No crash: the composer still takes a message.
    expect(await page.getByRole('textbox', { name: 'Message' }).isEditable()).toBe(true);
    await screenshot(page, 'strategies-off-over');
    expect(errors).toEqual([]);
    await context.close();
  });
});
