// Lint config. The import boundaries below are the architecture's layering rules
// (see the README's "Code layout"): break one and `npm test` fails.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import reactHooks from 'eslint-plugin-react-hooks';
import globals from 'globals';

const SDKS = ['@anthropic-ai/sdk', '@anthropic-ai/sdk/*', 'openai', 'openai/*'];
const STORAGE = ['idb', 'idb/*'];

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
            { regex: '^(?!\\.{1,2}/)', message: 'src/core imports nothing outside src/core (no packages: React, zustand, idb, SDKs...).' },
            { regex: '^\\.\\./\\.\\./', message: 'src/core imports nothing outside src/core.' },
            { regex: '^\\.\\./(providers|persistence|store|components|App|main)', message: 'src/core imports nothing outside src/core.' },
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
    ignores: ['src/providers/**', 'src/core/**'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          paths: [],
          patterns: [
            { group: SDKS, message: 'Only src/providers imports the provider SDKs.' },
            { group: STORAGE, message: 'Only src/persistence touches IndexedDB (idb).' },
          ],
        },
      ],
    },
  },
  {
    // The store never reaches up into the UI: the types it produces (notices, the gauge's view) are its own.
    files: ['src/store/**/*.{ts,tsx}'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            { group: SDKS, message: 'Only src/providers imports the provider SDKs.' },
            { group: STORAGE, message: 'Only src/persistence touches IndexedDB (idb).' },
            { regex: '^\\.\\./components(/|$)', message: 'src/store does not import from src/components: imports point down.' },
          ],
        },
      ],
    },
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
    // Components see the store only through its public surface, src/store/index.ts.
    files: ['src/components/**/*.{ts,tsx}', 'src/App.tsx', 'src/main.tsx'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            { group: SDKS, message: 'Only src/providers imports the provider SDKs.' },
            { group: STORAGE, message: 'Only src/persistence touches IndexedDB (idb).' },
            { regex: '^\\.{1,2}/store/.', message: "Components import the store's public surface ('../store'), not its modules." },
          ],
        },
      ],
    },
  },
  {
    files: ['src/providers/**/*.{ts,tsx}'],
    rules: {
      'no-restricted-imports': ['error', { patterns: [{ group: STORAGE, message: 'Only src/persistence touches IndexedDB (idb).' }] }],
    },
  },
  {
    files: ['src/persistence/**/*.{ts,tsx}'],
    rules: {
      'no-restricted-imports': ['error', { patterns: [{ group: SDKS, message: 'Only src/providers imports the provider SDKs.' }] }],
    },
  },
  {
    files: ['test/**/*.{ts,tsx,mjs,js}', '*.config.{js,ts}', 'vite.config.ts'],
    languageOptions: { globals: { ...globals.node, ...globals.browser } },
  },
);
