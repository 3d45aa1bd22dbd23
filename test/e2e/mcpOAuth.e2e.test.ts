/**
 * An MCP server behind OAuth, in real Chromium: the built app, the fake provider API and the
 * test MCP server with its own authorization server (the SDK's server side, approving at once).
 * The user adds the server with "OAuth (sign in)" and signs in; the sign-in window goes through
 * the authorization server and back to the app's callback page. A turn calls a tool with the
 * access token; once that token has expired, the next call refreshes it without the user.
 * No token is in an export.
 */
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import type { FakeApi } from '../fake-api/server';
import type { McpTestServer } from '../mcp/server';
import { newPage, screenshot } from './browser';
import { exportFile } from './persistenceHelpers';
import { addTrackerServer, startMcpWorld } from './mcpHelpers';
import { chatRequests, waitIdle } from './providersHelpers';
import { sendWithEnter } from './uiHelpers';

const TOOL = 'mcp_tracker__lookup_issue';

/** The text of the tool result the last request to the provider carried. */
const lastToolResult = (fake: FakeApi) => JSON.stringify((chatRequests(fake).at(-1)!.body as { messages: { content: unknown }[] }).messages.at(-1)?.content);

async function turn(page: Page, text: string): Promise<void> {
  await sendWithEnter(page, text);
  await waitIdle(page);
}

describe('an MCP server behind OAuth', () => {
  let browser: Browser;
  let fake: FakeApi;
  let mcp: McpTestServer;
  beforeAll(async () => {
    ({ browser, fake, mcp } = await startMcpWorld(inject('appUrl'), 200_000, { oauth: true }));
  });
  afterAll(async () => {
    await Promise.all([browser?.close(), fake?.close(), mcp?.close()]);
  });

  it('signs in through a window of its own, calls with the token, refreshes it unasked and never exports it', { timeout: 120_000 }, async () => {
    const oauth = mcp.oauth!;
    fake.reset();
    fake.setReply(({ lastUserText }) => {
      const number = /issue (\d+)/.exec(lastUserText ?? '')?.[1];
      return number ? { toolCalls: [{ name: TOOL, input: { number: Number(number) } }] } : { text: 'Done.' };
    });
    const { page, context } = await newPage(browser);
    try {
      const dialog = await addTrackerServer(page, fake, mcp.url, 'OAuth (sign in)');
      const server = dialog.getByRole('group', { name: 'MCP server Tracker' });
      await server.getByText(`${mcp.url} · OAuth · Not signed in`).waitFor();

      // The sign-in window opens at the click, goes to the authorization server, comes back to
      // the app's callback page and closes; the dialog then lists the tools.
      const [popup] = await Promise.all([page.waitForEvent('popup'), server.getByRole('button', { name: 'Sign in', exact: true }).click()]);
      await popup.waitForEvent('close');
      const tools = dialog.getByRole('list', { name: 'Tools of Tracker' });
      await tools.getByText('Looks up an issue in the tracker by its number.').waitFor();
      await server.getByText(`${mcp.url} · OAuth · Signed in`).waitFor();
      expect(oauth.events).toEqual(['register', 'authorize', 'code']);
      await screenshot(page, 'mcp-oauth-signed-in');
      await tools.getByRole('checkbox', { name: 'Always allow lookup_issue' }).check();
      await dialog.getByRole('button', { name: 'Save' }).click();
      await dialog.waitFor({ state: 'hidden' });

      await turn(page, 'What is issue 7?');
      expect(lastToolResult(fake)).toContain('Issue 7: The login page loads slowly. Status: open.');
      const firstToken = mcp.bearers.at(-1);
      expect(oauth.liveAccessTokens()).toEqual([firstToken]);

      // The access token expires: the next call refreshes it, with no window and no question.
      oauth.expireAccessTokens();
      await turn(page, 'And issue 8?');
      expect(lastToolResult(fake)).toContain('Issue 8: The login page loads slowly. Status: open.');
      expect(oauth.events).toEqual(['register', 'authorize', 'code', 'refresh']);
      const secondToken = mcp.bearers.at(-1);
      expect(secondToken).not.toBe(firstToken);
      expect(oauth.liveAccessTokens()).toEqual([secondToken]);
      expect(context.pages()).toHaveLength(1);

      // The refreshed tokens were kept: after a reload the call goes through without a sign-in or a refresh.
      await page.reload();
      await page.getByRole('textbox', { name: 'Message' }).waitFor();
      await turn(page, 'And issue 9?');
      expect(lastToolResult(fake)).toContain('Issue 9: The login page loads slowly. Status: open.');
      expect(oauth.events).toEqual(['register', 'authorize', 'code', 'refresh']);
      expect(mcp.bearers.at(-1)).toBe(secondToken);

      for (const item of ['All conversations (JSON)', 'All conversations (Markdown)']) {
        const exported = (await exportFile(page, item)).text;
        expect(exported).toContain('What is issue 7?');
        for (const token of oauth.issuedTokens()) expect(exported).not.toContain(token);
      }
    } finally {
      await context.close();
    }
  });
});
