import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { BUILTIN_TOOLS, mcpToolNames, serverSlug } from '../../../src/core';

/** The names both Anthropic and OpenAI accept. */
const TOOL_NAME_PATTERN = /^[a-zA-Z0-9_-]{1,64}$/;

const BUILTIN = BUILTIN_TOOLS.map((tool) => tool.name);

describe('MCP tool names', () => {
  it('names a tool mcp_<server>__<tool> when that is valid and free', () => {
    const names = mcpToolNames([{ serverId: 's1', label: 'Issue Tracker', tools: ['lookup_issue', 'list-issues'] }], BUILTIN);
    expect([...names.keys()]).toEqual(['mcp_issue-tracker__lookup_issue', 'mcp_issue-tracker__list-issues']);
    expect(names.get('mcp_issue-tracker__lookup_issue')).toEqual({ serverId: 's1', tool: 'lookup_issue' });
  });

  it('replaces characters neither provider accepts, and keeps the original name in the map', () => {
    const names = mcpToolNames([{ serverId: 's1', label: 'Docs', tools: ['search.pages v2'] }], BUILTIN);
    expect([...names.entries()]).toEqual([['mcp_docs__search_pages_v2', { serverId: 's1', tool: 'search.pages v2' }]]);
  });

  it('tells apart two tools that sanitize to the same text, and two servers of the same label', () => {
    const names = mcpToolNames(
      [
        { serverId: 'a', label: 'Search', tools: ['find.x', 'find_x'] },
        { serverId: 'b', label: 'Search', tools: ['find_x'] },
      ],
      BUILTIN,
    );
    expect(names.size).toBe(3);
    expect([...names.values()]).toEqual([
      { serverId: 'a', tool: 'find.x' },
      { serverId: 'a', tool: 'find_x' },
      { serverId: 'b', tool: 'find_x' },
    ]);
    expect([...names.keys()][0]).toBe('mcp_search__find_x');
    expect([...names.keys()][1]).toMatch(/^mcp_search__find_x_[0-9a-f]{8}$/);
  });

  it('cuts a long name to 64 characters with a hash, the same on every call', () => {
    const servers = [{ serverId: 's1', label: 'x', tools: ['a'.repeat(100), `${'a'.repeat(99)}b`] }];
    const first = [...mcpToolNames(servers, BUILTIN).keys()];
    expect(first.every((name) => name.length === 64)).toBe(true);
    expect(new Set(first).size).toBe(2);
    expect([...mcpToolNames(servers, BUILTIN).keys()]).toEqual(first);
  });

  it('never takes a reserved name', () => {
    const names = mcpToolNames([{ serverId: 's1', label: 'x', tools: ['t'] }], ['mcp_x__t']);
    expect(names.has('mcp_x__t')).toBe(false);
    expect(names.size).toBe(1);
  });

  it('makes a readable server part of any label', () => {
    expect(serverSlug('  My GitHub (work)  ')).toBe('my-github-work');
    expect(serverSlug('日本語')).toBe('server');
    expect(serverSlug('a'.repeat(40))).toHaveLength(16);
  });

  it('gives every tool of any servers a valid, unique name that maps back to it', () => {
    const server = fc.record({
      serverId: fc.string({ maxLength: 20 }),
      label: fc.string({ maxLength: 40 }),
      tools: fc.uniqueArray(fc.string({ maxLength: 90 }), { maxLength: 8 }),
    });
    fc.assert(
      fc.property(
        fc.uniqueArray(server, { maxLength: 5, selector: (s) => s.serverId }),
        fc.array(fc.string({ maxLength: 70 }), { maxLength: 4 }),
        (servers, reserved) => {
          const names = mcpToolNames(servers, reserved);
          const expected = servers.flatMap((s) => s.tools.map((tool) => ({ serverId: s.serverId, tool })));
          expect([...names.values()]).toEqual(expected);
          for (const name of names.keys()) {
            expect(name).toMatch(TOOL_NAME_PATTERN);
            expect(reserved).not.toContain(name);
          }
        },
      ),
    );
  });
});
