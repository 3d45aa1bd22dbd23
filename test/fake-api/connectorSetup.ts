import { afterAll, afterEach, beforeAll } from 'vitest';
import { startMcpServer, type McpServerOptions, type McpTestServer } from '../mcp/server';
import { startFakeApi, type FakeApi } from './server';

/** The public address tests give the provider's connector; the fake resolves it to the test MCP server. */
export const CONNECTOR_URL = 'https://mcp.example.com/mcp';

/**
 * A test MCP server and a fake provider API that reaches it as `CONNECTOR_URL`, started for the
 * file and reset after each test; read them through the getters once the file has started.
 */
export function connectorServers(mcpOptions: McpServerOptions = {}): { fake: () => FakeApi; mcp: () => McpTestServer } {
  let fake: FakeApi | undefined;
  let mcp: McpTestServer | undefined;
  beforeAll(async () => {
    mcp = await startMcpServer(mcpOptions);
    fake = await startFakeApi({ deltaDelayMs: 0, connectorHosts: { [CONNECTOR_URL]: mcp.url } });
  });
  afterEach(() => {
    fake?.reset();
    if (mcp) mcp.calls.length = 0;
  });
  afterAll(async () => {
    await fake?.close();
    await mcp?.close();
  });
  return { fake: () => fake!, mcp: () => mcp! };
}
