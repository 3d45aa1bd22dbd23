// The layers of src/ and the one direction of imports between them (docs/ARCHITECTURE.md):
//
//   core  <-  persistence, providers, media, sandbox, mcp  <-  sync  <-  store  <-  components, App.tsx  <-  main.tsx, browserRuntime.ts
//
// (sync stands on core and persistence only: it reads and writes the app's records through the repositories.)
//
// `npm run lint` checks every import against these rules, type-only imports included;
// test/lint/layers.test.ts proves that each rule fires. What a file may do inside itself
// (core's purity, where the SDKs and idb are imported) is in eslint.config.js.
/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      severity: 'error',
      comment: 'No import circle anywhere in src/, type-only imports included: a circle has no layer order.',
      from: {},
      to: { circular: true },
    },
    {
      name: 'core-imports-only-core',
      severity: 'error',
      comment: 'src/core is the pure heart of the app: it imports nothing of ours outside src/core.',
      from: { path: '^src/core/' },
      to: { path: '^src/', pathNot: '^src/core/' },
    },
    {
      name: 'adapters-import-only-core',
      severity: 'error',
      comment: 'persistence, providers, media, sandbox and mcp stand on core alone: none imports another, the store or the UI.',
      from: { path: '^src/(persistence|providers|media|sandbox|mcp)/' },
      to: { path: '^src/', pathNot: ['^src/core/', '^src/$1/'] },
    },
    {
      name: 'sync-stands-on-core-and-persistence',
      severity: 'error',
      comment: 'src/sync uses core and the repositories of src/persistence, never providers, media, the sandbox, MCP, the store or the UI.',
      from: { path: '^src/sync/' },
      to: { path: '^src/', pathNot: ['^src/core/', '^src/persistence/', '^src/sync/'] },
    },
    {
      name: 'store-never-imports-ui',
      severity: 'error',
      comment: 'The store knows nothing of the UI or of how the app is wired: imports point down.',
      from: { path: '^src/store/' },
      to: { path: '^src/(components/|App\\.tsx|main\\.tsx|browserRuntime\\.ts)' },
    },
    {
      name: 'ui-reaches-store-through-its-surface',
      severity: 'error',
      comment: 'Components see the store only through its public surface, src/store/index.ts.',
      from: { path: '^src/(components/|App\\.tsx)' },
      to: { path: '^src/store/', pathNot: '^src/store/index\\.ts$' },
    },
    {
      name: 'ui-never-imports-adapters',
      severity: 'error',
      comment: 'Components reach storage, providers, media, the sandbox, MCP servers and sync only through the store.',
      from: { path: '^src/(components/|App\\.tsx)' },
      to: { path: '^src/(persistence|providers|media|sandbox|mcp|sync)/' },
    },
    {
      name: 'ui-never-imports-the-root',
      severity: 'error',
      comment: 'The composition root (main.tsx, browserRuntime.ts) wires the app; nothing below it imports it.',
      from: { path: '^src/', pathNot: '^src/(main\\.tsx|browserRuntime\\.ts)$' },
      to: { path: '^src/(main\\.tsx|browserRuntime\\.ts)$' },
    },
    {
      name: 'src-never-imports-test',
      severity: 'error',
      comment: 'The app stands alone: tests import the app, never the other way.',
      from: { path: '^src/' },
      to: { path: '^test/' },
    },
  ],
  options: {
    // Type-only imports are imports: a circle of types is still a circle.
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.app.json' },
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '\\.css$' },
  },
};
