import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { MAX_MCP_SERVERS, MCP_CALL_TIMEOUT_RANGE, mergeListedTools, readMcpServers, type McpToolInfo } from '../../../src/core';
import { trackerServer } from '../../mcp/fixtures';

const server = trackerServer('https://mcp.example.com/mcp');

describe('MCP servers read back from storage', () => {
  it('keeps a valid server as it was', () => {
    const ignored: string[] = [];
    expect(readMcpServers([server], ignored)).toEqual([server]);
    expect(ignored).toEqual([]);
  });

  it('drops servers with no id, a URL that is not http(s), credentials in the URL or an unknown auth, and names them', () => {
    const ignored: string[] = [];
    const bad = [
      { ...server, id: '' },
      { ...server, url: 'javascript:alert(1)' },
      { ...server, url: 'https://user:pw@example.com/' },
      { ...server, auth: { type: 'saml' } },
      { ...server, auth: { type: 'header', name: 'Cookie' } },
      { ...server, auth: { type: 'header', name: 'X Bad' } },
      'server',
    ];
    expect(readMcpServers([...bad, server, { ...server }], ignored)).toEqual([server]);
    expect(ignored).toHaveLength(bad.length + 1);
  });

  it('reads back each kind of authorization, OAuth sign-in included', () => {
    const kinds = [{ type: 'none' }, { type: 'bearer' }, { type: 'header', name: 'X-Api-Key' }, { type: 'oauth' }];
    const ignored: string[] = [];
    const read = readMcpServers(
      kinds.map((auth, i) => ({ ...server, id: `s${i}`, auth })),
      ignored,
    );
    expect(read.map((s) => s.auth)).toEqual(kinds);
    expect(ignored).toEqual([]);
  });

  it('cuts what a server listed to size and reads switches as off unless true', () => {
    const [read] = readMcpServers(
      [
        {
          ...server,
          enabled: 'yes',
          label: 42,
          tools: [
            { name: 'a', description: 'd'.repeat(10_000), inputSchema: { big: 'x'.repeat(30_000) }, alwaysAllow: 'true' },
            { name: 'a', description: 'listed twice' },
            { name: '' },
            null,
          ],
        },
      ],
      [],
    );
    expect(read?.enabled).toBe(false);
    expect(read?.label).toBe('mcp.example.com');
    expect(read?.tools).toEqual([{ name: 'a', description: 'd'.repeat(4_000), inputSchema: { type: 'object' }, enabled: true, alwaysAllow: false }]);
  });

  it('keeps a time limit for calls in whole seconds within its range, and drops any other', () => {
    const limit = (value: unknown) => readMcpServers([{ ...server, callTimeoutSeconds: value }], [])[0]?.callTimeoutSeconds;
    expect(limit(5)).toBe(5);
    expect(limit(MCP_CALL_TIMEOUT_RANGE.max)).toBe(MCP_CALL_TIMEOUT_RANGE.max);
    for (const bad of [0, -1, 1.5, MCP_CALL_TIMEOUT_RANGE.max + 1, '5', null, Number.NaN]) expect(limit(bad), String(bad)).toBeUndefined();
  });

  it('keeps at most MAX_MCP_SERVERS and says so', () => {
    const ignored: string[] = [];
    const many = Array.from({ length: MAX_MCP_SERVERS + 3 }, (_, i) => ({ ...server, id: `s${i}` }));
    expect(readMcpServers(many, ignored)).toHaveLength(MAX_MCP_SERVERS);
    expect(ignored).toEqual([`3 MCP servers past the first ${MAX_MCP_SERVERS}`]);
    expect(readMcpServers({ length: 1 }, ignored)).toEqual([]);
  });

  it('never throws on anything storage hands back, and what it keeps reads back the same', () => {
    fc.assert(
      fc.property(fc.anything(), (raw) => {
        const kept = readMcpServers(raw, []);
        expect(readMcpServers(JSON.parse(JSON.stringify(kept)), [])).toEqual(kept);
      }),
    );
    fc.assert(
      fc.property(fc.array(fc.record({ id: fc.string(), url: fc.webUrl(), label: fc.anything(), tools: fc.anything(), auth: fc.anything() })), (raw) => {
        const kept = readMcpServers(raw, []);
        expect(new Set(kept.map((s) => s.id)).size).toBe(kept.length);
      }),
    );
  });
});

describe('a server’s tools listed again', () => {
  const tool = (name: string, description: string, extra: Partial<McpToolInfo> = {}): McpToolInfo => ({
    name,
    description,
    inputSchema: { type: 'object' },
    enabled: true,
    alwaysAllow: false,
    ...extra,
  });

  it('keeps the user’s switches, drops what is gone, adds the new asking first, and asks again for a changed tool', () => {
    const before = [
      tool('search', 'Searches.', { alwaysAllow: true }),
      tool('fetch', 'Fetches a page.', { alwaysAllow: true }),
      tool('delete', 'Deletes.', { enabled: false }),
      tool('old', 'Gone soon.'),
    ];
    const listed = [
      { name: 'search', description: 'Searches.', inputSchema: { type: 'object' }, enabled: false, alwaysAllow: true },
      { name: 'fetch', description: 'Fetches a page and sends it elsewhere.', inputSchema: { type: 'object' } },
      { name: 'delete', description: 'Deletes.', inputSchema: { type: 'object' } },
      { name: 'triage', description: 'Sorts.', inputSchema: { type: 'object' }, alwaysAllow: true },
      { name: 'triage', description: 'Listed twice.' },
      'not a tool',
    ];
    const merge = mergeListedTools(before, listed);
    expect(merge.tools).toEqual([
      tool('search', 'Searches.', { alwaysAllow: true }),
      tool('fetch', 'Fetches a page and sends it elsewhere.'),
      tool('delete', 'Deletes.', { enabled: false }),
      tool('triage', 'Sorts.'),
    ]);
    expect(merge).toMatchObject({ added: ['triage'], removed: ['old'], changed: ['fetch'] });
  });

  it('counts a changed input schema as a changed tool', () => {
    const before = [tool('search', 'Searches.', { alwaysAllow: true })];
    const merge = mergeListedTools(before, [
      { name: 'search', description: 'Searches.', inputSchema: { type: 'object', properties: { q: { type: 'string' } } } },
    ]);
    expect(merge.changed).toEqual(['search']);
    expect(merge.tools[0]?.alwaysAllow).toBe(false);
  });
});
