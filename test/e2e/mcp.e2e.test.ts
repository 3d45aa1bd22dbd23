/**
 * MCP tools in real Chromium: the built app, the fake provider API and a real MCP server
 * (the SDK's server side, CORS for the app's origin), configured in Settings as a user would.
 * The model calls the server's tool; the call waits for the user's Allow or Refuse.
 */
import { describe, expect, inject, it } from 'vitest';
import { newPage, screenshot } from './browser';
import { chatRequests, configure, PROVIDER_SETUPS, until, waitIdle } from './providersHelpers';
import { mcpWorldFor, send } from './mcpHelpers';
import { openApp, openSettingsSection } from './uiHelpers';

const TOOL = 'mcp_tracker__lookup_issue';

describe('MCP tools in the browser', () => {
  const world = mcpWorldFor(200_000);

  it('configures the server in Settings, asks before the call, sends the result after Allow and says Refuse', { timeout: 120_000 }, async () => {
    const { browser, fake, mcp } = world;
    fake.reset();
    // Each message calls the tool once; the request carrying its result (or its refusal) is answered.
    fake.setReply(({ answersToolResults }) => (answersToolResults ? { text: 'Done.' } : { toolCalls: [{ name: TOOL, input: { number: 7 } }] }));
    const { page, context } = await newPage(browser);
    try {
      await openApp(page, inject('appUrl'));
      await configure(page, fake, PROVIDER_SETUPS.anthropic, { contextWindow: 200_000 });

      await page.getByRole('button', { name: 'Settings' }).click();
      const dialog = page.getByRole('dialog', { name: 'Settings' });
      await openSettingsSection(page, 'Tools');
      await dialog.getByLabel('MCP server URL', { exact: true }).fill(mcp.url);
      await dialog.getByLabel('MCP server name', { exact: true }).fill('Tracker');
      await dialog.getByRole('button', { name: 'Add server' }).click();
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
