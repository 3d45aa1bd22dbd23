/**
 * The provider's MCP connector in real Chromium, on both providers: the user sets a server to
 * "The provider" in Settings, and the provider (the fake API) connects to it and calls its tool
 * while it answers; the answer shows the call the provider ran, its server and its result.
 *
 * The app lets the provider connect only to a public https address, and that rule is not bent for
 * the test: the server is added as https://mcp.example.com/mcp. Both sides resolve that name to
 * the test MCP server on 127.0.0.1, as DNS would — the browser through a Playwright route (for
 * Connect, which lists the tools from the page), the fake provider through `connectorHosts`.
 */
import type { Browser, BrowserContext } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { MCP_CONNECTOR_BETA } from '../../src/core';
import { startFakeApi, type FakeApi } from '../fake-api/server';
import { startMcpServer, type McpTestServer } from '../mcp/server';
import { launchBrowser, newPage, screenshot } from './browser';
import { chatRequests, configure, PROVIDER_SETUPS, waitIdle } from './providersHelpers';
import { openApp, openSettingsSection } from './uiHelpers';

const PUBLIC_URL = 'https://mcp.example.com/mcp';
const TOKEN = 'tracker-token';

/** The browser reaches the public name at the test server: each request forwarded as it is, but the standing SSE stream (GET), which this server need not offer. */
async function resolvePublicName(context: BrowserContext, target: string): Promise<void> {
  await context.route(`${PUBLIC_URL}**`, async (route) => {
    if (route.request().method() === 'GET') return route.fulfill({ status: 405, headers: { 'Access-Control-Allow-Origin': '*' } });
    const response = await route.fetch({ url: target });
    await route.fulfill({ response });
  });
}

describe('the provider connects to an MCP server', () => {
  let browser: Browser;
  let fake: FakeApi;
  let mcp: McpTestServer;
  beforeAll(async () => {
    [browser, mcp] = await Promise.all([
      launchBrowser(),
      startMcpServer({ origin: new URL(inject('appUrl')).origin, requireHeader: { name: 'Authorization', value: `Bearer ${TOKEN}` } }),
    ]);
    fake = await startFakeApi({ contextWindow: 200_000, deltaDelayMs: 1, connectorHosts: { [PUBLIC_URL]: mcp.url } });
  });
  afterAll(async () => {
    await Promise.all([browser?.close(), fake?.close(), mcp?.close()]);
  });

  for (const which of ['anthropic', 'openai'] as const) {
    const setup = PROVIDER_SETUPS[which];
    it(`on ${setup.label}: set in Settings, sent with the request, the provider's call shown with its result`, { timeout: 120_000 }, async () => {
      fake.reset();
      mcp.calls.length = 0;
      fake.setReply(({ lastUserText }) =>
        lastUserText ? { connectorCalls: [{ server: 'Tracker', name: 'lookup_issue', input: { number: 7 } }], text: 'Issue 7 is still open.' } : undefined,
      );
      const { page, context } = await newPage(browser);
      try {
        await resolvePublicName(context, mcp.url);
        await openApp(page, inject('appUrl'));
        await configure(page, fake, setup, { contextWindow: 200_000 });

        await page.getByRole('button', { name: 'Settings' }).click();
        const dialog = page.getByRole('dialog', { name: 'Settings' });
        await openSettingsSection(page, 'Tools');
        await dialog.getByLabel('MCP server URL', { exact: true }).fill(PUBLIC_URL);
        await dialog.getByLabel('MCP server name', { exact: true }).fill('Tracker');
        await dialog.getByLabel('Authorization', { exact: true }).selectOption('Bearer token');
        await dialog.getByLabel('Token', { exact: true }).fill(TOKEN);
        await dialog.getByRole('button', { name: 'Add server' }).click();
        await dialog.getByRole('button', { name: 'Connect' }).click();
        const tools = dialog.getByRole('list', { name: 'Tools of Tracker' });
        await tools.getByText('Looks up an issue in the tracker by its number.').waitFor();
        await tools.getByRole('checkbox', { name: 'Always allow lookup_issue', exact: true }).check();
        const who = dialog.getByLabel('Who connects to Tracker', { exact: true });
        await who.selectOption(`The provider (${setup.label})`);
        await dialog.getByText(`${setup.label} connects to Tracker and runs its tools while it answers`).waitFor();
        await screenshot(page, `mcp-connector-settings-${which}`);
        await dialog.getByRole('button', { name: 'Save' }).click();
        await dialog.waitFor({ state: 'hidden' });

        const box = page.getByRole('textbox', { name: 'Message' });
        await box.fill('Is issue 7 still open?');
        await box.press('Enter');
        const answer = page.getByRole('article', { name: 'Assistant message' }).last();
        await answer.getByText('Issue 7 is still open.').waitFor();
        await waitIdle(page);

        const sent = chatRequests(fake).at(-1)!;
        expect(sent.validation).toEqual({ ok: true });
        const body = sent.body as { tools?: Record<string, unknown>[]; mcp_servers?: unknown };
        if (which === 'anthropic') {
          expect(sent.headers['anthropic-beta']).toContain(MCP_CONNECTOR_BETA);
          expect(body.mcp_servers).toEqual([{ type: 'url', url: PUBLIC_URL, name: 'Tracker', authorization_token: TOKEN }]);
          expect(body.tools).toContainEqual(expect.objectContaining({ type: 'mcp_toolset', mcp_server_name: 'Tracker' }));
        } else {
          expect(body.tools).toContainEqual({
            type: 'mcp',
            server_label: 'Tracker',
            server_url: PUBLIC_URL,
            allowed_tools: ['lookup_issue'],
            require_approval: 'never',
            authorization: TOKEN,
          });
        }
        // Not offered to the page's own tool round as well: the provider alone calls it.
        expect(JSON.stringify(body.tools)).not.toContain('mcp_tracker__lookup_issue');
        expect(mcp.calls).toEqual([{ name: 'lookup_issue', args: { number: 7 } }]);

        const call = answer.getByRole('button', { name: /lookup_issue .*run by .* on Tracker/ });
        await expect.poll(() => call.textContent()).toContain(`run by ${setup.label} on Tracker`);
        await call.click();
        await answer.getByText('Issue 7: The login page loads slowly. Status: open.').waitFor();
        await screenshot(page, `mcp-connector-answer-${which}`);
      } finally {
        await context.close();
      }
    });
  }
});
