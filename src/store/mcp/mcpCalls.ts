/**
 * Runs a call the model made to an MCP tool: shows it to the user and waits for Allow,
 * Always allow or Refuse (unless the tool is always allowed), connects to its server (one
 * connection per server, kept for the visit), calls the tool with a time limit and the turn's
 * Stop, and reads the result (core's mcpResultOutcome; its images are kept as the
 * conversation's files, like the user's). Always resolves with a tool result:
 * a refusal, a failure or a Stop is an error result the model can read.
 */
import type { ToolResultBlock, ToolUseBlock } from '../../core';
import {
  MCP_CALL_TIMEOUT_SECONDS,
  MCP_RESULT_MAX_CHARS,
  mcpResultOutcome,
  mcpServerUnreachable,
  mergeListedTools,
  parseToolArguments,
  readMcpServers,
  type McpImage,
  type McpServerConfig,
} from '../../core';
import { saveSettings } from '../conversationActions';
import type { McpConnection, McpEndpoint } from '../../mcp/client';
import type { Runtime } from '../runtime';
import type { McpToolEntry } from './types';
import { askApproval } from './mcpApproval';
import { notSignedIn, oauthEndpoint, savedOAuth } from './mcpOAuth';

export const REFUSED_BY_USER = 'The user refused to run this tool call. Do not call it again unless the user asks for it; ask the user how to go on.';
const STOPPED = 'The user pressed Stop, so this tool call did not finish. Wait for the user.';

const connections = new WeakMap<Runtime, Map<string, { key: string; connection: Promise<McpConnection> }>>();

/** The server's URL and the headers that carry its secret. */
export function endpointOf(server: McpServerConfig, secret: string | undefined): McpEndpoint {
  const headers: Record<string, string> = {};
  if (secret && server.auth.type === 'bearer') headers.Authorization = `Bearer ${secret}`;
  if (secret && server.auth.type === 'header') headers[server.auth.name] = secret;
  return { url: server.url, headers };
}

function connectionTo(rt: Runtime, server: McpServerConfig): Promise<McpConnection> {
  // An OAuth sign-in is read at each request (a refresh changes it): the connection is kept across refreshes.
  const oauth = server.auth.type === 'oauth';
  const endpoint = oauth ? undefined : endpointOf(server, rt.store.getState().settings.mcpSecrets[server.id]);
  const key = oauth ? JSON.stringify({ url: server.url, auth: 'oauth' }) : JSON.stringify(endpoint);
  let open = connections.get(rt);
  if (!open) connections.set(rt, (open = new Map()));
  const known = open.get(server.id);
  if (known?.key === key) return known.connection;
  void known?.connection.then((c) => c.close()).catch(() => undefined);
  const connection: Promise<McpConnection> = (async () => {
    const { connectMcp } = await import('../../mcp/client');
    return connectMcp(endpoint ?? (await oauthEndpoint(server, savedOAuth(rt, server.id))), {
      onToolsChanged: () => void toolsChanged(rt, server, connection),
    });
  })();
  open.set(server.id, { key, connection });
  // A connection that failed is not kept: the next call tries again.
  connection.catch(() => open.delete(server.id));
  return connection;
}

const names = (list: readonly string[]) => list.map((name) => `“${name}”`).join(', ');

/**
 * The server said its tools changed (`notifications/tools/list_changed`): they are listed again
 * over the open connection and kept (core's mergeListedTools: a changed tool asks again before it
 * runs), so the next request offers the new list, and the user is told what changed.
 */
async function toolsChanged(rt: Runtime, server: McpServerConfig, connection: Promise<McpConnection>): Promise<void> {
  const id = `mcp-tools-changed-${server.id}`;
  try {
    const listed = await (await connection).listTools();
    const { settings } = rt.store.getState();
    const servers = readMcpServers(settings.tools.mcpServers, []);
    const current = servers.find((s) => s.id === server.id);
    if (!current) return;
    const merge = mergeListedTools(current.tools, listed);
    const said = [
      merge.added.length > 0 ? `added ${names(merge.added)}` : '',
      merge.removed.length > 0 ? `removed ${names(merge.removed)}` : '',
      merge.changed.length > 0 ? `changed ${names(merge.changed)}, which will ask before each call again` : '',
    ].filter(Boolean);
    if (said.length === 0) return;
    const mcpServers = servers.map((s) => (s.id === server.id ? { ...s, tools: merge.tools } : s));
    await saveSettings(rt, { ...settings, tools: { ...settings.tools, mcpServers } }, 'global');
    rt.notifier.notify({ id, tone: 'info', text: `The MCP server “${current.label}” ${said.join('; ')}. The next request offers its new list.` });
  } catch (error) {
    rt.notifier.notify({
      id,
      tone: 'warning',
      text: `The MCP server “${server.label}” changed its list of tools, and Windowpane could not read the new one (${error instanceof Error ? error.message : String(error)}). Connect it again in Settings → Tools.`,
    });
  }
}

/** The result's images checked, scaled and stored as the conversation's files, as the user's are (the image reader loads with them). */
async function keptImages(rt: Runtime, conversationId: string, toolName: string, images: readonly McpImage[]) {
  const { storeToolImages } = await import('../imageActions');
  return storeToolImages(rt, conversationId, toolName, images);
}

const failure = (call: ToolUseBlock, content: string): ToolResultBlock => ({ type: 'tool_result', tool_use_id: call.id, content, is_error: true });

/**
 * `promise`, or a rejection as soon as `signal` aborts. The connection is shared by every call
 * to its server, so Stop does not cancel it: this turn only stops waiting for it.
 */
function untilStopped<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(new DOMException('Stopped', 'AbortError'));
  return new Promise<T>((resolve, reject) => {
    const stop = () => reject(new DOMException('Stopped', 'AbortError'));
    signal.addEventListener('abort', stop, { once: true });
    promise.then(resolve, reject).finally(() => signal.removeEventListener('abort', stop));
  });
}

/** Runs `call` on its server; resolves with its result whatever happens. */
export async function runMcpCall(
  rt: Runtime,
  conversationId: string,
  call: ToolUseBlock,
  entry: McpToolEntry,
  signal: AbortSignal,
  resultTokens = Number.POSITIVE_INFINITY,
): Promise<ToolResultBlock> {
  const { server, info } = entry;
  const parsed = parseToolArguments(call.input);
  if (!parsed.ok) return failure(call, `The arguments of ${call.name} must be one JSON object; got ${parsed.found}. Nothing was run.`);
  const unreachable = mcpServerUnreachable(server) ?? (server.auth.type === 'oauth' ? notSignedIn(server, savedOAuth(rt, server.id)) : undefined);
  if (unreachable) return failure(call, `Not run: ${unreachable}`);
  if (!info.alwaysAllow) {
    const answer = await askApproval(
      rt,
      { conversationId, callId: call.id, serverId: server.id, server: server.label, tool: info.name, args: JSON.stringify(parsed.args, null, 2) },
      signal,
    );
    if (answer === 'stopped') return failure(call, STOPPED);
    if (answer === 'refuse') return failure(call, REFUSED_BY_USER);
  }
  try {
    const connection = await untilStopped(connectionTo(rt, server), signal);
    // The server's own limit, which the user may set in Settings → Tools: a send never hangs on a server.
    const timeoutMs = (server.callTimeoutSeconds ?? MCP_CALL_TIMEOUT_SECONDS) * 1000;
    const result = await connection.callTool(info.name, parsed.args, { signal, timeoutMs });
    const outcome = mcpResultOutcome(result, MCP_RESULT_MAX_CHARS, resultTokens);
    const images = outcome.images.length > 0 ? await keptImages(rt, conversationId, info.name, outcome.images) : undefined;
    const content = [outcome.content, ...(images?.notes ?? [])].filter((line) => line !== '').join('\n');
    return {
      type: 'tool_result',
      tool_use_id: call.id,
      content: content || (images?.blocks.length ? '' : 'The tool returned nothing.'),
      ...(outcome.isError ? { is_error: true } : {}),
      ...(images?.blocks.length ? { images: images.blocks } : {}),
    };
  } catch (error) {
    if (signal.aborted) return failure(call, STOPPED);
    connections.get(rt)?.delete(server.id);
    return failure(call, error instanceof Error ? error.message : String(error));
  }
}
