// Lint config. What a file may do inside itself: src/core stays pure (no packages, DOM,
// clock or randomness), only src/providers imports the SDKs, only src/mcp the MCP SDK, only src/persistence idb,
// only src/sync PouchDB.
// The order of imports between our own folders is in .dependency-cruiser.cjs (see
// docs/ARCHITECTURE.md). Break a rule and `npm test` fails.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import reactHooks from 'eslint-plugin-react-hooks';
import globals from 'globals';

const SDKS = ['@anthropic-ai/sdk', '@anthropic-ai/sdk/*', 'openai', 'openai/*'];
const STORAGE = ['idb', 'idb/*'];
const REPLICATION = ['pouchdb-browser', 'pouchdb-*'];
const MCP_SDK = ['@modelcontextprotocol/sdk', '@modelcontextprotocol/sdk/*'];
const MCP_RULE = { group: MCP_SDK, message: 'Only src/mcp imports the MCP SDK.' };

/** Globals a pure module must not touch: DOM, storage, network, clocks and randomness are passed in. */
const IMPURE_GLOBALS = [
  'window',
  'document',
  'navigator',
  'localStorage',
  'sessionStorage',
  'indexedDB',
  'fetch',
  'XMLHttpRequest',
  'WebSocket',
  'EventSource',
  'location',
  'history',
  'setTimeout',
  'setInterval',
  'requestAnimationFrame',
  'Worker',
].map((name) => ({ name, message: 'src/core is pure: pass time, I/O and platform objects in as arguments.' }));

export default tseslint.config(
  { ignores: ['dist', 'node_modules', 'test-results', 'coverage'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    files: ['**/*.{ts,tsx}'],
    languageOptions: { ecmaVersion: 2023, globals: { ...globals.browser } },
    plugins: { 'react-hooks': reactHooks },
    rules: {
      ...reactHooks.configs.recommended.rules,
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/consistent-type-imports': 'error',
    },
  },
  {
    files: ['src/core/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            { regex: '^(?!\\.{1,2}/)', message: 'src/core imports no packages (React, zustand, idb, SDKs...): it runs unchanged in Node and a Worker.' },
          ],
        },
      ],
      'no-restricted-globals': ['error', ...IMPURE_GLOBALS],
      'no-restricted-properties': [
        'error',
        { object: 'Date', property: 'now', message: 'src/core is pure: take the time as an argument.' },
        { object: 'Math', property: 'random', message: 'src/core is pure: take ids and randomness as arguments.' },
      ],
    },
  },
  {
    files: ['src/**/*.{ts,tsx}'],
    ignores: ['src/providers/**', 'src/core/**', 'src/mcp/**'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          paths: [],
          patterns: [
            MCP_RULE,
            { group: SDKS, message: 'Only src/providers imports the provider SDKs.' },
            { group: STORAGE, message: 'Only src/persistence touches IndexedDB (idb).' },
            { group: REPLICATION, message: 'Only src/sync imports PouchDB.' },
          ],
        },
      ],
    },
  },
  {
    files: ['src/sync/**/*.{ts,tsx}'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            MCP_RULE,
            { group: SDKS, message: 'Only src/providers imports the provider SDKs.' },
            { group: STORAGE, message: 'Only src/persistence touches IndexedDB (idb); sync reads and writes through the repositories.' },
          ],
        },
      ],
    },
  },
  {
    // A file a newcomer reads in one sitting. The sandbox worker is excepted: it is stringified into the sandbox frame whole.
    files: ['src/**/*.{ts,tsx}'],
    ignores: ['src/sandbox/sandboxWorker.ts'],
    rules: { 'max-lines': ['error', { max: 500 }] },
  },
  {
    // The store is the code every feature changes: small functions in small files keep it readable.
    files: ['src/store/**/*.{ts,tsx}'],
    rules: {
      'max-lines': ['error', { max: 300 }],
      'max-lines-per-function': ['error', { max: 60 }],
    },
  },
  {
    files: ['src/providers/**/*.{ts,tsx}'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            MCP_RULE,
            { group: STORAGE, message: 'Only src/persistence touches IndexedDB (idb).' },
            { group: REPLICATION, message: 'Only src/sync imports PouchDB.' },
          ],
        },
      ],
    },
  },
  {
    files: ['src/mcp/**/*.{ts,tsx}'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            { group: SDKS, message: 'Only src/providers imports the provider SDKs.' },
            { group: STORAGE, message: 'Only src/persistence touches IndexedDB (idb).' },
            { group: REPLICATION, message: 'Only src/sync imports PouchDB.' },
          ],
        },
      ],
    },
  },
  {
    files: ['src/persistence/**/*.{ts,tsx}'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            MCP_RULE,
            { group: SDKS, message: 'Only src/providers imports the provider SDKs.' },
            { group: REPLICATION, message: 'Only src/sync imports PouchDB.' },
          ],
        },
      ],
    },
  },
  {
    files: ['test/**/*.{ts,tsx,mjs,js}', '*.config.{js,ts}', 'vite.config.ts'],
    languageOptions: { globals: { ...globals.node, ...globals.browser } },
  },
  {
    // Pages served as they are, beside the app (the MCP sign-in's callback): a plain browser script.
    files: ['public/**/*.js'],
    languageOptions: { sourceType: 'script', globals: globals.browser },
  },
  {
    files: ['.dependency-cruiser.cjs'],
    languageOptions: { sourceType: 'commonjs', globals: globals.node },
  },
);
