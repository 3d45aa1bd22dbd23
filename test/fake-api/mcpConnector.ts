import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { ApiFailure } from './types';

// The providers' MCP connectors as their documentation states them (read 2026-11-29):
// Anthropic's “MCP connector” page — beta `mcp-client-2025-11-20`; `mcp_servers` entries
// `{ type: "url", url (https), name (unique), authorization_token? }`, each server referenced by
// exactly one `mcp_toolset` in `tools` (`mcp_server_name`, `default_config`, `configs`; the
// deprecated version's `tool_configuration` is not taken); the answer holds `mcp_tool_use`
// (`id`, `name`, `server_name`, `input`) and `mcp_tool_result` (`tool_use_id`, `is_error`,
// `content`) blocks. OpenAI's “MCP servers” guide — `tools` entries `{ type: "mcp", server_label,
// server_url, authorization?, allowed_tools?, require_approval? }` (approval by default); the
// output holds `mcp_list_tools`, then `mcp_call` (`server_label`, `name`, `arguments`, `output`,
// `error`) or, where approval is required, `mcp_approval_request`. Like the real providers, the
// fake connects to each server over Streamable HTTP with the SDK's client and calls the tool.

type Json = Record<string, unknown>;

/** The beta Anthropic's connector requires. */
export const MCP_CLIENT_BETA = 'mcp-client-2025-11-20';

/** A server a request gives the provider, as the fake will reach it. */
export interface ConnectorServer {
  name: string;
  url: string;
  token?: string;
  allows(tool: string): boolean;
  /** OpenAI: the call waits for the developer's approval instead of running. */
  needsApproval(tool: string): boolean;
}

export type ConnectorCheck = { ok: true; servers: ConnectorServer[]; body: Json } | { ok: false; failure: ApiFailure };

/** A call the scripted model makes to a connector's tool. */
export interface ConnectorCallSpec {
  server: string;
  name: string;
  input: Record<string, unknown>;
}

/** What one call came to. */
export interface ConnectorOutcome {
  server: string;
  name: string;
  input: Record<string, unknown>;
  /** The tools the server listed (OpenAI's `mcp_list_tools`). */
  listed: { name: string; description?: string; input_schema: unknown }[];
  text: string;
  isError: boolean;
  /** OpenAI: the call needs approval, so it did not run. */
  awaitingApproval: boolean;
}

const isRecord = (value: unknown): value is Json => typeof value === 'object' && value !== null && !Array.isArray(value);
const anthropicInvalid = (message: string): ConnectorCheck => ({ ok: false, failure: { status: 400, type: 'invalid_request_error', message } });
const openAIInvalid = (message: string, param: string): ConnectorCheck => ({
  ok: false,
  failure: { status: 400, type: 'invalid_request_error', message, param, code: 'invalid_value' },
});

/** The request's `mcp_servers` and `mcp_toolset`s checked; the body handed on without them, for the Messages checks. */
export function checkAnthropicConnector(body: Json, betas: readonly string[]): ConnectorCheck {
  const tools = Array.isArray(body.tools) ? (body.tools as unknown[]) : [];
  const toolsets = tools.flatMap((tool, index) => (isRecord(tool) && tool.type === 'mcp_toolset' ? [{ tool, index }] : []));
  if (body.mcp_servers === undefined && toolsets.length === 0) return { ok: true, servers: [], body };
  if (!betas.includes(MCP_CLIENT_BETA)) {
    return body.mcp_servers !== undefined
      ? anthropicInvalid('mcp_servers: Extra inputs are not permitted')
      : anthropicInvalid(`tools.${toolsets[0]!.index}: Input tag 'mcp_toolset' found using 'type' does not match any of the expected tags`);
  }
  if (!Array.isArray(body.mcp_servers)) return anthropicInvalid('mcp_servers: Input should be a valid list');
  const declared = new Map<string, Json>();
  for (const [index, server] of (body.mcp_servers as unknown[]).entries()) {
    if (!isRecord(server)) return anthropicInvalid(`mcp_servers.${index}: Input should be a valid dictionary`);
    if (server.type !== 'url') return anthropicInvalid(`mcp_servers.${index}.type: Input should be 'url'`);
    if (typeof server.url !== 'string' || !server.url.startsWith('https://')) return anthropicInvalid(`mcp_servers.${index}.url: URL must start with https://`);
    if (typeof server.name !== 'string' || server.name === '') return anthropicInvalid(`mcp_servers.${index}.name: Field required`);
    if (declared.has(server.name)) return anthropicInvalid(`mcp_servers: Duplicate MCP server name '${server.name}'`);
    if ('tool_configuration' in server) return anthropicInvalid(`mcp_servers.${index}.tool_configuration: Extra inputs are not permitted`);
    if (server.authorization_token !== undefined && typeof server.authorization_token !== 'string') {
      return anthropicInvalid(`mcp_servers.${index}.authorization_token: Input should be a valid string`);
    }
    declared.set(server.name, server);
  }
  const servers: ConnectorServer[] = [];
  for (const { tool, index } of toolsets) {
    const name = tool.mcp_server_name;
    if (typeof name !== 'string' || !declared.has(name))
      return anthropicInvalid(`tools.${index}.mcp_server_name: MCP server '${String(name)}' is not defined in mcp_servers`);
    if (servers.some((server) => server.name === name)) return anthropicInvalid(`tools: MCP server '${name}' is referenced by more than one mcp_toolset`);
    const defaults = isRecord(tool.default_config) ? tool.default_config : {};
    const configs = isRecord(tool.configs) ? tool.configs : {};
    const server = declared.get(name)!;
    servers.push({
      name,
      url: server.url as string,
      ...(typeof server.authorization_token === 'string' ? { token: server.authorization_token } : {}),
      allows: (toolName) => {
        const own = configs[toolName];
        const enabled = isRecord(own) && typeof own.enabled === 'boolean' ? own.enabled : defaults.enabled;
        return enabled !== false;
      },
      needsApproval: () => false,
    });
  }
  const unused = [...declared.keys()].find((name) => !servers.some((server) => server.name === name));
  if (unused !== undefined) return anthropicInvalid(`mcp_servers: MCP server '${unused}' is not referenced by any mcp_toolset in tools`);
  const rest = tools.filter((tool) => !(isRecord(tool) && tool.type === 'mcp_toolset'));
  const { mcp_servers: _servers, tools: _tools, ...others } = body;
  return { ok: true, servers, body: rest.length > 0 ? { ...others, tools: rest } : others };
}

/** The request's `mcp` tools checked (the Responses checks take hosted tools as they are). */
export function checkResponsesConnector(body: Json): ConnectorCheck {
  const tools = Array.isArray(body.tools) ? (body.tools as unknown[]) : [];
  const servers: ConnectorServer[] = [];
  for (const [index, tool] of tools.entries()) {
    if (!isRecord(tool) || tool.type !== 'mcp') continue;
    const at = `tools[${index}]`;
    if (typeof tool.server_label !== 'string' || tool.server_label === '')
      return openAIInvalid(`Missing required parameter: '${at}.server_label'.`, `${at}.server_label`);
    if (servers.some((server) => server.name === tool.server_label))
      return openAIInvalid(`Duplicate server_label '${tool.server_label}'.`, `${at}.server_label`);
    if (typeof tool.server_url !== 'string') return openAIInvalid(`Missing required parameter: '${at}.server_url'.`, `${at}.server_url`);
    if (!tool.server_url.startsWith('https://')) return openAIInvalid(`Invalid '${at}.server_url': the URL must use https.`, `${at}.server_url`);
    if (tool.authorization !== undefined && typeof tool.authorization !== 'string')
      return openAIInvalid(`Invalid type for '${at}.authorization'.`, `${at}.authorization`);
    const allowed = tool.allowed_tools;
    if (allowed !== undefined && allowed !== null && !(Array.isArray(allowed) && allowed.every((name) => typeof name === 'string'))) {
      return openAIInvalid(`Invalid type for '${at}.allowed_tools': expected an array of strings.`, `${at}.allowed_tools`);
    }
    const approval = tool.require_approval;
    if (approval !== undefined && approval !== 'always' && approval !== 'never' && !isRecord(approval)) {
      return openAIInvalid(`Invalid value for '${at}.require_approval'.`, `${at}.require_approval`);
    }
    const never = isRecord(approval) && isRecord(approval.never) && Array.isArray(approval.never.tool_names) ? (approval.never.tool_names as unknown[]) : [];
    servers.push({
      name: tool.server_label,
      url: tool.server_url,
      ...(typeof tool.authorization === 'string' ? { token: tool.authorization } : {}),
      allows: (name) => !Array.isArray(allowed) || allowed.includes(name),
      // Approval is required unless the request says otherwise.
      needsApproval: (name) => approval !== 'never' && !never.includes(name),
    });
  }
  return { ok: true, servers, body };
}

/**
 * Runs the scripted calls the request's servers allow, as the provider would: it connects to the
 * server (`resolve` maps the public URL the request named to where the test server listens, as
 * DNS would), lists its tools, and calls the tool with the server's token. A call to a server or
 * tool the request did not give is not made, as a model never calls a tool it was not given.
 */
export async function runConnectorCalls(
  calls: readonly ConnectorCallSpec[],
  servers: readonly ConnectorServer[],
  resolve: (url: string) => string,
): Promise<ConnectorOutcome[]> {
  const outcomes: ConnectorOutcome[] = [];
  for (const call of calls) {
    const server = servers.find((s) => s.name === call.server);
    if (!server || !server.allows(call.name)) continue;
    const base = { server: server.name, name: call.name, input: call.input };
    const client = new Client({ name: 'fake-provider-connector', version: '1.0.0' });
    const headers: Record<string, string> = server.token ? { Authorization: `Bearer ${server.token}` } : {};
    try {
      await client.connect(new StreamableHTTPClientTransport(new URL(resolve(server.url)), { requestInit: { headers } }));
      const listed = (await client.listTools()).tools
        .filter((tool) => server.allows(tool.name))
        .map((tool) => ({ name: tool.name, ...(tool.description ? { description: tool.description } : {}), input_schema: tool.inputSchema }));
      if (server.needsApproval(call.name)) {
        outcomes.push({ ...base, listed, text: '', isError: false, awaitingApproval: true });
        continue;
      }
      const result = await client.callTool({ name: call.name, arguments: call.input });
      const content = Array.isArray(result.content) ? (result.content as { type: string; text?: string }[]) : [];
      const text = content.flatMap((part) => (part.type === 'text' && typeof part.text === 'string' ? [part.text] : [])).join('\n');
      outcomes.push({ ...base, listed, text, isError: result.isError === true, awaitingApproval: false });
    } catch (error) {
      outcomes.push({ ...base, listed: [], text: `Error connecting to the MCP server: ${(error as Error).message}`, isError: true, awaitingApproval: false });
    } finally {
      await client.close().catch(() => undefined);
    }
  }
  return outcomes;
}

/** Anthropic's blocks for the calls: each `mcp_tool_use` and its `mcp_tool_result`. */
export function anthropicConnectorBlocks(outcomes: readonly ConnectorOutcome[], nextId: () => string): Json[] {
  return outcomes.flatMap((outcome) => {
    const id = nextId();
    return [
      { type: 'mcp_tool_use', id, name: outcome.name, server_name: outcome.server, input: outcome.input },
      { type: 'mcp_tool_result', tool_use_id: id, is_error: outcome.isError, content: [{ type: 'text', text: outcome.text }] },
    ];
  });
}

/** OpenAI's output items for the calls: the listing of each server once, then each call or its approval request. */
export function responsesConnectorItems(outcomes: readonly ConnectorOutcome[], nextId: (prefix: string) => string): Json[] {
  const items: Json[] = [];
  const listed = new Set<string>();
  for (const outcome of outcomes) {
    if (!listed.has(outcome.server)) {
      listed.add(outcome.server);
      items.push({ id: nextId('mcpl_'), type: 'mcp_list_tools', server_label: outcome.server, tools: outcome.listed });
    }
    const call = {
      id: nextId(outcome.awaitingApproval ? 'mcpr_' : 'mcp_'),
      server_label: outcome.server,
      name: outcome.name,
      arguments: JSON.stringify(outcome.input),
    };
    items.push(
      outcome.awaitingApproval
        ? { ...call, type: 'mcp_approval_request' }
        : { ...call, type: 'mcp_call', output: outcome.isError ? null : outcome.text, error: outcome.isError ? outcome.text : null, status: 'completed' },
    );
  }
  return items;
}
