/**
 * What went wrong with an MCP server, said plainly: the SDK's and the browser's errors
 * (a fetch refused by CORS is a bare TypeError) turned into one message each, with what to do.
 */
import { UnauthorizedError } from '@modelcontextprotocol/sdk/client/auth.js';
import { StreamableHTTPError } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { OAuthError } from '@modelcontextprotocol/sdk/server/auth/errors.js';
import { ErrorCode, McpError } from '@modelcontextprotocol/sdk/types.js';

/** The CORS headers a server must send for a page to reach it. */
export const MCP_CORS_HEADERS =
  'Access-Control-Allow-Origin: <this page’s origin>; Access-Control-Expose-Headers: Mcp-Session-Id; ' +
  'Access-Control-Allow-Headers: Content-Type, Mcp-Protocol-Version, Mcp-Session-Id, Authorization, Last-Event-ID';

/** `signin`: the server wants an OAuth sign-in the user has not given (or that ended); Settings offers Sign in. */
export type McpFailureKind = 'unreachable' | 'unauthorized' | 'signin' | 'timeout' | 'session' | 'stopped' | 'protocol' | 'tool';

export class McpFailure extends Error {
  constructor(
    readonly kind: McpFailureKind,
    message: string,
  ) {
    super(message);
    this.name = 'McpFailure';
  }
}

/** What was being done, for the message. */
type Doing = 'connect' | 'list' | 'call' | 'signin';

const isAbort = (error: unknown) => error instanceof Error && (error.name === 'AbortError' || /aborted/i.test(error.message));

/** A server's own text, cut short: it is shown, never trusted to be short. */
const quoted = (text: string) => (text.length > 300 ? `${text.slice(0, 299)}…` : text);

/**
 * An McpFailure for any error thrown while connecting to, listing or calling the server at
 * `url`. `retried`: the session had expired and a new one failed too.
 */
export function describeMcpFailure(error: unknown, url: string, doing: Doing, retried = false): McpFailure {
  if (error instanceof McpFailure) return error;
  const at = `The MCP server at ${url}`;
  if (isAbort(error)) return new McpFailure('stopped', 'Stopped before the MCP server answered.');
  if (error instanceof UnauthorizedError) return new McpFailure('signin', `${at} needs you to sign in again: choose Sign in for it in Settings → Tools.`);
  if (error instanceof OAuthError)
    return new McpFailure(
      'signin',
      `The sign-in to ${url} was refused by its authorization server: ${quoted(error.message)}. Sign in again in Settings → Tools.`,
    );
  if (doing === 'signin' && !(error instanceof TypeError))
    return new McpFailure('signin', `Could not sign in to ${url}: ${quoted(error instanceof Error ? error.message : String(error))}`);
  if (error instanceof McpError && error.code === ErrorCode.RequestTimeout) {
    return new McpFailure(
      'timeout',
      `${at} did not answer in time${doing === 'call' ? '; the tool may still be running there' : ''}. Try again, or check the server.`,
    );
  }
  if (error instanceof StreamableHTTPError && error.code !== undefined) {
    if (error.code === 401 || error.code === 403)
      return new McpFailure('unauthorized', `${at} refused the request (HTTP ${error.code}): check its token or header in Settings → Tools.`);
    if (error.code === 404 && retried)
      return new McpFailure('session', `${at} ended the session and did not accept a new one (HTTP 404). Connect again in Settings → Tools.`);
    return new McpFailure(
      'protocol',
      `${at} answered HTTP ${error.code}${doing === 'connect' ? ': is this the URL of an MCP server?' : '.'} ${quoted(error.message)}`,
    );
  }
  // A fetch the browser refused (CORS, offline, a bad certificate) is a bare TypeError with no detail.
  if (doing === 'signin' && error instanceof TypeError)
    return new McpFailure(
      'unreachable',
      `Could not sign in to ${url}: the server or its authorization server is offline, or did not allow this page's origin (CORS).`,
    );
  if (error instanceof TypeError || (error instanceof Error && /fetch failed|failed to fetch|networkerror|load failed|ECONNREFUSED/i.test(error.message))) {
    // Connected, the server had already allowed the origin and the session's headers: it went away.
    if (doing !== 'connect')
      return new McpFailure('unreachable', `${at} stopped answering: it is offline, or the network is down. Check that it runs, then try again.`);
    return new McpFailure('unreachable', `${at} did not allow this page's origin, or is offline. It needs these CORS headers: ${MCP_CORS_HEADERS}.`);
  }
  if (error instanceof McpError) return new McpFailure(doing === 'call' ? 'tool' : 'protocol', `${at} answered with an error: ${quoted(error.message)}`);
  return new McpFailure('protocol', `${at} could not be used: ${quoted(error instanceof Error ? error.message : String(error))}`);
}
