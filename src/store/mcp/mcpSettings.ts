/**
 * Settings → Tools → MCP servers, on the store's side: Connect reaches the server with the
 * secret typed, lists its tools and returns them checked as a stored list is (core's
 * readMcpServers: names, descriptions and schemas cut to size), with the switches the user
 * already set kept; or says why it could not, plainly.
 */
import type { McpServerConfig, McpToolInfo } from '../../core';
import { mcpServerUnreachable, readMcpServers } from '../../core';
import { endpointOf } from './mcpCalls';

export type McpListing = { ok: true; tools: McpToolInfo[] } | { ok: false; error: string };

/** Connects to `server` with `secret`, lists its tools and closes the connection. */
export async function listMcpServerTools(server: McpServerConfig, secret: string | undefined, signal?: AbortSignal): Promise<McpListing> {
  const unreachable = mcpServerUnreachable(server);
  if (unreachable) return { ok: false, error: unreachable };
  try {
    const { connectMcp } = await import('../../mcp/client');
    const connection = await connectMcp(endpointOf(server, secret), signal ? { signal } : {});
    try {
      const listed = await connection.listTools(signal);
      const before = new Map(server.tools.map((tool) => [tool.name, tool]));
      // The listing is checked as a stored one would be, and each tool keeps the switches set before.
      const [read] = readMcpServers([{ ...server, tools: listed.map((tool) => ({ ...tool, enabled: true, alwaysAllow: false })) }], []);
      const tools = (read?.tools ?? []).map((tool) => {
        const old = before.get(tool.name);
        return old ? { ...tool, enabled: old.enabled, alwaysAllow: old.alwaysAllow } : tool;
      });
      return { ok: true, tools };
    } finally {
      await connection.close();
    }
  } catch (error) {
    return { ok: false, error: error instanceof Error ? error.message : String(error) };
  }
}
