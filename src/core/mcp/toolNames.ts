/**
 * MCP tools under names both providers accept. Anthropic and OpenAI both take tool names
 * matching `^[a-zA-Z0-9_-]{1,64}$` (Anthropic allows 128 characters; 64 is what both take),
 * while an MCP server may name a tool anything, and two servers may both have `search`.
 * Each tool is offered as `mcp_<server>__<tool>`, sanitized; a name too long, or taken by a
 * built-in tool or another MCP tool, is cut and ends with a hash of the server's id and the
 * tool's own name, so it is the same from one request to the next. The map reads a call's
 * name back to the server and the tool's own name.
 */
import { hashString } from '../hash';

/** The longest name both providers accept. */
const MAX = 64;
const PREFIX = 'mcp_';

/** Where a mapped name points: the server's id and the tool's name on that server. */
export interface McpToolRef {
  serverId: string;
  tool: string;
}

/** One server's tools to name: its id (stable), its label (for the readable part) and its tools' own names. */
export interface McpToolsToName {
  serverId: string;
  label: string;
  tools: readonly string[];
}

/** Letters, digits, `_` and `-` kept; any other character (a dot, a space, an accent) becomes `_`. */
const sanitize = (text: string) => text.replace(/[^a-zA-Z0-9_-]/g, '_');

/** The server's part of a name: its label lowercased, runs of other characters as one `-`, at most 16 characters. */
export function serverSlug(label: string): string {
  const slug = label
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 16)
    .replace(/-+$/, '');
  return slug || 'server';
}

/**
 * A name for every tool, valid for both providers, unique among themselves and distinct from
 * `reserved` (the built-in tools' names), in the order given; and the map back.
 */
export function mcpToolNames(servers: readonly McpToolsToName[], reserved: readonly string[]): Map<string, McpToolRef> {
  const taken = new Set(reserved);
  const names = new Map<string, McpToolRef>();
  for (const server of servers) {
    const slug = serverSlug(server.label);
    for (const tool of server.tools) {
      const plain = `${PREFIX}${slug}__${sanitize(tool)}`;
      const hash = hashString(`${server.serverId}\u0000${tool}`);
      let name = plain.length <= MAX ? plain : `${plain.slice(0, MAX - 9)}_${hash.slice(0, 8)}`;
      // Taken (a built-in tool's, or another tool sanitized to the same text): the hash tells them apart.
      for (let n = 0; taken.has(name); n++) {
        const suffix = `_${hash.slice(0, 8)}${n === 0 ? '' : n}`;
        name = `${plain.slice(0, MAX - suffix.length)}${suffix}`;
      }
      taken.add(name);
      names.set(name, { serverId: server.serverId, tool });
    }
  }
  return names;
}
