/**
 * The MCP servers' tools as requests offer them: the servers read back from settings (core's
 * readMcpServers: they are stored data, and their tool lists came from the servers), the
 * enabled tools of the enabled servers named for both providers, and the map back from a
 * name to its server and tool. A chunk of its own, loaded only once a server is configured.
 */
import type { McpServerConfig, McpToolInfo, NamedToolDefinition, ToolResultBlock, ToolUseBlock } from '../../core';
import type { McpToolEntry } from './types';
import { BUILTIN_TOOLS, connectorUnavailable, mcpToolNames, mcpToolOffer, readMcpServers } from '../../core';
import type { Runtime } from '../runtime';
import { runMcpCall } from './mcpCalls';

/**
 * The tools switched on of the servers switched on that this page connects to, by the name
 * requests give them. A server set to the provider's connector is never offered as tools here:
 * the provider calls it (or, where it cannot, nothing does).
 */
export function mcpToolsByName(stored: readonly unknown[]): Map<string, McpToolEntry> {
  const servers = readMcpServers(stored, []).filter((server) => server.enabled && server.connectVia !== 'provider');
  const names = mcpToolNames(
    servers.map((server) => ({ serverId: server.id, label: server.label, tools: server.tools.filter((tool) => tool.enabled).map((tool) => tool.name) })),
    BUILTIN_TOOLS.map((tool) => tool.name),
  );
  const byName = new Map<string, McpToolEntry>();
  for (const [name, ref] of names) {
    const server = servers.find((s) => s.id === ref.serverId) as McpServerConfig;
    byName.set(name, { server, info: server.tools.find((tool) => tool.name === ref.tool) as McpToolInfo });
  }
  return byName;
}

/**
 * The definitions requests send. Each description says which server the tool is on, so the
 * model (and whoever reads the request) can tell the servers' tools apart; it says nothing of
 * the user's approval, which "Always allow" changes: the definitions open every request, and a
 * change there would make the provider's prompt cache write the whole conversation again (a
 * refused call tells the model itself). The input schema is the server's, always an object
 * schema, as both providers require.
 */
export function mcpDefinitions(byName: ReadonlyMap<string, McpToolEntry>): NamedToolDefinition[] {
  return [...byName].map(([name, { server, info }]) => ({
    name,
    description: `Tool "${info.name}" of the MCP server "${server.label}".${info.description ? ` ${info.description}` : ''}`,
    inputSchema: { ...info.inputSchema, type: 'object' },
  }));
}

/**
 * The tools the provider's own connector is given on `provider` (core's connectorServers: the
 * servers switched on and set to it that it may reach, their tools switched on and always
 * allowed), as the model reads their definitions.
 */
export function connectorDefinitions(servers: readonly McpServerConfig[], provider: 'anthropic' | 'openai'): NamedToolDefinition[] {
  return servers
    .filter((server) => server.enabled && server.connectVia === 'provider' && !connectorUnavailable(server, provider))
    .flatMap((server) =>
      server.tools
        .filter((tool) => tool.enabled && tool.alwaysAllow)
        .map((tool) => ({ name: tool.name, description: tool.description, inputSchema: { ...tool.inputSchema, type: 'object' } })),
    );
}

/** Puts the tools of the configured servers in the state, where every plan (the gauge's too) counts them. */
export function refreshMcpTools(rt: Runtime): void {
  const stored = rt.store.getState().settings.tools.mcpServers;
  const servers = readMcpServers(stored, []);
  const onProvider = { anthropic: connectorDefinitions(servers, 'anthropic'), openai: connectorDefinitions(servers, 'openai') };
  rt.store.setState({ mcpTools: mcpToolOffer(mcpDefinitions(mcpToolsByName(stored)), onProvider) });
}

/**
 * What the tool round runs a call to an MCP tool with: the call's result (its text cut to
 * about `resultTokens`), or undefined when `call` names no MCP tool that `offered` (the
 * request's tool names) holds.
 */
export function mcpRunner(
  rt: Runtime,
  conversationId: string,
  offered: ReadonlySet<string>,
  signal: AbortSignal,
  resultTokens: number,
): (call: ToolUseBlock) => Promise<ToolResultBlock> | undefined {
  const byName = mcpToolsByName(rt.store.getState().settings.tools.mcpServers);
  return (call) => {
    const entry = offered.has(call.name) ? byName.get(call.name) : undefined;
    return entry ? runMcpCall(rt, conversationId, call, entry, signal, resultTokens) : undefined;
  };
}
