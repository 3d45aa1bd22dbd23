import { defineConfig } from 'vitest/config';
import react from '@vitejs/plugin-react';
import type { Plugin } from 'vite';

/**
 * The built app's Content-Security-Policy (README, "Privacy"). Build only: the dev server
 * injects inline scripts for hot reload. connect-src: the providers (https) and model
 * servers over plain http, on this machine or, once the user confirmed it in Settings, on
 * their network; a policy cannot name private addresses, and https: already admits any
 * host, so http: widens nothing but the scheme. frame-src: the run_javascript sandbox,
 * public/sandbox.html, which carries its own stricter policy.
 */
export const CONTENT_SECURITY_POLICY = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data: blob:",
  "font-src 'self' data:",
  "connect-src 'self' https: http:",
  "frame-src 'self'",
  "worker-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'none'",
].join('; ');

function contentSecurityPolicy(): Plugin {
  return {
    name: 'windowpane-content-security-policy',
    apply: 'build',
    transformIndexHtml: () => [{ tag: 'meta', attrs: { 'http-equiv': 'Content-Security-Policy', content: CONTENT_SECURITY_POLICY }, injectTo: 'head-prepend' }],
  };
}

export default defineConfig({
  plugins: [react(), contentSecurityPolicy()],
  server: { port: 5173, strictPort: true },
  preview: { port: 4173, strictPort: false },
  build: { sourcemap: true, target: 'es2022' },
  test: {
    environment: 'jsdom',
    include: ['test/**/*.test.{ts,tsx}'],
    exclude: ['test/e2e/**', 'test/bench/**', '**/*.e2e.test.ts', 'node_modules/**'],
    setupFiles: ['test/setup.ts'],
    restoreMocks: true,
    // Component tests type and click through whole dialogs; on a busy two-core machine one can
    // take longer than vitest's default five seconds without anything being wrong.
    testTimeout: 20_000,
  },
});
