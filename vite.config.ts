import { defineConfig } from 'vitest/config';
import react from '@vitejs/plugin-react';
import type { Plugin } from 'vite';
import { VitePWA } from 'vite-plugin-pwa';

/**
 * The built app's Content-Security-Policy (README, "Privacy"). Build only: the dev server
 * injects inline scripts for hot reload. connect-src: the providers (https) and model
 * servers over plain http, on this machine or, once the user confirmed it in Settings, on
 * their network; a policy cannot name private addresses, and https: already admits any
 * host, so http: widens nothing but the scheme. frame-src: the run_javascript sandbox,
 * public/sandbox.html, which carries its own stricter policy. worker-src: the run_javascript
 * worker's blob is created inside the sandbox frame, under that frame's policy, so 'self'
 * here admits only the service worker (dist/sw.js); manifest-src: the web app manifest.
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
  "manifest-src 'self'",
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

/**
 * KaTeX's stylesheet offers each font as woff2, woff and ttf. Every browser this build
 * targets reads woff2, so only those are bundled: the others would be 40 files no browser
 * fetches, yet the service worker would have to precache them to keep offline complete.
 */
function katexWoff2Only(): Plugin {
  return {
    name: 'windowpane-katex-woff2-only',
    enforce: 'pre',
    transform(code, id) {
      if (!/[\\/]katex[\\/]dist[\\/]katex(\.min)?\.css$/.test(id.split('?')[0]!)) return null;
      return code.replace(/,\s*url\([^)]*\.(?:woff|ttf)\)\s*format\(["'](?:woff|truetype)["']\)/g, '');
    },
  };
}

/** The light theme's page colour (src/styles/base.css --bg): the splash screen and the installed window's title bar. */
const THEME_COLOR = '#ffffff';

/**
 * The web app manifest and the service worker (Workbox's generateSW, production builds
 * only). The worker precaches every file of the build, lazily loaded chunks included, so
 * the installed app opens offline; every navigation gets index.html. It has no runtime
 * caching: a request it did not precache, like every request to a provider's API, is
 * never answered by it and goes to the network as if it were not there. A new version
 * waits until the user chooses to reload (src/serviceWorker.ts shows the notice).
 */
function progressiveWebApp() {
  return VitePWA({
    registerType: 'prompt',
    // Registered by src/serviceWorker.ts: the injected script would be inline, which the policy refuses.
    injectRegister: false,
    includeManifestIcons: false,
    manifest: {
      id: '/',
      name: 'Windowpane',
      short_name: 'Windowpane',
      description: 'Chat with your own API key, for as long as you like, and see exactly what the model is sent.',
      start_url: '/',
      scope: '/',
      display: 'standalone',
      theme_color: THEME_COLOR,
      background_color: THEME_COLOR,
      icons: [
        { src: '/pwa-192x192.png', sizes: '192x192', type: 'image/png', purpose: 'any' },
        { src: '/pwa-512x512.png', sizes: '512x512', type: 'image/png', purpose: 'any' },
        { src: '/maskable-512x512.png', sizes: '512x512', type: 'image/png', purpose: 'maskable' },
      ],
    },
    workbox: {
      // Every file of the build (the manifest and its icons are added by the plugin itself);
      // each is far below Workbox's 2 MiB limit per file, so none is left out.
      globPatterns: ['**/*.{js,css,html,svg,png,ico,woff2,wasm}'],
      navigateFallback: 'index.html',
      // The MCP sign-in's callback page is opened with the code in its query, which the
      // precache does not match: it must get its own page, not the app's.
      navigateFallbackDenylist: [/\/mcp-oauth-callback\.html(\?|$)/],
      // The first visit's tab is taken over as soon as the worker is installed, so its lazily
      // loaded parts come from the cache offline too. An update still waits for the user
      // (no skipWaiting until Reload).
      clientsClaim: true,
      runtimeCaching: [],
      cleanupOutdatedCaches: true,
    },
  });
}

export default defineConfig({
  plugins: [react(), katexWoff2Only(), contentSecurityPolicy(), progressiveWebApp()],
  server: { port: 5173, strictPort: true },
  preview: { port: 4173, strictPort: false },
  build: {
    sourcemap: true,
    target: 'es2022',
    rolldownOptions: {
      // src/core is pure (eslint.config.js): importing one of its modules runs nothing another
      // relies on. Said here, a core module only a lazily loaded chunk uses (the importers of
      // each export format) goes into that chunk, rather than into the first load with the
      // barrel (core/index.ts) that re-exports it.
      treeshake: { moduleSideEffects: [{ test: /[\\/]src[\\/]core[\\/]/, sideEffects: false }] },
      // Every module the entry imports statically is one chunk, the entry itself. Otherwise a module
      // shared between the first screen and a chunk loaded on first use is split into a chunk of its
      // own, which index.html preloads anyway: the first load is as large, in more requests.
      output: { codeSplitting: { groups: [{ name: 'index', tags: ['$initial'] }] } },
    },
  },
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
