// Math in the built app: the size of the math chunk (KaTeX's code, styles and fonts, loaded
// only when a message holds a formula) against the Markdown renderer every answer loads,
// and, in real Chromium, the time from the click in the conversation list until an answer
// with 50 formulas (40 inline, 10 displayed) is drawn, against the same answer with the
// formulas written as plain words (same length, no math). Both are imported as their own
// conversation; each round reloads the page, so the first math answer of a round also
// loads and runs the chunk and draws every formula; opened again, it finds them drawn.
import { mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import type { Page } from 'playwright-core';
import { exportToJson, type ConversationRecords, type StoredMessage } from '../../src/core';
import { newPage } from '../e2e/browser';
import { withPreviewBrowser } from './chromium';
import { fmtMs, fmtRatio, type Row } from './harness';

export const title = 'Math: the math chunk against the Markdown renderer, and a 50-formula answer against the same answer without math (Chromium)';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const WORK = `${ROOT}test-results/bench-math/`;
const ROUNDS = 5;

const INLINE = [
  'a_{i} + b_{i}^2',
  '\\alpha \\le \\beta',
  'x^{n} - y^{n}',
  '\\sqrt{2}',
  'e^{i\\pi} + 1 = 0',
  "f'(x) = 2x",
  '\\lim_{n\\to\\infty} a_n',
  '\\binom{n}{k}',
];
const DISPLAY = [
  '\\sum_{k=1}^{n} k^2 = \\frac{n(n+1)(2n+1)}{6}',
  '\\int_0^1 \\int_0^1 |x-y| \\, dx \\, dy = \\frac{1}{3}',
  '\\mathbf{A}\\mathbf{x} = \\begin{pmatrix} 1 & 2 \\\\ 3 & 4 \\end{pmatrix} \\begin{pmatrix} x_1 \\\\ x_2 \\end{pmatrix}',
  'P(A \\mid B) = \\frac{P(B \\mid A)\\,P(A)}{P(B)}',
  '\\nabla \\cdot \\mathbf{E} = \\frac{\\rho}{\\varepsilon_0}',
];

/** An answer with 40 inline and 10 displayed formulas, or the same text with each formula as plain words of the same length. */
function answer(withMath: boolean): string {
  const words = (tex: string) => tex.replace(/[^A-Za-z0-9]/g, ' ');
  const inline = (tex: string) => (withMath ? `\\(${tex}\\)` : `  ${words(tex)}  `);
  const display = (tex: string) => (withMath ? `$$\n${tex}\n$$` : `${words(tex)}\n\n`);
  const parts: string[] = [];
  for (let p = 0; p < 10; p++) {
    const f = (k: number) => inline(INLINE[(p * 4 + k) % INLINE.length]!);
    parts.push(`Step ${p + 1}: take ${f(0)} and compare it with ${f(1)}; since ${f(2)} holds, we also get ${f(3)}, so`);
    parts.push(display(DISPLAY[p % DISPLAY.length]!));
  }
  return parts.join('\n\n');
}

function conversation(id: string, name: string, text: string): ConversationRecords {
  const base = Date.UTC(2026, 0, 1);
  const message = (seq: number, role: 'user' | 'assistant', body: string): StoredMessage => ({
    id: `${id}-m${seq}`,
    conversationId: id,
    seq,
    role,
    kind: 'message',
    content: [{ type: 'text', text: body }],
    createdAt: base + seq,
    status: 'complete',
  });
  return {
    conversation: { id, title: name, createdAt: base, updatedAt: base + 1, messageCount: 2 },
    messages: [message(0, 'user', 'Walk me through it.'), message(1, 'assistant', text)],
  };
}

/** ms from the click on conversation `name` until its answer is drawn (with `formulas` KaTeX formulas in it). */
async function open(page: Page, name: string, formulas: number): Promise<number> {
  await page.getByRole('button', { name: 'New chat' }).click();
  const item = page.getByRole('navigation', { name: 'Conversations' }).getByRole('button', { name, exact: true });
  await item.waitFor();
  await page.waitForTimeout(100);
  const handle = await item.elementHandle();
  return page.evaluate(
    async ([button, count]) => {
      const begin = performance.now();
      (button as HTMLElement).click();
      while (performance.now() - begin < 60_000) {
        await new Promise((resolve) => requestAnimationFrame(resolve));
        const answer = document.querySelector('article[aria-label="Assistant message"] .markdown');
        if (answer && answer.getBoundingClientRect().height > 0 && answer.querySelectorAll('.katex').length === count) return performance.now() - begin;
      }
      throw new Error('the answer did not show within 60 s');
    },
    [handle, formulas] as const,
  );
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] as number;
const kb = (bytes: number) => `${(bytes / 1024).toFixed(1)} KB`;

/** Bytes of the built files whose names match, as served and gzipped. */
function built(pattern: RegExp): { raw: number; gzip: number; files: number } {
  const dir = `${ROOT}dist/assets/`;
  const files = readdirSync(dir).filter((f) => pattern.test(f));
  return {
    raw: files.reduce((sum, f) => sum + statSync(dir + f).size, 0),
    gzip: files.reduce((sum, f) => sum + gzipSync(readFileSync(dir + f)).length, 0),
    files: files.length,
  };
}

/** The math chunk's files against the Markdown renderer's chunk, as built in dist/. */
function sizeRows(): Row[] {
  const markdown = built(/^Markdown-[\w-]+\.js$/);
  const sizes: [string, ReturnType<typeof built>][] = [
    ['math chunk: KaTeX, remark-math and the renderer (JS)', built(/^mathPlugins-[\w-]+\.js$/)],
    ["math chunk: KaTeX's styles (CSS)", built(/^mathPlugins-[\w-]+\.css$/)],
    ["math chunk: KaTeX's fonts (woff2, fetched as a formula needs each)", built(/^KaTeX_[\w-]+\.woff2$/)],
  ];
  return sizes.map(([name, size]) => ({
    benchmark: 'size',
    case: `${name}${size.files > 1 ? `, ${size.files} files` : ''}`,
    value: `${kb(size.raw)} (${kb(size.gzip)} gzip)`,
    baseline: `Markdown renderer chunk ${kb(markdown.raw)} (${kb(markdown.gzip)} gzip)`,
    ratio: fmtRatio(size.gzip / markdown.gzip),
  }));
}

export async function run(): Promise<Row[]> {
  mkdirSync(WORK, { recursive: true });
  const file = `${WORK}math.json`;
  writeFileSync(
    file,
    exportToJson(
      [conversation('plain', 'Answer without math', answer(false)), conversation('math', 'Answer with 50 formulas', answer(true))],
      Date.UTC(2026, 0, 2),
    ),
  );

  // Sizes are read in the body: dist/ is built (when out of date) before it runs.
  return withPreviewBrowser(async ({ appUrl, browser }) => {
    const rows = sizeRows();
    const { page, errors } = await newPage(browser, { viewport: { width: 1280, height: 800 } });
    page.setDefaultTimeout(60_000);
    await page.goto(appUrl);
    await page.getByRole('textbox', { name: 'Message' }).waitFor();
    await page.getByLabel('Import file').setInputFiles(file);
    await page.getByText('Imported 2 conversations').waitFor({ timeout: 120_000 });

    const times = { plain: [] as number[], first: [] as number[], again: [] as number[] };
    for (let round = 0; round < ROUNDS; round++) {
      await page.reload();
      await page.getByRole('textbox', { name: 'Message' }).waitFor();
      times.plain.push(await open(page, 'Answer without math', 0));
      times.first.push(await open(page, 'Answer with 50 formulas', 50));
      times.again.push(await open(page, 'Answer with 50 formulas', 50));
    }
    if (errors.length > 0) throw new Error(`the page reported errors: ${errors.join('; ')}`);
    const baseline = median(times.plain);
    const row = (name: string, values: number[]): Row => ({
      benchmark: 'render',
      case: name,
      value: fmtMs(median(values)),
      baseline: `the same answer without math ${fmtMs(baseline)}`,
      ratio: fmtRatio(median(values) / baseline),
    });
    rows.push(
      row('50-formula answer, first math of the page: loads the chunk, draws every formula', times.first),
      row('the same answer opened again: formulas already drawn', times.again),
    );
    return rows;
  });
}
