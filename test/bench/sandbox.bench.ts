// run_javascript floods in real Chromium (the built app, served by vite preview): while a
// snippet prints in a loop, returns a huge value or spins, how long does the page's main
// thread stall? A probe in the page chains setTimeout(0) and records the longest gap between
// two of its turns; a PerformanceObserver records long tasks (≥ 50 ms). Each snippet runs
// as a tool call from the local fake Anthropic API, through the same path a user's does.
// Baseline: the same probe over the same time with the app idle, measured in the same run;
// ratio = longest gap during the flood ÷ longest gap idle. Nothing is asserted.
import type { Page } from 'playwright-core';
import { newPage } from '../e2e/browser';
import { startFakeApi, type FakeApi } from '../fake-api/server';
import { withPreviewBrowser } from './chromium';
import { fmtMs, fmtRatio, type Row } from './harness';
import { answerFromFakeAnthropic } from './ui.bench';

export const title = 'run_javascript floods in Chromium: longest main-thread stall while a snippet runs';

const ROUNDS = 2;

const FLOODS: { name: string; code: string }[] = [
  { name: "for (;;) console.log('')", code: "for (;;) console.log('')" },
  { name: 'for (;;) console.log of 1,000 characters', code: "const line = 'x'.repeat(1000);\nfor (;;) console.log(line)" },
  {
    name: 'setInterval printing 1,000 lines a turn',
    code: 'setInterval(() => { for (let i = 0; i < 1000; i++) console.log(i); }, 0);\nawait new Promise(() => {})',
  },
  { name: "a result of 'x'.repeat(2 ** 27)", code: "'x'.repeat(2 ** 27)" },
  { name: 'while (true) {}', code: 'while (true) {}' },
];

/**
 * Registered before the app loads: a setTimeout(0) chain recording its gaps, and every long
 * task. A string, so the bench's transpiler adds no helpers the page does not have.
 */
const PROBE = `
  (() => {
    const probe = { gaps: [], tasks: [] };
    window.__probe = probe;
    let last = performance.now();
    const tick = () => {
      const now = performance.now();
      probe.gaps.push({ at: now, gap: now - last });
      last = now;
      setTimeout(tick, 0);
    };
    setTimeout(tick, 0);
    new PerformanceObserver((list) => {
      for (const entry of list.getEntries()) probe.tasks.push({ start: entry.startTime, duration: entry.duration });
    }).observe({ type: 'longtask', buffered: true });
  })();
`;

interface Stall {
  /** Longest gap between two turns of the probe, in ms. */
  gapMs: number;
  /** Longest long task, in ms (0 when there was none). */
  taskMs: number;
  spanMs: number;
}

async function stallBetween(page: Page, from: number, to: number): Promise<Stall> {
  const { gapMs, taskMs } = await page.evaluate(
    ([a, b]) => {
      const probe = (window as unknown as { __probe: { gaps: { at: number; gap: number }[]; tasks: { start: number; duration: number }[] } }).__probe;
      const gaps = probe.gaps.filter((g) => g.at > a && g.at <= b).map((g) => g.gap);
      const tasks = probe.tasks.filter((t) => t.start >= a && t.start <= b).map((t) => t.duration);
      return { gapMs: Math.max(0, ...gaps), taskMs: Math.max(0, ...tasks) };
    },
    [from, to] as const,
  );
  return { gapMs, taskMs, spanMs: to - from };
}

const now = (page: Page) => page.evaluate(() => performance.now());

async function runFlood(page: Page, fake: FakeApi, code: string): Promise<Stall> {
  fake.setReply((context) =>
    context.answersToolResults || !context.toolNames.includes('run_javascript') ? undefined : { toolCalls: [{ name: 'run_javascript', input: { code } }] },
  );
  await page.getByRole('button', { name: 'New chat' }).click();
  await page.getByRole('textbox', { name: 'Message' }).fill('Run the snippet.');
  const start = await now(page);
  await page.getByRole('button', { name: 'Send', exact: true }).click();
  await page.getByRole('button', { name: 'Stop', exact: true }).waitFor();
  await page.getByRole('button', { name: 'Send', exact: true }).waitFor({ timeout: 60_000 });
  return stallBetween(page, start, await now(page));
}

async function idle(page: Page, ms: number): Promise<Stall> {
  const start = await now(page);
  await page.waitForTimeout(ms);
  return stallBetween(page, start, await now(page));
}

const worst = (stalls: Stall[]) => ({
  gapMs: Math.max(...stalls.map((s) => s.gapMs)),
  taskMs: Math.max(...stalls.map((s) => s.taskMs)),
  spanMs: Math.max(...stalls.map((s) => s.spanMs)),
});
const show = (s: Stall) => `gap ${fmtMs(s.gapMs)}, long task ${s.taskMs > 0 ? fmtMs(s.taskMs) : 'none'} (over ${(s.spanMs / 1000).toFixed(1)} s)`;

export async function run(): Promise<Row[]> {
  return withPreviewBrowser(async ({ appUrl, browser, defer }) => {
    const fake = await startFakeApi({ deltaDelayMs: 0 });
    defer(() => fake.close());
    const { page, errors } = await newPage(browser);
    page.setDefaultTimeout(60_000);
    await page.addInitScript(PROBE);
    await page.goto(appUrl);
    await page.getByRole('textbox', { name: 'Message' }).waitFor();
    await answerFromFakeAnthropic(page, fake);
    await runFlood(page, fake, '1 + 1'); // warm-up: loads the sandbox frame and the lazy chunks once

    const idleRuns: Stall[] = [];
    const floodRuns = new Map<string, Stall[]>(FLOODS.map((f) => [f.name, []]));
    for (let round = 0; round < ROUNDS; round++) {
      idleRuns.push(await idle(page, 5_500));
      for (const flood of FLOODS) floodRuns.get(flood.name)!.push(await runFlood(page, fake, flood.code));
    }
    if (errors.length > 0) throw new Error(`the page reported errors: ${errors.join('; ')}`);

    const baseline = worst(idleRuns);
    return FLOODS.map((flood) => {
      const stall = worst(floodRuns.get(flood.name)!);
      return {
        benchmark: 'longest main-thread stall while the snippet runs (worst of 2)',
        case: flood.name,
        value: show(stall),
        baseline: `idle: ${show(baseline)}`,
        ratio: fmtRatio(stall.gapMs / baseline.gapMs),
      };
    });
  });
}
