/**
 * Exact counts in the built app, in real Chromium, against the local fake of both provider
 * APIs: the gauge shows the provider's count of the request as it stands, marked "exact",
 * when asked from the gauge and when the estimate comes near the trim mark; the fake sees at
 * most one count per distinct request and none for a request that did not change; each count
 * calibrates the estimate. An OpenAI-compatible server, which has no count endpoint, keeps the
 * estimate and the gauge says so.
 */
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { startFakeApi, type FakeApi, type RecordedRequest } from '../fake-api/server';
import { launchBrowser, newPage, screenshot } from './browser';
import { configure, PROVIDER_SETUPS, readGauge, sendTurn, unexpectedErrors, until, userText, type ProviderUnderTest } from './providersHelpers';

const WINDOW = 6000;

const countRequests = (fake: FakeApi): RecordedRequest[] =>
  fake.requests.filter((r) => r.method === 'POST' && (r.path.endsWith('/messages/count_tokens') || r.path.endsWith('/responses/input_tokens')));

async function gaugeText(page: Page): Promise<string> {
  return (await page.getByRole('meter', { name: 'Context usage' }).getAttribute('aria-valuetext')) ?? '';
}

/** The Output reserve row of the gauge's table, opened if needed. */
async function reserveTokens(page: Page): Promise<number> {
  const row = page.getByRole('row', { name: /^Output reserve/ });
  if (!(await row.isVisible())) await page.getByRole('meter', { name: 'Context usage' }).click();
  return Number(((await row.getByRole('cell').textContent()) ?? '').replace(/,/g, ''));
}

/** The model's calibration as the app saved it in IndexedDB. */
async function savedCalibration(page: Page, model: string): Promise<{ factor: number; samples: number } | undefined> {
  return page.evaluate(
    (id) =>
      new Promise<{ factor: number; samples: number } | undefined>((resolve, reject) => {
        const open = indexedDB.open('windowpane');
        open.onerror = () => reject(open.error);
        open.onsuccess = () => {
          const get = open.result.transaction('calibration').objectStore('calibration').get(id);
          get.onsuccess = () => {
            open.result.close();
            resolve(get.result as { factor: number; samples: number } | undefined);
          };
          get.onerror = () => reject(get.error);
        };
      }),
    model,
  );
}

/**
 * Waits until the gauge says its number is exact, and checks it is the fake's newest count plus
 * the reserve: with no turn in flight, the request the gauge shows is the newest one counted.
 */
async function expectExact(page: Page, fake: FakeApi): Promise<RecordedRequest> {
  await page.waitForFunction(() => document.querySelector('[aria-label="Context usage"]')?.getAttribute('aria-valuetext')?.endsWith(', exact'));
  const counted = countRequests(fake).at(-1)!;
  await until(() => counted.completed, 'the count to finish');
  const gauge = await readGauge(page);
  expect(gauge.now - (await reserveTokens(page))).toBe(counted.inputTokens);
  await expect.poll(() => page.getByText('exact', { exact: true }).isVisible()).toBe(true);
  return counted;
}

describe('exact counts against the fake API', () => {
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
    const model = 'fromList' in setup.model ? setup.model.fromList : setup.model.custom;

    it('counts when asked and near the trim mark, once per request, and calibrates by it', async () => {
      fake.reset();
      const { page, context, errors } = await newPage(browser);
      await page.goto(inject('appUrl'));
      await configure(page, fake, setup, { contextWindow: WINDOW });

      // Far from every limit: nothing is counted unless the user asks.
      await sendTurn(page, fake, userText(1, 200));
      await page.waitForTimeout(500);
      expect(countRequests(fake)).toHaveLength(0);
      expect(await gaugeText(page)).not.toMatch(/exact/);
      const before = await savedCalibration(page, model);

      await page.getByRole('meter', { name: 'Context usage' }).click();
      await page.getByRole('button', { name: 'Count exactly' }).click();
      await until(() => countRequests(fake).length === 1, 'the count asked for');
      const asked = await expectExact(page, fake);
      expect(asked.status).toBe(200);
      expect(asked.validation).toEqual({ ok: true });
      await screenshot(page, `exact-count-${providerId}`);
      // The count calibrated the estimate, as an answer's usage does: one more sample.
      await expect.poll(async () => (await savedCalibration(page, model))?.samples).toBe((before?.samples ?? 0) + 1);

      // Unchanged, the request is not counted again, whatever the time.
      await page.waitForTimeout(3500);
      expect(countRequests(fake)).toHaveLength(1);
      expect(await page.getByRole('button', { name: 'Count exactly' }).count()).toBe(0);

      // Turn by turn towards the trim mark: near it the app counts without being asked.
      let turn = 2;
      while (countRequests(fake).length < 2 && turn < 30) await sendTurn(page, fake, userText(turn++, 90));
      expect(countRequests(fake).length, 'a count near the trim mark').toBeGreaterThanOrEqual(2);
      await expectExact(page, fake);

      await page.waitForTimeout(3500);
      const counts = countRequests(fake);
      // At most one count per distinct request, and every one of them accepted.
      expect(new Set(counts.map((r) => JSON.stringify(r.body))).size).toBe(counts.length);
      expect(counts.every((r) => r.status === 200)).toBe(true);
      const calibration = await savedCalibration(page, model);
      const answered = fake.requests.filter((r) => r.method === 'POST' && r.usage !== null).length;
      // Every count and every answer of a large enough request calibrated once (the first turn's did too).
      expect(calibration?.samples).toBeGreaterThanOrEqual(counts.length);
      expect(calibration?.samples).toBeLessThanOrEqual(counts.length + answered);
      expect(unexpectedErrors(errors)).toEqual([]);
      await context.close();
    });
  });

  it('keeps the estimate on an OpenAI-compatible server, saying it cannot count exactly', async () => {
    fake.reset();
    const { page, context, errors } = await newPage(browser);
    await page.goto(inject('appUrl'));
    await configure(page, fake, PROVIDER_SETUPS['openai-compatible'], { contextWindow: WINDOW });
    let turn = 1;
    // Up to and past the trim mark: still nothing counted.
    for (; turn <= 16; turn++) await sendTurn(page, fake, userText(turn, 90));
    await page.getByRole('meter', { name: 'Context usage' }).click();
    await expect.poll(() => page.getByText('Estimate; this server cannot count exactly.').isVisible()).toBe(true);
    expect(await page.getByRole('button', { name: 'Count exactly' }).count()).toBe(0);
    expect(await gaugeText(page)).not.toMatch(/exact/);
    expect(fake.requests.filter((r) => /count_tokens|input_tokens/.test(r.path))).toEqual([]);
    await screenshot(page, 'exact-count-compatible');
    expect(unexpectedErrors(errors)).toEqual([]);
    await context.close();
  });
});
