// @vitest-environment node
// The layer order of src/ (.dependency-cruiser.cjs): each rule is run on a small tree of
// probe files written for it, so a rule that stops firing fails here, not in review.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { cruise, type ICruiseResult, type IConfiguration } from 'dependency-cruiser';
import { afterAll, describe, expect, it } from 'vitest';
import { SCRATCH_DIR } from '../readGuard';

const config = createRequire(import.meta.url)('../../.dependency-cruiser.cjs') as IConfiguration;
const roots: string[] = [];

afterAll(() => {
  for (const root of roots) rmSync(root, { recursive: true, force: true });
});

/** Writes `files` (path under the probe root → source) and returns the names of the rules their imports break. */
async function brokenRules(files: Record<string, string>): Promise<string[]> {
  const root = mkdtempSync(join(SCRATCH_DIR, 'layers-'));
  roots.push(root);
  for (const [path, source] of Object.entries(files)) {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), source);
  }
  const { output } = await cruise(['src'], { ...config.options, tsConfig: undefined, baseDir: root, validate: true, ruleSet: { forbidden: config.forbidden } });
  const violations = (output as ICruiseResult).summary.violations;
  return [...new Set(violations.map((v) => v.rule.name))].sort();
}

const EXPORT = 'export const x = 1;\n';
const USES = (from: string) => `import { x } from '${from}';\nexport const y = x;\n`;

describe('the layer order of src/', () => {
  it('lets each layer import the ones below it', async () => {
    expect(
      await brokenRules({
        'src/core/index.ts': EXPORT,
        'src/core/window/plan.ts': USES('../index'),
        'src/persistence/index.ts': USES('../core'),
        'src/providers/anthropic.ts': USES('../core'),
        'src/providers/demo/index.ts': USES('../anthropic'),
        'src/media/fitImage.ts': EXPORT,
        'src/sandbox/runner.ts': USES('../core'),
        'src/sync/engine.ts': `${USES('../persistence')}import { x as c } from '../core';\nexport const e = c;\n`,
        'src/store/runtime.ts': `${USES('../persistence')}import type { z } from '../providers/anthropic';\nimport { x as m } from '../media/fitImage';\nimport { y as e } from '../sync/engine';\nexport const k = [m, e, 1 as unknown as z];\n`,
        'src/store/index.ts': USES('./runtime'),
        'src/components/Chat.tsx': `${USES('../store')}import { x as c } from '../core';\nexport const d = c;\n`,
        'src/App.tsx': USES('./components/Chat'),
        'src/browserRuntime.ts': `${USES('./persistence')}import { x as s } from './store';\nexport const t = s;\n`,
        'src/main.tsx': `${USES('./App')}import { x as r } from './browserRuntime';\nexport const q = r;\n`,
      }),
    ).toEqual([]);
  });

  it('keeps src/core from importing anything of ours outside it', async () => {
    expect(await brokenRules({ 'src/store/index.ts': EXPORT, 'src/core/plan.ts': USES('../store') })).toEqual(['core-imports-only-core']);
  });

  it('keeps persistence, providers, media and sandbox on core alone', async () => {
    for (const [from, to] of [
      ['persistence', 'store'],
      ['providers', 'persistence'],
      ['media', 'components'],
      ['sandbox', 'providers'],
    ]) {
      expect(await brokenRules({ [`src/${to}/index.ts`]: EXPORT, [`src/${from}/probe.ts`]: USES(`../${to}`) }), `${from} → ${to}`).toEqual([
        'adapters-import-only-core',
      ]);
    }
  });

  it('keeps sync on core and persistence, and persistence off sync', async () => {
    for (const to of ['providers', 'media', 'sandbox', 'store', 'components']) {
      expect(await brokenRules({ [`src/${to}/index.ts`]: EXPORT, 'src/sync/probe.ts': USES(`../${to}`) }), `sync → ${to}`).toEqual([
        'sync-stands-on-core-and-persistence',
      ]);
    }
    expect(await brokenRules({ 'src/sync/index.ts': EXPORT, 'src/persistence/probe.ts': USES('../sync') })).toEqual(['adapters-import-only-core']);
  });

  it('keeps the store from importing the UI or the composition root', async () => {
    expect(await brokenRules({ 'src/components/Notices.tsx': EXPORT, 'src/store/notices.ts': USES('../components/Notices') })).toEqual([
      'store-never-imports-ui',
    ]);
    expect(await brokenRules({ 'src/browserRuntime.ts': EXPORT, 'src/store/notices.ts': USES('../browserRuntime') })).toContain('store-never-imports-ui');
  });

  it('lets components reach the store only through its public surface, and never the adapters', async () => {
    expect(await brokenRules({ 'src/store/planning.ts': EXPORT, 'src/components/Gauge.tsx': USES('../store/planning') })).toEqual([
      'ui-reaches-store-through-its-surface',
    ]);
    expect(await brokenRules({ 'src/store/planning.ts': EXPORT, 'src/App.tsx': USES('./store/planning') })).toEqual(['ui-reaches-store-through-its-surface']);
    for (const adapter of ['persistence', 'providers', 'media', 'sandbox', 'sync']) {
      expect(await brokenRules({ [`src/${adapter}/index.ts`]: EXPORT, 'src/components/Probe.tsx': USES(`../${adapter}`) }), adapter).toEqual([
        'ui-never-imports-adapters',
      ]);
    }
  });

  it('keeps everything below the composition root from importing it', async () => {
    expect(await brokenRules({ 'src/browserRuntime.ts': EXPORT, 'src/components/Chat.tsx': USES('../browserRuntime') })).toEqual(['ui-never-imports-the-root']);
  });

  it('finds an import circle, also one made of type-only imports', async () => {
    expect(await brokenRules({ 'src/store/a.ts': USES('./b'), 'src/store/b.ts': USES('./a') })).toEqual(['no-circular']);
    const typeOnly = (other: string) => `import type { T as U } from './${other}';\nexport type T = { u?: U };\n`;
    expect(await brokenRules({ 'src/store/state.ts': typeOnly('actions'), 'src/store/actions.ts': typeOnly('state') })).toEqual(['no-circular']);
  });

  it('keeps the app from importing the tests', async () => {
    expect(await brokenRules({ 'test/fake.ts': EXPORT, 'src/core/plan.ts': USES('../../test/fake') })).toEqual(['src-never-imports-test']);
  });
});
