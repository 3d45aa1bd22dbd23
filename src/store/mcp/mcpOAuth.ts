/**
 * An MCP server's OAuth sign-in as the store keeps it: in `Settings.mcpSecrets` under the
 * server's id, beside the API keys (never exported, never synced). A refresh during a turn
 * writes the new tokens straight to the settings, without closing a dialog or asking anyone;
 * so do a sign-in, a refresh and a sign-out in Settings (see core's signInKeptAtOnce).
 */
import { mcpSignedIn, readMcpOAuth, writeMcpOAuth, type McpServerConfig } from '../../core';
import type { McpEndpoint } from '../../mcp/client';
import type { McpOAuthStorage } from '../../mcp/oauth';
import type { Runtime } from '../runtime';
import { SETTINGS_KEY } from '../storedSettings';

/** Keeps `secret` as the server's (none: forgets the server's), in the state and in storage. */
async function saveMcpSecret(rt: Runtime, serverId: string, secret: string | undefined): Promise<void> {
  rt.store.setState(({ settings }) => {
    const { [serverId]: _old, ...others } = settings.mcpSecrets;
    return { settings: { ...settings, mcpSecrets: secret === undefined ? others : { ...others, [serverId]: secret } } };
  });
  try {
    await rt.repositories.settings.setSetting(SETTINGS_KEY, rt.store.getState().settings);
  } catch (error) {
    rt.notifier.reportError(error, 'save the MCP server’s sign-in');
  }
}

/** The sign-in of `serverId` in the app's settings, read fresh at every request. */
export function savedOAuth(rt: Runtime, serverId: string): McpOAuthStorage {
  return {
    read: () => readMcpOAuth(rt.store.getState().settings.mcpSecrets[serverId]),
    write: (record) => saveMcpSecret(rt, serverId, writeMcpOAuth(record)),
  };
}

/** Forgets the sign-in of `serverId` kept in the app's settings. */
export const forgetSavedOAuth = (rt: Runtime, serverId: string): Promise<void> => saveMcpSecret(rt, serverId, undefined);

/** Why an OAuth server cannot be called with what `storage` holds, or undefined when it can. */
export function notSignedIn(server: McpServerConfig, storage: McpOAuthStorage): string | undefined {
  const record = storage.read();
  return mcpSignedIn(record) && record.redirectUrl
    ? undefined
    : `You are not signed in to the MCP server “${server.label}”: choose Sign in for it in Settings → Tools.`;
}

/** The endpoint of an OAuth server: its access token from `storage`, refreshed there when the server refuses it. */
export async function oauthEndpoint(server: McpServerConfig, storage: McpOAuthStorage): Promise<McpEndpoint> {
  const { mcpOAuthProvider } = await import('../../mcp/oauth');
  return { url: server.url, headers: {}, authProvider: mcpOAuthProvider(storage, storage.read().redirectUrl ?? '') };
}
