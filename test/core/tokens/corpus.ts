// Real text for measuring token estimates: the shared corpus (../shared/corpus/tokens,
// next to the repository) plus TypeScript sources and .d.ts files read from node_modules
// at run time, never copied into the repository. Used by the estimator tests and by
// test/bench/estimator.bench.ts.
import { existsSync, readFileSync, readdirSync, statSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

export const REPO_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../../..');
export const CORPUS_DIR = resolve(REPO_ROOT, '../shared/corpus/tokens');

/** Message-sized pieces, as the estimator sees them in the app. */
export const PIECE_CHARS = 1500;

export const CORPUS_KINDS = ['prose', 'code', 'json', 'ja', 'zh', 'ko'] as const;
export type CorpusKind = (typeof CORPUS_KINDS)[number];

const CORPUS_FILES: Record<Exclude<CorpusKind, 'code'>, string[]> = {
  prose: ['prose.txt'],
  json: ['json.txt', 'json_clean_pretty.txt'],
  ja: ['ja.txt'],
  zh: ['zh.txt'],
  ko: ['ko.txt'],
};

/** Throws a message saying what is missing and where it was looked for. */
export function requireCorpus(): void {
  const missing = Object.values(CORPUS_FILES)
    .flat()
    .filter((file) => !existsSync(join(CORPUS_DIR, file)));
  if (missing.length > 0) {
    throw new Error(
      `Token corpus not found: expected ${missing.join(', ')} in ../shared/corpus/tokens (resolved to ${CORPUS_DIR}). ` +
        'The estimator accuracy checks need the shared corpus checked out next to the repository.',
    );
  }
}

function walk(dir: string, keep: (path: string) => boolean, found: string[] = []): string[] {
  for (const entry of readdirSync(dir).sort()) {
    const path = join(dir, entry);
    if (statSync(path).isDirectory()) walk(path, keep, found);
    else if (keep(path)) found.push(path);
  }
  return found;
}

/** TypeScript declaration files and sources of installed packages. */
export function codeFiles(): string[] {
  const modules = join(REPO_ROOT, 'node_modules');
  const files = [
    ...walk(join(modules, 'typescript/lib'), (path) => path.endsWith('.d.ts')),
    ...walk(join(modules, 'zustand'), (path) => path.endsWith('.d.ts')),
    // Hand-written TypeScript sources (generated tables and tests left out).
    ...walk(join(modules, 'gpt-tokenizer/src'), (path) => /[^/]+\.ts$/.test(path) && !/\.test\.ts$|\.gen\.ts$|\/(bpeRanks|model|fixtures)\//.test(path)),
  ];
  if (files.length === 0) throw new Error(`No TypeScript files found under ${modules}; run npm install.`);
  return files;
}

/** Splits text into pieces of `size` UTF-16 units without cutting a surrogate pair; blank pieces are dropped. */
export function splitPieces(text: string, size = PIECE_CHARS): string[] {
  const pieces: string[] = [];
  let start = 0;
  while (start < text.length) {
    let end = Math.min(start + size, text.length);
    const last = text.charCodeAt(end - 1);
    if (end < text.length && last >= 0xd800 && last <= 0xdbff) end--;
    pieces.push(text.slice(start, end));
    start = end;
  }
  return pieces.filter((piece) => piece.trim().length > 0);
}

/** Every piece of one kind of text, in file order. */
export function corpusPieces(kind: CorpusKind): string[] {
  const paths = kind === 'code' ? codeFiles() : CORPUS_FILES[kind].map((file) => join(CORPUS_DIR, file));
  return paths.flatMap((path) => splitPieces(readFileSync(path, 'utf8')));
}

/** About `count` pieces spread evenly through the kind's text. */
export function samplePieces(kind: CorpusKind, count: number): string[] {
  const all = corpusPieces(kind);
  const step = Math.max(1, Math.floor(all.length / count));
  return all.filter((_, index) => index % step === 0).slice(0, count);
}

/** The value at quantile `q` (0..1) of `values`, nearest rank. */
export function quantile(values: readonly number[], q: number): number {
  if (values.length === 0) return NaN;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))]!;
}

/** |estimate − exact| / exact. */
export function relativeError(estimate: number, exact: number): number {
  return Math.abs(estimate - exact) / exact;
}
