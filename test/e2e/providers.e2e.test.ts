/**
 * Long conversations against the local fake of both provider APIs,
 * through the built app in real Chromium, configured as a user would in Settings with a
 * small context window. The fake enforces the real APIs' rules and counts tokens with a
 * real tokenizer, so an over-long or malformed request would come back as a 400.
 */
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { startFakeApi, type FakeApi, type RecordedRequest } from '../fake-api/server';
import { launchBrowser, newPage, screenshot } from './browser';
import {
  chatRequests,
  sentMessages,
  configure,
  expectAllAcceptedAndFitting,
  PROVIDER_SETUPS,
  readGauge,
  requestedMaxTokens,
  requestTexts,
  scrollTranscriptTo,
  sendTurn,
  storedMessages,
  unexpectedErrors,
  userText,
  walkTranscript,
  type ProviderUnderTest,
} from './providersHelpers';

const WINDOW = 6000;

/**
 * The request's messages as the provider reads them: cache_control markers dropped and plain
 * string content written as the one text block it stands for, so moving a cache breakpoint
 * does not count as a change.
 */
function wireMessages(request: RecordedRequest): string[] {
  return sentMessages(request).map((message) => {
    const content = typeof message.content === 'string' ? [{ type: 'text', text: message.content }] : message.content;
    return JSON.stringify({ ...message, content }, (key, value: unknown) => (key === 'cache_control' ? undefined : value));
  });
}

const markersIn = (request: RecordedRequest) => new Set(requestTexts(request).flatMap((t) => [...t.matchAll(/T(\d+)X\./g)].map((m) => Number(m[1]))));

async function converse(page: Page, fake: FakeApi, turns: number, words: number, onTurn?: (turn: number, made: RecordedRequest[]) => void): Promise<void> {
  for (let turn = 1; turn <= turns; turn++) {
    const made = await sendTurn(page, fake, userText(turn, words));
    onTurn?.(turn, made);
    const gauge = await readGauge(page);
    expect(gauge.max, `gauge max after turn ${turn}`).toBe(WINDOW);
    expect(gauge.now, `gauge after turn ${turn}`).toBeLessThanOrEqual(gauge.max);
  }
}

describe('providers against the fake API, 6,000-token window', () => {
  let browser: Browser;
  let fake: FakeApi;
  beforeAll(async () => {
    [browser, fake] = await Promise.all([launchBrowser(), startFakeApi({ contextWindow: WINDOW, deltaDelayMs: 2 })]);
  });
  afterAll(async () => {
    await Promise.all([browser?.close(), fake?.close()]);
  });

  describe.each<ProviderUnderTest>(['anthropic', 'openai'])('%s', (providerId) => {
    const setup = PROVIDER_SETUPS[providerId];

    it('keeps 40 turns inside the window: every request accepted and fitting, trims shown, nothing lost', async () => {
      fake.reset();
      const { page, context, errors } = await newPage(browser);
      await page.goto(inject('appUrl'));
      await configure(page, fake, setup, { contextWindow: WINDOW });

      await converse(page, fake, 40, 90, (turn, made) => expect(made.length, `requests of turn ${turn}`).toBe(1));

      const requests = chatRequests(fake);
      expect(requests).toHaveLength(40);
      expectAllAcceptedAndFitting(requests, WINDOW);
      expect(requests.every((r) => r.provider === (providerId === 'anthropic' ? 'anthropic' : 'openai') && r.stream)).toBe(true);
      // Trims happened: some request sent fewer messages than the one before, and the last
      // one left early turns out while keeping the newest.
      const sizes = requests.map((r) => sentMessages(r).length);
      expect(sizes.some((size, i) => i > 0 && size < sizes[i - 1]!)).toBe(true);
      const lastMarkers = markersIn(requests.at(-1)!);
      expect(lastMarkers.has(40)).toBe(true);
      expect(lastMarkers.has(2)).toBe(false);
      // Cache-friendly: between trims each request repeats the one before it and adds the new turn,
      // so the provider's prompt cache keeps hitting; the prefix changes only where a trim happened.
      const trims = sizes.filter((size, i) => i > 0 && size < sizes[i - 1]!).length;
      const prefixBreaks = requests.filter((r, i) => {
        if (i === 0) return false;
        const before = wireMessages(requests[i - 1]!);
        const now = wireMessages(r);
        return !before.every((m, j) => now[j] === m);
      }).length;
      expect(prefixBreaks).toBe(trims);
      expect(trims).toBeLessThanOrEqual(3);
      // Cache reads are reported, and the gauge shows the last request's reads and writes.
      const lastUsage = requests.at(-1)!.usage as Record<string, number> & {
        prompt_tokens_details?: { cached_tokens: number };
        input_tokens_details?: { cached_tokens: number };
      };
      // Anthropic's usage, OpenAI's Responses usage, or a compatible server's Chat Completions usage.
      const cacheRead =
        providerId === 'anthropic'
          ? lastUsage.cache_read_input_tokens!
          : (lastUsage.input_tokens_details?.cached_tokens ?? lastUsage.prompt_tokens_details!.cached_tokens);
      const cacheWrite = providerId === 'anthropic' ? lastUsage.cache_creation_input_tokens! : 0;
      expect(cacheRead).toBeGreaterThan(0);
      await page.getByRole('meter', { name: 'Context usage' }).click();
      const cacheRow = page.getByRole('row', { name: /Cache read \/ write/ });
      expect(await cacheRow.getByRole('cell').textContent()).toBe(`${cacheRead.toLocaleString('en-US')} / ${cacheWrite.toLocaleString('en-US')}`);
      await screenshot(page, `providers-${providerId}-40-turns-usage`);
      await page.getByRole('meter', { name: 'Context usage' }).click();

      await screenshot(page, `providers-${providerId}-40-turns`);
      const walk = await walkTranscript(page);
      await screenshot(page, `providers-${providerId}-40-turns-top`);
      // Every user message is still shown, in order; the ones the next request leaves out are marked.
      expect(walk.userTexts.map((t) => /T(\d+)X\./.exec(t)?.[1])).toEqual(Array.from({ length: 40 }, (_, i) => String(i + 1)));
      expect(walk.notSent).toBeGreaterThan(0);
      expect(walk.trimNotes.length).toBeGreaterThan(0);
      const noted = walk.trimNotes.map((note) => Number(/^\[(\d+) earlier messages truncated to fit context window\]/.exec(note)?.[1]));
      expect(noted.every((n) => n > 0)).toBe(true);
      expect(noted.reduce((a, b) => a + b, 0)).toBe(walk.notSent);
      expect(walk.summaries).toEqual([]);

      // Nothing lost in storage either.
      const stored = await storedMessages(page);
      const users = stored.filter((m) => m.role === 'user');
      expect(users.map((m) => /T(\d+)X\./.exec(m.text)?.[1])).toEqual(Array.from({ length: 40 }, (_, i) => String(i + 1)));
      const answers = stored.filter((m) => m.role === 'assistant' && m.kind === 'message');
      expect(answers).toHaveLength(40);
      expect(answers.every((m) => m.status === 'complete' && m.text.startsWith('Answer '))).toBe(true);

      expect(unexpectedErrors(errors)).toEqual([]);
      await context.close();
    });
  });

  describe.each<ProviderUnderTest>(['anthropic', 'openai', 'openai-compatible'])('%s with summaries', (providerId) => {
    const setup = PROVIDER_SETUPS[providerId];

    it('replaces evicted messages with a "[Conversation Summary]" that later requests carry', async () => {
      fake.reset();
      const { page, context, errors } = await newPage(browser);
      await page.goto(inject('appUrl'));
      await configure(page, fake, setup, { contextWindow: WINDOW, summarize: true });

      await converse(page, fake, 16, 180);

      const requests = chatRequests(fake);
      expectAllAcceptedAndFitting(requests, WINDOW);
      const summaryAt = requests.findIndex((r) => !r.stream);
      expect(summaryAt, 'a summary request').toBeGreaterThan(0);
      expect(requestedMaxTokens(requests[summaryAt]!)).toBeLessThanOrEqual(1024);

      const stored = await storedMessages(page);
      const summaries = stored.filter((m) => m.kind === 'summary');
      expect(summaries).toHaveLength(1);
      const summary = summaries[0]!;
      expect(summary.text.startsWith('[Conversation Summary]')).toBe(true);
      expect(summary.text).toContain(requests[summaryAt]!.replyText!.trim());
      const coveredTexts = stored.filter((m) => summary.covers?.includes(m.id)).map((m) => m.text);
      expect(coveredTexts.length).toBeGreaterThan(0);

      // Before the summary the evicted messages were sent; from then on the summary is sent in their place.
      const before = requestTexts(requests[summaryAt - 1]!);
      expect(coveredTexts.every((covered) => before.some((t) => t.includes(covered)))).toBe(true);
      const after = requests.slice(summaryAt + 1).filter((r) => r.stream);
      expect(after.length).toBeGreaterThan(0);
      for (const request of after) {
        const texts = requestTexts(request);
        expect(texts.some((t) => t.includes(summary.text))).toBe(true);
        expect(coveredTexts.some((covered) => texts.some((t) => t.includes(covered)))).toBe(false);
      }

      const walk = await walkTranscript(page);
      expect(walk.summaries).toHaveLength(1);
      expect(walk.summaries[0]!.startsWith('[Conversation Summary]')).toBe(true);
      expect(walk.trimNotes.some((note) => note.startsWith(`${summary.covers!.length} messages summarized`))).toBe(true);
      expect(walk.userTexts).toHaveLength(16);
      const summaryArticle = page.getByRole('article', { name: 'Conversation summary' });
      await scrollTranscriptTo(page, summaryArticle);
      await summaryArticle.getByText('[Conversation Summary]').click();
      await screenshot(page, `providers-${providerId}-summary`);

      expect(unexpectedErrors(errors)).toEqual([]);
      await context.close();
    });
  });
});
