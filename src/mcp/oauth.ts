/**
 * OAuth 2.1 sign-in to an MCP server, through the official SDK's client side (`auth()`: the
 * server's protected-resource metadata, its authorization server's metadata, dynamic client
 * registration, PKCE, the code exchange and refreshing). This module holds the SDK's
 * `OAuthClientProvider` over storage the caller gives (core's McpOAuthRecord, kept as a secret
 * like a bearer token) and the sign-in itself; opening the authorization page and hearing the
 * redirect back is the caller's (`McpAuthorizer`), since only the page can open a window.
 */
import { auth, type OAuthClientProvider } from '@modelcontextprotocol/sdk/client/auth.js';
import type { OAuthClientInformationMixed, OAuthClientMetadata, OAuthTokens } from '@modelcontextprotocol/sdk/shared/auth.js';
import { readMcpOAuth, type McpOAuthRecord } from '../core';
import { describeMcpFailure, McpFailure } from './failures';

/** Where one server's sign-in is kept: read fresh at every request, written at every change. */
export interface McpOAuthStorage {
  read(): McpOAuthRecord;
  write(record: McpOAuthRecord): void | Promise<void>;
}

/** What the authorization server sent back to the redirect URL. */
export type McpAuthorizationAnswer = { code: string; state: string } | { error: string; state: string };

/** Shows the user the authorization page and resolves with what the redirect back carried (or rejects: closed, blocked). */
export type McpAuthorizer = (authorizationUrl: URL) => Promise<McpAuthorizationAnswer>;

/** A random `state` for one sign-in: what the redirect back must carry, so no other answer is taken for it. */
function newState(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  return Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('');
}

/**
 * The SDK's provider over `storage`. `redirectUrl` is Windowpane's callback page; `onAuthorize`
 * receives the authorization URL when `auth()` needs the user (absent: the user is not there,
 * as during a chat turn, and the SDK's UnauthorizedError says to sign in again).
 */
export function mcpOAuthProvider(storage: McpOAuthStorage, redirectUrl: string, onAuthorize?: (url: URL) => void): OAuthClientProvider {
  const change = (patch: (record: McpOAuthRecord) => McpOAuthRecord) => storage.write(patch(storage.read()));
  return {
    redirectUrl,
    clientMetadata: {
      client_name: 'Windowpane',
      redirect_uris: [redirectUrl],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      // A page keeps no secret from its user: it is a public client, and PKCE proves each code.
      token_endpoint_auth_method: 'none',
    } satisfies OAuthClientMetadata,
    async state() {
      const state = newState();
      await change((record) => ({ ...record, state }));
      return state;
    },
    clientInformation: () => storage.read().client,
    saveClientInformation: (client: OAuthClientInformationMixed) => change((record) => ({ ...record, client })),
    tokens: () => storage.read().tokens,
    // Signed in: the sign-in's verifier and state are spent.
    saveTokens: (tokens: OAuthTokens) => change(({ client }) => ({ ...(client ? { client } : {}), tokens, redirectUrl })),
    redirectToAuthorization(url) {
      onAuthorize?.(url);
    },
    saveCodeVerifier: (verifier) => change((record) => ({ ...record, verifier })),
    codeVerifier() {
      const { verifier } = storage.read();
      if (!verifier) throw new McpFailure('signin', 'The sign-in was not started here, or was started again since: sign in again.');
      return verifier;
    },
    invalidateCredentials: (scope) =>
      change((record) => {
        if (scope === 'all') return {};
        const { client, tokens, verifier, state } = record;
        return {
          ...(record.redirectUrl ? { redirectUrl: record.redirectUrl } : {}),
          ...(client && scope !== 'client' ? { client } : {}),
          ...(tokens && scope !== 'tokens' ? { tokens } : {}),
          ...(verifier && scope !== 'verifier' ? { verifier, ...(state ? { state } : {}) } : {}),
        };
      }),
  };
}

/**
 * Signs in to the MCP server at `url`: finds its authorization server, registers Windowpane
 * with it when it offers dynamic registration and no client is kept, has the user approve
 * through `authorize`, checks that the answer carries this sign-in's `state`, and exchanges
 * the code (with the PKCE verifier) for tokens, which `storage` keeps. Tokens kept before are
 * set aside first, so this always asks the user. Throws an McpFailure saying what went wrong.
 */
export async function signInMcp(url: string, storage: McpOAuthStorage, redirectUrl: string, authorize: McpAuthorizer): Promise<void> {
  const { client } = storage.read();
  await storage.write(client ? { client } : {});
  let authorizationUrl: URL | undefined;
  const provider = mcpOAuthProvider(storage, redirectUrl, (given) => {
    authorizationUrl = given;
  });
  try {
    if ((await auth(provider, { serverUrl: url })) === 'AUTHORIZED' || !authorizationUrl) return;
    const answer = await authorize(authorizationUrl);
    const expected = storage.read().state;
    if (!expected || answer.state !== expected) throw new McpFailure('signin', 'The sign-in came back for another request, so it was not used: sign in again.');
    if ('error' in answer) throw new McpFailure('signin', `The authorization server did not sign you in: ${answer.error.slice(0, 300)}.`);
    await auth(provider, { serverUrl: url, authorizationCode: answer.code });
  } catch (error) {
    throw describeMcpFailure(error, url, 'signin');
  }
}

/** Storage held in memory, starting from `secret` (a server's entry in Settings.mcpSecrets): what Settings signs in with before Save. */
export function memoryOAuthStorage(secret: string | undefined): McpOAuthStorage {
  let record = readMcpOAuth(secret);
  return {
    read: () => record,
    write(next) {
      record = next;
    },
  };
}
