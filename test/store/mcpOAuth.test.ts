/**
 * An MCP server behind OAuth in a turn, through the store: the real store on fake IndexedDB, a
 * scripted provider, the real test server with its authorization server. A call is refused
 * until the user signed in; once signed in, an expired access token is refreshed during the
 * turn and the new tokens are kept in the settings and in storage. A sign-in, a refresh and a
 * sign-out in Settings are stored at once, whatever becomes of the dialog's draft: a refresh
 * token is used once, so a draft given up or an older one saved must not lose the new tokens.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { readMcpOAuth, writeMcpOAuth, type McpOAuthRecord, type McpServerConfig, type StoredMessage, type ToolResultBlock } from '../../src/core';
import { openWindowpaneStorage } from '../../src/persistence';
import type { ChatProvider } from '../../src/providers';
import { saveSettings } from '../../src/store/conversationActions';
import { listMcpServerTools, signInMcpServer, signOutMcpServer } from '../../src/store/mcp/mcpSettings';
import type { McpListing } from '../../src/store';
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
    const rt = await start(undefined);
    const listing = await signIn(rt);
    expect(listing.tools.map((tool) => tool.name)).toContain('lookup_issue');
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

    // Saving settings for this conversation keeps the sign-in stored, not one a draft holds.
    await saveSettings(rt, { ...rt.store.getState().settings, mcpSecrets: { 'srv-1': 'replaced' } }, 'conversation');
    expect(readMcpOAuth(rt.store.getState().settings.mcpSecrets['srv-1']).tokens).toEqual(kept);
  });
});

/** Signs in as Settings does: the sign-in is stored at once. */
async function signIn(rt: Runtime, authorize = approveAtOnce): Promise<Extract<McpListing, { ok: true }>> {
  const listing = await signInMcpServer(rt, server(), undefined, REDIRECT, authorize);
  if (!listing.ok) throw new Error(listing.error);
  return listing;
}

/** The server's sign-in as storage holds it. */
async function storedSignIn(): Promise<McpOAuthRecord> {
  const storage = await openWindowpaneStorage();
  return readMcpOAuth(((await storage.repositories.settings.getSetting(SETTINGS_KEY)) as Settings).mcpSecrets['srv-1']);
}

describe('a sign-in in Settings, whatever becomes of the draft', () => {
  it('keeps the tokens Connect refreshed when the dialog is cancelled: the next turn needs no sign-in', async () => {
    const rt = await start(undefined);
    const draft = structuredClone((await signIn(rt)).secret);
    const refreshes = mcp.oauth!.events.filter((event) => event === 'refresh').length;
    mcp.oauth!.expireAccessTokens();
    // Connect in the dialog refreshes the expired token (the refresh token is spent); the user then cancels.
    const listing = await listMcpServerTools(rt, server(), draft);
    expect(listing.ok).toBe(true);
    expect(mcp.oauth!.events.filter((event) => event === 'refresh')).toHaveLength(refreshes + 1);
    expect((await storedSignIn()).tokens?.access_token).toBe(mcp.oauth!.liveAccessTokens().at(-1));

    expect((await turn(rt, 'What is issue 1?'))?.content).toBe('Issue 1: The login page loads slowly. Status: open.');
    // Once more expired, the stored refresh token still works.
    mcp.oauth!.expireAccessTokens();
    expect((await turn(rt, 'And issue 3?'))?.content).toBe('Issue 3: The login page loads slowly. Status: open.');
  });

  it('never puts back older tokens when a draft opened before a turn refreshed them is saved', async () => {
    const rt = await start(undefined);
    await signIn(rt);
    const draft = structuredClone(rt.store.getState().settings);
    mcp.oauth!.expireAccessTokens();
    expect((await turn(rt, 'What is issue 1?'))?.content).toBe('Issue 1: The login page loads slowly. Status: open.');
    const refreshed = readMcpOAuth(rt.store.getState().settings.mcpSecrets['srv-1']).tokens!;
    expect(refreshed.access_token).not.toBe(readMcpOAuth(draft.mcpSecrets['srv-1']).tokens!.access_token);

    await saveSettings(rt, draft, 'global');
    expect(readMcpOAuth(rt.store.getState().settings.mcpSecrets['srv-1']).tokens).toEqual(refreshed);
    expect((await storedSignIn()).tokens).toEqual(refreshed);
    mcp.oauth!.expireAccessTokens();
    expect((await turn(rt, 'And issue 3?'))?.content).toBe('Issue 3: The login page loads slowly. Status: open.');
  });

  it('keeps the old sign-in when a new one is given up, and forgets it at once on Sign out', async () => {
    const rt = await start(undefined);
    const { secret } = await signIn(rt);
    const closed = await signInMcpServer(rt, server(), secret, REDIRECT, () => Promise.reject(new Error('the sign-in window was closed.')));
    expect(closed.ok).toBe(false);
    expect(rt.store.getState().settings.mcpSecrets['srv-1']).toBe(secret);

    const { tokens } = readMcpOAuth(secret);
    await signOutMcpServer(rt, server(), undefined);
    expect(rt.store.getState().settings.mcpSecrets).toEqual({});
    expect(await storedSignIn()).toEqual({});
    // Revoked: the authorization server takes neither token any more.
    expect(mcp.oauth!.revocations.slice(-2)).toEqual([
      { token: tokens!.refresh_token, hint: 'refresh_token' },
      { token: tokens!.access_token, hint: 'access_token' },
    ]);
    expect(mcp.oauth!.liveAccessTokens()).not.toContain(tokens!.access_token);
    expect(rt.store.getState().notices).toEqual([]);
    // A draft opened before the sign-out does not sign in again when saved.
    await saveSettings(rt, { ...rt.store.getState().settings, mcpSecrets: { 'srv-1': secret! } }, 'global');
    expect(rt.store.getState().settings.mcpSecrets).toEqual({});
  });

  it('forgets the tokens on Sign out even when they cannot be revoked, and says so', async () => {
    const rt = await start(undefined);
    await signIn(rt);
    const record = readMcpOAuth(rt.store.getState().settings.mcpSecrets['srv-1']);
    // A client the authorization server no longer knows: it refuses to revoke.
    rt.store.setState(({ settings }) => ({
      settings: { ...settings, mcpSecrets: { 'srv-1': writeMcpOAuth({ ...record, client: { client_id: 'forgotten' } }) } },
    }));
    await signOutMcpServer(rt, server(), undefined);
    expect(rt.store.getState().settings.mcpSecrets).toEqual({});
    expect(rt.store.getState().notices.map(({ tone, text }) => ({ tone, text }))).toEqual([
      {
        tone: 'warning',
        text: 'Signed out of the MCP server “Tracker” here, but its tokens could not be revoked: its authorization server refused (400 invalid_client: Invalid client_id). They stay valid until they expire.',
      },
    ]);
    expect(mcp.oauth!.liveAccessTokens()).toContain(record.tokens!.access_token);
  });
});
