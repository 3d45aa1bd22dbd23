/**
 * Settings → Tools → MCP servers, on the store's side: Connect reaches the server with the
 * secret typed, lists its tools and returns them checked as a stored list is, with the
 * switches the user already set kept (core's mergeListedTools); or says why it could not,
 * plainly.
 */
import type { McpServerConfig, McpToolInfo } from '../../core';
import { mcpServerUnreachable, mergeListedTools } from '../../core';
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
      return { ok: true, tools: mergeListedTools(server.tools, await connection.listTools(signal)).tools };
    } finally {
      await connection.close();
    }
  } catch (error) {
    return { ok: false, error: error instanceof Error ? error.message : String(error) };
  }
}
