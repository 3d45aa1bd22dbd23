// `npm run bench`: runs every test/bench/*.bench.ts (or those named on the command
// line) and prints one Markdown table each. Each module exports `run(): Promise<Row[]>`.
import { readdirSync } from 'node:fs';
import { printTable, type Row } from './harness';

const dir = new URL('./', import.meta.url);
const wanted = process.argv.slice(2);
const files = readdirSync(dir)
  .filter((f) => f.endsWith('.bench.ts'))
  .filter((f) => wanted.length === 0 || wanted.some((w) => f.includes(w)))
  .sort();

if (files.length === 0) {
  console.error(`No benchmark matches ${wanted.join(', ')}`);
  process.exit(1);
}

for (const file of files) {
  const mod = (await import(new URL(file, dir).href)) as { run: () => Promise<Row[]>; title?: string };
  const rows = await mod.run();
  printTable(mod.title ?? file.replace('.bench.ts', ''), rows);
}
