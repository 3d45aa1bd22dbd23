// `npm run bench`: runs every test/bench/*.bench.ts (or those named on the command
// line) and prints one Markdown table each. Each module exports `run(): Promise<Row[]>`.
// Exits with status 1 if a bench failed or left something open (see `runBenches`).
import { runBenches } from './harness';

await runBenches(new URL('./', import.meta.url), process.argv.slice(2));
