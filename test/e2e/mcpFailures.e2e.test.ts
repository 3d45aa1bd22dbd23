/**
 * What goes wrong with an MCP server, in real Chromium against real servers (the SDK's server
 * side): a server that goes away mid-loop, one that refuses the page's origin, one that forgets
 * the session, a tool slower than its time limit, Stop during a slow call, and a server that
 * speaks only the older HTTP+SSE transport. Each is said plainly, and no send hangs.
 */
import type { Page } from 'playwright-core';
import { describe, expect, inject, it } from 'vitest';
import type { FakeApi, ReplyContext, ReplyFunction, ReplySpec } from '../fake-api/server';
import { startMcpServer } from '../mcp/server';
import { screenshot } from './browser';
import { addMcpServer, connectMcpServer, mcpWorldFor, onAppPage, send, type McpWorld } from './mcpHelpers';
import { chatRequests, sentMessages, storedRecords, unexpectedErrors, until, waitIdle, type ProviderUnderTest } from './providersHelpers';

const WINDOW = 200_000;
const PAGE_TOOL = 'mcp_tracker__read_doc';

/** The last message a chat request carried (its tool results, in a loop), as JSON text. */
const lastSent = (fake: FakeApi, index: number) => JSON.stringify(sentMessages(chatRequests(fake)[index]!).at(-1));

/**
 * A model that reads handbook pages 1, 2, 3… one call per answer; `before(n)` runs as it asks
 * for page n, and once it has asked for `pages` it answers `final`.
 */
function readPages(pages: number, final: string, before: (n: number) => void = () => undefined) {
  let made = 0;
  return (context: ReplyContext): ReplySpec | undefined => {
    if (context.isSummaryRequest || !context.toolNames.includes(PAGE_TOOL)) return undefined;
    if (made === pages) return { text: final };
    made += 1;
    before(made);
    return { toolCalls: [{ name: PAGE_TOOL, input: { page: made } }] };
  };
}

/**
 * The world's server with its slow tool taking a minute and `reply` as the model: a page of the
 * app that always allows slow_tool (within a time limit of `timeLimitSeconds`, if given) runs `steps`.
 */
async function withSlowTool(world: McpWorld, reply: ReplyFunction, steps: (page: Page) => Promise<void>, timeLimitSeconds?: number): Promise<void> {
  const { fake, mcp } = world;
  mcp.setSlowMs(60_000);
  fake.reset();
  fake.setReply(reply);
  await onAppPage(world, async ({ page }) => {
    await connectMcpServer(page, mcp.url, 'Tracker', { alwaysAllow: ['slow_tool'], ...(timeLimitSeconds === undefined ? {} : { timeLimitSeconds }) });
    await steps(page);
  });
}

/** Opens the row of the tool call named `name` (its button's name) in the transcript and returns the text it shows. */
async function toolRowText(page: Page, name: RegExp): Promise<string> {
  const row = page.getByRole('log', { name: 'Transcript' }).getByRole('button', { name }).last();
  await row.click();
  const panel = page.locator(`[id="${await row.getAttribute('aria-controls')}"]`);
  await panel.waitFor();
  return (await panel.textContent()) ?? '';
}

describe('MCP failures in the browser', () => {
  const world = mcpWorldFor(WINDOW);

  describe.each<ProviderUnderTest>(['anthropic', 'openai'])('a server that goes away mid-loop: %s', (provider) => {
    it('turns the next call into a tool error the model reads, says so, and ends the turn', { timeout: 90_000 }, async () => {
      const { fake } = world;
      const gone = await startMcpServer({ origin: new URL(inject('appUrl')).origin });
      fake.reset();
      // The server goes away as the model asks for page 4, after three calls went through.
      fake.setReply(readPages(4, 'The handbook server is gone; I read pages 1 to 3.', (n) => void (n === 4 && gone.close())));
      try {
        await onAppPage(
          world,
          async ({ page, errors }) => {
            await connectMcpServer(page, gone.url, 'Tracker', { alwaysAllow: ['read_doc'] });
            await send(page, 'Read the handbook.');
            await page.getByText('The handbook server is gone; I read pages 1 to 3.').waitFor({ timeout: 30_000 });
            await waitIdle(page);

            expect(gone.calls.map((call) => call.args)).toEqual([{ page: 1 }, { page: 2 }, { page: 3 }]);
            expect(chatRequests(fake)).toHaveLength(5);
            const stopped = `The MCP server at ${gone.url} stopped answering: it is offline, or the network is down. Check that it runs, then try again.`;
            expect(lastSent(fake, 3)).toContain('Handbook page 3, line 1:');
            expect(lastSent(fake, 4)).toContain(stopped);
            expect(await toolRowText(page, /^mcp_tracker__read_doc \{"page":4\} error$/)).toContain(stopped);
            await screenshot(page, `mcp-server-gone-${provider}`);
            expect(unexpectedErrors(errors)).toEqual([]);
          },
          { provider },
        );
      } finally {
        await gone.close();
      }
    });
  });

  it('says plainly, when Connect is pressed, that a server refused the page’s origin, with the headers to allow', { timeout: 60_000 }, async () => {
    const closed = await startMcpServer({ origin: 'https://somewhere-else.example' });
    try {
      await onAppPage(world, async ({ page }) => {
        const dialog = await addMcpServer(page, closed.url, 'Closed');
        const alert = dialog.getByRole('alert');
        await alert.waitFor();
        const text = await alert.textContent();
        expect(text).toContain(`The MCP server at ${closed.url} did not allow this page's origin, or is offline.`);
        for (const header of ['Access-Control-Allow-Origin', 'Access-Control-Expose-Headers: Mcp-Session-Id', 'Mcp-Protocol-Version', 'Last-Event-ID'])
          expect(text).toContain(header);
        await expect(dialog.getByRole('list', { name: 'Tools of Closed' }).count()).resolves.toBe(0);
        await alert.scrollIntoViewIfNeeded();
        await screenshot(page, 'mcp-cors-refused');
        expect(closed.calls).toEqual([]);
      });
    } finally {
      await closed.close();
    }
  });

  it('connects again when the server forgot the session, and the call goes through unnoticed', { timeout: 60_000 }, async () => {
    const { fake, mcp } = world;
    fake.reset();
    // The server forgets every session as the model asks for page 2.
    fake.setReply(readPages(2, 'Pages 1 and 2 are read.', (n) => n === 2 && mcp.dropSessions()));
    await onAppPage(world, async ({ page, errors }) => {
      await connectMcpServer(page, mcp.url, 'Tracker', { alwaysAllow: ['read_doc'] });
      const callsBefore = mcp.calls.length;
      await send(page, 'Read two pages.');
      await page.getByText('Pages 1 and 2 are read.').waitFor({ timeout: 30_000 });
      await waitIdle(page);
      expect(mcp.calls.slice(callsBefore).map((call) => call.args)).toEqual([{ page: 1 }, { page: 2 }]);
      expect(lastSent(fake, 2)).toContain('Handbook page 2, line 1:');
      expect(lastSent(fake, 2)).not.toContain('"is_error":true');
      // The page opened one session of its own again.
      expect(mcp.sessionCount()).toBe(1);
      await expect(page.getByRole('alert').count()).resolves.toBe(0);
      expect(unexpectedErrors(errors)).toEqual([]);
    });
  });

  it('gives up on a tool slower than the server’s time limit, tells the model, and ends the turn', { timeout: 60_000 }, async () => {
    const { fake, mcp } = world;
    let asked = false;
    const reply = (context: ReplyContext): ReplySpec | undefined => {
      if (!context.toolNames.includes('mcp_tracker__slow_tool')) return undefined;
      if (asked) return { text: 'The slow tool did not finish in time.' };
      asked = true;
      return { toolCalls: [{ name: 'mcp_tracker__slow_tool', input: {} }] };
    };
    await withSlowTool(
      world,
      reply,
      async (page) => {
        await send(page, 'Run the slow tool.');
        await page.getByText('The slow tool did not finish in time.').waitFor({ timeout: 30_000 });
        await waitIdle(page);
        expect(lastSent(fake, 1)).toContain(
          `The MCP server at ${mcp.url} did not answer in time; the tool may still be running there. Try again, or check the server.`,
        );
        expect(lastSent(fake, 1)).toContain('"is_error":true');
      },
      1,
    );
  });

  it('ends the turn at once when Stop is pressed during a slow call', { timeout: 60_000 }, async () => {
    const { fake, mcp } = world;
    const reply = (context: ReplyContext): ReplySpec =>
      context.answersToolResults ? { text: 'Not expected.' } : { toolCalls: [{ name: 'mcp_tracker__slow_tool', input: {} }] };
    await withSlowTool(world, reply, async (page) => {
      const callsBefore = mcp.calls.length;
      await send(page, 'Run the slow tool.');
      await until(() => mcp.calls.length > callsBefore, 'the slow call to reach the server');
      await page.getByRole('button', { name: 'Stop' }).click();
      // Well before the 60 s the tool takes and the 60 s time limit.
      await waitIdle(page, 10_000);
      expect(chatRequests(fake)).toHaveLength(1);
      const results = (await storedRecords(page)).flatMap((message) => message.content).filter((block) => block.type === 'tool_result');
      expect(results).toEqual([
        expect.objectContaining({ is_error: true, content: 'The user pressed Stop, so this tool call did not finish. Wait for the user.' }),
      ]);
    });
  });

  it('connects to a server that speaks only HTTP+SSE, lists its tools and calls one', { timeout: 60_000 }, async () => {
    const { fake } = world;
    const sse = await startMcpServer({ origin: new URL(inject('appUrl')).origin, transport: 'sse' });
    fake.reset();
    fake.setReply((context) =>
      context.answersToolResults ? { text: 'Page 5 is read.' } : { toolCalls: [{ name: 'mcp_legacy__read_doc', input: { page: 5 } }] },
    );
    try {
      await onAppPage(world, async ({ page, errors }) => {
        await connectMcpServer(page, sse.url, 'Legacy', { alwaysAllow: ['read_doc'] });
        await send(page, 'Read page 5.');
        await page.getByText('Page 5 is read.').waitFor({ timeout: 30_000 });
        await waitIdle(page);
        expect(sse.calls).toEqual([{ name: 'read_doc', args: { page: 5 } }]);
        expect(lastSent(fake, 1)).toContain('Handbook page 5, line 1:');
        expect(unexpectedErrors(errors)).toEqual([]);
      });
    } finally {
      await sse.close();
    }
  });
});
