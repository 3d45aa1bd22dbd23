/**
 * The MCP servers a user configured, as settings keep them, and the reading of them back
 * from storage: another version, a hand edit or a sync may have written them, and the
 * cached tool lists came from the servers themselves, so every field is checked and cut to
 * size, and whatever does not fit is dropped and named.
 */
import { endpointOrigin, keyTravelsSafely } from '../endpoints';

/**
 * How requests to the server are authorized. The secret itself (token, header value, or for
 * OAuth the record of `core/mcp/oauth.ts` as JSON text) is kept apart, like the API keys:
 * `Settings.mcpSecrets`.
 */
export type McpAuth = { type: 'none' } | { type: 'bearer' } | { type: 'header'; name: string } | { type: 'oauth' };

/** A tool as the server listed it when last connected, with the user's switches. */
export interface McpToolInfo {
  name: string;
  description: string;
  inputSchema: Record<string, unknown>;
  enabled: boolean;
  /** Runs without asking first. */
  alwaysAllow: boolean;
}

export interface McpServerConfig {
  id: string;
  label: string;
  url: string;
  enabled: boolean;
  auth: McpAuth;
  tools: McpToolInfo[];
  /** The origin the user agreed to reach over plain http (not https, not this machine); see `mcpServerReachable`. */
  httpConfirmedFor?: string;
  /** Seconds a call to one of its tools may take before it is given up; {@link MCP_CALL_TIMEOUT_SECONDS} when absent. */
  callTimeoutSeconds?: number;
  /** Who connects: this page (absent) or the provider itself, through its MCP connector (see `connector.ts`). */
  connectVia?: 'provider';
}

export const MAX_MCP_SERVERS = 20;
/** How long a tool call may take by default: a send never hangs on a server. */
export const MCP_CALL_TIMEOUT_SECONDS = 60;
/** The time limit a user may give a server's calls, in whole seconds. */
export const MCP_CALL_TIMEOUT_RANGE = { min: 1, max: 600 } as const;

/** Whether `value` is a time limit a server's calls may have (whole seconds within MCP_CALL_TIMEOUT_RANGE). */
export const isMcpCallTimeout = (value: unknown): value is number =>
  Number.isInteger(value) && (value as number) >= MCP_CALL_TIMEOUT_RANGE.min && (value as number) <= MCP_CALL_TIMEOUT_RANGE.max;
export const MAX_MCP_TOOLS = 200;
const MAX_DESCRIPTION = 4_000;
const MAX_SCHEMA_CHARS = 20_000;

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);
const shortText = (value: unknown, max: number): value is string => typeof value === 'string' && value.trim() !== '' && value.length <= max;

/** A header name as HTTP allows (a token), not one the browser or the transport sets itself. */
export const isCustomHeaderName = (name: string) =>
  /^[!#$%&'*+.^_`|~0-9A-Za-z-]{1,100}$/.test(name) &&
  !/^(content-type|content-length|host|origin|cookie|accept|mcp-session-id|mcp-protocol-version)$/i.test(name);

/** An http or https URL, which is what a Streamable HTTP server has. */
export function isServerUrl(value: unknown): value is string {
  if (!shortText(value, 2_000)) return false;
  try {
    const url = new URL(value);
    return (url.protocol === 'https:' || url.protocol === 'http:') && !url.username && !url.password;
  } catch {
    return false;
  }
}

function readAuth(raw: unknown): McpAuth | undefined {
  if (!isObject(raw)) return undefined;
  if (raw.type === 'none' || raw.type === 'bearer' || raw.type === 'oauth') return { type: raw.type };
  if (raw.type === 'header' && typeof raw.name === 'string' && isCustomHeaderName(raw.name)) return { type: 'header', name: raw.name };
  return undefined;
}

function readTool(raw: unknown): McpToolInfo | undefined {
  if (!isObject(raw) || !shortText(raw.name, 200)) return undefined;
  const schema = isObject(raw.inputSchema) && JSON.stringify(raw.inputSchema).length <= MAX_SCHEMA_CHARS ? raw.inputSchema : undefined;
  return {
    name: raw.name,
    description: typeof raw.description === 'string' ? raw.description.slice(0, MAX_DESCRIPTION) : '',
    inputSchema: schema ?? { type: 'object' },
    enabled: raw.enabled !== false,
    alwaysAllow: raw.alwaysAllow === true,
  };
}

/** The usable tools of a list (at most MAX_MCP_TOOLS); a name listed twice is one tool, as first listed. */
function readTools(raw: unknown): McpToolInfo[] {
  const names = new Set<string>();
  return (Array.isArray(raw) ? raw : [])
    .slice(0, MAX_MCP_TOOLS)
    .map(readTool)
    .filter((tool): tool is McpToolInfo => tool !== undefined && !names.has(tool.name) && Boolean(names.add(tool.name)));
}

function readServer(raw: unknown): McpServerConfig | undefined {
  if (!isObject(raw) || !shortText(raw.id, 100) || !isServerUrl(raw.url)) return undefined;
  const auth = raw.auth === undefined ? { type: 'none' as const } : readAuth(raw.auth);
  if (!auth) return undefined;
  return {
    id: raw.id,
    label: shortText(raw.label, 100) ? raw.label : new URL(raw.url).host,
    url: raw.url,
    enabled: raw.enabled === true,
    auth,
    tools: readTools(raw.tools),
    ...(typeof raw.httpConfirmedFor === 'string' ? { httpConfirmedFor: raw.httpConfirmedFor.slice(0, 2_000) } : {}),
    ...(isMcpCallTimeout(raw.callTimeoutSeconds) ? { callTimeoutSeconds: raw.callTimeoutSeconds } : {}),
    ...(raw.connectVia === 'provider' ? { connectVia: 'provider' as const } : {}),
  };
}

/**
 * Why the server may not be reached, or undefined when it may: as with the API keys
 * (core/endpoints.ts), plain http only to this machine unless the user confirmed that origin,
 * since the tool calls, their results and the server's secret would cross the network unencrypted.
 */
export function mcpServerUnreachable(server: Pick<McpServerConfig, 'url' | 'httpConfirmedFor'>): string | undefined {
  if (keyTravelsSafely(server.url)) return undefined;
  const origin = endpointOrigin(server.url);
  if (origin && server.httpConfirmedFor === origin) return undefined;
  return `${origin ?? server.url} is plain http on another machine: confirm in Settings → Tools that its calls may travel unencrypted, or use an https address.`;
}

/** The valid servers of a stored list (ids unique, at most MAX_MCP_SERVERS), and a note for each one dropped. */
export function readMcpServers(raw: unknown, ignored: string[]): McpServerConfig[] {
  if (raw === undefined) return [];
  if (!Array.isArray(raw)) {
    ignored.push('mcpServers: not a list of servers');
    return [];
  }
  const servers: McpServerConfig[] = [];
  for (const item of raw.slice(0, MAX_MCP_SERVERS)) {
    const server = readServer(item);
    if (server && !servers.some((other) => other.id === server.id)) servers.push(server);
    else ignored.push('an MCP server that could not be read');
  }
  if (raw.length > MAX_MCP_SERVERS) ignored.push(`${raw.length - MAX_MCP_SERVERS} MCP servers past the first ${MAX_MCP_SERVERS}`);
  return servers;
}

/** A server's tools as listed again, and what changed since the list kept before. */
export interface McpToolsMerge {
  tools: McpToolInfo[];
  /** Names, in the server's order. */
  added: string[];
  removed: string[];
  /** Tools whose description or input schema is not what the user saw. */
  changed: string[];
}

/**
 * A listing (`listed`, as the server sent it) read like a stored list and merged with the
 * tools kept before: a tool listed again keeps the user's switches, but one whose description
 * or schema changed loses "Always allow" (the user allowed what it said before, and a server
 * may change what a tool does behind the same name); a new tool is switched on, as at the first
 * Connect, and asks before each call.
 */
export function mergeListedTools(before: readonly McpToolInfo[], listed: readonly unknown[]): McpToolsMerge {
  const previous = new Map(before.map((tool) => [tool.name, tool]));
  const fresh = readTools(listed.map((tool) => (isObject(tool) ? { ...tool, enabled: true, alwaysAllow: false } : tool)));
  const added: string[] = [];
  const changed: string[] = [];
  const tools = fresh.map((tool) => {
    const old = previous.get(tool.name);
    if (!old) {
      added.push(tool.name);
      return tool;
    }
    const same = old.description === tool.description && JSON.stringify(old.inputSchema) === JSON.stringify(tool.inputSchema);
    if (!same) changed.push(tool.name);
    return { ...tool, enabled: old.enabled, alwaysAllow: same && old.alwaysAllow };
  });
  const kept = new Set(fresh.map((tool) => tool.name));
  return { tools, added, removed: before.filter((tool) => !kept.has(tool.name)).map((tool) => tool.name), changed };
}
