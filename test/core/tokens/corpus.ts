// Real text for measuring token estimates, read at run time from the packages `npm ci`
// installs and never copied into the repository: a clone needs nothing beside it, and a
// given lockfile always yields the same text. Files are picked by fixed rules and read in
// sorted order:
// - prose: the READMEs of 35 packages the project depends on (TEXT_PACKAGES);
// - code: TypeScript's lib .d.ts files, zustand's .d.ts files, gpt-tokenizer's sources;
// - json: the package.json files of the same packages, then three data files they ship;
// - ja, zh, ko: the strings of TypeScript's localized compiler messages and of axe-core's
//   localized rule descriptions (prose mixed with code terms and placeholders).
// Used by the estimator tests and, through `benchCorpusPieces`, by the benchmarks, which
// may read an external corpus instead when asked (WINDOWPANE_CORPUS=dir).
import { existsSync, readFileSync, readdirSync, statSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

export const REPO_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../../..');
const MODULES = join(REPO_ROOT, 'node_modules');

/** Message-sized pieces, as the estimator sees them in the app. */
export const PIECE_CHARS = 1500;

export const CORPUS_KINDS = ['prose', 'code', 'json', 'ja', 'zh', 'ko'] as const;
export type CorpusKind = (typeof CORPUS_KINDS)[number];

/** One file of the corpus: the package it ships with, and how its text is taken. */
interface Source {
  pkg: string;
  path: string;
  /** JSON files whose strings are the text (the localized messages), not the JSON itself. */
  strings?: boolean;
}

/**
 * The packages whose READMEs and package.json files are read: the project's direct
 * dependencies when the corpus was chosen, named here so that adding or removing a
 * dependency does not change the text (upgrading one of these does, and the pinned
 * estimates say which).
 */
const TEXT_PACKAGES = [
  '@anthropic-ai/sdk',
  '@eslint/js',
  '@langchain/core',
  '@tanstack/react-virtual',
  '@testing-library/dom',
  '@testing-library/jest-dom',
  '@testing-library/react',
  '@testing-library/user-event',
  '@types/node',
  '@types/react',
  '@types/react-dom',
  '@vitejs/plugin-react',
  'axe-core',
  'eslint',
  'eslint-plugin-react-hooks',
  'fake-indexeddb',
  'fast-check',
  'globals',
  'gpt-tokenizer',
  'idb',
  'jsdom',
  'openai',
  'playwright-core',
  'react',
  'react-dom',
  'react-markdown',
  'rehype-highlight',
  'remark-gfm',
  'tinybench',
  'tsx',
  'typescript',
  'typescript-eslint',
  'vite',
  'vitest',
  'zustand',
];

function walk(dir: string, keep: (path: string) => boolean, found: string[] = []): string[] {
  for (const entry of readdirSync(dir).sort()) {
    const path = join(dir, entry);
    if (statSync(path).isDirectory()) walk(path, keep, found);
    else if (keep(path)) found.push(path);
  }
  return found;
}

function installed(pkg: string, path: string): string {
  const full = join(MODULES, pkg, path);
  if (!existsSync(full)) throw new Error(`${pkg}/${path} is not installed, so the token corpus is incomplete: run \`npm ci\`.`);
  return full;
}

const LOCALES: Record<'ja' | 'zh' | 'ko', { typescript: string[]; axe: string[] }> = {
  ja: { typescript: ['ja'], axe: ['ja'] },
  zh: { typescript: ['zh-cn', 'zh-tw'], axe: ['zh_CN', 'zh_TW'] },
  ko: { typescript: ['ko'], axe: ['ko'] },
};

/** The files each kind reads, in order. */
export function corpusSources(kind: CorpusKind): Source[] {
  switch (kind) {
    case 'prose':
      return TEXT_PACKAGES.flatMap((pkg) => {
        const readme = existsSync(join(MODULES, pkg)) ? readdirSync(join(MODULES, pkg)).find((name) => /^readme\.md$/i.test(name)) : undefined;
        return readme ? [{ pkg, path: readme }] : [];
      });
    case 'code': {
      const under = (pkg: string, dir: string, keep: (path: string) => boolean) =>
        walk(installed(pkg, dir), keep).map((path) => ({ pkg, path: path.slice(join(MODULES, pkg).length + 1) }));
      return [
        ...under('typescript', 'lib', (path) => path.endsWith('.d.ts')),
        ...under('zustand', '.', (path) => path.endsWith('.d.ts')),
        // Hand-written TypeScript sources (generated tables and tests left out).
        ...under('gpt-tokenizer', 'src', (path) => /[^/]+\.ts$/.test(path) && !/\.test\.ts$|\.gen\.ts$|\/(bpeRanks|model|fixtures)\//.test(path)),
      ];
    }
    case 'json':
      return [
        ...TEXT_PACKAGES.map((pkg) => ({ pkg, path: 'package.json' })),
        { pkg: 'globals', path: 'globals.json' },
        { pkg: 'axe-core', path: 'locales/_template.json' },
        { pkg: 'typescript', path: 'lib/typesMap.json' },
      ];
    case 'ja':
    case 'zh':
    case 'ko':
      return [
        ...LOCALES[kind].typescript.map((locale) => ({ pkg: 'typescript', path: `lib/${locale}/diagnosticMessages.generated.json`, strings: true })),
        ...LOCALES[kind].axe.map((locale) => ({ pkg: 'axe-core', path: `locales/${locale}.json`, strings: true })),
      ];
  }
}

/** Every string inside a JSON value, depth first, one per line. */
function jsonStrings(value: unknown, out: string[] = []): string[] {
  if (typeof value === 'string') out.push(value);
  else if (value && typeof value === 'object') for (const item of Object.values(value)) jsonStrings(item, out);
  return out;
}

function sourceText(source: Source): string {
  const text = readFileSync(installed(source.pkg, source.path), 'utf8');
  return source.strings ? jsonStrings(JSON.parse(text)).join('\n') : text;
}

/** `name@version` of every package a kind's text comes from, sorted: what the pinned estimates were measured on. */
export function corpusPackages(kind: CorpusKind): string[] {
  const names = [...new Set(corpusSources(kind).map((source) => source.pkg))].sort();
  return names.map((pkg) => {
    const { version } = JSON.parse(readFileSync(installed(pkg, 'package.json'), 'utf8')) as { version: string };
    return `${pkg}@${version}`;
  });
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

/** Every piece of one kind of text from the installed packages, in source order. */
export function corpusPieces(kind: CorpusKind): string[] {
  return corpusSources(kind).flatMap((source) => splitPieces(sourceText(source)));
}

/** About `count` pieces spread evenly through the kind's text. */
export function samplePieces(kind: CorpusKind, count: number): string[] {
  const all = corpusPieces(kind);
  const step = Math.max(1, Math.floor(all.length / count));
  return all.filter((_, index) => index % step === 0).slice(0, count);
}

/**
 * The benchmarks' text: the installed packages' corpus, unless WINDOWPANE_CORPUS names a
 * folder of .txt files, in which case each kind reads the files whose names start with it
 * (`prose.txt`, `json.txt` and `json_pretty.txt`, `ja.txt`, …) and a kind without files
 * keeps the packages' text. Only benchmarks call this; tests always measure the packages.
 */
export function benchCorpusPieces(kind: CorpusKind, dir = process.env.WINDOWPANE_CORPUS): string[] {
  if (!dir) return corpusPieces(kind);
  const folder = resolve(dir);
  if (!existsSync(folder) || !statSync(folder).isDirectory()) throw new Error(`WINDOWPANE_CORPUS=${dir} is not a folder.`);
  const files = readdirSync(folder)
    .filter((name) => name.endsWith('.txt') && basename(name, '.txt').split(/[_.-]/)[0] === kind)
    .sort();
  if (files.length === 0) return corpusPieces(kind);
  return files.flatMap((name) => splitPieces(readFileSync(join(folder, name), 'utf8')));
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
