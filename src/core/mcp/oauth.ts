/**
 * What Windowpane keeps of an MCP server's OAuth sign-in: the client it registered with the
 * authorization server, the tokens it was given, and while a sign-in is under way the PKCE
 * code verifier and the `state` the redirect must bring back. All of it is secret: it is kept
 * as JSON text in `Settings.mcpSecrets` under the server's id, like a bearer token, so it is
 * never exported nor synced. Read back from storage, every field is checked and cut to size.
 */
import type { McpServerConfig } from './servers';

/** The client as the authorization server registered it (RFC 7591), as the SDK gave it. */
export interface McpOAuthClient {
  client_id: string;
  client_secret?: string;
  client_id_issued_at?: number;
  client_secret_expires_at?: number;
  token_endpoint_auth_method?: string;
  /** The authorization server it was registered with: the SDK presents it to no other. */
  issuer?: string;
}

/** Tokens as the authorization server issued them, as the SDK gave them. */
export interface McpOAuthTokens {
  access_token: string;
  token_type: string;
  refresh_token?: string;
  expires_in?: number;
  scope?: string;
  id_token?: string;
  /** The authorization server that issued them: the refresh token goes to no other. */
  issuer?: string;
}

/** One server's sign-in. Empty when the user never signed in or signed out. */
export interface McpOAuthRecord {
  client?: McpOAuthClient;
  tokens?: McpOAuthTokens;
  /** The PKCE code verifier of the sign-in under way. */
  verifier?: string;
  /** The `state` sent with the sign-in under way, which the redirect back must carry. */
  state?: string;
  /** Where the authorization server sent the user back at sign-in: the client was registered with it, and a refresh uses the same client. */
  redirectUrl?: string;
}

/** The longest string field kept: tokens are long (JWTs), never megabytes. */
const MAX_FIELD = 16_000;

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);
const text = (value: unknown): value is string => typeof value === 'string' && value !== '' && value.length <= MAX_FIELD;
const count = (value: unknown): value is number => typeof value === 'number' && Number.isFinite(value) && value >= 0;

/** The fields of `raw` named in `strings` and `numbers` that hold a valid value, the rest left out. */
function pickFields(raw: Record<string, unknown>, strings: readonly string[], numbers: readonly string[]): Record<string, string | number> {
  const kept: Record<string, string | number> = {};
  for (const name of strings) if (text(raw[name])) kept[name] = raw[name];
  for (const name of numbers) if (count(raw[name])) kept[name] = raw[name];
  return kept;
}

function readClient(raw: unknown): McpOAuthClient | undefined {
  if (!isObject(raw) || !text(raw.client_id)) return undefined;
  return pickFields(
    raw,
    ['client_id', 'client_secret', 'token_endpoint_auth_method', 'issuer'],
    ['client_id_issued_at', 'client_secret_expires_at'],
  ) as unknown as McpOAuthClient;
}

function readTokens(raw: unknown): McpOAuthTokens | undefined {
  if (!isObject(raw) || !text(raw.access_token) || !text(raw.token_type)) return undefined;
  return pickFields(raw, ['access_token', 'token_type', 'refresh_token', 'scope', 'id_token', 'issuer'], ['expires_in']) as unknown as McpOAuthTokens;
}

/**
 * The sign-in kept in `secret` (a server's entry in `Settings.mcpSecrets`): whatever cannot be
 * read (not JSON, a bearer token left from before, a field of the wrong type) reads as not
 * signed in, never as an error.
 */
export function readMcpOAuth(secret: string | undefined): McpOAuthRecord {
  if (!secret) return {};
  let raw: unknown;
  try {
    raw = JSON.parse(secret);
  } catch {
    return {};
  }
  if (!isObject(raw)) return {};
  const client = readClient(raw.client);
  const tokens = readTokens(raw.tokens);
  return {
    ...(client ? { client } : {}),
    ...(tokens ? { tokens } : {}),
    ...(text(raw.verifier) ? { verifier: raw.verifier } : {}),
    ...(text(raw.state) ? { state: raw.state } : {}),
    ...(text(raw.redirectUrl) ? { redirectUrl: raw.redirectUrl } : {}),
  };
}

/** The record as `Settings.mcpSecrets` keeps it; reads back the same through readMcpOAuth. */
export function writeMcpOAuth(record: McpOAuthRecord): string {
  return JSON.stringify(readMcpOAuth(JSON.stringify(record)));
}

/** Whether the record holds tokens to send: the user signed in and has not signed out. */
export const mcpSignedIn = (record: McpOAuthRecord): boolean => record.tokens !== undefined;

/**
 * Whether a sign-in to the server `serverId` made in Settings is written to the stored settings
 * at once rather than kept in the dialog's draft until Save. An OAuth server's sign-in is not
 * the draft's to hold: a refresh token is used once, so tokens a sign-in or a refresh brought
 * are kept whatever becomes of the draft, and a sign-out forgets them at once. The exception is
 * a server stored with another authorization and switched to OAuth in the dialog: until Save it
 * still sends its own token, which the sign-in must not replace.
 */
export function signInKeptAtOnce(storedServers: readonly McpServerConfig[], serverId: string): boolean {
  const stored = storedServers.find((server) => server.id === serverId);
  return stored === undefined || stored.auth.type === 'oauth';
}

/**
 * The MCP secrets that saving `next` keeps, when `stored` are the servers and secrets stored
 * now: the draft's, except the sign-in of each OAuth server kept at once (signInKeptAtOnce),
 * which is the one stored, never the older one the draft may hold; and none of a server no
 * longer listed.
 */
export function mcpSecretsToSave(
  stored: { servers: readonly McpServerConfig[]; secrets: Readonly<Record<string, string>> },
  next: { servers: readonly McpServerConfig[]; secrets: Readonly<Record<string, string>> },
): Record<string, string> {
  const kept: Record<string, string> = {};
  for (const server of next.servers) {
    const secret = server.auth.type === 'oauth' && signInKeptAtOnce(stored.servers, server.id) ? stored.secrets[server.id] : next.secrets[server.id];
    if (secret !== undefined) kept[server.id] = secret;
  }
  return kept;
}
