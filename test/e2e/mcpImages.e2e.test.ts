/**
 * An MCP tool's image in real Chromium: the built app, the fake provider API and a real MCP
 * server whose `chart_image` tool returns a PNG. After the user allows the call, the image is
 * checked and kept by the app's image Worker, the next request carries it as an image block
 * of the tool result (Anthropic's tool_result, the Responses API's function_call_output), and
 * the transcript shows it under the call as an image read from storage.
 */
import type { Page } from 'playwright-core';
import { describe, expect, inject, it } from 'vitest';
import { mcpWorldFor } from './mcpHelpers';
import { newPage, screenshot } from './browser';
import { chatRequests, configure, PROVIDER_SETUPS, waitIdle } from './providersHelpers';
import { openApp, openSettingsSection } from './uiHelpers';

const TOOL = 'mcp_tracker__chart_image';
const PNG_SIGNATURE = '89504e470d0a1a0a';

async function addServer(page: Page, url: string): Promise<void> {
  await page.getByRole('button', { name: 'Settings' }).click();
  const dialog = page.getByRole('dialog', { name: 'Settings' });
  await openSettingsSection(page, 'Tools');
  await dialog.getByLabel('MCP server URL', { exact: true }).fill(url);
  await dialog.getByLabel('MCP server name', { exact: true }).fill('Tracker');
  await dialog.getByRole('button', { name: 'Add server' }).click();
  await dialog.getByRole('button', { name: 'Connect' }).click();
  await dialog.getByRole('list', { name: 'Tools of Tracker' }).getByText('Draws a chart as a PNG image.').waitFor();
  await dialog.getByRole('button', { name: 'Save' }).click();
  await dialog.waitFor({ state: 'hidden' });
}

/** The base64 image the request after the call carries in its tool result, in either API's shape. */
function sentImage(provider: 'anthropic' | 'openai', body: Record<string, unknown>): { mediaType: string; data: string } | undefined {
  if (provider === 'anthropic') {
    const messages = body.messages as { content: unknown }[];
    const last = messages.at(-1)!.content as Array<Record<string, unknown>>;
    const result = last.find((block) => block.type === 'tool_result');
    const image = (result?.content as Array<Record<string, unknown>> | undefined)?.find((block) => block.type === 'image');
    const source = image?.source as { type: string; media_type: string; data: string } | undefined;
    return source?.type === 'base64' ? { mediaType: source.media_type, data: source.data } : undefined;
  }
  const input = body.input as Array<Record<string, unknown>>;
  const output = input.find((item) => item.type === 'function_call_output')?.output;
  const part = Array.isArray(output) ? (output as Array<Record<string, unknown>>).find((p) => p.type === 'input_image') : undefined;
  const match = typeof part?.image_url === 'string' ? /^data:([^;]+);base64,(.+)$/.exec(part.image_url) : null;
  return match ? { mediaType: match[1]!, data: match[2]! } : undefined;
}

describe('an MCP tool image in the browser', () => {
  const setup = mcpWorldFor(200_000);

  it.each(['anthropic', 'openai'] as const)(
    '%s: the request after the call carries the image as an image block, and the transcript shows it',
    { timeout: 120_000 },
    async (provider) => {
      const { browser, fake, mcp } = setup;
      fake.reset();
      fake.setReply(({ answersToolResults }) => (answersToolResults ? { text: 'A chart of one pixel.' } : { toolCalls: [{ name: TOOL, input: {} }] }));
      const { page, context } = await newPage(browser);
      try {
        await openApp(page, inject('appUrl'));
        await configure(page, fake, PROVIDER_SETUPS[provider], { contextWindow: 200_000 });
        await addServer(page, mcp.url);

        const box = page.getByRole('textbox', { name: 'Message' });
        await box.fill('Draw the chart.');
        await box.press('Enter');
        const prompt = page.getByRole('alertdialog', { name: 'Run chart_image on the MCP server “Tracker”?' });
        await prompt.getByRole('button', { name: 'Allow', exact: true }).click();
        await waitIdle(page);
        await page.getByText('A chart of one pixel.').waitFor();

        const requests = chatRequests(fake);
        expect(requests).toHaveLength(2);
        // Nothing of the image before the call; after it, the PNG itself, as the API's image block.
        expect(JSON.stringify(requests[0]!.body)).not.toContain('base64');
        const image = sentImage(provider, requests[1]!.body as Record<string, unknown>);
        expect(image?.mediaType).toBe('image/png');
        expect(Buffer.from(image!.data, 'base64').subarray(0, 8).toString('hex')).toBe(PNG_SIGNATURE);

        // Under the call, once opened: the stored image, from a blob: URL, never the server's markup.
        await page.getByRole('button', { name: new RegExp(`^${TOOL}`) }).click();
        const shown = page
          .getByRole('list', { name: 'Images the tool returned', exact: true })
          .getByRole('img', { name: 'chart_image image.png', exact: true });
        await shown.waitFor();
        expect(await shown.getAttribute('src')).toMatch(/^blob:/);
        expect(await shown.evaluate((img: HTMLImageElement) => img.complete && img.naturalWidth)).toBe(1);
        await screenshot(page, `mcp-image-${provider}`);
      } finally {
        await context.close();
      }
    },
  );
});
