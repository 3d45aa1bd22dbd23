/**
 * An MCP server behind OAuth, in real Chromium on both providers (Anthropic; OpenAI's own
 * Responses API): the built app, the fake provider API and the test MCP server with its own authorization server (the SDK's server side, approving at once).
 * The user adds the server with "OAuth (sign in)" and signs in; the sign-in window goes through
 * the authorization server and back to the app's callback page. A turn calls a tool with the
 * access token; once that token has expired, the next call refreshes it without the user.
 * No token is in an export. Tokens Connect refreshed in Settings are kept though the dialog is
 * cancelled, and Sign out revokes the tokens, at once.
 */
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import type { FakeApi } from '../fake-api/server';
import { newPage, screenshot } from './browser';
import { exportFile } from './persistenceHelpers';
import { addTrackerServer, mcpWorldFor } from './mcpHelpers';
import { chatRequests, sentMessages, until, waitIdle, type ProviderUnderTest } from './providersHelpers';
import { openSettingsSection, sendWithEnter } from './uiHelpers';

const TOOL = 'mcp_tracker__lookup_issue';

/** The text of the tool result the last request to the provider carried. */
const lastToolResult = (fake: FakeApi) => JSON.stringify(sentMessages(chatRequests(fake).at(-1)!).at(-1)?.content);

async function turn(page: Page, text: string): Promise<void> {
  await sendWithEnter(page, text);
  await waitIdle(page);
}

describe.each<ProviderUnderTest>(['anthropic', 'openai'])('an MCP server behind OAuth: %s', (provider) => {
  const world = mcpWorldFor(200_000, { oauth: true });

  it('signs in through a window of its own, calls with the token, refreshes it unasked and never exports it', { timeout: 120_000 }, async () => {
    const { browser, fake, mcp } = world;
    const oauth = mcp.oauth!;
    fake.reset();
    // Each message asks for one issue: the model looks it up, then answers the tool's result.
    fake.setReply(({ answersToolResults, lastUserText }) => {
      if (answersToolResults) return { text: 'Done.' };
      const number = /issue (\d+)/.exec(lastUserText)?.[1];
      return number ? { toolCalls: [{ name: TOOL, input: { number: Number(number) } }] } : { text: 'Done.' };
    });
    const { page, context } = await newPage(browser);
    try {
      const dialog = await addTrackerServer(page, fake, mcp.url, 'OAuth (sign in)', provider);
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
      await screenshot(page, `mcp-oauth-signed-in-${provider}`);
      await tools.getByRole('checkbox', { name: 'Always allow lookup_issue' }).check();
      await dialog.getByRole('button', { name: 'Save' }).click();
      await dialog.waitFor({ state: 'hidden' });

      await turn(page, 'What is issue 7?');
      expect(lastToolResult(fake)).toContain('Issue 7: The login page loads slowly. Status: open.');
      const firstToken = mcp.bearers.at(-1);
      expect(oauth.liveAccessTokens()).toEqual([firstToken]);
      // OpenAI's own API is reached through the Responses API.
      expect(chatRequests(fake).map((request) => request.path.split('/').at(-1))).toEqual(Array(2).fill(provider === 'openai' ? 'responses' : 'messages'));

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

      // Connect in Settings refreshes an expired token (the refresh token is spent); Cancel keeps the new tokens all the same.
      oauth.expireAccessTokens();
      await page.getByRole('button', { name: 'Settings' }).click();
      const again = page.getByRole('dialog', { name: 'Settings' });
      await openSettingsSection(page, 'Tools');
      const connect = again.getByRole('group', { name: 'MCP server Tracker' }).getByRole('button', { name: 'Connect again' });
      await connect.click();
      await until(() => oauth.events.length === 5, 'the refresh by Connect');
      await connect.waitFor();
      expect(oauth.events.at(-1)).toBe('refresh');
      const thirdToken = oauth.liveAccessTokens()[0];
      expect(oauth.liveAccessTokens()).toEqual([thirdToken]);
      await again.getByRole('button', { name: 'Cancel' }).click();
      await turn(page, 'And issue 10?');
      expect(lastToolResult(fake)).toContain('Issue 10: The login page loads slowly. Status: open.');
      expect(oauth.events).toEqual(['register', 'authorize', 'code', 'refresh', 'refresh']);
      expect(mcp.bearers.at(-1)).toBe(thirdToken);

      // Sign out revokes the tokens at the authorization server and forgets them at once: Cancel does not bring them back.
      await page.getByRole('button', { name: 'Settings' }).click();
      await openSettingsSection(page, 'Tools');
      await again.getByRole('group', { name: 'MCP server Tracker' }).getByRole('button', { name: 'Sign out' }).click();
      await again.getByText(`${mcp.url} · OAuth · Not signed in`).waitFor();
      await until(() => oauth.revocations.length === 2, 'the revocation of both tokens');
      expect(oauth.revocations.map((revoked) => revoked.hint)).toEqual(['refresh_token', 'access_token']);
      expect(oauth.revocations[1]!.token).toBe(thirdToken);
      expect(oauth.liveAccessTokens()).toEqual([]);
      await again.getByRole('button', { name: 'Cancel' }).click();
      await page.getByRole('button', { name: 'Settings' }).click();
      await openSettingsSection(page, 'Tools');
      await again.getByText(`${mcp.url} · OAuth · Not signed in`).waitFor();
    } finally {
      await context.close();
    }
  });
});
