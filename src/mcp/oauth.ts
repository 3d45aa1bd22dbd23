/**
 * OAuth 2.1 sign-in to an MCP server, through the official SDK's client side (`auth()`: the
 * server's protected-resource metadata, its authorization server's metadata, dynamic client
 * registration, PKCE, the code exchange and refreshing). This module holds the SDK's
 * `OAuthClientProvider` over storage the caller gives (core's McpOAuthRecord, kept as a secret
 * like a bearer token) and the sign-in itself; opening the authorization page and hearing the
 * redirect back is the caller's (`McpAuthorizer`), since only the page can open a window.
 * Signing out revokes the tokens where the authorization server offers it (RFC 7009).
 */
import { auth, discoverOAuthServerInfo, parseErrorResponse, selectClientAuthMethod, type OAuthClientProvider } from '@modelcontextprotocol/sdk/client/auth.js';
import type { OAuthClientInformationMixed, OAuthClientMetadata, OAuthTokens } from '@modelcontextprotocol/sdk/shared/auth.js';
import { readMcpOAuth, type McpOAuthClient, type McpOAuthRecord } from '../core';
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

/** The same authorization server, however its address is spelled (a trailing `/` or not). */
function sameServer(a: string, b: string): boolean {
  const normal = (address: string) => {
    try {
      return new URL(address).href.replace(/\/$/, '');
    } catch {
      return address;
    }
  };
  return normal(a) === normal(b);
}

/** Adds the client's credentials as `method` says (RFC 6749 §2.3.1): Basic, in the body, or its id alone. */
function withClientCredentials(method: string, client: McpOAuthClient, headers: Headers, body: URLSearchParams): void {
  if (method === 'client_secret_basic' && client.client_secret) {
    headers.set('Authorization', `Basic ${btoa(`${client.client_id}:${client.client_secret}`)}`);
    return;
  }
  body.set('client_id', client.client_id);
  if (method === 'client_secret_post' && client.client_secret) body.set('client_secret', client.client_secret);
}

/**
 * Has the authorization server of the MCP server at `url` revoke the tokens `record` holds
 * (RFC 7009): the refresh token, then the access token, each with its `token_type_hint` and
 * the client's credentials as it was registered. Resolves false when there is nothing to
 * revoke or the server offers no revocation (its metadata names no `revocation_endpoint`),
 * true once both are revoked; throws an Error saying why it could not.
 */
export async function revokeMcpSignIn(url: string, record: McpOAuthRecord): Promise<boolean> {
  const { tokens, client } = record;
  if (!tokens || !client) return false;
  const { authorizationServerUrl, authorizationServerMetadata } = await discoverOAuthServerInfo(url);
  // OpenID Connect's metadata has the fields too, though the SDK's type of it does not say so.
  const metadata = (authorizationServerMetadata ?? {}) as { revocation_endpoint?: unknown; revocation_endpoint_auth_methods_supported?: unknown };
  const endpoint = metadata.revocation_endpoint;
  if (typeof endpoint !== 'string' || endpoint === '') return false;
  const methods = metadata.revocation_endpoint_auth_methods_supported;
  // The tokens go to no authorization server but the one that issued them.
  if (tokens.issuer && !sameServer(tokens.issuer, authorizationServerUrl)) throw new Error('the server now names another authorization server');
  const method = selectClientAuthMethod(client, Array.isArray(methods) ? methods.filter((m): m is string => typeof m === 'string') : []);
  const given: [string, string | undefined][] = [
    ['refresh_token', tokens.refresh_token],
    ['access_token', tokens.access_token],
  ];
  for (const [hint, token] of given) {
    if (!token) continue;
    const headers = new Headers({ 'Content-Type': 'application/x-www-form-urlencoded' });
    const body = new URLSearchParams({ token, token_type_hint: hint });
    withClientCredentials(method, client, headers, body);
    const answer = await fetch(endpoint, { method: 'POST', headers, body }).catch(() => {
      throw new Error('its authorization server could not be reached (offline, or it does not allow this page’s origin)');
    });
    if (answer.ok) continue;
    const refused = await parseErrorResponse(answer);
    throw new Error(`its authorization server refused (${answer.status} ${refused.errorCode}${refused.message ? `: ${refused.message.slice(0, 200)}` : ''})`);
  }
  return true;
}
