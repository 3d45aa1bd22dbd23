/**
 * Runs a call the model made to an MCP tool: shows it to the user and waits for Allow,
 * Always allow or Refuse (unless the tool is always allowed), connects to its server (one
 * connection per server, kept for the visit), calls the tool with a time limit and the turn's
 * Stop, and reads the result (core's mcpResultOutcome). Always resolves with a tool result:
 * a refusal, a failure or a Stop is an error result the model can read.
 */
import type { ToolResultBlock, ToolUseBlock } from '../../core';
import { mcpResultOutcome, mcpServerUnreachable, parseToolArguments, type McpServerConfig } from '../../core';
import type { McpConnection, McpEndpoint } from '../../mcp/client';
import type { Runtime } from '../runtime';
import type { McpToolEntry } from './types';
import { askApproval } from './mcpApproval';
import { notSignedIn, oauthEndpoint, savedOAuth } from './mcpOAuth';

/** The longest an MCP tool may take before the call gives up: a send never hangs on a server. */
export const MCP_CALL_TIMEOUT_MS = 60_000;

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
  const connection = (async () => {
    const { connectMcp } = await import('../../mcp/client');
    return connectMcp(endpoint ?? (await oauthEndpoint(server, savedOAuth(rt, server.id))), {
      onToolsChanged: () =>
        rt.notifier.notify({
          id: `mcp-tools-changed-${server.id}`,
          tone: 'info',
          text: `The MCP server “${server.label}” changed its list of tools. Connect it again in Settings → Tools to offer the new list.`,
        }),
    });
  })();
  open.set(server.id, { key, connection });
  // A connection that failed is not kept: the next call tries again.
  connection.catch(() => open.delete(server.id));
  return connection;
}

const failure = (call: ToolUseBlock, content: string): ToolResultBlock => ({ type: 'tool_result', tool_use_id: call.id, content, is_error: true });

/** Runs `call` on its server; resolves with its result whatever happens. */
export async function runMcpCall(rt: Runtime, conversationId: string, call: ToolUseBlock, entry: McpToolEntry, signal: AbortSignal): Promise<ToolResultBlock> {
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
    const connection = await connectionTo(rt, server);
    const result = await connection.callTool(info.name, parsed.args, { signal, timeoutMs: MCP_CALL_TIMEOUT_MS });
    const outcome = mcpResultOutcome(result);
    return { type: 'tool_result', tool_use_id: call.id, content: outcome.content, ...(outcome.isError ? { is_error: true } : {}) };
  } catch (error) {
    if (signal.aborted) return failure(call, STOPPED);
    connections.get(rt)?.delete(server.id);
    return failure(call, error instanceof Error ? error.message : String(error));
  }
}
