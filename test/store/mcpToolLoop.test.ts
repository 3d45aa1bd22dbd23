/**
 * MCP tools in a turn, through `send` as the composer calls it: the real store on fake
 * IndexedDB, a scripted provider standing in for the model, and the real MCP test server.
 * The request offers the server's tools; a call waits for the user's answer; Allow runs it,
 * Refuse and Stop do not, and the model is told which.
 */
import { Blob as NodeBlob } from 'node:buffer';
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { McpServerConfig, StoredMessage, ToolResultBlock } from '../../src/core';
import type { ChatProvider, ChatRequest } from '../../src/providers';
import type { Runtime } from '../../src/store/runtime';
import * as chat from '../../src/store/sendPipeline';
import { listMcpServerTools } from '../../src/store/mcp/mcpSettings';
import { trackerServer } from '../mcp/fixtures';
import { startMcpServer, TINY_PNG_BASE64, type McpTestServer } from '../mcp/server';
import { answer, mcpRuntime, type RuntimeDeps } from './mcpRuntime';

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

async function start(
  server: McpServerConfig,
  toolName = TOOL,
  input: unknown = { number: 7 },
  offered = 2,
  deps: Partial<RuntimeDeps> = {},
): Promise<{ rt: Runtime; requests: ChatRequest[] }> {
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
  const rt = await mcpRuntime(fake, server, { 'srv-1': 'unused-token' }, offered, deps);
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
    expect(requests[0]!.tools!.find((tool) => tool.name === TOOL)?.description).toBe('Tool "lookup_issue" of the MCP server "Tracker". Looks up an issue.');
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
    // The definitions open every request: Always allow leaves them as they were, so the prompt cache still holds.
    expect(second.requests).toHaveLength(2);
    expect(second.requests[1]!.tools).toEqual(second.requests[0]!.tools);
  });

  it('lists the tools again when the server says they changed, offers the new list and says what changed', async () => {
    // A server of its own: it tells only this test's connection that its tools changed.
    const own = await startMcpServer();
    try {
      // The tools as Connect in Settings lists them, with the user's switches.
      const config = { ...serverConfig(), url: own.url };
      // A server without authorization: the listing reads nothing of a runtime.
      const listing = await listMcpServerTools({} as Runtime, config, undefined);
      if (!listing.ok) throw new Error(listing.error);
      const tools = listing.tools.map((tool) => ({ ...tool, enabled: tool.name !== 'failing_tool', alwaysAllow: tool.name === 'lookup_issue' }));
      await vi.waitFor(() => expect(own.notificationStreams()).toBe(0));
      const { rt, requests } = await start({ ...config, tools }, TOOL, { number: 7 }, tools.length - 1);
      chat.send(rt, null, 'Issue 12?');
      await settled(rt);
      expect(requests[0]!.tools!.map((tool) => tool.name)).not.toContain('mcp_tracker__triage');
      // The connection the call opened listens for the server's notifications.
      await vi.waitFor(() => expect(own.notificationStreams()).toBe(1));
      own.addTool('triage', 'Sorts new issues.');
      await vi.waitFor(() => expect(rt.store.getState().mcpTools?.definitions.map((tool) => tool.name)).toContain('mcp_tracker__triage'), { timeout: 5_000 });
      const stored = rt.store.getState().settings.tools.mcpServers[0] as McpServerConfig;
      expect(stored.tools.find((tool) => tool.name === 'triage')).toMatchObject({ description: 'Sorts new issues.', enabled: true, alwaysAllow: false });
      // The user's switches on the tools listed before are kept.
      expect(stored.tools.find((tool) => tool.name === 'lookup_issue')?.alwaysAllow).toBe(true);
      expect(stored.tools.find((tool) => tool.name === 'failing_tool')?.enabled).toBe(false);
      expect(rt.store.getState().notices.map((notice) => notice.text)).toContainEqual(expect.stringMatching(/^The MCP server “Tracker” added “triage”/));

      chat.send(rt, null, 'And now?');
      await settled(rt);
      expect(requests.at(-1)!.tools!.map((tool) => tool.name)).toContain('mcp_tracker__triage');
    } finally {
      await own.close();
    }
  });

  describe('a tool that returns an image', () => {
    const CHART = 'mcp_tracker__chart_image';
    const withChart = (): McpServerConfig => {
      const server = serverConfig(true);
      return {
        ...server,
        tools: [...server.tools, { name: 'chart_image', description: 'Draws.', inputSchema: { type: 'object' }, enabled: true, alwaysAllow: true }],
      };
    };

    it('keeps the image as a file of the conversation and sends it in the tool result', async () => {
      // The browser's image Worker, which Node lacks, stands in as what it returns for a 1×1 PNG: its bytes, as a Blob IndexedDB keeps.
      const prepareImage = async (file: File) => ({
        ok: true as const,
        blob: new NodeBlob([await file.arrayBuffer()], { type: file.type }) as unknown as Blob,
        mediaType: file.type,
        width: 1,
        height: 1,
      });
      const { rt, requests } = await start(withChart(), CHART, {}, 3, { prepareImage });
      chat.send(rt, null, 'Draw the chart.');
      const result = resultOf(await settled(rt));
      expect(result).toMatchObject({ type: 'tool_result', tool_use_id: 'toolu_1', content: '' });
      const [image] = result!.images!;
      expect(image).toMatchObject({ type: 'image', name: 'chart_image image.png', mediaType: 'image/png', width: 1, height: 1, bytes: 70 });
      const file = await rt.repositories.files.getFile(image!.fileId);
      expect(file).toMatchObject({ conversationId: rt.store.getState().activeId, mediaType: 'image/png', bytes: 70 });
      expect(Buffer.from(await file!.blob.arrayBuffer()).toString('base64')).toBe(TINY_PNG_BASE64);
      const sent = requests[1]!.messages.at(-1)!.content as Array<Record<string, unknown>>;
      expect(sent[0]).toEqual({
        type: 'tool_result',
        tool_use_id: 'toolu_1',
        content: [{ type: 'image', source: { type: 'base64', media_type: 'image/png', data: TINY_PNG_BASE64 } }],
      });
    });

    it('says so in the result when the image cannot be read, and sends no image', async () => {
      const prepareImage = async () => ({ ok: false as const, reason: 'the image could not be decoded.' });
      const { rt, requests } = await start(withChart(), CHART, {}, 3, { prepareImage });
      chat.send(rt, null, 'Draw the chart.');
      const result = resultOf(await settled(rt));
      expect(result).toEqual({
        type: 'tool_result',
        tool_use_id: 'toolu_1',
        content: '[image/png, 70 bytes, not shown to the model: chart_image image.png could not be added: the image could not be decoded.]',
      });
      expect(JSON.stringify(requests[1]!.messages)).not.toContain(TINY_PNG_BASE64);
    });
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
