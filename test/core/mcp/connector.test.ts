import { describe, expect, it } from 'vitest';
import {
  connectorServers,
  connectorUnavailable,
  fromAnthropicContent,
  fromResponsesOutput,
  MAX_PROVIDER_TOOL_OUTPUT,
  publicHttpsProblem,
  readMcpServers,
  toAnthropicWire,
  toOpenAIWire,
} from '../../../src/core';
import type { McpServerConfig, ProviderToolBlock, StoredMessage } from '../../../src/core';
import { readMessage } from '../../../src/core/transfer/readRecords';
import { trackerServer } from '../../mcp/fixtures';

const viaProvider = (url: string, patch: Partial<McpServerConfig> = {}): McpServerConfig => ({ ...trackerServer(url, true), connectVia: 'provider', ...patch });

describe('which addresses the provider can reach', () => {
  it.each(['https://mcp.example.com/mcp', 'https://mcp.example.com:8443/x', 'https://8.8.8.8/mcp', 'https://[2606:4700::1111]/mcp'])('takes %s', (url) => {
    expect(publicHttpsProblem(url)).toBeUndefined();
  });

  it.each([
    ['http://mcp.example.com/mcp', 'https'],
    ['https://localhost/mcp', 'this machine'],
    ['https://127.0.0.1:3000/mcp', 'this machine'],
    ['https://[::1]/mcp', 'this machine'],
    ['https://10.1.2.3/mcp', 'private'],
    ['https://172.20.0.1/mcp', 'private'],
    ['https://192.168.1.20/mcp', 'private'],
    ['https://169.254.169.254/latest', 'private'],
    ['https://100.64.0.1/mcp', 'private'],
    ['https://[fd00::1]/mcp', 'private'],
    ['https://[::ffff:10.0.0.1]/mcp', 'private'],
    ['https://nas/mcp', 'local network'],
    ['https://printer.local/mcp', 'local network'],
    ['https://mcp.corp.internal/mcp', 'local network'],
    ['not a url', 'not a URL'],
  ])('refuses %s (%s)', (url, why) => {
    expect(publicHttpsProblem(url)).toContain(why);
  });

  it('is offered only on Anthropic’s and OpenAI’s own APIs, and only with a bearer token or none', () => {
    const server = viaProvider('https://mcp.example.com/mcp');
    expect(connectorUnavailable(server, 'anthropic')).toBeUndefined();
    expect(connectorUnavailable(server, 'openai')).toBeUndefined();
    expect(connectorUnavailable(server, 'openai-compatible')).toMatch(/OpenAI-compatible servers have no MCP connector/);
    expect(connectorUnavailable(server, 'demo')).toMatch(/The Demo has no MCP connector/);
    expect(connectorUnavailable({ ...server, auth: { type: 'header', name: 'X-Api-Key' } }, 'openai')).toMatch(/only a bearer token/);
  });
});

describe('the servers a request gives the provider', () => {
  it('gives each server set to the provider, with its token and only the tools switched on and always allowed', () => {
    const servers = [
      viaProvider('https://mcp.example.com/mcp', {
        tools: [
          { name: 'lookup_issue', description: '', inputSchema: { type: 'object' }, enabled: true, alwaysAllow: true },
          { name: 'close_issue', description: '', inputSchema: { type: 'object' }, enabled: true, alwaysAllow: false },
          { name: 'big_log', description: '', inputSchema: { type: 'object' }, enabled: false, alwaysAllow: true },
        ],
      }),
      { ...viaProvider('https://docs.example.com/mcp'), id: 'srv-2', auth: { type: 'none' as const } },
    ];
    expect(connectorServers(servers, { 'srv-1': 'tok', 'srv-2': 'unused' }, 'anthropic')).toEqual([
      { name: 'Tracker', url: 'https://mcp.example.com/mcp', authorization: 'tok', tools: ['lookup_issue'] },
      { name: 'Tracker_2', url: 'https://docs.example.com/mcp', tools: ['lookup_issue'] },
    ]);
  });

  it('gives none that is switched off, set to this browser, out of the provider’s reach, or has no tool always allowed', () => {
    const servers = [
      { ...viaProvider('https://a.example.com/mcp'), enabled: false },
      { ...trackerServer('https://b.example.com/mcp', true) },
      viaProvider('http://127.0.0.1:9000/mcp'),
      viaProvider('https://c.example.com/mcp', { tools: [{ name: 't', description: '', inputSchema: {}, enabled: true, alwaysAllow: false }] }),
    ];
    expect(connectorServers(servers, {}, 'openai')).toEqual([]);
    expect(connectorServers([viaProvider('https://mcp.example.com/mcp')], {}, 'demo')).toEqual([]);
  });

  it('keeps the choice in settings, and reads anything else as this browser', () => {
    const [kept, other] = readMcpServers(
      [viaProvider('https://mcp.example.com/mcp'), { ...trackerServer('https://x.example.com/'), id: 'x', connectVia: 'nobody' }],
      [],
    );
    expect(kept!.connectVia).toBe('provider');
    expect(other).not.toHaveProperty('connectVia');
  });
});

describe('the calls the provider ran, read back', () => {
  it('pairs Anthropic’s mcp_tool_use with its mcp_tool_result, in place, and keeps a call with no result as failed', () => {
    const content = fromAnthropicContent([
      { type: 'mcp_tool_use', id: 'mcptoolu_1', name: 'lookup_issue', server_name: 'Tracker', input: { number: 7 } },
      { type: 'mcp_tool_result', tool_use_id: 'mcptoolu_1', is_error: false, content: [{ type: 'text', text: '<b>open</b>' }, { type: 'image' }] },
      { type: 'text', text: 'It is open.' },
      { type: 'mcp_tool_use', id: 'mcptoolu_2', name: 'lookup_issue', server_name: 'Tracker', input: { number: 8 } },
    ]);
    expect(content).toEqual([
      {
        type: 'provider_tool',
        provider: 'anthropic',
        id: 'mcptoolu_1',
        server: 'Tracker',
        name: 'lookup_issue',
        input: { number: 7 },
        output: '<b>open</b>\n[1 part that are not text left out]',
        isError: false,
      },
      { type: 'text', text: 'It is open.' },
      expect.objectContaining({ id: 'mcptoolu_2', isError: true, output: 'No result came back: the answer stopped first.' }),
    ]);
  });

  it('reads OpenAI’s mcp_call, its error, and hostile fields without throwing; cuts a long output', () => {
    const content = fromResponsesOutput(
      [
        {
          type: 'mcp_call',
          wire: { id: 'mcp_1', server: 'Tracker', name: 'lookup_issue', input: { number: 7 }, output: 'x'.repeat(MAX_PROVIDER_TOOL_OUTPUT + 5) },
          answered: true,
        },
        {
          type: 'mcp_call',
          wire: { id: 'mcp_2', server: 'Tracker', name: 'failing_tool', input: {}, output: null, error: { message: 'boom' } },
          answered: true,
        },
        { type: 'mcp_call', wire: { id: 7, server: ['x'], name: { evil: true }, output: 3 }, answered: true },
      ],
      { complete: true },
    ) as ProviderToolBlock[];
    expect(content).toHaveLength(2);
    expect(content[0]!.output).toMatch(/\n\[5 characters left out\]$/);
    expect(content[1]).toEqual(expect.objectContaining({ name: 'failing_tool', isError: true, output: '{"message":"boom"}' }));
  });
});

describe('a call the provider ran, in later requests and in storage', () => {
  const block: ProviderToolBlock = {
    type: 'provider_tool',
    provider: 'openai',
    id: 'mcp_1',
    server: 'Tracker',
    name: 'lookup_issue',
    input: { number: 7 },
    output: 'Open.',
    isError: false,
  };
  const answer = {
    id: 'a',
    conversationId: 'c',
    seq: 1,
    role: 'assistant',
    kind: 'message',
    content: [block, { type: 'text', text: 'It is open.' }],
    createdAt: 0,
    status: 'complete',
  } as StoredMessage;
  const sentText = '[OpenAI called the tool "lookup_issue" of the MCP server "Tracker" with {"number":7}; it returned:]\nOpen.';

  it('goes back as text on both providers', () => {
    expect(toAnthropicWire([answer])[0]!.message.content).toEqual([
      { type: 'text', text: sentText },
      { type: 'text', text: 'It is open.' },
    ]);
    expect(toOpenAIWire([answer])[0]!.message).toEqual({ role: 'assistant', content: `${sentText}\nIt is open.` });
  });

  it('reads back from storage as it was stored, and refuses one with a field of the wrong kind', () => {
    expect(readMessage(JSON.parse(JSON.stringify(answer)), 'm').content).toEqual(answer.content);
    expect(() => readMessage({ ...answer, content: [{ ...block, isError: 'no' }] }, 'm')).toThrow(/isError/);
  });
});
