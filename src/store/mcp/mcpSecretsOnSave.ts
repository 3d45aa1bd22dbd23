/**
 * The MCP secrets a Settings save keeps, in a chunk loaded only where a server or a secret
 * is: the dialog's, except each OAuth server's sign-in, which is stored when it changes and
 * taken from storage (core's mcpSecretsToSave), so an older draft never puts back spent tokens.
 */
import { mcpSecretsToSave, readMcpServers } from '../../core';
import type { Settings } from '../settings';

/** The MCP secrets saving `edited` keeps, with `stored` the settings stored now. */
export function mcpSecretsOnSave(stored: Settings, edited: Settings): Record<string, string> {
  const serversOf = (settings: Settings) => ({ servers: readMcpServers(settings.tools.mcpServers, []), secrets: settings.mcpSecrets });
  return mcpSecretsToSave(serversOf(stored), serversOf(edited));
}
