/**
 * A connection to one remote MCP server, straight from the page, over the official SDK's
 * `Client`: Streamable HTTP first, the older HTTP+SSE transport when the server answers
 * Streamable HTTP's first request with a 4xx (as the SDK's docs advise). This module is a
 * chunk of its own, loaded only when a server is configured.
 *
 * Everything the server sends is untrusted: tool lists and results are returned as data
 * for core to read. Every failure becomes an {@link McpFailure} whose message says what
 * happened and what to do.
 */
import { discoverOAuthProtectedResourceMetadata, type OAuthClientProvider } from '@modelcontextprotocol/sdk/client/auth.js';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { SSEClientTransport } from '@modelcontextprotocol/sdk/client/sse.js';
import { StreamableHTTPClientTransport, StreamableHTTPError } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { ErrorCode, McpError, ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import type { jsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/types.js';
import { MAX_MCP_TOOLS } from '../core';
import { describeMcpFailure, McpFailure } from './failures';

/** Where a server is and what every request to it carries (its authorization, when it has one). */
export interface McpEndpoint {
  url: string;
  headers: Record<string, string>;
  /** An OAuth sign-in (`oauth.ts`): its access token goes with every request, and is refreshed when the server refuses it. */
  authProvider?: OAuthClientProvider;
}

/** A tool as the server listed it, not yet checked (core's readMcpServers checks it before it is kept). */
export interface ListedTool {
  name: unknown;
  description?: unknown;
  inputSchema?: unknown;
}

export interface McpConnection {
  /** Every tool the server lists, page by page, up to MAX_MCP_TOOLS. */
  listTools(signal?: AbortSignal): Promise<ListedTool[]>;
  /** Calls a tool; resolves with the server's CallToolResult as it came, or throws an McpFailure. */
  callTool(name: string, args: Record<string, unknown>, options: { signal: AbortSignal; timeoutMs: number }): Promise<unknown>;
  close(): Promise<void>;
}

export interface ConnectOptions {
  /** The server said its tool list changed. */
  onToolsChanged?: () => void;
  signal?: AbortSignal;
  /** How long connecting may take (default 15 s). */
  timeoutMs?: number;
}

/** Longest listing: a server that pages forever is stopped here. */
const MAX_PAGES = 20;
const CONNECT_TIMEOUT_MS = 15_000;

/**
 * Results and tool inputs are not validated against the server's schemas here: core reads
 * every result as untrusted whatever it claims, and the SDK's default validator compiles
 * schemas into functions, which the page's Content-Security-Policy refuses.
 */
const acceptAll: jsonSchemaValidator = {
  getValidator: () => (input) => ({ valid: true, data: input as never, errorMessage: undefined }),
};

function newClient(options: ConnectOptions): Client {
  const client = new Client({ name: 'Windowpane', version: '1.0.0' }, { capabilities: {}, jsonSchemaValidator: acceptAll });
  client.setNotificationHandler(ToolListChangedNotificationSchema, () => options.onToolsChanged?.());
  return client;
}

/**
 * A fetch that sends one refresh token to the authorization server once. The transport's
 * requests (a call and the notification stream) can each meet the expired access token and
 * refresh at the same time; a server that rotates refresh tokens refuses the second, and the
 * SDK would then forget the fresh tokens too. The second refresh gets the first one's answer.
 */
function refreshingOnce(): typeof fetch {
  const answers = new Map<string, Promise<Response>>();
  return async (input, init) => {
    const body = init?.body;
    const params = body instanceof URLSearchParams ? body : typeof body === 'string' ? new URLSearchParams(body) : undefined;
    const token = params?.get('grant_type') === 'refresh_token' ? params.get('refresh_token') : null;
    if (!token) return fetch(input, init);
    let answer = answers.get(token);
    if (!answer) {
      answer = fetch(input, init);
      answers.set(token, answer);
      answer.catch(() => answers.delete(token));
    }
    return (await answer).clone();
  };
}

/** Connects the client over Streamable HTTP, or over HTTP+SSE when the server refused the first with a 4xx. */
async function connectClient(endpoint: McpEndpoint, options: ConnectOptions): Promise<Client> {
  const url = new URL(endpoint.url);
  const requestInit: RequestInit = { headers: endpoint.headers };
  const auth = endpoint.authProvider ? { authProvider: endpoint.authProvider, fetch: refreshingOnce() } : {};
  const timeout = options.timeoutMs ?? CONNECT_TIMEOUT_MS;
  const connect = async (transport: Transport) => {
    const client = newClient(options);
    await client.connect(transport, { timeout, ...(options.signal ? { signal: options.signal } : {}) });
    return client;
  };
  try {
    return await connect(new StreamableHTTPClientTransport(url, { requestInit, ...auth }));
  } catch (error) {
    const code = error instanceof StreamableHTTPError ? error.code : undefined;
    if (code === undefined || code < 400 || code >= 500 || code === 401 || code === 403) throw error;
    return await connect(new SSEClientTransport(url, { requestInit, ...auth }));
  }
}

/**
 * Whether the server refused with a 401 because it signs users in with OAuth: it then
 * publishes protected-resource metadata (RFC 9728) naming an authorization server.
 */
async function asksForSignIn(error: unknown, endpoint: McpEndpoint): Promise<boolean> {
  if (endpoint.authProvider || !(error instanceof StreamableHTTPError) || error.code !== 401) return false;
  try {
    const metadata = await discoverOAuthProtectedResourceMetadata(endpoint.url);
    return Array.isArray(metadata.authorization_servers) && metadata.authorization_servers.length > 0;
  } catch {
    return false;
  }
}

/** The session is gone: the server forgot its Mcp-Session-Id (it answers 404) or the connection closed. */
const sessionGone = (error: unknown) =>
  (error instanceof StreamableHTTPError && error.code === 404) || (error instanceof McpError && error.code === ErrorCode.ConnectionClosed);

/**
 * Connects to the server (initialize and its answer). Throws an McpFailure saying why it
 * could not: CORS or offline, refused authorization, a timeout, not an MCP server.
 */
export async function connectMcp(endpoint: McpEndpoint, options: ConnectOptions = {}): Promise<McpConnection> {
  let client: Client;
  try {
    client = await connectClient(endpoint, options);
  } catch (error) {
    if (await asksForSignIn(error, endpoint))
      throw new McpFailure('signin', `The MCP server at ${endpoint.url} asks you to sign in (OAuth): choose Sign in to use it.`);
    throw describeMcpFailure(error, endpoint.url, 'connect');
  }
  /** Runs a request; when the session is gone, connects once more and runs it again. */
  const withSession = async <T>(run: (current: Client) => Promise<T>, what: 'list' | 'call'): Promise<T> => {
    try {
      return await run(client);
    } catch (error) {
      if (!sessionGone(error)) throw describeMcpFailure(error, endpoint.url, what);
    }
    await client.close().catch(() => undefined);
    try {
      client = await connectClient(endpoint, options);
      return await run(client);
    } catch (error) {
      throw describeMcpFailure(error, endpoint.url, what, true);
    }
  };

  return {
    listTools: (signal) =>
      withSession(async (current) => {
        const tools: ListedTool[] = [];
        let cursor: string | undefined;
        for (let page = 0; page < MAX_PAGES && tools.length < MAX_MCP_TOOLS; page++) {
          const answer = await current.listTools(cursor ? { cursor } : {}, signal ? { signal } : {});
          tools.push(...answer.tools);
          cursor = answer.nextCursor;
          if (!cursor) break;
        }
        return tools.slice(0, MAX_MCP_TOOLS);
      }, 'list'),
    callTool: (name, args, { signal, timeoutMs }) =>
      withSession((current) => current.callTool({ name, arguments: args }, undefined, { signal, timeout: timeoutMs }), 'call'),
    async close() {
      await client.close().catch(() => undefined);
    },
  };
}
