/**
 * Settings → Tools → MCP servers, on the store's side: Connect reaches the server with the
 * secret typed, lists its tools and returns them checked as a stored list is, with the
 * switches the user already set kept (core's mergeListedTools); or says why it could not, plainly. Sign in does the OAuth sign-in first.
 * Both work on the dialog's draft, except an OAuth server's sign-in: the tokens a sign-in or a
 * refresh brings are stored at once, and Sign out forgets them at once (core's signInKeptAtOnce).
 */
import type { McpServerConfig, McpToolInfo } from '../../core';
import { mcpServerUnreachable, mergeListedTools, readMcpOAuth, readMcpServers, signInKeptAtOnce, writeMcpOAuth } from '../../core';
import type { McpEndpoint } from '../../mcp/client';
import type { McpAuthorizer, McpOAuthStorage } from '../../mcp/oauth';
import type { Runtime } from '../runtime';
import { endpointOf } from './mcpCalls';
import { forgetSavedOAuth, notSignedIn, oauthEndpoint, savedOAuth } from './mcpOAuth';

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

const keptAtOnce = (rt: Runtime, server: McpServerConfig): boolean =>
  signInKeptAtOnce(readMcpServers(rt.store.getState().settings.tools.mcpServers, []), server.id);

/** Where Settings keeps the sign-in of `server`: the stored settings when kept at once, else the draft's `secret`, in memory. */
async function signInStorage(rt: Runtime, server: McpServerConfig, secret: string | undefined): Promise<McpOAuthStorage> {
  if (keptAtOnce(rt, server)) return savedOAuth(rt, server.id);
  const { memoryOAuthStorage } = await import('../../mcp/oauth');
  return memoryOAuthStorage(secret);
}

/** Connects to `server` with `secret` (the draft's), lists its tools and closes the connection. */
export async function listMcpServerTools(rt: Runtime, server: McpServerConfig, secret: string | undefined, signal?: AbortSignal): Promise<McpListing> {
  const unreachable = mcpServerUnreachable(server);
  if (unreachable) return { ok: false, error: unreachable };
  try {
    if (server.auth.type !== 'oauth') return { ok: true, tools: await listAt(server, endpointOf(server, secret), signal) };
    const storage = await signInStorage(rt, server, secret);
    const missing = notSignedIn(server, storage);
    if (missing) return { ok: false, error: missing, signIn: true };
    return await listSignedIn(server, storage, signal);
  } catch (error) {
    return failed(error);
  }
}

/**
 * Signs in to `server` with OAuth (`authorize` shows the user the authorization page and hears
 * the redirect back at `redirectUrl`), then lists its tools with the new tokens. The sign-in
 * runs apart and replaces the one kept only once it succeeded: a sign-in given up keeps the old.
 */
export async function signInMcpServer(
  rt: Runtime,
  server: McpServerConfig,
  secret: string | undefined,
  redirectUrl: string,
  authorize: McpAuthorizer,
  signal?: AbortSignal,
): Promise<McpListing> {
  const unreachable = mcpServerUnreachable(server);
  if (unreachable) return { ok: false, error: unreachable };
  try {
    const kept = await signInStorage(rt, server, secret);
    const { memoryOAuthStorage, signInMcp } = await import('../../mcp/oauth');
    const storage = memoryOAuthStorage(writeMcpOAuth(kept.read()));
    await signInMcp(server.url, storage, redirectUrl, authorize);
    await kept.write(storage.read());
    return await listSignedIn(server, kept, signal);
  } catch (error) {
    return failed(error);
  }
}

/**
 * Signs out of `server` (`secret`: the draft's sign-in): its tokens are forgotten, at once
 * where its sign-in is kept at once, then revoked where its authorization server offers it.
 * Revoking is best-effort: a failure is said in a notice, and the tokens are forgotten anyway.
 */
export async function signOutMcpServer(rt: Runtime, server: McpServerConfig, secret: string | undefined): Promise<void> {
  const atOnce = keptAtOnce(rt, server);
  const record = readMcpOAuth(atOnce ? rt.store.getState().settings.mcpSecrets[server.id] : secret);
  if (atOnce) await forgetSavedOAuth(rt, server.id);
  try {
    const { revokeMcpSignIn } = await import('../../mcp/oauth');
    await revokeMcpSignIn(server.url, record);
  } catch (error) {
    const why = error instanceof Error ? error.message : String(error);
    rt.notifier.notify({
      tone: 'warning',
      text: `Signed out of the MCP server “${server.label}” here, but its tokens could not be revoked: ${why}. They stay valid until they expire.`,
    });
  }
}
