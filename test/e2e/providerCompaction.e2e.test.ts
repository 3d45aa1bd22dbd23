/**
 * "Let the provider compact" in real Chromium against the local fake of both APIs, set up as
 * a user does in Settings: a conversation that passes the trigger is compacted on the
 * provider's side, the compaction shows where the summary shows, every later request opens
 * with it and sends nothing before it, and every request is accepted. A model that cannot
 * compact falls back to Auto and says so; a branch made before the compaction does not carry it.
 */
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { startFakeApi, type FakeApi, type RecordedRequest } from '../fake-api/server';
import { launchBrowser, newPage, screenshot } from './browser';
import {
  chatRequests,
  configure,
  expectAllAcceptedAndFitting,
  PROVIDER_SETUPS,
  scrollTranscriptTo,
  sendTurn,
  storedRecords,
  unexpectedErrors,
  waitIdle,
  type ProviderSetup,
} from './providersHelpers';
import { openSettingsSection } from './uiHelpers';

/** A window the provider may compact in: its trigger is 80 % of the input it holds (73,446 tokens on Opus 4.6). */
const WINDOW = 100_000;
const FACT = 'Remember: the vault code is 4711.';
/** About 9,000 tokens: the conversation passes the trigger on its ninth message. */
const PASTE = 'The river bends past the mill and the orchard, and the ferry waits at the landing. '.repeat(500);
const message = (turn: number) => `Turn ${turn} marker T${turn}X. ${turn === 1 ? FACT : ''}\n${PASTE}`;

const SETUPS: Record<'anthropic' | 'openai', ProviderSetup> = {
  anthropic: { ...PROVIDER_SETUPS.anthropic, model: { fromList: 'claude-opus-4-6' } },
  openai: PROVIDER_SETUPS.openai,
};

async function chooseStrategy(page: Page, strategy: string): Promise<void> {
  await page.getByRole('button', { name: 'Settings' }).click();
  const dialog = page.getByRole('dialog', { name: 'Settings' });
  await openSettingsSection(page, 'Context');
  await dialog.getByLabel('Strategy').selectOption(strategy);
  await dialog.getByRole('button', { name: 'Save' }).click();
  await dialog.waitFor({ state: 'hidden' });
}

/** What the request opens with, in either wire shape: the compaction block or item, if it sends one back. */
function openingCompaction(request: RecordedRequest): Record<string, unknown> | undefined {
  const body = request.body as { messages?: Array<{ content: unknown }>; input?: Array<Record<string, unknown>> };
  if (body.input) return body.input[0]?.type === 'compaction' ? body.input[0] : undefined;
  const blocks = body.messages?.[1]?.content;
  return Array.isArray(blocks) && blocks[0]?.type === 'compaction' ? (blocks[0] as Record<string, unknown>) : undefined;
}

describe('the provider compacts, in Chromium', () => {
  let browser: Browser;
  let fake: FakeApi;
  beforeAll(async () => {
    [browser, fake] = await Promise.all([launchBrowser(), startFakeApi({ contextWindow: WINDOW, deltaDelayMs: 1 })]);
  });
  afterAll(async () => {
    await Promise.all([browser?.close(), fake?.close()]);
  });

  describe.each(['anthropic', 'openai'] as const)('%s', (providerId) => {
    it('compacts past the trigger, shows it, and opens every later request with it', { timeout: 240_000 }, async () => {
      fake.reset();
      const { page, context, errors } = await newPage(browser);
      await page.goto(inject('appUrl'));
      await configure(page, fake, SETUPS[providerId], { contextWindow: WINDOW });
      await chooseStrategy(page, 'provider');
      // 80 % of what the window lets a request hold after the answer's reserve.
      await expect.poll(() => page.locator('.gauge-note').textContent()).toMatch(/compacts the conversation once a request passes [\d,]+ input tokens/);

      for (let turn = 1; turn <= 12; turn++) await sendTurn(page, fake, message(turn));

      const requests = chatRequests(fake);
      expect(requests).toHaveLength(12);
      expectAllAcceptedAndFitting(requests, WINDOW);
      for (const request of requests) {
        expect(JSON.stringify((request.body as Record<string, unknown>).context_management)).toContain(
          providerId === 'anthropic' ? 'compact_20260112' : 'compact_threshold',
        );
      }
      const compactedAt = requests.findIndex((request) => request.compacted !== undefined);
      expect(compactedAt).toBeGreaterThan(0);
      expect(requests[compactedAt]!.compacted!.summary).toContain(FACT);
      // Before it, the whole conversation went; after it, every request opens with the compaction and sends nothing before it.
      for (const request of requests.slice(0, compactedAt + 1)) expect(openingCompaction(request)).toBeUndefined();
      for (const request of requests.slice(compactedAt + 1)) {
        expect(openingCompaction(request)).toBeDefined();
        // Turn 2's words are in no summary line (nothing in them asked to be remembered).
        expect(JSON.stringify(request.body)).not.toContain('T2X.');
        expect(request.inputTokens).toBeLessThan(WINDOW / 2);
      }

      // The transcript keeps every message, dims what the provider compacted, and shows its summary.
      const name = providerId === 'anthropic' ? 'Anthropic' : 'OpenAI';
      const summary = page.getByRole('region', { name: `Summary by ${name}` });
      await scrollTranscriptTo(page, summary);
      await expect.poll(() => summary.count()).toBe(1);
      if (providerId === 'anthropic') {
        await summary.locator('summary').click();
        expect(await summary.textContent()).toContain('the vault code is 4711');
      } else {
        expect(await summary.textContent()).toMatch(/Its summary is encrypted: only OpenAI can read it/);
      }
      const notice = page.getByRole('note', { name: 'Trim notice' }).filter({ hasText: `${name} compacted the` });
      expect(await notice.textContent()).toMatch(new RegExp(`${name} compacted the ${compactedAt * 2 + 1} earlier messages`));
      await screenshot(page, `provider-compaction-${providerId}`);

      const stored = await storedRecords(page);
      expect(stored.filter((m) => m.role === 'user')).toHaveLength(12);
      const holders = stored.filter((m) => m.content.some((b) => b.type === 'compaction'));
      expect(holders).toHaveLength(1);
      expect(unexpectedErrors(errors)).toEqual([]);
      await context.close();
    });
  });

  it('a branch made before the compaction does not carry it', { timeout: 240_000 }, async () => {
    fake.reset();
    const { page, context, errors } = await newPage(browser);
    await page.goto(inject('appUrl'));
    await configure(page, fake, SETUPS.anthropic, { contextWindow: WINDOW });
    await chooseStrategy(page, 'provider');
    for (let turn = 1; turn <= 10; turn++) await sendTurn(page, fake, message(turn));
    expect(chatRequests(fake).some((request) => request.compacted)).toBe(true);

    const early = page.getByRole('article', { name: 'User message' }).filter({ hasText: 'T2X.' });
    await scrollTranscriptTo(page, early);
    await early.getByRole('button', { name: 'Edit' }).click();
    await page.getByRole('textbox', { name: 'Edit message' }).fill('Turn 2 edited marker E2X. A short one this time.');
    const before = chatRequests(fake).length;
    await page.getByRole('button', { name: 'Save and resend' }).click();
    await expect.poll(() => chatRequests(fake).length).toBe(before + 1);
    await waitIdle(page);
    const branched = chatRequests(fake).at(-1)!;
    expect(branched.status).toBe(200);
    expect(openingCompaction(branched)).toBeUndefined();
    expect(JSON.stringify(branched.body)).toContain('T1X.');
    expect(JSON.stringify(branched.body)).toContain('E2X.');
    expect(JSON.stringify(branched.body)).not.toContain('"compaction"');
    expect(unexpectedErrors(errors)).toEqual([]);
    await context.close();
  });

  it(
    'a model the key’s models list says compacts is compacted on the provider’s side, though the documentation does not list it',
    { timeout: 120_000 },
    async () => {
      // Claude Haiku 5.5 is not on the “Compaction” page; Anthropic's models endpoint states it per model.
      const stating = await startFakeApi({
        contextWindow: WINDOW,
        deltaDelayMs: 1,
        models: { anthropic: ['claude-haiku-5-5'] },
        contextManagement: { 'claude-haiku-5-5': { compaction: true, contextEditing: true } },
      });
      const { page, context, errors } = await newPage(browser);
      try {
        await page.goto(inject('appUrl'));
        await configure(page, stating, PROVIDER_SETUPS.anthropic, { contextWindow: WINDOW });
        // The key's models are listed by themselves once it is typed; wait for the list, as a person sees it.
        await page.getByRole('button', { name: 'Settings' }).click();
        const provider = await openSettingsSection(page, 'Model and key');
        await provider
          .getByRole('status')
          .filter({ hasText: /models? listed/ })
          .waitFor();
        await page.getByRole('dialog', { name: 'Settings' }).getByRole('button', { name: 'Cancel' }).click();
        await chooseStrategy(page, 'provider');
        await expect.poll(() => page.locator('.gauge-note').textContent()).toMatch(/compacts the conversation once a request passes [\d,]+ input tokens/);
        expect(stating.requests.some((request) => request.path.startsWith('/v1/models'))).toBe(true);
        await sendTurn(page, stating, message(1));
        const [request] = chatRequests(stating);
        expect(request?.status).toBe(200);
        expect(JSON.stringify((request?.body as Record<string, unknown>).context_management)).toContain('compact_20260112');
        expect(unexpectedErrors(errors)).toEqual([]);
      } finally {
        await context.close();
        await stating.close();
      }
    },
  );

  it('a model that cannot compact falls back to Auto and says so', { timeout: 120_000 }, async () => {
    fake.reset();
    const { page, context, errors } = await newPage(browser);
    await page.goto(inject('appUrl'));
    await configure(page, fake, PROVIDER_SETUPS.anthropic, { contextWindow: WINDOW });
    await chooseStrategy(page, 'provider');
    // Said in the gauge's details, not under it: the default strategy falls back on most models.
    await page.getByRole('meter', { name: 'Context usage' }).click();
    await expect
      .poll(() => page.locator('.gauge-details[open] .gauge-fallback').textContent())
      .toMatch(/Claude Haiku 5\.5 cannot compact on the provider's side/);
    expect(await page.locator('.gauge > .gauge-note').count()).toBe(0);
    await sendTurn(page, fake, message(1));
    const [request] = chatRequests(fake);
    expect(request?.status).toBe(200);
    expect((request?.body as Record<string, unknown>).context_management).toBeUndefined();
    await screenshot(page, 'provider-compaction-fallback');
    expect(unexpectedErrors(errors)).toEqual([]);
    await context.close();
  });
});
