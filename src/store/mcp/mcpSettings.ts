/**
 * Settings → Tools → MCP servers, on the store's side: Connect reaches the server with the
 * secret typed, lists its tools and returns them checked as a stored list is, with the
 * switches the user already set kept (core's mergeListedTools); or says why it could not, plainly. Sign in does the OAuth sign-in first.
 * Both work on the dialog's draft: the sign-in they return is kept only when the user saves.
 */
import type { McpServerConfig, McpToolInfo } from '../../core';
import { mcpServerUnreachable, mergeListedTools, writeMcpOAuth } from '../../core';
import type { McpEndpoint } from '../../mcp/client';
import type { McpAuthorizer, McpOAuthStorage } from '../../mcp/oauth';
import { endpointOf } from './mcpCalls';
import { notSignedIn, oauthEndpoint } from './mcpOAuth';

/**
 * What Connect or Sign in found. `secret`: the server's secret as it now is (an OAuth sign-in,
 * refreshed or new), for the draft. `signIn`: the server asks for an OAuth sign-in.
 */
export type McpListing = { ok: true; tools: McpToolInfo[]; secret?: string } | { ok: false; error: string; signIn?: boolean };

const failed = (error: unknown): McpListing => ({
  ok: false,
  error: error instanceof Error ? error.message : String(error),
  ...(error instanceof Error && 'kind' in error && error.kind === 'signin' ? { signIn: true } : {}),
});

/** Connects to `endpoint`, lists its tools with the switches `server` had, and closes the connection. */
async function listAt(server: McpServerConfig, endpoint: McpEndpoint, signal?: AbortSignal): Promise<McpToolInfo[]> {
  const { connectMcp } = await import('../../mcp/client');
  const connection = await connectMcp(endpoint, signal ? { signal } : {});
  try {
    return mergeListedTools(server.tools, await connection.listTools(signal)).tools;
  } finally {
    await connection.close();
  }
}

/** Lists over an OAuth sign-in held in `storage`; the secret returned is the sign-in after any refresh. */
async function listSignedIn(server: McpServerConfig, storage: McpOAuthStorage, signal?: AbortSignal): Promise<McpListing> {
  const tools = await listAt(server, await oauthEndpoint(server, storage), signal);
  return { ok: true, tools, secret: writeMcpOAuth(storage.read()) };
}

/** Connects to `server` with `secret`, lists its tools and closes the connection. */
export async function listMcpServerTools(server: McpServerConfig, secret: string | undefined, signal?: AbortSignal): Promise<McpListing> {
  const unreachable = mcpServerUnreachable(server);
  if (unreachable) return { ok: false, error: unreachable };
  try {
    if (server.auth.type !== 'oauth') return { ok: true, tools: await listAt(server, endpointOf(server, secret), signal) };
    const { memoryOAuthStorage } = await import('../../mcp/oauth');
    const storage = memoryOAuthStorage(secret);
    const missing = notSignedIn(server, storage);
    if (missing) return { ok: false, error: missing, signIn: true };
    return await listSignedIn(server, storage, signal);
  } catch (error) {
    return failed(error);
  }
}

/**
 * Signs in to `server` with OAuth (`authorize` shows the user the authorization page and hears
 * the redirect back at `redirectUrl`), then lists its tools with the new tokens.
 */
export async function signInMcpServer(
  server: McpServerConfig,
  secret: string | undefined,
  redirectUrl: string,
  authorize: McpAuthorizer,
  signal?: AbortSignal,
): Promise<McpListing> {
  const unreachable = mcpServerUnreachable(server);
  if (unreachable) return { ok: false, error: unreachable };
  try {
    const { memoryOAuthStorage, signInMcp } = await import('../../mcp/oauth');
    const storage = memoryOAuthStorage(secret);
    await signInMcp(server.url, storage, redirectUrl, authorize);
    return await listSignedIn(server, storage, signal);
  } catch (error) {
    return failed(error);
  }
}
