// @vitest-environment node
// OAuth sign-in and refresh against the test server's own authorization server (the SDK's server side).
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { readMcpOAuth, writeMcpOAuth, type McpOAuthRecord } from '../../src/core';
import { connectMcp, type McpConnection } from '../../src/mcp/client';
import { mcpOAuthProvider, revokeMcpSignIn, signInMcp, type McpAuthorizer, type McpOAuthStorage } from '../../src/mcp/oauth';
import { failureOf } from './failureOf';
import { approveAtOnce } from './oauthServer';
import { startMcpServer, type McpTestServer } from './server';

const REDIRECT = 'http://127.0.0.1:4173/mcp-oauth-callback.html';

/** The user approving at once, and the authorization server sending them back to the redirect URL. */
const approve: McpAuthorizer = async (url) => {
  expect(url.searchParams.get('redirect_uri')).toBe(REDIRECT);
  return approveAtOnce(url);
};

/** Storage as the app keeps it: the record as JSON text, read back through core's reader every time. */
function textStorage(): McpOAuthStorage & { text: string } {
  const storage = {
    text: '',
    read: (): McpOAuthRecord => readMcpOAuth(storage.text),
    write(record: McpOAuthRecord) {
      storage.text = writeMcpOAuth(record);
    },
  };
  return storage;
}

let mcp: McpTestServer;
const open: McpConnection[] = [];
beforeAll(async () => {
  mcp = await startMcpServer({ oauth: true });
});
afterAll(async () => {
  await Promise.all(open.map((connection) => connection.close()));
  await mcp.close();
});
beforeEach(() => {
  mcp.oauth!.events.length = 0;
});

async function connectWith(storage: McpOAuthStorage): Promise<McpConnection> {
  const connection = await connectMcp({ url: mcp.url, headers: {}, authProvider: mcpOAuthProvider(storage, REDIRECT) });
  open.push(connection);
  return connection;
}

describe('OAuth sign-in to an MCP server', () => {
  it('says the server asks for sign-in when it is configured without OAuth', async () => {
    const failure = await failureOf(connectMcp({ url: mcp.url, headers: {} }));
    expect(failure.kind).toBe('signin');
    expect(failure.message).toBe(`The MCP server at ${mcp.url} asks you to sign in (OAuth): choose Sign in to use it.`);
  });

  it('registers, signs in with PKCE, keeps the client, the tokens and the redirect URL (no verifier, no state), and calls with the access token', async () => {
    const storage = textStorage();
    await signInMcp(mcp.url, storage, REDIRECT, approve);
    expect(mcp.oauth!.events).toEqual(['register', 'authorize', 'code']);
    const record = storage.read();
    expect(Object.keys(record).sort()).toEqual(['client', 'redirectUrl', 'tokens']);
    expect(record.redirectUrl).toBe(REDIRECT);
    expect(record.client?.client_id).toEqual(expect.any(String));
    expect(record.tokens).toMatchObject({ token_type: 'bearer', refresh_token: expect.any(String), issuer: mcp.oauth!.issuer });

    const connection = await connectWith(storage);
    expect((await connection.listTools()).map((tool) => tool.name)).toContain('lookup_issue');
    expect(await connection.callTool('lookup_issue', { number: 4 }, { signal: new AbortController().signal, timeoutMs: 5_000 })).toMatchObject({
      content: [{ text: 'Issue 4: The login page loads slowly. Status: open.' }],
    });
    expect(mcp.bearers.at(-1)).toBe(record.tokens?.access_token);
  });

  it('refreshes an expired access token with the refresh token, without the user, and keeps the new tokens', async () => {
    const storage = textStorage();
    await signInMcp(mcp.url, storage, REDIRECT, approve);
    const first = storage.read().tokens!;
    const connection = await connectWith(storage);
    mcp.oauth!.expireAccessTokens();
    expect(await connection.callTool('lookup_issue', { number: 5 }, { signal: new AbortController().signal, timeoutMs: 5_000 })).toMatchObject({
      content: [{ text: 'Issue 5: The login page loads slowly. Status: open.' }],
    });
    const second = storage.read().tokens!;
    expect(mcp.oauth!.events).toEqual(['register', 'authorize', 'code', 'refresh']);
    expect(second.access_token).not.toBe(first.access_token);
    expect(second.refresh_token).not.toBe(first.refresh_token);
    expect(mcp.bearers.at(-1)).toBe(second.access_token);
    expect(mcp.oauth!.liveAccessTokens()).toEqual([second.access_token]);
  });

  it('signs in again with the client it registered, rather than registering another', async () => {
    const storage = textStorage();
    await signInMcp(mcp.url, storage, REDIRECT, approve);
    const client = storage.read().client;
    await signInMcp(mcp.url, storage, REDIRECT, approve);
    expect(storage.read().client).toEqual(client);
    expect(mcp.oauth!.events).toEqual(['register', 'authorize', 'code', 'authorize', 'code']);
  });

  it('refuses an answer whose state is not the sign-in’s, and exchanges no code', async () => {
    const storage = textStorage();
    const forged: McpAuthorizer = async (url) => ({ ...(await approve(url)), state: 'someone-else' });
    const failure = await failureOf(signInMcp(mcp.url, storage, REDIRECT, forged));
    expect(failure.kind).toBe('signin');
    expect(failure.message).toBe('The sign-in came back for another request, so it was not used: sign in again.');
    expect(mcp.oauth!.events).not.toContain('code');
    expect(storage.read().tokens).toBeUndefined();
  });

  it('says the user must sign in again when the refresh token is refused too', async () => {
    const storage = textStorage();
    await signInMcp(mcp.url, storage, REDIRECT, approve);
    const connection = await connectWith(storage);
    mcp.oauth!.revokeAll();
    const failure = await failureOf(connection.callTool('lookup_issue', { number: 6 }, { signal: new AbortController().signal, timeoutMs: 5_000 }));
    expect(failure.kind).toBe('signin');
    expect(failure.message).toBe(`The MCP server at ${mcp.url} needs you to sign in again: choose Sign in for it in Settings → Tools.`);
  });

  it('revokes the refresh and the access token at sign-out, after which neither works', async () => {
    const storage = textStorage();
    await signInMcp(mcp.url, storage, REDIRECT, approve);
    const record = storage.read();
    const { access_token: access, refresh_token: refresh } = record.tokens!;
    const connection = await connectWith(storage);
    mcp.oauth!.revocations.length = 0;

    await expect(revokeMcpSignIn(mcp.url, record)).resolves.toBe(true);
    expect(mcp.oauth!.revocations).toEqual([
      { token: refresh, hint: 'refresh_token' },
      { token: access, hint: 'access_token' },
    ]);
    await expect(mcp.oauth!.verify(access)).rejects.toThrow('Invalid or expired token');
    // The next call is refused, and so is the refresh token it tries: the user must sign in again.
    const failure = await failureOf(connection.callTool('lookup_issue', { number: 6 }, { signal: new AbortController().signal, timeoutMs: 5_000 }));
    expect(failure.kind).toBe('signin');
    expect(mcp.oauth!.events).not.toContain('refresh');
    const refreshed = await fetch(new URL('token', mcp.oauth!.issuer), {
      method: 'POST',
      body: new URLSearchParams({ grant_type: 'refresh_token', refresh_token: refresh!, client_id: record.client!.client_id }),
    });
    expect(refreshed.status).toBe(400);
    expect(await refreshed.json()).toMatchObject({ error: 'invalid_grant' });
  });

  it('says why when the authorization server refuses to revoke, and revokes nothing without tokens', async () => {
    const storage = textStorage();
    await signInMcp(mcp.url, storage, REDIRECT, approve);
    const record = storage.read();
    const stranger = { ...record, client: { client_id: 'not-registered' } };
    await expect(revokeMcpSignIn(mcp.url, stranger)).rejects.toThrow('its authorization server refused (400 invalid_client: Invalid client_id)');
    expect(mcp.oauth!.liveAccessTokens()).toContain(record.tokens!.access_token);
    mcp.oauth!.revocations.length = 0;
    await expect(revokeMcpSignIn(mcp.url, { client: record.client! })).resolves.toBe(false);
    expect(mcp.oauth!.revocations).toEqual([]);
  });

  it('revokes nothing where the authorization server offers no revocation: the tokens stay valid', async () => {
    const without = await startMcpServer({ oauth: { revocation: false } });
    try {
      const storage = textStorage();
      await signInMcp(without.url, storage, REDIRECT, approve);
      const { tokens } = storage.read();
      await expect(revokeMcpSignIn(without.url, storage.read())).resolves.toBe(false);
      expect(without.oauth!.revocations).toEqual([]);
      expect(without.oauth!.liveAccessTokens()).toEqual([tokens!.access_token]);
    } finally {
      await without.close();
    }
  });

  it('says plainly when the sign-in cannot reach the server', async () => {
    const gone = await startMcpServer({ oauth: true });
    const url = gone.url;
    await gone.close();
    const failure = await failureOf(signInMcp(url, textStorage(), REDIRECT, approve));
    expect(failure.kind).toBe('unreachable');
    expect(failure.message).toBe(`Could not sign in to ${url}: the server or its authorization server is offline, or did not allow this page's origin (CORS).`);
  });
});
