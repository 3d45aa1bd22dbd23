import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { preview, type PreviewServer } from 'vite';
import type { TestProject } from 'vitest/node';

declare module 'vitest' {
  export interface ProvidedContext {
    /** Origin of the built app served for this run, e.g. http://127.0.0.1:4173 */
    appUrl: string;
  }
}

const root = fileURLToPath(new URL('../..', import.meta.url));
let server: PreviewServer | undefined;

export default async function setup(project: TestProject) {
  // E2E_DIST serves another build folder (`vite build --outDir …`), so two runs can test two builds side by side.
  const outDir = process.env.E2E_DIST ? resolve(root, process.env.E2E_DIST) : `${root}/dist`;
  if (!existsSync(`${outDir}/index.html`)) {
    throw new Error(`${outDir} has no build: browser tests run the built app; run \`npm run build\` first (npm test does).`);
  }
  server = await preview({ root, logLevel: 'warn', build: { outDir }, preview: { host: '127.0.0.1', port: 0, open: false } });
  const url = server.resolvedUrls?.local[0];
  if (!url) throw new Error('vite preview did not report a URL');
  project.provide('appUrl', url.replace(/\/$/, ''));
  return async () => {
    await server?.close();
  };
}
