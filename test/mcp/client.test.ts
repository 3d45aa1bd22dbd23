// @vitest-environment node
// The MCP client against the real test server (the SDK's server side on a free port).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectMcp, type McpConnection } from '../../src/mcp/client';
import { failureOf } from './failureOf';
import { startMcpServer, TINY_PNG_BASE64, type McpTestServer } from './server';

let mcp: McpTestServer;
const open: McpConnection[] = [];

beforeAll(async () => {
  mcp = await startMcpServer({ slowMs: 1_500 });
});
afterAll(async () => {
  await Promise.all(open.map((connection) => connection.close()));
  await mcp.close();
});

async function connect(url = mcp.url, headers: Record<string, string> = {}, onToolsChanged?: () => void): Promise<McpConnection> {
  const connection = await connectMcp({ url, headers }, onToolsChanged ? { onToolsChanged } : {});
  open.push(connection);
  return connection;
}

const call = (connection: McpConnection, name: string, args: Record<string, unknown> = {}, timeoutMs = 5_000, signal = new AbortController().signal) =>
  connection.callTool(name, args, { signal, timeoutMs });

describe('the MCP client', () => {
  it('lists the server’s tools with their descriptions and input schemas', async () => {
    const tools = await (await connect()).listTools();
    expect(tools.map((tool) => tool.name)).toEqual(['lookup_issue', 'chart_image', 'big_log', 'failing_tool', 'slow_tool', 'read_doc']);
    expect(tools[0]).toMatchObject({
      description: 'Looks up an issue in the tracker by its number.',
      inputSchema: { type: 'object', properties: { number: { type: 'integer', description: 'The issue number' } }, required: ['number'] },
    });
  });

  it('calls tools and returns what the server answered: text, an image, an error, a large text', async () => {
    const connection = await connect();
    expect(await call(connection, 'lookup_issue', { number: 7 })).toMatchObject({
      content: [{ type: 'text', text: 'Issue 7: The login page loads slowly. Status: open.' }],
    });
    expect(await call(connection, 'chart_image')).toMatchObject({ content: [{ type: 'image', data: TINY_PNG_BASE64, mimeType: 'image/png' }] });
    expect(await call(connection, 'failing_tool')).toMatchObject({ isError: true, content: [{ type: 'text', text: 'The database is locked.' }] });
    const big = (await call(connection, 'big_log')) as { content: { text: string }[] };
    expect(big.content[0]?.text).toHaveLength(300_000);
    expect(mcp.calls.slice(-4).map((c) => c.name)).toEqual(['lookup_issue', 'chart_image', 'failing_tool', 'big_log']);
  });

  it('gives up on a slow tool after the timeout, and stops when the turn is stopped', async () => {
    const connection = await connect();
    const timedOut = await failureOf(call(connection, 'slow_tool', {}, 200));
    expect(timedOut.kind).toBe('timeout');
    expect(timedOut.message).toBe(`The MCP server at ${mcp.url} did not answer in time; the tool may still be running there. Try again, or check the server.`);
    const stop = new AbortController();
    const stopped = failureOf(call(connection, 'slow_tool', {}, 5_000, stop.signal));
    setTimeout(() => stop.abort(), 100);
    expect((await stopped).kind).toBe('stopped');
  });

  it('connects again once when the server forgot the session, and the call goes through', async () => {
    const connection = await connect();
    await call(connection, 'lookup_issue', { number: 1 });
    mcp.dropSessions();
    expect(mcp.sessionCount()).toBe(0);
    expect(await call(connection, 'lookup_issue', { number: 2 })).toMatchObject({ content: [{ text: 'Issue 2: The login page loads slowly. Status: open.' }] });
    // The one new session is this connection's: the others stay without one until they call.
    expect(mcp.sessionCount()).toBe(1);
  });

  it('hears that the tool list changed and lists the new tool', async () => {
    let changed = 0;
    const connection = await connect(mcp.url, {}, () => changed++);
    await connection.listTools();
    await new Promise((resolve) => setTimeout(resolve, 200)); // the notification stream opens after initialize
    mcp.addTool('extra_tool');
    await expect.poll(() => changed, { timeout: 3_000 }).toBeGreaterThan(0);
    expect((await connection.listTools()).map((tool) => tool.name)).toContain('extra_tool');
  });

  it('says plainly when the server cannot be reached', async () => {
    const gone = await startMcpServer();
    const url = gone.url;
    await gone.close();
    const failure = await failureOf(connectMcp({ url, headers: {} }));
    expect(failure.kind).toBe('unreachable');
    expect(failure.message).toBe(
      `The MCP server at ${url} did not allow this page's origin, or is offline. It needs these CORS headers: ` +
        'Access-Control-Allow-Origin: <this page’s origin>; Access-Control-Expose-Headers: Mcp-Session-Id; ' +
        'Access-Control-Allow-Headers: Content-Type, Mcp-Protocol-Version, Mcp-Session-Id, Authorization, Last-Event-ID.',
    );
  });
});

describe('the MCP client and a server that goes away', () => {
  it('says plainly that a server it was connected to stopped answering', async () => {
    const gone = await startMcpServer();
    const connection = await connect(gone.url);
    await call(connection, 'lookup_issue', { number: 5 });
    await gone.close();
    const failure = await failureOf(call(connection, 'lookup_issue', { number: 6 }));
    expect(failure.kind).toBe('unreachable');
    expect(failure.message).toBe(`The MCP server at ${gone.url} stopped answering: it is offline, or the network is down. Check that it runs, then try again.`);
  });
});

describe('the MCP client and a server that speaks only HTTP+SSE', () => {
  let sse: McpTestServer;
  beforeAll(async () => {
    sse = await startMcpServer({ transport: 'sse' });
  });
  afterAll(() => sse.close());

  it('falls back to HTTP+SSE when Streamable HTTP is refused, lists the tools and calls one', async () => {
    const connection = await connect(sse.url);
    expect((await connection.listTools()).map((tool) => tool.name)).toContain('lookup_issue');
    expect(await call(connection, 'lookup_issue', { number: 4 })).toMatchObject({ content: [{ text: 'Issue 4: The login page loads slowly. Status: open.' }] });
    expect(sse.calls).toEqual([{ name: 'lookup_issue', args: { number: 4 } }]);
    expect(sse.sessionCount()).toBe(1);
  });
});

describe('the MCP client with authorization', () => {
  let secured: McpTestServer;
  beforeAll(async () => {
    secured = await startMcpServer({ requireHeader: { name: 'Authorization', value: 'Bearer s3cret' } });
  });
  afterAll(() => secured.close());

  it('sends the bearer token with every request', async () => {
    const connection = await connect(secured.url, { Authorization: 'Bearer s3cret' });
    expect(await call(connection, 'lookup_issue', { number: 3 })).toMatchObject({ content: [{ text: 'Issue 3: The login page loads slowly. Status: open.' }] });
  });

  it('says the token was refused, and where to change it', async () => {
    const failure = await failureOf(connectMcp({ url: secured.url, headers: { Authorization: 'Bearer wrong' } }));
    expect(failure.kind).toBe('unauthorized');
    expect(failure.message).toBe(`The MCP server at ${secured.url} refused the request (HTTP 401): check its token or header in Settings → Tools.`);
  });
});
