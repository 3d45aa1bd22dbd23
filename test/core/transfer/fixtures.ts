// Reads the export fixtures under ./fixtures (real-format ChatGPT and Claude exports, and broken files).
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';

const FIXTURES = join(import.meta.dirname, 'fixtures');

export function readFixture(name: string): string {
  return readFileSync(join(FIXTURES, name), 'utf8');
}

/** Every file of the broken-file corpus, by name. */
export function brokenFixtures(): Array<{ name: string; text: string }> {
  return readdirSync(join(FIXTURES, 'broken'))
    .sort()
    .map((name) => ({ name, text: readFixture(join('broken', name)) }));
}
