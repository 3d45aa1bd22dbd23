// @vitest-environment node
import { describe, expect, it } from 'vitest';
import { CONNECTOR_URL, connectorServers } from './connectorSetup';
import { MCP_CLIENT_BETA } from './mcpConnector';

// The fake's connectors keep the documented rules (see mcpConnector.ts): a request the real API
// would refuse is refused the same way, and an accepted one calls the real test server.
const servers = connectorServers();

const server = { type: 'url', url: CONNECTOR_URL, name: 'tracker' };
const toolset = { type: 'mcp_toolset', mcp_server_name: 'tracker' };

async function messages(body: Record<string, unknown>, beta: string | null = MCP_CLIENT_BETA) {
  const response = await fetch(`${servers.fake().url}/v1/messages`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-api-key': 'sk-ant-test', 'anthropic-version': '2023-06-01', ...(beta ? { 'anthropic-beta': beta } : {}) },
    body: JSON.stringify({ model: 'claude-sonnet-4-6', max_tokens: 200, messages: [{ role: 'user', content: 'Issue 3?' }], ...body }),
  });
  return { status: response.status, body: (await response.json()) as { error?: { message: string }; content?: Record<string, unknown>[] } };
}

async function responses(tools: unknown[]) {
  const response = await fetch(`${servers.fake().url}/v1/responses`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: 'Bearer sk-proj-test' },
    body: JSON.stringify({ model: 'gpt-5.5', input: 'Issue 3?', store: false, tools }),
  });
  return { status: response.status, body: (await response.json()) as { error?: { message: string; param: string }; output?: Record<string, unknown>[] } };
}

describe('Anthropic’s MCP connector in the fake', () => {
  it.each([
    ['without the beta header', { mcp_servers: [server], tools: [toolset] }, null, 'mcp_servers: Extra inputs are not permitted'],
    ['with only the deprecated beta', { mcp_servers: [server], tools: [toolset] }, 'mcp-client-2025-04-04', 'mcp_servers: Extra inputs are not permitted'],
    ['a plain http URL', { mcp_servers: [{ ...server, url: 'http://mcp.example.com/mcp' }], tools: [toolset] }, MCP_CLIENT_BETA, 'must start with https://'],
    [
      'the deprecated tool_configuration',
      { mcp_servers: [{ ...server, tool_configuration: { enabled: true } }], tools: [toolset] },
      MCP_CLIENT_BETA,
      'tool_configuration',
    ],
    ['a server no toolset references', { mcp_servers: [server] }, MCP_CLIENT_BETA, 'not referenced by any mcp_toolset'],
    [
      'a toolset for no server',
      { mcp_servers: [server], tools: [toolset, { ...toolset, mcp_server_name: 'other' }] },
      MCP_CLIENT_BETA,
      "'other' is not defined",
    ],
  ])('refuses a request %s', async (_what, body, beta, message) => {
    const answer = await messages(body, beta);
    expect(answer.status).toBe(400);
    expect(answer.body.error!.message).toContain(message);
  });

  it('calls an enabled tool and answers with mcp_tool_use and mcp_tool_result; a disabled tool is never called', async () => {
    servers.fake().setReply(() => ({
      connectorCalls: [
        { server: 'tracker', name: 'lookup_issue', input: { number: 3 } },
        { server: 'tracker', name: 'big_log', input: {} },
      ],
      text: 'Open.',
    }));
    const answer = await messages({
      mcp_servers: [server],
      tools: [{ ...toolset, default_config: { enabled: false }, configs: { lookup_issue: { enabled: true } } }],
    });
    expect(answer.status).toBe(200);
    const [use, result, text] = answer.body.content!;
    expect(use).toEqual({ type: 'mcp_tool_use', id: expect.stringMatching(/^mcptoolu_/), name: 'lookup_issue', server_name: 'tracker', input: { number: 3 } });
    expect(result).toEqual({
      type: 'mcp_tool_result',
      tool_use_id: use!.id,
      is_error: false,
      content: [{ type: 'text', text: expect.stringContaining('Issue 3') }],
    });
    expect(text).toEqual(expect.objectContaining({ type: 'text', text: 'Open.' }));
    expect(servers.mcp().calls).toEqual([{ name: 'lookup_issue', args: { number: 3 } }]);
  });
});

describe('OpenAI’s mcp tool in the fake', () => {
  const mcpTool = { type: 'mcp', server_label: 'tracker', server_url: CONNECTOR_URL, allowed_tools: ['lookup_issue'] };

  it('refuses an http server_url or a missing server_label', async () => {
    expect((await responses([{ ...mcpTool, server_url: 'http://mcp.example.com/mcp' }])).body.error!.param).toBe('tools[0].server_url');
    expect((await responses([{ ...mcpTool, server_label: undefined }])).body.error!.param).toBe('tools[0].server_label');
  });

  it('lists the tools and calls the tool when approval is not required', async () => {
    servers.fake().setReply(() => ({ connectorCalls: [{ server: 'tracker', name: 'lookup_issue', input: { number: 3 } }], text: 'Open.' }));
    const { body } = await responses([{ ...mcpTool, require_approval: 'never' }]);
    const [listing, call] = body.output!;
    expect(listing).toEqual(
      expect.objectContaining({ type: 'mcp_list_tools', server_label: 'tracker', tools: [expect.objectContaining({ name: 'lookup_issue' })] }),
    );
    expect(call).toEqual(
      expect.objectContaining({ type: 'mcp_call', name: 'lookup_issue', arguments: '{"number":3}', output: expect.stringContaining('Issue 3'), error: null }),
    );
    expect(servers.mcp().calls).toEqual([{ name: 'lookup_issue', args: { number: 3 } }]);
  });

  it('asks for approval instead of calling when require_approval is left to its default', async () => {
    servers.fake().setReply(() => ({ connectorCalls: [{ server: 'tracker', name: 'lookup_issue', input: { number: 3 } }], text: 'Waiting.' }));
    const { body } = await responses([mcpTool]);
    expect(body.output!.map((item) => item.type)).toEqual(['mcp_list_tools', 'mcp_approval_request', 'message']);
    expect(servers.mcp().calls).toEqual([]);
  });
});
