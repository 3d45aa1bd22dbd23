/**
 * The provider's MCP connector: instead of this page, the provider (Anthropic's MCP connector,
 * OpenAI's `mcp` tool in the Responses API) connects to a server and runs its tools while it
 * answers. Which servers may be given to it, what a request tells it, and a call it ran as the
 * conversation keeps and resends it. Read on 2026-11-29: Anthropic's “MCP connector” page (beta
 * `mcp-client-2025-11-20`, `mcp_servers` with an `mcp_toolset` per server in `tools`; the older
 * `mcp-client-2025-04-04` with `tool_configuration` is deprecated) and OpenAI's “MCP servers”
 * guide (`type: "mcp"` tools; `mcp_list_tools`, `mcp_call`, `mcp_approval_request` output items).
 */
import type { ProviderId, ProviderToolBlock } from '../conversation';
import { isLocalHostname } from '../endpoints';
import type { McpServerConfig } from './servers';

/** Anthropic's beta header value for the MCP connector as documented on 2026-11-29. */
export const MCP_CONNECTOR_BETA = 'mcp-client-2025-11-20';

/** A server as one request gives it to the provider. */
export interface McpConnectorServer {
  /** Unique in the request: Anthropic's `name` (and `mcp_toolset.mcp_server_name`), OpenAI's `server_label`. */
  name: string;
  url: string;
  /** The server's bearer token, sent as Anthropic's `authorization_token` and OpenAI's `authorization`. */
  authorization?: string;
  /** The tools the provider may call, by the server's own names; never empty. */
  tools: string[];
}

/** Longest tool output kept from a call the provider ran, in characters. */
export const MAX_PROVIDER_TOOL_OUTPUT = 100_000;
const MAX_PROVIDER_TOOL_INPUT = 20_000;

function ipv4(host: string): number[] | undefined {
  const parts = host.split('.');
  if (parts.length !== 4 || !parts.every((part) => /^\d{1,3}$/.test(part))) return undefined;
  const bytes = parts.map(Number);
  return bytes.every((byte) => byte <= 255) ? bytes : undefined;
}

function privateIpv4([a, b]: number[]): boolean {
  return (
    a === 0 ||
    a === 10 ||
    a === 127 ||
    (a === 100 && b! >= 64 && b! <= 127) ||
    (a === 169 && b === 254) ||
    (a === 172 && b! >= 16 && b! <= 31) ||
    (a === 192 && b === 168) ||
    (a === 198 && (b === 18 || b === 19)) ||
    a! >= 224
  );
}

/**
 * Why the provider cannot reach `url`, or undefined when it can: the provider connects from the
 * Internet, and both providers require https, so the address must be a public https one — not this
 * machine, not a private or link-local address, not a name only a local network resolves.
 */
export function publicHttpsProblem(url: string): string | undefined {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return 'it is not a URL';
  }
  if (parsed.protocol !== 'https:') return 'the provider connects only to https addresses';
  const host = parsed.hostname.toLowerCase().replace(/\.$/, '');
  if (isLocalHostname(host)) return 'it is this machine, which the provider cannot reach';
  const v4 = ipv4(host);
  if (v4 && privateIpv4(v4)) return 'it is a private address, which the provider cannot reach';
  if (host.startsWith('[')) {
    const v6 = host.slice(1, -1);
    if (v6 === '::' || /^(fc|fd|fe[89ab])/.test(v6) || v6.startsWith('::ffff:')) return 'it is a private address, which the provider cannot reach';
    return undefined;
  }
  if (!host.includes('.') || /\.(local|internal|lan|home|arpa|test|example|invalid|localhost)$/.test(host)) {
    return 'it is a name only a local network knows, which the provider cannot reach';
  }
  return undefined;
}

/**
 * Why the current provider cannot connect to `server` itself, or undefined when it can: only
 * Anthropic's Messages API and OpenAI's Responses API have a connector (not OpenAI-compatible
 * servers, not the Demo); the address must be public https; only a bearer token can be handed
 * over (Anthropic takes nothing else); and the provider calls without asking, so it is given only
 * tools the user always allows.
 */
export function connectorUnavailable(server: Pick<McpServerConfig, 'url' | 'auth'>, provider: ProviderId): string | undefined {
  if (provider === 'openai-compatible') return 'OpenAI-compatible servers have no MCP connector: only Anthropic’s and OpenAI’s own APIs do.';
  if (provider === 'demo') return 'The Demo has no MCP connector: only Anthropic’s and OpenAI’s own APIs do.';
  const problem = publicHttpsProblem(server.url);
  if (problem) return `The provider cannot connect to ${server.url}: ${problem}.`;
  if (server.auth.type === 'header') return 'The provider can pass only a bearer token to the server, not a header of your own.';
  return undefined;
}

/** A label both providers accept, unique among `taken`: letters, digits, `_` and `-`, at most 64 characters. */
function connectorName(label: string, taken: Set<string>): string {
  const base =
    label
      .replace(/[^A-Za-z0-9_-]+/g, '_')
      .replace(/^_+|_+$/g, '')
      .slice(0, 56) || 'mcp';
  let name = base;
  for (let n = 2; taken.has(name); n += 1) name = `${base}_${n}`;
  taken.add(name);
  return name;
}

/**
 * The servers a request gives the provider: those switched on and set to the provider's
 * connector, when the provider has one and may reach them, each with the tools the user switched
 * on and always allows (the provider runs them without asking). A server left with no such tool
 * is not given at all.
 */
export function connectorServers(servers: readonly McpServerConfig[], secrets: Readonly<Record<string, string>>, provider: ProviderId): McpConnectorServer[] {
  const taken = new Set<string>();
  const out: McpConnectorServer[] = [];
  for (const server of servers) {
    if (!server.enabled || server.connectVia !== 'provider' || connectorUnavailable(server, provider)) continue;
    const tools = server.tools.filter((tool) => tool.enabled && tool.alwaysAllow).map((tool) => tool.name);
    if (tools.length === 0) continue;
    const secret = server.auth.type === 'bearer' ? secrets[server.id] : undefined;
    out.push({ name: connectorName(server.label, taken), url: server.url, tools, ...(secret ? { authorization: secret } : {}) });
  }
  return out;
}

const text = (value: unknown, max: number): string => (typeof value === 'string' ? value.slice(0, max) : '');

/** A call's input as stored: the JSON value, or its raw text when too long to keep whole. */
function boundedInput(input: unknown): unknown {
  const json = JSON.stringify(input ?? {}) ?? '{}';
  return json.length <= MAX_PROVIDER_TOOL_INPUT ? (input ?? {}) : json.slice(0, MAX_PROVIDER_TOOL_INPUT);
}

/** The text of an MCP result as a provider returns it: a string, or a list of text blocks (anything else is left out and said). */
function resultText(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  const parts: string[] = [];
  let other = 0;
  for (const part of content as unknown[]) {
    if (typeof part === 'object' && part !== null && (part as { type?: unknown }).type === 'text' && typeof (part as { text?: unknown }).text === 'string') {
      parts.push((part as { text: string }).text);
    } else other += 1;
  }
  if (other > 0) parts.push(`[${other} part${other === 1 ? '' : 's'} that are not text left out]`);
  return parts.join('\n');
}

/** Fields of a provider's call as it came back; every one is checked, since the answer is outside data. */
export interface ProviderToolCallWire {
  id?: unknown;
  server?: unknown;
  name?: unknown;
  input?: unknown;
  /** Anthropic: `mcp_tool_result.content`; OpenAI: `mcp_call.output`. */
  output?: unknown;
  /** OpenAI's `mcp_call.error`, or a listing's error. */
  error?: unknown;
  isError?: unknown;
}

/** A call the provider ran → the block the answer stores; undefined when it names no tool. Output is cut to MAX_PROVIDER_TOOL_OUTPUT. */
export function providerToolBlock(provider: 'anthropic' | 'openai', wire: ProviderToolCallWire, answered: boolean): ProviderToolBlock | undefined {
  const name = text(wire.name, 200);
  if (!name) return undefined;
  const error = typeof wire.error === 'string' ? wire.error : wire.error ? JSON.stringify(wire.error) : '';
  const output = answered ? resultText(wire.output) || error : 'No result came back: the answer stopped first.';
  return {
    type: 'provider_tool',
    provider,
    id: text(wire.id, 200),
    server: text(wire.server, 200),
    name,
    input: boundedInput(wire.input),
    output:
      output.length > MAX_PROVIDER_TOOL_OUTPUT
        ? `${output.slice(0, MAX_PROVIDER_TOOL_OUTPUT)}\n[${(output.length - MAX_PROVIDER_TOOL_OUTPUT).toLocaleString('en-US')} characters left out]`
        : output,
    isError: !answered || wire.isError === true || error !== '',
  };
}
