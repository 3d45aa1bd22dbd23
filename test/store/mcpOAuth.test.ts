/**
 * An MCP server behind OAuth in a turn, through the store: the real store on fake IndexedDB, a
 * scripted provider, the real test server with its authorization server. A call is refused
 * until the user signed in; once signed in, an expired access token is refreshed during the
 * turn and the new tokens are kept in the settings and in storage.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { readMcpOAuth, type McpServerConfig, type StoredMessage, type ToolResultBlock } from '../../src/core';
import { openWindowpaneStorage } from '../../src/persistence';
import type { ChatProvider } from '../../src/providers';
import { saveSettings } from '../../src/store/conversationActions';
import { signInMcpServer } from '../../src/store/mcp/mcpSettings';
import type { Runtime } from '../../src/store/runtime';
import * as chat from '../../src/store/sendPipeline';
import type { Settings } from '../../src/store/settings';
import { SETTINGS_KEY } from '../../src/store/storedSettings';
import { trackerServer } from '../mcp/fixtures';
import { approveAtOnce } from '../mcp/oauthServer';
import { startMcpServer, type McpTestServer } from '../mcp/server';
import { answer, mcpRuntime } from './mcpRuntime';

let mcp: McpTestServer;
beforeAll(async () => {
  mcp = await startMcpServer({ oauth: true });
});
afterAll(() => mcp.close());

const REDIRECT = 'http://127.0.0.1:4173/mcp-oauth-callback.html';
const server = (): McpServerConfig => ({ ...trackerServer(mcp.url, true), auth: { type: 'oauth' } });

/** A runtime whose model calls lookup_issue once per message, with `secret` as the server's. */
async function start(secret: string | undefined): Promise<Runtime> {
  let sent = 0;
  const fake: ChatProvider = {
    id: 'anthropic',
    wireShape: 'anthropic',
    async send() {
      sent++;
      return sent % 2 === 1
        ? answer([{ type: 'tool_use', id: `toolu_${sent}`, name: 'mcp_tracker__lookup_issue', input: { number: sent } }])
        : answer([{ type: 'text', text: 'Done.' }]);
    },
    async complete() {
      return '';
    },
  };
  const rt = await mcpRuntime(fake, server(), secret ? { 'srv-1': secret } : {}, 1);
  return rt;
}

async function turn(rt: Runtime, text: string): Promise<ToolResultBlock | undefined> {
  expect(chat.send(rt, rt.store.getState().activeId, text)).toBe(true);
  await vi.waitFor(() => expect(rt.store.getState().sendingId).toBeNull(), { timeout: 8_000 });
  const messages: StoredMessage[] = rt.store.getState().messages[rt.store.getState().activeId!] ?? [];
  return messages
    .flatMap((m) => m.content)
    .filter((b): b is ToolResultBlock => b.type === 'tool_result')
    .at(-1);
}

describe('an MCP server behind OAuth in a turn', () => {
  it('refuses the call before the user signed in, without reaching the server', async () => {
    const rt = await start(undefined);
    const requestsBefore = mcp.bearers.length;
    const result = await turn(rt, 'What is issue 1?');
    expect(result).toMatchObject({
      is_error: true,
      content: 'Not run: You are not signed in to the MCP server “Tracker”: choose Sign in for it in Settings → Tools.',
    });
    expect(mcp.bearers.length).toBe(requestsBefore);
  });

  it('calls with the sign-in, refreshes an expired token during the turn and keeps the new tokens', async () => {
    const listing = await signInMcpServer(server(), undefined, REDIRECT, approveAtOnce);
    if (!listing.ok) throw new Error(listing.error);
    expect(listing.tools.map((tool) => tool.name)).toContain('lookup_issue');
    const rt = await start(listing.secret);
    const first = readMcpOAuth(listing.secret).tokens!;

    expect((await turn(rt, 'What is issue 1?'))?.content).toBe('Issue 1: The login page loads slowly. Status: open.');
    mcp.oauth!.expireAccessTokens();
    expect((await turn(rt, 'And issue 3?'))?.content).toBe('Issue 3: The login page loads slowly. Status: open.');

    const kept = readMcpOAuth(rt.store.getState().settings.mcpSecrets['srv-1']).tokens!;
    expect(kept.access_token).not.toBe(first.access_token);
    expect(mcp.bearers.at(-1)).toBe(kept.access_token);
    const storage = await openWindowpaneStorage();
    const stored = (await storage.repositories.settings.getSetting(SETTINGS_KEY)) as Settings;
    expect(readMcpOAuth(stored.mcpSecrets['srv-1']).tokens).toEqual(kept);

    // Saving settings for this conversation keeps the servers' secrets, which apply to every conversation.
    await saveSettings(rt, { ...rt.store.getState().settings, mcpSecrets: { 'srv-1': 'replaced' } }, 'conversation');
    expect(rt.store.getState().settings.mcpSecrets).toEqual({ 'srv-1': 'replaced' });
  });
});
