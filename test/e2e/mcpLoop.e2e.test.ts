/**
 * A long loop over MCP tools in real Chromium, on both providers (Anthropic; OpenAI's own
 * Responses API): the model calls a real MCP server's tools 20 times in one turn on a window
 * the loop outgrows. The first call (a large result, cut with a note) waits for the user's
 * Allow; the others are always allowed, so the loop runs unattended. The fake enforces the
 * window: every request must be accepted the first time. A refusal at the prompt is told to
 * the model, on both providers too.
 */
import { describe, expect, it } from 'vitest';
import type { ReplyContext, ReplySpec } from '../fake-api/server';
import { screenshot } from './browser';
import { connectMcpServer, mcpWorldFor, onAppPage, send } from './mcpHelpers';
import { chatRequests, expectAllAcceptedAndFitting, sentMessages, unexpectedErrors, waitIdle, type ProviderUnderTest } from './providersHelpers';
import { chooseStrategyAndRounds } from './toolLoopHelpers';

/**
 * The large result is cut to a tenth of what a request may hold here (about 1,100 tokens) and
 * each page is about 500: the 20 results come to about 10,600 tokens, past where `auto` trims
 * on this window (80% of the 11,000 it leaves beside the answer's reserve). The large result is
 * the oldest then, and no longer among the newest three that stay whole: clearing it makes room.
 */
const WINDOW = 12_000;
const CALLS = 20;
const FINAL = 'I read the log and all 19 handbook pages.';
const BIG = 'mcp_tracker__big_log';
const PAGE = 'mcp_tracker__read_doc';

/** The first call reads the whole log, the others one handbook page each (pages 2 to 20). */
function mcpTask() {
  let made = 0;
  return (context: ReplyContext): ReplySpec | undefined => {
    if (context.isSummaryRequest || !context.toolNames.includes(PAGE)) return undefined;
    if (made === CALLS) return { text: FINAL };
    made += 1;
    return made === 1 ? { text: 'First the log.', toolCalls: [{ name: BIG, input: {} }] } : { toolCalls: [{ name: PAGE, input: { page: made } }] };
  };
}

describe.each<ProviderUnderTest>(['anthropic', 'openai'])('a loop of 20 MCP calls on a small window: %s', (provider) => {
  const world = mcpWorldFor(WINDOW);

  it('asks once, runs the other calls unattended, clears old results for space, and ends the turn', { timeout: 180_000 }, async () => {
    const { fake, mcp } = world;
    fake.setReply(mcpTask());
    await onAppPage(
      world,
      async ({ page, errors }) => {
        await chooseStrategyAndRounds(page, 'auto', {}, 25);
        await connectMcpServer(page, mcp.url, 'Tracker', { alwaysAllow: ['read_doc'] });

        await send(page, 'Read the server log, then the handbook from page 2 to page 20.');
        const prompt = page.getByRole('alertdialog', { name: 'Run big_log on the MCP server “Tracker”?' });
        await prompt.waitFor();
        await prompt.getByRole('button', { name: 'Allow', exact: true }).click();
        await page.getByText(FINAL).waitFor({ timeout: 120_000 });
        await waitIdle(page);
        await screenshot(page, `mcp-loop-${provider}`);

        // Every call reached the server once, in order; the prompt was shown for the first only.
        expect(mcp.calls).toEqual([
          { name: 'big_log', args: {} },
          ...Array.from({ length: CALLS - 1 }, (_, i) => ({ name: 'read_doc', args: { page: i + 2 } })),
        ]);
        // One request per call and one for the final answer, each accepted the first time within the window.
        const requests = chatRequests(fake);
        expect(requests).toHaveLength(CALLS + 1);
        expectAllAcceptedAndFitting(requests, WINDOW);

        // Each result reached the model in the request after its call: the log cut with a note.
        const lastSent = requests.map((request) => JSON.stringify(sentMessages(request).at(-1)));
        expect(lastSent[1]).toMatch(/\[The result was cut: [\d,]+ of its 300,000 characters were left out\.\]/);
        for (let n = 2; n <= CALLS; n++) expect(lastSent[n], `the result of call ${n}`).toContain(`Handbook page ${n}, line 1:`);
        for (const sent of lastSent.slice(1)) expect(sent).not.toContain('"is_error":true');

        // The loop outgrew the window: the oldest result (the log) was sent as a placeholder, and no message was left out.
        const whole = requests.map((request) => JSON.stringify(request.body));
        const cleared = whole.map((text) => text.includes('[tool result cleared to save context: '));
        expect(cleared.filter(Boolean).length).toBeGreaterThan(0);
        expect(cleared.at(-1)).toBe(true);
        expect(whole.at(-1)).not.toContain('INFO request served in 12 ms');
        const sizes = requests.map((request) => sentMessages(request).length);
        expect(sizes.slice(1)).toEqual(sizes.slice(0, -1).map((size) => size + 2));

        await expect(page.getByRole('alertdialog').count()).resolves.toBe(0);
        expect(unexpectedErrors(errors)).toEqual([]);
      },
      { provider, maxOutputTokens: 1000 },
    );
  });
  it('shows the approval prompt, and a refusal runs nothing and is told to the model', { timeout: 90_000 }, async () => {
    const { fake, mcp } = world;
    fake.reset();
    fake.setReply((context) =>
      context.answersToolResults ? { text: 'Understood, I will not read it.' } : { toolCalls: [{ name: PAGE, input: { page: 9 } }] },
    );
    await onAppPage(
      world,
      async ({ page, errors }) => {
        await connectMcpServer(page, mcp.url, 'Tracker');
        const callsBefore = mcp.calls.length;
        await send(page, 'Read handbook page 9.');
        const prompt = page.getByRole('alertdialog', { name: 'Run read_doc on the MCP server “Tracker”?' });
        await prompt.getByText('"page": 9').waitFor();
        await prompt.getByRole('button', { name: 'Refuse' }).click();
        await page.getByText('Understood, I will not read it.').waitFor();
        await waitIdle(page);
        const requests = chatRequests(fake);
        expect(requests).toHaveLength(2);
        expectAllAcceptedAndFitting(requests, WINDOW);
        const sent = JSON.stringify(sentMessages(requests[1]!).at(-1));
        expect(sent).toContain('The user refused to run this tool call.');
        expect(mcp.calls.length).toBe(callsBefore);
        expect(unexpectedErrors(errors)).toEqual([]);
      },
      { provider, maxOutputTokens: 1000 },
    );
  });
});
