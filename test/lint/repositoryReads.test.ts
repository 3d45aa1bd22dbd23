// @vitest-environment node
// Tests and benchmarks read only the repository and its node_modules: a user who clones it
// has nothing beside it. Two walls: every test file runs under the read guard (test/setup.ts,
// test/e2e/setup.ts, runBenches), and no test or benchmark source names a path beside it.
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CORPUS_KINDS, benchCorpusPieces, corpusSources } from '../core/tokens/corpus';
import { OutsideReadError, REPO_ROOT, isWithin } from '../readGuard';

const BESIDE = resolve(REPO_ROOT, '..', 'beside-the-repository', 'corpus', 'prose.txt');

function sources(dir: string, found: string[] = []): string[] {
  for (const entry of readdirSync(dir).sort()) {
    const path = join(dir, entry);
    if (statSync(path).isDirectory()) sources(path, found);
    else if (/\.(ts|tsx|mjs|js)$/.test(entry)) found.push(path);
  }
  return found;
}

// This file and one bench-runner fixture name a path beside the repository on purpose, to
// prove the guard refuses it; every other test, benchmark and config file is checked.
const PROBES = [join(REPO_ROOT, 'test/lint/repositoryReads.test.ts'), join(REPO_ROOT, 'test/bench-runner/fixtures/readsOutside.bench.ts')];
const TEST_SOURCES = [...sources(join(REPO_ROOT, 'test')), join(REPO_ROOT, 'vite.config.ts')].filter((file) => !PROBES.includes(file));

/** Relative path literals ('../…') in `text` that climb above the repository from `file`, which holds them. */
function climbingLiterals(file: string, text: string): string[] {
  const literals = [...text.matchAll(/(['"`])((?:\.\.\/)+[^'"`]*)\1/g)].map((match) => match[2]!);
  return literals.filter((literal) => !isWithin(REPO_ROOT, resolve(dirname(file), literal)));
}

/** Paths built from the repository root that step out of it, and home or scratch folders named outright. */
function outsidePaths(text: string): string[] {
  return [
    ...text.matchAll(/\b(?:resolve|join)\(\s*(?:REPO_ROOT|ROOT|root)\s*,\s*['"`]\.\.[/'"`]/g),
    ...text.matchAll(/['"`]\/(?:home|work|tmp|mnt|srv|root|Users|opt|var)\/[^'"`]*['"`]/g),
    ...text.matchAll(/\bhomedir\(\)|\btmpdir\(\)|process\.env\.HOME\b/g),
  ].map((match) => match[0]);
}

describe('tests and benchmarks read only the repository', () => {
  it('refuses a read beside the repository in a test, naming the path, before the file system is asked', () => {
    expect(() => readFileSync(BESIDE, 'utf8')).toThrow(OutsideReadError);
    expect(() => readFileSync(BESIDE, 'utf8')).toThrow(BESIDE);
    expect(() => readdirSync(dirname(BESIDE))).toThrow(OutsideReadError);
    expect(() => readFileSync(new URL(`file://${BESIDE}`))).toThrow(OutsideReadError);
  });

  it('refuses asynchronous reads beside the repository too', async () => {
    const { readFile, readdir } = await import('node:fs/promises');
    await expect(readFile(BESIDE, 'utf8')).rejects.toThrow(OutsideReadError);
    await expect(readdir(dirname(BESIDE))).rejects.toThrow(OutsideReadError);
  });

  it('still reads the repository and its installed packages', () => {
    expect(readFileSync(join(REPO_ROOT, 'package.json'), 'utf8')).toContain('"name": "windowpane"');
    expect(readFileSync(join(REPO_ROOT, 'node_modules/typescript/package.json'), 'utf8')).toContain('"name": "typescript"');
  });

  it('measures the estimator on text inside node_modules only, for every kind the benchmarks read', () => {
    for (const kind of CORPUS_KINDS) {
      const files = corpusSources(kind).map((source) => join(REPO_ROOT, 'node_modules', source.pkg, source.path));
      expect(files.length, kind).toBeGreaterThan(0);
      for (const file of files) expect(isWithin(join(REPO_ROOT, 'node_modules'), file), file).toBe(true);
      expect(benchCorpusPieces(kind, '').length, kind).toBeGreaterThan(0);
    }
  });

  it.each(TEST_SOURCES.map((file) => [relative(REPO_ROOT, file), file]))('%s names no path beside the repository', (_name, file) => {
    const text = readFileSync(file, 'utf8');
    expect(climbingLiterals(file, text)).toEqual([]);
    expect(outsidePaths(text)).toEqual([]);
  });

  it('the source check catches the ways a corpus beside the repository was named', () => {
    const probe = join(REPO_ROOT, 'test', 'core', 'tokens', 'probe.ts');
    expect(climbingLiterals(probe, "const dir = new URL('../../../../corpus/tokens', import.meta.url);")).toEqual(['../../../../corpus/tokens']);
    expect(climbingLiterals(probe, "import { planContext } from '../../../src/core';")).toEqual([]);
    expect(outsidePaths("resolve(REPO_ROOT, '../corpus/tokens')")).toHaveLength(1);
    expect(outsidePaths("join(root, '..', 'corpus')")).toHaveLength(1);
    expect(outsidePaths("readFileSync('/home/someone/corpus.txt')")).toHaveLength(1);
    expect(outsidePaths('mkdtempSync(join(tmpdir(), "x"))')).toHaveLength(1);
    expect(outsidePaths("existsSync('/usr/bin/chromium')")).toEqual([]);
  });
});
