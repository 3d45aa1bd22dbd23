// @vitest-environment node
import { ESLint } from 'eslint';
import { describe, expect, it } from 'vitest';

const eslint = new ESLint({ cwd: new URL('../..', import.meta.url).pathname });

async function ruleIds(filePath: string, code: string): Promise<string[]> {
  const [result] = await eslint.lintText(code, { filePath });
  return (result?.messages ?? []).map((m) => m.ruleId ?? m.message);
}

// The order of imports between our own folders is proven in layers.test.ts.
describe('what a file may import and touch', () => {
  it('stops src/core from importing React, storage or SDKs', async () => {
    for (const pkg of ['react', 'zustand', 'idb', '@anthropic-ai/sdk', 'openai']) {
      const ids = await ruleIds('src/core/probe.ts', `import x from '${pkg}';\nexport const y = x;\n`);
      expect(ids, pkg).toContain('no-restricted-imports');
    }
  });

  it('stops src/core from reading the clock, randomness, the DOM or the network', async () => {
    const ids = await ruleIds(
      'src/core/probe.ts',
      'export const a = Date.now();\nexport const b = Math.random();\nexport const c = document.title;\nexport const d = fetch;\n',
    );
    expect(ids.filter((id) => id === 'no-restricted-properties')).toHaveLength(2);
    expect(ids.filter((id) => id === 'no-restricted-globals')).toHaveLength(2);
  });

  it('keeps the SDKs in src/providers and idb in src/persistence', async () => {
    expect(await ruleIds('src/store/probe.ts', "import OpenAI from 'openai';\nexport const o = OpenAI;\n")).toContain('no-restricted-imports');
    expect(await ruleIds('src/components/probe.ts', "import { openDB } from 'idb';\nexport const o = openDB;\n")).toContain('no-restricted-imports');
    expect(await ruleIds('src/providers/probe.ts', "import OpenAI from 'openai';\nexport const o = OpenAI;\n")).toEqual([]);
    expect(await ruleIds('src/persistence/probe.ts', "import { openDB } from 'idb';\nexport const o = openDB;\n")).toEqual([]);
  });

  it('keeps PouchDB in src/sync, and idb and the SDKs out of it', async () => {
    const pouch = "import PouchDB from 'pouchdb-browser';\nexport const p = PouchDB;\n";
    for (const folder of ['store', 'persistence', 'providers', 'components', 'core']) {
      expect(await ruleIds(`src/${folder}/probe.ts`, pouch), folder).toContain('no-restricted-imports');
    }
    expect(await ruleIds('src/sync/probe.ts', pouch)).toEqual([]);
    expect(await ruleIds('src/sync/probe.ts', "import { openDB } from 'idb';\nexport const o = openDB;\n")).toContain('no-restricted-imports');
    expect(await ruleIds('src/sync/probe.ts', "import OpenAI from 'openai';\nexport const o = OpenAI;\n")).toContain('no-restricted-imports');
  });

  it('lets core files import each other', async () => {
    expect(await ruleIds('src/core/window/probe.ts', "import { messageText } from '../conversation';\nexport const m = messageText;\n")).toEqual([]);
  });

  it('keeps every file of src/ under 500 lines, and the store under 300', async () => {
    const lines = (n: number) => Array.from({ length: n }, (_, i) => `export const x${i} = ${i};`).join('\n') + '\n';
    expect(await ruleIds('src/components/Probe.tsx', lines(500))).toEqual([]);
    expect(await ruleIds('src/components/Probe.tsx', lines(501))).toContain('max-lines');
    expect(await ruleIds('src/store/probe.ts', lines(300))).toEqual([]);
    expect(await ruleIds('src/store/probe.ts', lines(301))).toContain('max-lines');
  });

  it('keeps the SDKs and idb out of the store and the components', async () => {
    expect(await ruleIds('src/store/probe.ts', "import { openDB } from 'idb';\nexport const o = openDB;\n")).toContain('no-restricted-imports');
    expect(await ruleIds('src/components/Probe.tsx', "import OpenAI from 'openai';\nexport const o = OpenAI;\n")).toContain('no-restricted-imports');
    expect(await ruleIds('src/App.tsx', "import Anthropic from '@anthropic-ai/sdk';\nexport const a = Anthropic;\n")).toContain('no-restricted-imports');
  });
});
