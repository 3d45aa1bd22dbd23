/**
 * MCP tools in a turn, through `send` as the composer calls it: the real store on fake
 * IndexedDB, a scripted provider standing in for the model, and the real MCP test server.
 * The request offers the server's tools; a call waits for the user's answer; Allow runs it,
 * Refuse and Stop do not, and the model is told which.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { McpServerConfig, StoredMessage, ToolResultBlock } from '../../src/core';
import type { ChatProvider, ChatRequest } from '../../src/providers';
import type { Runtime } from '../../src/store/runtime';
import * as chat from '../../src/store/sendPipeline';
import { trackerServer } from '../mcp/fixtures';
import { startMcpServer, type McpTestServer } from '../mcp/server';
import { answer, mcpRuntime } from './mcpRuntime';

let mcp: McpTestServer;
beforeAll(async () => {
  mcp = await startMcpServer({ slowMs: 10_000 });
});
afterAll(() => mcp.close());

const TOOL = 'mcp_tracker__lookup_issue';

function serverConfig(alwaysAllow = false): McpServerConfig {
  const tracker = trackerServer(mcp.url, alwaysAllow);
  return {
    ...tracker,
    tools: [
      ...tracker.tools,
      { name: 'slow_tool', description: 'Slow.', inputSchema: { type: 'object' }, enabled: true, alwaysAllow: false },
      { name: 'failing_tool', description: 'Fails.', inputSchema: { type: 'object' }, enabled: false, alwaysAllow: false },
    ],
  };
}

async function start(server: McpServerConfig, toolName = TOOL, input: unknown = { number: 7 }): Promise<{ rt: Runtime; requests: ChatRequest[] }> {
  const requests: ChatRequest[] = [];
  const fake: ChatProvider = {
    id: 'anthropic',
    wireShape: 'anthropic',
    async send(request) {
      requests.push({ ...request, messages: structuredClone(request.messages) as ChatRequest['messages'] });
      return requests.length === 1 ? answer([{ type: 'tool_use', id: 'toolu_1', name: toolName, input }]) : answer([{ type: 'text', text: 'Done.' }]);
    },
    async complete() {
      return '';
    },
  };
  const rt = await mcpRuntime(fake, server, { 'srv-1': 'unused-token' }, 2);
  return { rt, requests };
}

async function settled(rt: Runtime): Promise<StoredMessage[]> {
  await vi.waitFor(() => expect(rt.store.getState().sendingId).toBeNull(), { timeout: 8_000 });
  const id = rt.store.getState().activeId!;
  return rt.store.getState().messages[id] ?? [];
}

const resultOf = (messages: StoredMessage[]) => messages.flatMap((m) => m.content).find((b): b is ToolResultBlock => b.type === 'tool_result');

describe('MCP tools in a turn', () => {
  it('offers the enabled tools, shows the call, and runs it once the user allows it', async () => {
    const { rt, requests } = await start(serverConfig());
    expect(chat.send(rt, null, 'What is issue 7?')).toBe(true);
    await vi.waitFor(() => expect(rt.store.getState().mcpApproval).toBeTruthy(), { timeout: 5_000 });
    expect(rt.store.getState().mcpApproval).toMatchObject({ serverId: 'srv-1', server: 'Tracker', tool: 'lookup_issue', args: '{\n  "number": 7\n}' });
    const offered = requests[0]!.tools!.map((tool) => tool.name);
    expect(offered).toEqual(expect.arrayContaining([TOOL, 'mcp_tracker__slow_tool']));
    expect(offered).not.toContain('mcp_tracker__failing_tool');
    expect(requests[0]!.tools!.find((tool) => tool.name === TOOL)?.description).toBe(
      'Tool "lookup_issue" of the MCP server "Tracker" (runs only if the user allows it). Looks up an issue.',
    );
    const callsBefore = mcp.calls.length;
    rt.store.getState().mcpApproval!.answer('allow');
    const messages = await settled(rt);
    expect(rt.store.getState().mcpApproval).toBeFalsy();
    expect(resultOf(messages)).toEqual({ type: 'tool_result', tool_use_id: 'toolu_1', content: 'Issue 7: The login page loads slowly. Status: open.' });
    expect(mcp.calls.slice(callsBefore)).toEqual([{ name: 'lookup_issue', args: { number: 7 } }]);
    expect(requests).toHaveLength(2);
  });

  it('tells the model the user refused, and runs nothing', async () => {
    const { rt } = await start(serverConfig());
    const callsBefore = mcp.calls.length;
    chat.send(rt, null, 'What is issue 8?');
    await vi.waitFor(() => expect(rt.store.getState().mcpApproval).toBeTruthy(), { timeout: 5_000 });
    rt.store.getState().mcpApproval!.answer('refuse');
    const result = resultOf(await settled(rt));
    expect(result).toMatchObject({ is_error: true, content: expect.stringMatching(/^The user refused to run this tool call/) });
    expect(mcp.calls.length).toBe(callsBefore);
  });

  it('Stop cancels a call waiting for the user', async () => {
    const { rt } = await start(serverConfig());
    chat.send(rt, null, 'What is issue 9?');
    await vi.waitFor(() => expect(rt.store.getState().mcpApproval).toBeTruthy(), { timeout: 5_000 });
    chat.stop(rt, rt.store.getState().activeId!);
    const result = resultOf(await settled(rt));
    expect(result).toMatchObject({ is_error: true, content: expect.stringMatching(/pressed Stop/) });
    expect(rt.store.getState().mcpApproval).toBeFalsy();
  });

  it('runs an always-allowed tool without asking; Always allow is saved on the tool', async () => {
    const { rt } = await start(serverConfig(true));
    chat.send(rt, null, 'Issue 10?');
    const result = resultOf(await settled(rt));
    expect(result?.content).toBe('Issue 7: The login page loads slowly. Status: open.');

    const second = await start(serverConfig());
    chat.send(second.rt, null, 'Issue 7 again');
    await vi.waitFor(() => expect(second.rt.store.getState().mcpApproval).toBeTruthy(), { timeout: 5_000 });
    second.rt.store.getState().mcpApproval!.answer('always');
    await settled(second.rt);
    const stored = second.rt.store.getState().settings.tools.mcpServers[0] as McpServerConfig;
    expect(stored.tools.find((tool) => tool.name === 'lookup_issue')?.alwaysAllow).toBe(true);
  });

  it('says the server is unreachable as a tool error, and the turn goes on', async () => {
    const { rt } = await start({ ...serverConfig(true), url: 'http://127.0.0.1:9/mcp' });
    chat.send(rt, null, 'Issue 11?');
    const result = resultOf(await settled(rt));
    expect(result).toMatchObject({
      is_error: true,
      content: expect.stringMatching(/^The MCP server at http:\/\/127\.0\.0\.1:9\/mcp did not allow this page's origin, or is offline/),
    });
  });
});
