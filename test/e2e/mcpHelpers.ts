/** What the MCP browser tests share: Chromium, the fake provider API and a real MCP server that allows the app's origin. */
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, inject } from 'vitest';
import { startFakeApi, type FakeApi } from '../fake-api/server';
import { startMcpServer, type McpTestServer } from '../mcp/server';
import { launchBrowser } from './browser';

export interface McpBrowserSetup {
  readonly browser: Browser;
  readonly fake: FakeApi;
  readonly mcp: McpTestServer;
}

/** Starts the three before the file's tests and stops them after; read them from the tests. */
export function useMcpBrowserSetup(): McpBrowserSetup {
  let started: McpBrowserSetup | undefined;
  beforeAll(async () => {
    const [browser, fake, mcp] = await Promise.all([
      launchBrowser(),
      startFakeApi({ contextWindow: 200_000, deltaDelayMs: 1 }),
      startMcpServer({ origin: new URL(inject('appUrl')).origin }),
    ]);
    started = { browser, fake, mcp };
  });
  afterAll(async () => {
    await Promise.all([started?.browser.close(), started?.fake.close(), started?.mcp.close()]);
  });
  const get = () => {
    if (!started) throw new Error('the MCP browser setup has not started');
    return started;
  };
  return {
    get browser() {
      return get().browser;
    },
    get fake() {
      return get().fake;
    },
    get mcp() {
      return get().mcp;
    },
  };
}
