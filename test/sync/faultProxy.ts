/**
 * # Fault proxy
 *
 * An HTTP proxy (node:http, bodies streamed both ways) in front of a CouchDB-protocol server,
 * on its own free port of 127.0.0.1, that can answer the next requests with an error instead
 * of the server, or stop answering at all, so sync tests can see what the app does then.
 *
 * ```ts
 * const proxy = await startFaultProxy(couch.url);
 * proxy.failNext({ status: 401 });                                              // the next request
 * proxy.failNext({ status: 409, times: 2, match: (r) => r.path.includes('/_bulk_docs') });
 * proxy.failNext({ status: 500, forward: true });      // the server does it, the client sees a 500
 * await proxy.stop();  // the port is closed: connections are refused
 * await proxy.start(); // the same port again
 * proxy.requests;      // [{ method, path, status, injected }], in order of arrival
 * await proxy.close();
 * ```
 *
 * A preflight (`OPTIONS`) is always forwarded, never failed: only the real request is, so a
 * browser sees the status rather than a network error. An injected answer carries the CORS
 * headers the server sends for that request's `Origin` (pouchdb-server and CouchDB with
 * `cors/origins = *` and `cors/credentials = true` echo the origin and allow credentials) and
 * a CouchDB-shaped JSON body, `{"error":"unauthorized","reason":"..."}`.
 */
import http, { type IncomingMessage, type ServerResponse } from 'node:http';
import net from 'node:net';

export interface ProxiedRequest {
  method: string;
  /** The path and query as received, such as `/db/_changes?since=0`. */
  path: string;
  /** The status sent, once the answer is complete or cut; 0 before that, or if none was sent. */
  status: number;
  /** Whether the proxy answered it with a fault. */
  injected: boolean;
}

export interface FaultRule {
  status: number;
  /** How many matching requests to fail; 1 unless given. */
  times?: number;
  /** Which requests to fail; every request but a preflight unless given. */
  match?: (request: { method: string; path: string }) => boolean;
  /** The JSON body; CouchDB's error for the status unless given. */
  body?: object;
  /** Forward the request and wait for the server's answer, then send the fault instead: the write happened, the client sees a failure. */
  forward?: boolean;
}

export interface FaultProxy {
  url: string;
  failNext(rule: FaultRule): void;
  clearFaults(): void;
  /** Closes the port and every connection: new connections are refused. */
  stop(): Promise<void>;
  /** Listens again on the same port. */
  start(): Promise<void>;
  requests: ProxiedRequest[];
  close(): Promise<void>;
}

/** CouchDB's own error bodies for the statuses it sends (CouchDB 3, `chttpd:error_info`). */
const COUCH_ERRORS: Record<number, { error: string; reason: string }> = {
  400: { error: 'bad_request', reason: 'Invalid request.' },
  401: { error: 'unauthorized', reason: 'Name or password is incorrect.' },
  403: { error: 'forbidden', reason: 'You are not allowed to access this db.' },
  404: { error: 'not_found', reason: 'missing' },
  409: { error: 'conflict', reason: 'Document update conflict.' },
  412: { error: 'file_exists', reason: 'The database could not be created, the file already exists.' },
  413: { error: 'too_large', reason: 'the request entity is too large' },
  415: { error: 'bad_content_type', reason: 'Content-Type must be application/json' },
  429: { error: 'too_many_requests', reason: 'You have exceeded your request rate limit.' },
  500: { error: 'unknown_error', reason: 'Internal Server Error' },
  502: { error: 'bad_gateway', reason: 'Bad Gateway' },
  503: { error: 'service_unavailable', reason: 'Service Unavailable' },
};

export function couchError(status: number): { error: string; reason: string } {
  return COUCH_ERRORS[status] ?? { error: 'unknown_error', reason: `HTTP ${status}` };
}

/**
 * The CORS headers the server puts on a response (not a preflight) to this request: with
 * `cors/origins = *` and `cors/credentials = true` it echoes the Origin and allows credentials;
 * a request without an Origin gets none.
 */
export function corsHeaders(req: IncomingMessage): Record<string, string> {
  const origin = req.headers.origin;
  return origin ? { 'Access-Control-Allow-Origin': origin, 'Access-Control-Allow-Credentials': 'true' } : {};
}

/** Sends a CouchDB-shaped JSON error with CORS headers, after reading the request's body to its end. */
export function sendCouchError(req: IncomingMessage, res: ServerResponse, status: number, body: object = couchError(status)): void {
  const send = () => {
    if (res.headersSent || res.destroyed) return;
    const text = JSON.stringify(body) + '\n';
    res.writeHead(status, {
      ...corsHeaders(req),
      'Content-Type': 'application/json',
      'Content-Length': Buffer.byteLength(text),
      'Cache-Control': 'must-revalidate',
    });
    res.end(text);
  };
  if (req.readableEnded) send();
  else {
    req.on('end', send);
    req.resume();
  }
}

/** Hop-by-hop headers: about one connection, never forwarded. */
const HOP_BY_HOP = new Set(['connection', 'keep-alive', 'proxy-authenticate', 'proxy-authorization', 'te', 'trailer', 'transfer-encoding', 'upgrade']);

function endToEnd(headers: http.IncomingHttpHeaders): http.OutgoingHttpHeaders {
  return Object.fromEntries(Object.entries(headers).filter(([name]) => !HOP_BY_HOP.has(name)));
}

/**
 * Forwards a request to `target` and streams the answer back; `replaceWith` answers with that
 * fault instead once the server has answered. An unreachable server is a 502 in CouchDB's shape.
 */
export function forward(req: IncomingMessage, res: ServerResponse, target: URL, agent: http.Agent, replaceWith?: { status: number; body: object }): void {
  const upstream = http.request({
    host: target.hostname,
    port: target.port,
    method: req.method,
    path: req.url,
    headers: { ...endToEnd(req.headers), host: target.host },
    agent,
  });
  upstream.on('response', (answer) => {
    if (replaceWith) {
      answer.resume();
      answer.on('end', () => sendCouchError(req, res, replaceWith.status, replaceWith.body));
      return;
    }
    res.writeHead(answer.statusCode ?? 502, endToEnd(answer.headers));
    answer.pipe(res);
    answer.on('error', () => res.destroy());
  });
  upstream.on('error', (error) => {
    if (res.headersSent) res.destroy();
    else sendCouchError(req, res, 502, { error: 'bad_gateway', reason: `The server cannot be reached: ${error.message}` });
  });
  // The client went away (or the proxy stopped): so does the request to the server.
  res.on('close', () => {
    if (!res.writableFinished) upstream.destroy();
  });
  req.pipe(upstream);
}

/** A port nothing listens on now (the OS's choice for port 0). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = net.createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as net.AddressInfo;
      probe.close(() => resolve(port));
    });
  });
}

export function listen(server: http.Server, port: number): Promise<number> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => {
      server.off('error', reject);
      resolve((server.address() as net.AddressInfo).port);
    });
  });
}

/** Stops listening and ends every connection, idle or not; resolves once the port is free. */
export function closeServer(server: http.Server): Promise<void> {
  if (!server.listening) return Promise.resolve();
  return new Promise((resolve) => {
    server.close(() => resolve());
    server.closeAllConnections();
  });
}

export async function startFaultProxy(targetUrl: string): Promise<FaultProxy> {
  const target = new URL(targetUrl);
  const agent = new http.Agent({ keepAlive: true });
  const requests: ProxiedRequest[] = [];
  let rules: Array<FaultRule & { left: number }> = [];
  let closed = false;

  const takeRule = (request: { method: string; path: string }) => {
    const rule = rules.find((candidate) => candidate.match?.(request) ?? true);
    if (!rule) return undefined;
    rule.left -= 1;
    if (rule.left <= 0) rules = rules.filter((candidate) => candidate !== rule);
    return rule;
  };

  const server = http.createServer((req, res) => {
    const entry: ProxiedRequest = { method: req.method ?? 'GET', path: req.url ?? '/', status: 0, injected: false };
    requests.push(entry);
    const record = () => {
      if (res.headersSent) entry.status = res.statusCode;
    };
    res.on('finish', record);
    res.on('close', record);
    const rule = entry.method === 'OPTIONS' ? undefined : takeRule({ method: entry.method, path: entry.path });
    if (!rule) return forward(req, res, target, agent);
    entry.injected = true;
    const fault = { status: rule.status, body: rule.body ?? couchError(rule.status) };
    if (rule.forward) forward(req, res, target, agent, fault);
    else sendCouchError(req, res, fault.status, fault.body);
  });
  const port = await listen(server, 0);

  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    failNext(rule) {
      rules.push({ ...rule, left: rule.times ?? 1 });
    },
    clearFaults() {
      rules = [];
    },
    async stop() {
      await closeServer(server);
      agent.destroy();
    },
    async start() {
      if (closed) throw new Error('The fault proxy is closed.');
      if (!server.listening) await listen(server, port);
    },
    async close() {
      closed = true;
      rules = [];
      await closeServer(server);
      agent.destroy();
    },
  };
}
