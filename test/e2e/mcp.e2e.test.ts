/**
 * MCP tools in real Chromium: the built app, the fake provider API and a real MCP server
 * (the SDK's server side, CORS for the app's origin), configured in Settings as a user would.
 * The model calls the server's tool; the call waits for the user's Allow or Refuse.
 */
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FakeApi } from '../fake-api/server';
import type { McpTestServer } from '../mcp/server';
import { newPage, screenshot } from './browser';
import { addTrackerServer, startMcpTestbed } from './mcpHelpers';
import { chatRequests, until, waitIdle } from './providersHelpers';
import type { Page } from 'playwright-core';

const TOOL = 'mcp_tracker__lookup_issue';

/** Sends a message without waiting for the turn: it stops at the prompt until the user answers. */
async function send(page: Page, text: string): Promise<void> {
  const box = page.getByRole('textbox', { name: 'Message' });
  await box.fill(text);
  await box.press('Enter');
}

describe('MCP tools in the browser', () => {
  let browser: Browser;
  let fake: FakeApi;
  let mcp: McpTestServer;
  beforeAll(async () => {
    [browser, fake, mcp] = await startMcpTestbed();
  });
  afterAll(async () => {
    await Promise.all([browser?.close(), fake?.close(), mcp?.close()]);
  });

  it('configures the server in Settings, asks before the call, sends the result after Allow and says Refuse', { timeout: 120_000 }, async () => {
    fake.reset();
    fake.setReply(({ lastUserText }) => (lastUserText ? { toolCalls: [{ name: TOOL, input: { number: 7 } }] } : { text: 'Done.' }));
    const { page, context } = await newPage(browser);
    try {
      const dialog = await addTrackerServer(page, fake, mcp.url);
      await dialog.getByRole('button', { name: 'Connect' }).click();
      const tools = dialog.getByRole('list', { name: 'Tools of Tracker' });
      await tools.getByText('Looks up an issue in the tracker by its number.').waitFor();
      await screenshot(page, 'mcp-settings');
      await dialog.getByRole('button', { name: 'Save' }).click();
      await dialog.waitFor({ state: 'hidden' });

      await send(page, 'What is issue 7?');
      const prompt = page.getByRole('alertdialog', { name: 'Run lookup_issue on the MCP server “Tracker”?' });
      await prompt.waitFor();
      await prompt.getByText('"number": 7').waitFor();
      await screenshot(page, 'mcp-approval');
      await prompt.getByRole('button', { name: 'Allow', exact: true }).click();
      await waitIdle(page);
      const afterAllow = chatRequests(fake).at(-1)!.body as { messages: { content: unknown }[] };
      expect(JSON.stringify(afterAllow.messages.at(-1)?.content)).toContain('Issue 7: The login page loads slowly. Status: open.');
      expect(mcp.calls.at(-1)).toEqual({ name: 'lookup_issue', args: { number: 7 } });

      const callsBefore = mcp.calls.length;
      await send(page, 'And again?');
      await prompt.waitFor();
      await prompt.getByRole('button', { name: 'Refuse' }).click();
      await waitIdle(page);
      await until(() => chatRequests(fake).length >= 4, 'the request after Refuse');
      const afterRefuse = chatRequests(fake).at(-1)!.body as { messages: { content: unknown }[] };
      expect(JSON.stringify(afterRefuse.messages.at(-1)?.content)).toContain('The user refused to run this tool call.');
      expect(mcp.calls.length).toBe(callsBefore);
    } finally {
      await context.close();
    }
  });
});
