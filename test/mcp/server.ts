/**
 * # A real MCP server for the tests
 *
 * Built with the official SDK's server side (`McpServer` over `StreamableHTTPServerTransport`,
 * stateful: each session has its own `Mcp-Session-Id`), on Node's `http`, bound to 127.0.0.1 on
 * a free port. It answers a browser page as a well-configured remote server would: CORS for the
 * page's origin (or any, echoed), the session id exposed, the MCP headers allowed, preflight
 * answered. Tests can take CORS away, drop every session (the next request with an old id gets
 * the 404 the spec prescribes), change the tool list (every open session is sent
 * `notifications/tools/list_changed`) and require a bearer token or a custom header.
 *
 * With `oauth: true` the server is an OAuth 2.1 protected resource with its own authorization
 * server (`oauthServer.ts`, on a port of its own): a request without a valid access token is
 * answered 401 with `WWW-Authenticate: Bearer resource_metadata="…"`, and the protected-resource
 * metadata (RFC 9728) names the authorization server.
 *
 * ```ts
 * const mcp = await startMcpServer({ origin: 'http://127.0.0.1:4173' });
 * new StreamableHTTPClientTransport(new URL(mcp.url));    // POST/GET/DELETE {url}
 * mcp.dropSessions(); mcp.addTool('extra_tool'); mcp.setCors(false);
 * await mcp.close();
 * ```
 *
 * Tools: `lookup_issue` (text), `chart_image` (a small PNG), `big_log` (a text result of
 * `bigResultChars`, 300,000 characters by default), `failing_tool` (`isError`), `slow_tool`
 * (answers after `slowMs`), `read_doc` (a page of about 2,000 characters, different per page).
 *
 * `transport: 'sse'` makes it a server that speaks only the older HTTP+SSE transport (the SDK's
 * `SSEServerTransport`): `GET {url}` opens the event stream, whose first event names the URL
 * to POST messages to; a Streamable HTTP `POST {url}` is answered 405, as such a server does.
 */
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { SSEServerTransport } from '@modelcontextprotocol/sdk/server/sse.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { isInitializeRequest } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import { startOAuthServer, type OAuthTestServer } from './oauthServer';

/** A 1×1 red PNG. */
export const TINY_PNG_BASE64 = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==';

export const MCP_ALLOWED_HEADERS = 'Content-Type, Mcp-Protocol-Version, Mcp-Session-Id, Authorization, Last-Event-ID';

export interface McpServerOptions {
  /** The page origin allowed by CORS; `*` echoes any request's Origin. Default `*`. */
  origin?: string;
  /** Whether CORS headers are sent at all (default true). */
  cors?: boolean;
  /** The delay of `slow_tool`, in ms (default 2,000). */
  slowMs?: number;
  /** The length of `big_log`'s text (default 300,000 characters). */
  bigResultChars?: number;
  /** A header every request must carry, such as `{ name: 'Authorization', value: 'Bearer t' }`. */
  requireHeader?: { name: string; value: string };
  /** Server name in the initialize answer. */
  name?: string;
  /** `streamable` (default) or `sse`: only the older HTTP+SSE transport. */
  transport?: 'streamable' | 'sse';
  /** Every request must carry an access token of the test's own authorization server (offering no revocation with `{ revocation: false }`). */
  oauth?: boolean | { revocation: false };
}

export interface McpTestServer {
  url: string;
  /** The authorization server, when started with `oauth: true`. */
  oauth?: OAuthTestServer;
  /** The bearer tokens of the requests received, in order (OAuth variant). */
  bearers: string[];
  /** Every tools/call received, in order. */
  calls: { name: string; args: unknown }[];
  /** Sessions currently open. */
  sessionCount(): number;
  /** Notification streams (a session's GET) currently open: a session hears `list_changed` only through one. */
  notificationStreams(): number;
  /** Forgets every session: the next request with an old `Mcp-Session-Id` gets a 404. */
  dropSessions(): void;
  /** Adds a tool to every session (and to later ones); each open session is sent `notifications/tools/list_changed`. */
  addTool(name: string, description?: string): void;
  setCors(on: boolean): void;
  setSlowMs(ms: number): void;
  close(): Promise<void>;
}

interface Session {
  transport: StreamableHTTPServerTransport | SSEServerTransport;
  server: McpServer;
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

function jsonError(res: ServerResponse, status: number, message: string): void {
  res.writeHead(status, { 'Content-Type': 'application/json' });
  res.end(JSON.stringify({ jsonrpc: '2.0', error: { code: -32000, message }, id: null }));
}

export async function startMcpServer(options: McpServerOptions = {}): Promise<McpTestServer> {
  let cors = options.cors ?? true;
  let slowMs = options.slowMs ?? 2_000;
  const bigChars = options.bigResultChars ?? 300_000;
  const sessions = new Map<string, Session>();
  const extraTools: { name: string; description: string }[] = [];
  const calls: McpTestServer['calls'] = [];
  let streams = 0;
  const bearers: string[] = [];
  const oauth = options.oauth ? await startOAuthServer(options.oauth === true ? {} : options.oauth) : undefined;
  // Set once the server listens: the metadata and the 401s name the server's own address.
  let origin = '';
  let url = '';

  const sleep = (ms: number, signal: AbortSignal) =>
    new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, ms);
      signal.addEventListener('abort', () => {
        clearTimeout(timer);
        resolve();
      });
    });

  function registerExtra(server: McpServer, tool: { name: string; description: string }): void {
    server.registerTool(tool.name, { description: tool.description }, async () => {
      calls.push({ name: tool.name, args: {} });
      return { content: [{ type: 'text', text: `${tool.name} ran` }] };
    });
  }

  function newServer(): McpServer {
    const server = new McpServer({ name: options.name ?? 'windowpane-test-mcp', version: '1.0.0' }, { capabilities: { tools: { listChanged: true } } });
    server.registerTool(
      'lookup_issue',
      { description: 'Looks up an issue in the tracker by its number.', inputSchema: { number: z.number().int().describe('The issue number') } },
      async ({ number }) => {
        calls.push({ name: 'lookup_issue', args: { number } });
        return { content: [{ type: 'text', text: `Issue ${number}: The login page loads slowly. Status: open.` }] };
      },
    );
    server.registerTool('chart_image', { description: 'Draws a chart as a PNG image.' }, async () => {
      calls.push({ name: 'chart_image', args: {} });
      return { content: [{ type: 'image', data: TINY_PNG_BASE64, mimeType: 'image/png' }] };
    });
    server.registerTool('big_log', { description: 'Returns the whole server log.' }, async () => {
      calls.push({ name: 'big_log', args: {} });
      const line = 'INFO request served in 12 ms\n';
      return { content: [{ type: 'text', text: line.repeat(Math.ceil(bigChars / line.length)).slice(0, bigChars) }] };
    });
    server.registerTool('failing_tool', { description: 'Always fails.' }, async () => {
      calls.push({ name: 'failing_tool', args: {} });
      return { content: [{ type: 'text', text: 'The database is locked.' }], isError: true };
    });
    server.registerTool('slow_tool', { description: 'Takes a while to answer.' }, async (extra) => {
      calls.push({ name: 'slow_tool', args: {} });
      await sleep(slowMs, extra.signal);
      return { content: [{ type: 'text', text: 'slow_tool finished' }] };
    });
    server.registerTool(
      'read_doc',
      { description: 'Reads one page of the handbook.', inputSchema: { page: z.number().int().describe('The page number') } },
      async ({ page }) => {
        calls.push({ name: 'read_doc', args: { page } });
        const lines = Array.from({ length: 24 }, (_, i) => `Handbook page ${page}, line ${i + 1}: deploys of service ${page * 7 + i} go out after review.`);
        return { content: [{ type: 'text', text: lines.join('\n') }] };
      },
    );
    for (const tool of extraTools) registerExtra(server, tool);
    return server;
  }

  function corsHeaders(req: IncomingMessage, res: ServerResponse): void {
    if (!cors) return;
    const origin = req.headers.origin;
    if (!origin) return;
    if (options.origin && options.origin !== '*' && options.origin !== origin) return;
    res.setHeader('Access-Control-Allow-Origin', origin);
    res.setHeader('Vary', 'Origin');
    res.setHeader('Access-Control-Expose-Headers', 'Mcp-Session-Id, WWW-Authenticate');
  }

  const resourceMetadataPath = '/.well-known/oauth-protected-resource/mcp';
  /** The OAuth variant's check: true when the request may go on, else it was answered. */
  async function authorized(req: IncomingMessage, res: ServerResponse): Promise<boolean> {
    if (!oauth) return true;
    if (req.url?.startsWith('/.well-known/oauth-protected-resource')) {
      res.writeHead(200, { 'Content-Type': 'application/json' });
      res.end(JSON.stringify({ resource: url, authorization_servers: [oauth.issuer], scopes_supported: ['mcp:tools'], resource_name: 'Test MCP' }));
      return false;
    }
    const token = /^Bearer (.+)$/.exec(req.headers.authorization ?? '')?.[1];
    if (token) {
      bearers.push(token);
      if (
        await oauth.verify(token).then(
          () => true,
          () => false,
        )
      )
        return true;
    }
    res.setHeader('WWW-Authenticate', `Bearer error="invalid_token", resource_metadata="${origin}${resourceMetadataPath}"`);
    jsonError(res, 401, 'Unauthorized');
    return false;
  }

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    corsHeaders(req, res);
    if (req.method === 'OPTIONS') {
      if (cors) {
        res.setHeader('Access-Control-Allow-Methods', 'GET, POST, DELETE, OPTIONS');
        res.setHeader('Access-Control-Allow-Headers', MCP_ALLOWED_HEADERS);
        if (req.headers['access-control-request-private-network']) res.setHeader('Access-Control-Allow-Private-Network', 'true');
        res.setHeader('Access-Control-Max-Age', '600');
      }
      res.writeHead(204).end();
      return;
    }
    if (!(await authorized(req, res))) return;
    const required = options.requireHeader;
    if (required && req.headers[required.name.toLowerCase()] !== required.value) {
      jsonError(res, 401, 'Unauthorized');
      return;
    }
    if (options.transport === 'sse') {
      await handleSse(req, res);
      return;
    }
    const body = req.method === 'POST' ? await readBody(req) : '';
    let parsed: unknown;
    if (body) {
      try {
        parsed = JSON.parse(body);
      } catch {
        jsonError(res, 400, 'Parse error');
        return;
      }
    }
    const sessionId = req.headers['mcp-session-id'];
    const id = typeof sessionId === 'string' ? sessionId : undefined;
    const known = id ? sessions.get(id) : undefined;
    if (known) {
      if (req.method === 'GET') {
        streams++;
        res.on('close', () => streams--);
      }
      await (known.transport as StreamableHTTPServerTransport).handleRequest(req, res, parsed);
      return;
    }
    if (id) {
      jsonError(res, 404, 'Session not found');
      return;
    }
    if (req.method !== 'POST' || !isInitializeRequest(parsed)) {
      jsonError(res, 400, 'Bad Request: No valid session ID provided');
      return;
    }
    const server = newServer();
    const transport: StreamableHTTPServerTransport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      onsessioninitialized: (newId) => {
        sessions.set(newId, { transport, server });
      },
    });
    transport.onclose = () => {
      if (transport.sessionId) sessions.delete(transport.sessionId);
    };
    await server.connect(transport);
    await transport.handleRequest(req, res, parsed);
  }

  /** The older HTTP+SSE transport: the stream on GET, each message on a POST to the URL the stream named. */
  async function handleSse(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    if (req.method === 'GET' && url.pathname === '/mcp') {
      const server = newServer();
      const transport = new SSEServerTransport('/mcp/messages', res);
      sessions.set(transport.sessionId, { transport, server });
      transport.onclose = () => sessions.delete(transport.sessionId);
      await server.connect(transport);
      return;
    }
    if (req.method === 'POST' && url.pathname === '/mcp/messages') {
      const known = sessions.get(url.searchParams.get('sessionId') ?? '');
      if (!known) return jsonError(res, 404, 'Session not found');
      const body = await readBody(req);
      let parsed: unknown;
      try {
        parsed = JSON.parse(body);
      } catch {
        return jsonError(res, 400, 'Parse error');
      }
      await (known.transport as SSEServerTransport).handlePostMessage(req, res, parsed);
      return;
    }
    jsonError(res, 405, 'Method not allowed: this server speaks only HTTP+SSE');
  }

  const http = createServer((req, res) => {
    handle(req, res).catch((error: unknown) => {
      if (!res.headersSent) jsonError(res, 500, error instanceof Error ? error.message : String(error));
      else res.end();
    });
  });
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  const { port } = http.address() as AddressInfo;
  origin = `http://127.0.0.1:${port}`;
  url = `${origin}/mcp`;

  async function closeSessions(): Promise<void> {
    const open = [...sessions.values()];
    sessions.clear();
    await Promise.all(open.map((session) => session.server.close().catch(() => undefined)));
  }

  return {
    url,
    ...(oauth ? { oauth } : {}),
    bearers,
    calls,
    sessionCount: () => sessions.size,
    notificationStreams: () => streams,
    dropSessions: () => void closeSessions(),
    addTool(name, description = `The tool ${name}.`) {
      const tool = { name, description };
      extraTools.push(tool);
      // Registering on a connected server sends notifications/tools/list_changed.
      for (const session of sessions.values()) registerExtra(session.server, tool);
    },
    setCors: (on) => {
      cors = on;
    },
    setSlowMs: (ms) => {
      slowMs = ms;
    },
    async close() {
      await closeSessions();
      await oauth?.close();
      http.closeAllConnections();
      await new Promise<void>((resolve) => http.close(() => resolve()));
    },
  };
}
