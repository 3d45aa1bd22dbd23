import type { IncomingMessage, ServerResponse } from 'node:http';

/** Response headers a browser app may read: retry hints, request ids and rate-limit state. */
export const EXPOSED_HEADERS = [
  'retry-after',
  'retry-after-ms',
  'request-id',
  'x-request-id',
  'x-should-retry',
  'anthropic-ratelimit-requests-limit',
  'anthropic-ratelimit-requests-remaining',
  'anthropic-ratelimit-requests-reset',
  'anthropic-ratelimit-tokens-limit',
  'anthropic-ratelimit-tokens-remaining',
  'anthropic-ratelimit-tokens-reset',
  'anthropic-ratelimit-input-tokens-limit',
  'anthropic-ratelimit-input-tokens-remaining',
  'anthropic-ratelimit-input-tokens-reset',
  'anthropic-ratelimit-output-tokens-limit',
  'anthropic-ratelimit-output-tokens-remaining',
  'anthropic-ratelimit-output-tokens-reset',
  'x-ratelimit-limit-requests',
  'x-ratelimit-limit-tokens',
  'x-ratelimit-remaining-requests',
  'x-ratelimit-remaining-tokens',
  'x-ratelimit-reset-requests',
  'x-ratelimit-reset-tokens',
  'openai-processing-ms',
].join(', ');

/** Request headers allowed when a preflight does not name any (it always names them in browsers). */
const DEFAULT_ALLOWED_HEADERS =
  'authorization, content-type, x-api-key, anthropic-version, anthropic-beta, ' +
  'anthropic-dangerous-direct-browser-access, openai-organization, openai-project, x-stainless-retry-count, x-stainless-timeout';

/** CORS headers for every response: the caller's origin is echoed (or `*` without one). */
export function corsHeaders(req: IncomingMessage): Record<string, string> {
  const origin = req.headers.origin;
  return {
    'access-control-allow-origin': origin ?? '*',
    'access-control-expose-headers': EXPOSED_HEADERS,
    vary: 'Origin',
  };
}

/** The answer to a CORS preflight: 204, the requested headers echoed back. */
export function preflightHeaders(req: IncomingMessage): Record<string, string> {
  const requested = req.headers['access-control-request-headers'];
  const headers: Record<string, string> = {
    ...corsHeaders(req),
    'access-control-allow-methods': 'GET, POST, OPTIONS',
    'access-control-allow-headers': typeof requested === 'string' && requested.trim() !== '' ? requested : DEFAULT_ALLOWED_HEADERS,
    'access-control-max-age': '600',
    vary: 'Origin, Access-Control-Request-Headers, Access-Control-Request-Method',
  };
  // Chromium's Private Network Access asks before a page talks to a loopback address.
  if (req.headers['access-control-request-private-network'] === 'true') {
    headers['access-control-allow-private-network'] = 'true';
  }
  return headers;
}

export function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

export function sendJson(req: IncomingMessage, res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  const payload = JSON.stringify(body);
  res.writeHead(status, {
    ...corsHeaders(req),
    ...headers,
    'content-type': 'application/json',
    'content-length': String(Buffer.byteLength(payload)),
  });
  res.end(payload);
}

/** Opens a server-sent-event stream; headers go out at once so the client sees the 200 early. */
export function startEventStream(req: IncomingMessage, res: ServerResponse, headers: Record<string, string>): void {
  res.writeHead(200, {
    ...corsHeaders(req),
    ...headers,
    'content-type': 'text/event-stream; charset=utf-8',
    'cache-control': 'no-cache',
    connection: 'keep-alive',
  });
  res.flushHeaders();
}

export function sleep(ms: number): Promise<void> {
  return ms > 0 ? new Promise((resolve) => setTimeout(resolve, ms)) : Promise.resolve();
}
