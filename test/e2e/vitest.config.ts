import { defineConfig } from 'vitest/config';

// Browser tests: the built app (dist/) served by `vite preview`, the fake provider API,
// and real Chromium driven through playwright-core. Files run one at a time: the
// machines are small and every file starts its own browser.
export default defineConfig({
  test: {
    root: new URL('../..', import.meta.url).pathname,
    include: ['test/e2e/**/*.e2e.test.ts', 'test/security/**/*.e2e.test.ts'],
    environment: 'node',
    globalSetup: ['test/e2e/globalSetup.ts'],
    setupFiles: ['test/e2e/setup.ts'],
    fileParallelism: false,
    testTimeout: 60_000,
    hookTimeout: 60_000,
  },
});
