/**
 * MCP tools in a turn, through `send` as the composer calls it: the real store on fake
 * IndexedDB, a scripted provider standing in for the model, and the real MCP test server.
 * The request offers the server's tools; a call waits for the user's answer; Allow runs it,
 * Refuse and Stop do not, and the model is told which.
 */
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { IDBFactory } from 'fake-indexeddb';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { ContentBlock, McpServerConfig, StoredMessage, ToolResultBlock } from '../../src/core';
import { openWindowpaneStorage, randomUuid } from '../../src/persistence';
import type { ChatProvider, ChatRequest, ChatResult } from '../../src/providers';
import { createRuntime, type Runtime } from '../../src/store/runtime';
import * as chat from '../../src/store/sendPipeline';
import { hydrate } from '../../src/store/hydrate';
import { DEFAULT_SETTINGS, type Settings } from '../../src/store/settings';
import { trackerServer } from '../mcp/fixtures';
import { startMcpServer, type McpTestServer } from '../mcp/server';

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

function answer(content: ContentBlock[]): ChatResult {
  return {
    content,
    usage: { inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0 },
    usageReported: false,
    stopReason: content.some((b) => b.type === 'tool_use') ? 'tool_use' : 'end_turn',
    model: 'scripted-model',
  };
}

async function start(server: McpServerConfig, toolName = TOOL, input: unknown = { number: 7 }): Promise<{ rt: Runtime; requests: ChatRequest[] }> {
  globalThis.indexedDB = new IDBFactory();
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
  const rt = createRuntime({
    openStorage: () => openWindowpaneStorage(),
    createProvider: async () => fake,
    now: () => Date.now(),
    newId: randomUuid,
    runJavascript: async () => ({ logs: [], truncated: false }),
  });
  await hydrate(rt);
  const settings: Settings = {
    ...DEFAULT_SETTINGS,
    provider: 'anthropic',
    apiKeys: { anthropic: 'sk-test-key-0123456789' },
    models: { anthropic: 'claude-sonnet-4-6' },
    tools: { ...DEFAULT_SETTINGS.tools, mcpServers: [server] },
    mcpSecrets: { 'srv-1': 'unused-token' },
  };
  rt.store.setState({ settings });
  // The MCP chunk loads and offers the server's tools.
  await vi.waitFor(() => expect(rt.store.getState().mcpTools).toHaveLength(2));
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

  it('Stop ends the turn while the server has not yet answered the connection', async () => {
    // A server that takes every request and never answers: connecting would wait for its time limit.
    const held: IncomingMessage[] = [];
    const silent = createServer((req) => void held.push(req));
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    try {
      const { rt } = await start({ ...serverConfig(true), url: `http://127.0.0.1:${(silent.address() as AddressInfo).port}/mcp` });
      chat.send(rt, null, 'Issue 12?');
      await vi.waitFor(() => expect(held.length).toBeGreaterThan(0), { timeout: 5_000 });
      chat.stop(rt, rt.store.getState().activeId!);
      const result = resultOf(await settled(rt));
      expect(result).toMatchObject({ is_error: true, content: expect.stringMatching(/pressed Stop/) });
    } finally {
      silent.closeAllConnections();
      silent.close();
    }
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
