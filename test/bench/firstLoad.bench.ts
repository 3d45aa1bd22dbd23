// The JavaScript the first screen needs, as built in dist/: the entry chunk dist/index.html
// loads and every chunk it preloads (its static imports), each gzipped as a server would
// send it, against the budget of 150 KB gzipped. Everything else (the search client and
// its Worker, import, the Storage and Sync sections, Markdown, KaTeX, the provider SDKs) is
// loaded when first used and is not counted. Sizes are bytes, not times: the same on any
// machine, so a chunk that slips back into the first load shows as a larger ratio.
import { readFileSync, statSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { ensureBuilt } from './chromium';
import { fmtRatio, type Row } from './harness';

export const title = 'First load: the JavaScript the first screen needs, gzipped (ratio = ÷ the 150 KB budget)';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const DIST = `${ROOT}dist`;
/** The first screen's JavaScript, gzipped, at most (docs/benchmarks.md#first-load). */
export const FIRST_LOAD_BUDGET_BYTES = 150 * 1024;

/** The scripts dist/index.html loads before the first screen: its module script, then each modulepreload, in page order. */
export function firstLoadScripts(html: string): string[] {
  const scripts: string[] = [];
  for (const tag of html.match(/<(script|link)\b[^>]*>/g) ?? []) {
    const src = /\bsrc="([^"]+\.js)"/.exec(tag)?.[1];
    const preload = /\brel="modulepreload"/.test(tag) ? /\bhref="([^"]+\.js)"/.exec(tag)?.[1] : undefined;
    const path = (/^<script/.test(tag) && /\btype="module"/.test(tag) ? src : undefined) ?? preload;
    if (path) scripts.push(path);
  }
  return scripts;
}

const kb = (bytes: number) => `${(bytes / 1024).toFixed(1)} KB`;

export async function run(): Promise<Row[]> {
  await ensureBuilt();
  const scripts = firstLoadScripts(readFileSync(`${DIST}/index.html`, 'utf8'));
  if (scripts.length === 0) throw new Error('dist/index.html loads no module script');
  const sizes = scripts.map((path) => {
    const file = `${DIST}${path}`;
    return { path, raw: statSync(file).size, gzip: gzipSync(readFileSync(file)).length };
  });
  const total = sizes.reduce((sum, s) => sum + s.gzip, 0);
  const budget = `budget ${kb(FIRST_LOAD_BUDGET_BYTES)} gzip`;
  return [
    ...sizes.map((s, i) => ({
      benchmark: i === 0 ? 'entry chunk' : 'preloaded by it',
      case: s.path.replace(/^\/assets\//, ''),
      value: `${kb(s.raw)} (${kb(s.gzip)} gzip)`,
      baseline: budget,
      ratio: fmtRatio(s.gzip / FIRST_LOAD_BUDGET_BYTES),
    })),
    {
      benchmark: 'first load',
      case: `the entry chunk and the ${sizes.length - 1} it preloads`,
      value: `${kb(sizes.reduce((sum, s) => sum + s.raw, 0))} (${kb(total)} gzip)`,
      baseline: budget,
      ratio: fmtRatio(total / FIRST_LOAD_BUDGET_BYTES),
    },
  ];
}
