/**
 * # An OAuth 2.1 authorization server for the tests
 *
 * The MCP SDK's server-side authorization (`mcpAuthRouter` on the SDK's Express app: metadata at
 * `/.well-known/oauth-authorization-server`, dynamic client registration at `/register`,
 * `/authorize`, `/token` with PKCE and refresh tokens, `/revoke` (RFC 7009), CORS on every
 * endpoint a page fetches)
 * over an in-memory provider, on 127.0.0.1 at a free port. There is no person to approve the
 * sign-in, so `/authorize` approves at once and redirects back with the code and the `state`.
 *
 * Access tokens live until `expireAccessTokens()` ends them (a test ends them when it wants the
 * next request to need a refresh, rather than waiting on a clock); a refresh token is used once
 * and replaced, as OAuth 2.1 asks of public clients. A token revoked at `/revoke` by the client
 * it was issued to no longer works; revoking a refresh token ends the access tokens of its grant too.
 */
import { randomUUID } from 'node:crypto';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { OAuthRegisteredClientsStore } from '@modelcontextprotocol/sdk/server/auth/clients.js';
import { InvalidGrantError, InvalidRequestError, InvalidTokenError } from '@modelcontextprotocol/sdk/server/auth/errors.js';
import type { AuthorizationParams, OAuthServerProvider } from '@modelcontextprotocol/sdk/server/auth/provider.js';
import { mcpAuthRouter } from '@modelcontextprotocol/sdk/server/auth/router.js';
import { createMcpExpressApp } from '@modelcontextprotocol/sdk/server/express.js';
import type { AuthInfo } from '@modelcontextprotocol/sdk/server/auth/types.js';
import type { OAuthClientInformationFull, OAuthTokenRevocationRequest, OAuthTokens } from '@modelcontextprotocol/sdk/shared/auth.js';

/**
 * The user approving at once, for tests without a browser: follows the authorization URL to
 * the server's redirect back and reads the code and state from it, as the callback page does.
 */
export async function approveAtOnce(authorizationUrl: URL): Promise<{ code: string; state: string }> {
  const answer = await fetch(authorizationUrl, { redirect: 'manual' });
  const back = new URL(answer.headers.get('location') ?? '');
  return { code: back.searchParams.get('code') ?? '', state: back.searchParams.get('state') ?? '' };
}

export interface OAuthTestServer {
  /** The issuer, which is also where its metadata is found. */
  issuer: string;
  /** What happened, in order: `register`, `authorize`, `code` (a code exchanged for tokens), `refresh`. */
  events: string[];
  /** Checks a bearer token as the MCP server does: the token's facts, or throws. */
  verify(token: string): Promise<AuthInfo>;
  /** The revocation requests that reached `/revoke` from a registered client, in order: the token and its `token_type_hint`. */
  revocations: { token: string; hint?: string }[];
  /** Ends every access token issued so far: the next request with one gets a 401 and must refresh. */
  expireAccessTokens(): void;
  /** Ends every refresh token too: the next sign-in must go through /authorize again. */
  revokeAll(): void;
  /** The access tokens that are still valid. */
  liveAccessTokens(): string[];
  /** Every access and refresh token issued so far, valid or not. */
  issuedTokens(): string[];
  close(): Promise<void>;
}

interface Grant {
  clientId: string;
  scopes: string[];
  resource?: URL;
}

/** The authorization server; with `revocation: false` it offers no `/revoke` (its metadata names none). */
export async function startOAuthServer({ revocation = true }: { revocation?: boolean } = {}): Promise<OAuthTestServer> {
  const events: string[] = [];
  const clients = new Map<string, OAuthClientInformationFull>();
  const codes = new Map<string, { grant: Grant; params: AuthorizationParams }>();
  const accessTokens = new Map<string, Grant & { refreshToken: string; live: boolean }>();
  const refreshTokens = new Map<string, Grant>();
  const issued: string[] = [];
  const revocations: { token: string; hint?: string }[] = [];

  const clientsStore: OAuthRegisteredClientsStore = {
    getClient: async (clientId) => clients.get(clientId),
    registerClient: async (client) => {
      const full = client as OAuthClientInformationFull;
      clients.set(full.client_id, full);
      events.push('register');
      return full;
    },
  };

  function issue(grant: Grant): OAuthTokens {
    const access = randomUUID();
    const refresh = randomUUID();
    // Each issue is a grant of its own: revoking its refresh token ends its access token, no other.
    const own = { ...grant };
    accessTokens.set(access, { ...own, refreshToken: refresh, live: true });
    refreshTokens.set(refresh, own);
    issued.push(access, refresh);
    return { access_token: access, token_type: 'bearer', expires_in: 60, refresh_token: refresh, scope: grant.scopes.join(' ') };
  }

  async function revokeToken(client: OAuthClientInformationFull, { token, token_type_hint }: OAuthTokenRevocationRequest): Promise<void> {
    revocations.push({ token, ...(token_type_hint ? { hint: token_type_hint } : {}) });
    // RFC 7009 §2.2: a token unknown, or another client's, is answered 200 and left as it is.
    if (refreshTokens.get(token)?.clientId === client.client_id) {
      refreshTokens.delete(token);
      for (const access of accessTokens.values()) if (access.refreshToken === token) access.live = false;
    }
    const access = accessTokens.get(token);
    if (access?.clientId === client.client_id) access.live = false;
  }

  const provider: OAuthServerProvider = {
    clientsStore,
    async authorize(client, params, res) {
      if (!client.redirect_uris.includes(params.redirectUri)) throw new InvalidRequestError('Unregistered redirect_uri');
      const code = randomUUID();
      codes.set(code, {
        grant: { clientId: client.client_id, scopes: params.scopes ?? [], ...(params.resource ? { resource: params.resource } : {}) },
        params,
      });
      events.push('authorize');
      const back = new URL(params.redirectUri);
      back.searchParams.set('code', code);
      if (params.state !== undefined) back.searchParams.set('state', params.state);
      res.redirect(back.href);
    },
    async challengeForAuthorizationCode(_client, code) {
      const known = codes.get(code);
      if (!known) throw new InvalidGrantError('Unknown authorization code');
      return known.params.codeChallenge;
    },
    async exchangeAuthorizationCode(client, code) {
      const known = codes.get(code);
      if (!known || known.grant.clientId !== client.client_id) throw new InvalidGrantError('Unknown authorization code');
      codes.delete(code);
      events.push('code');
      return issue(known.grant);
    },
    async exchangeRefreshToken(client, refreshToken) {
      const grant = refreshTokens.get(refreshToken);
      if (!grant || grant.clientId !== client.client_id) throw new InvalidGrantError('Unknown refresh token');
      refreshTokens.delete(refreshToken);
      events.push('refresh');
      return issue(grant);
    },
    async verifyAccessToken(token) {
      const known = accessTokens.get(token);
      if (!known?.live) throw new InvalidTokenError('Invalid or expired token');
      return { token, clientId: known.clientId, scopes: known.scopes, ...(known.resource ? { resource: known.resource } : {}) };
    },
  };

  if (revocation) provider.revokeToken = revokeToken;

  // The SDK's Express app (with its check of the Host header) is what its authorization router is made for.
  const app = createMcpExpressApp();
  const server: Server = await new Promise((resolve) => {
    const listening: Server = app.listen(0, '127.0.0.1', () => resolve(listening));
  });
  const { port } = server.address() as AddressInfo;
  const issuer = `http://127.0.0.1:${port}/`;
  const noLimit = { rateLimit: false as const };
  app.use(
    mcpAuthRouter({
      provider,
      issuerUrl: new URL(issuer),
      scopesSupported: ['mcp:tools'],
      authorizationOptions: noLimit,
      tokenOptions: noLimit,
      clientRegistrationOptions: noLimit,
      revocationOptions: noLimit,
    }),
  );

  return {
    issuer,
    events,
    revocations,
    verify: (token) => provider.verifyAccessToken(token),
    expireAccessTokens() {
      for (const token of accessTokens.values()) token.live = false;
    },
    revokeAll() {
      for (const token of accessTokens.values()) token.live = false;
      refreshTokens.clear();
    },
    issuedTokens: () => [...issued],
    liveAccessTokens: () => [...accessTokens].filter(([, t]) => t.live).map(([token]) => token),
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
