// @vitest-environment node
import { describe, expect, it } from 'vitest';
import { CONNECTOR_URL, connectorServers } from '../fake-api/connectorSetup';
import { MCP_CONNECTOR_BETA, toAnthropicWire, toOpenAIWire } from '../../src/core';
import type { ContentBlock, McpConnectorServer, ProviderToolBlock, StoredMessage } from '../../src/core';
import { createProvider } from '../../src/providers';
import type { ChatRequest, ProviderSettings } from '../../src/providers';
import { ResponsesStreamAccumulator } from '../../src/providers/openaiResponses';

// Both providers connect to a real MCP server through their connector: the fake, standing in for
// the provider, resolves the public https address the request names to the test server.
const servers = connectorServers({ requireHeader: { name: 'Authorization', value: 'Bearer tracker-token' } });

const tracker: McpConnectorServer = { name: 'Tracker', url: CONNECTOR_URL, authorization: 'tracker-token', tools: ['lookup_issue'] };

const targets: { name: string; provider: 'anthropic' | 'openai'; settings: () => ProviderSettings }[] = [
  {
    name: 'Anthropic',
    provider: 'anthropic',
    settings: () => ({ provider: 'anthropic', apiKey: 'sk-ant-fake-test-key', baseUrl: servers.fake().url, model: 'claude-sonnet-4-6' }),
  },
  {
    name: 'OpenAI',
    provider: 'openai',
    settings: () => ({ provider: 'openai', apiKey: 'sk-proj-fake-test-key', baseUrl: `${servers.fake().url}/v1`, model: 'gpt-5.5' }),
  },
];

function ask(target: (typeof targets)[number], text: string, history: StoredMessage[] = []): ChatRequest {
  const stored: StoredMessage[] = [
    ...history,
    { id: `u${history.length}`, conversationId: 'c', role: 'user', content: [{ type: 'text', text }], createdAt: 0, status: 'complete' } as StoredMessage,
  ];
  const messages = target.provider === 'anthropic' ? toAnthropicWire(stored).map((i) => i.message) : toOpenAIWire(stored).map((i) => i.message);
  return { model: target.settings().model, messages, maxTokens: 1_000, mcpConnectors: [tracker] } as ChatRequest;
}

const calls = (content: ContentBlock[]) => content.filter((b): b is ProviderToolBlock => b.type === 'provider_tool');

describe.each(targets)('the MCP connector through $name', (target) => {
  it('gives the provider the server, which calls the tool with the token and answers with the call and its result', async () => {
    servers.fake().setReply(() => ({ connectorCalls: [{ server: 'Tracker', name: 'lookup_issue', input: { number: 42 } }], text: 'Issue 42 is open.' }));
    const result = await (await createProvider(target.settings())).send(ask(target, 'Is issue 42 open?'));

    expect(servers.mcp().calls).toEqual([{ name: 'lookup_issue', args: { number: 42 } }]);
    expect(calls(result.content)).toEqual([
      expect.objectContaining({
        provider: target.provider,
        server: 'Tracker',
        name: 'lookup_issue',
        input: { number: 42 },
        output: 'Issue 42: The login page loads slowly. Status: open.',
        isError: false,
      }),
    ]);
    expect(result.content.at(-1)).toEqual({ type: 'text', text: 'Issue 42 is open.' });
    const sent = servers.fake().requests.at(-1)!;
    expect(sent.validation).toEqual({ ok: true });
    const body = sent.body as Record<string, unknown>;
    if (target.provider === 'anthropic') {
      expect(sent.headers['anthropic-beta']).toContain(MCP_CONNECTOR_BETA);
      expect(body.mcp_servers).toEqual([{ type: 'url', url: CONNECTOR_URL, name: 'Tracker', authorization_token: 'tracker-token' }]);
      expect(body.tools).toEqual([
        { type: 'mcp_toolset', mcp_server_name: 'Tracker', default_config: { enabled: false }, configs: { lookup_issue: { enabled: true } } },
      ]);
    } else {
      expect(body.tools).toEqual([
        {
          type: 'mcp',
          server_label: 'Tracker',
          server_url: CONNECTOR_URL,
          allowed_tools: ['lookup_issue'],
          require_approval: 'never',
          authorization: 'tracker-token',
        },
      ]);
    }
  });

  it('never lets the provider call a tool the request does not allow', async () => {
    servers.fake().setReply(() => ({ connectorCalls: [{ server: 'Tracker', name: 'big_log', input: {} }], text: 'Done.' }));
    const result = await (await createProvider(target.settings())).send(ask(target, 'Read the log.'));
    expect(servers.mcp().calls).toEqual([]);
    expect(calls(result.content)).toEqual([]);
  });

  it('keeps a failing call as an error, and sends past calls back as text the next request accepts', async () => {
    servers.fake().setReply(() => ({ connectorCalls: [{ server: 'Tracker', name: 'failing_tool', input: {} }], text: 'It failed.' }));
    const provider = await createProvider(target.settings());
    const first = await provider.send({ ...ask(target, 'Try it.'), mcpConnectors: [{ ...tracker, tools: ['failing_tool'] }] });
    const [failed] = calls(first.content);
    expect(failed).toEqual(expect.objectContaining({ name: 'failing_tool', isError: true }));
    expect(failed!.output).not.toBe('');

    servers.fake().setReply(() => ({ text: 'As I said, it failed.' }));
    const answer = { id: 'a0', conversationId: 'c', role: 'assistant', content: first.content, createdAt: 1, status: 'complete' } as StoredMessage;
    const user = {
      id: 'u',
      conversationId: 'c',
      role: 'user',
      content: [{ type: 'text', text: 'Try it.' }],
      createdAt: 0,
      status: 'complete',
    } as StoredMessage;
    const second = await provider.send({ ...ask(target, 'Why?', [user, answer]), mcpConnectors: [] });
    expect(servers.fake().requests.at(-1)!.validation).toEqual({ ok: true });
    expect(JSON.stringify(servers.fake().requests.at(-1)!.body)).toContain(`called the tool \\"failing_tool\\" of the MCP server \\"Tracker\\"`);
    expect(second.content).toEqual([{ type: 'text', text: 'As I said, it failed.' }]);
  });
});

describe('an approval OpenAI asks for anyway', () => {
  it('is kept as a call that did not run, never approved; a listing that worked is not a call', () => {
    const acc = new ResponsesStreamAccumulator('gpt-5.5');
    const listing = { id: 'mcpl_1', type: 'mcp_list_tools', server_label: 'Tracker', tools: [] };
    const approval = { id: 'mcpr_1', type: 'mcp_approval_request', server_label: 'Tracker', name: 'close_issue', arguments: '{"number":7}' };
    for (const [index, item] of [listing, approval].entries()) {
      acc.apply({ type: 'response.output_item.added', output_index: index, item } as never, {});
      acc.apply({ type: 'response.output_item.done', output_index: index, item } as never, {});
    }
    expect(acc.result().content).toEqual([
      expect.objectContaining({
        type: 'provider_tool',
        provider: 'openai',
        name: 'close_issue',
        input: { number: 7 },
        isError: true,
        output: expect.stringContaining('did not run'),
      }),
    ]);
  });
});
