/**
 * Images in real Chromium against the local fake of both APIs, which checks image blocks
 * as the real APIs document them (media type against the bytes, base64, size, pixels,
 * which roles may carry them). A user pastes a screenshot larger than either provider
 * reads, sends it, keeps sending pictures until the oldest are left out, reloads, exports,
 * and meets a model that cannot read images.
 */
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { imageTokens } from '../../src/core';
import { startFakeApi, type FakeApi, type RecordedRequest } from '../fake-api/server';
import { launchBrowser, newPage, savedDownload, screenshot } from './browser';
import { chatRequests, configure, PROVIDER_SETUPS, sendTurn, sentMessages, unexpectedErrors, waitIdle, type ProviderUnderTest } from './providersHelpers';

const WINDOW = 60_000;

/** Pastes a generated PNG of `width`×`height` into the composer, as the clipboard hands over a screenshot. */
async function pasteImage(page: Page, width: number, height: number, name = 'image.png'): Promise<void> {
  const before = await page.getByRole('list', { name: 'Images to send' }).getByRole('listitem').count();
  await page.getByRole('textbox', { name: 'Message' }).evaluate(
    async (box, [w, h, fileName]) => {
      const canvas = new OffscreenCanvas(w, h);
      const g = canvas.getContext('2d')!;
      const gradient = g.createLinearGradient(0, 0, w, h);
      gradient.addColorStop(0, '#2563eb');
      gradient.addColorStop(1, '#f59e0b');
      g.fillStyle = gradient;
      g.fillRect(0, 0, w, h);
      g.fillStyle = '#fff';
      g.font = `${Math.round(h / 6)}px sans-serif`;
      g.fillText(`${w}×${h}`, w / 10, h / 2);
      const blob = await canvas.convertToBlob({ type: 'image/png' });
      const data = new DataTransfer();
      data.items.add(new File([blob], fileName, { type: 'image/png' }));
      box.dispatchEvent(new ClipboardEvent('paste', { clipboardData: data, bubbles: true, cancelable: true }));
    },
    [width, height, name] as const,
  );
  await page.getByRole('list', { name: 'Images to send' }).getByRole('listitem').nth(before).waitFor({ timeout: 15_000 });
}

interface SentImage {
  mediaType: string;
  bytes: Buffer;
}

/** The images a request carried, decoded from either shape. */
function imagesOf(request: RecordedRequest): SentImage[] {
  return sentMessages(request).flatMap((m) =>
    (Array.isArray(m.content) ? (m.content as Record<string, unknown>[]) : []).flatMap((block) => {
      if (block.type === 'image') {
        const source = block.source as { media_type: string; data: string };
        return [{ mediaType: source.media_type, bytes: Buffer.from(source.data, 'base64') }];
      }
      if (block.type === 'image_url' || block.type === 'input_image') {
        const url = typeof block.image_url === 'string' ? block.image_url : (block.image_url as { url: string }).url;
        const [head, data] = url.split(',');
        return [{ mediaType: /data:([^;]+)/.exec(head!)![1]!, bytes: Buffer.from(data!, 'base64') }];
      }
      return [];
    }),
  );
}

/** A PNG's pixels, from its IHDR chunk. */
const pngSize = (bytes: Buffer) => ({ width: bytes.readUInt32BE(16), height: bytes.readUInt32BE(20) });

describe('images against the fake API', () => {
  let browser: Browser;
  let fake: FakeApi;
  beforeAll(async () => {
    [browser, fake] = await Promise.all([
      launchBrowser(),
      startFakeApi({ contextWindow: WINDOW, deltaDelayMs: 1, textOnlyModels: { 'gpt-e2e-text-only': 'openai' } }),
    ]);
  });
  afterAll(async () => {
    await Promise.all([browser?.close(), fake?.close()]);
  });

  describe.each<ProviderUnderTest>(['anthropic', 'openai'])('%s', (providerId) => {
    const setup = PROVIDER_SETUPS[providerId];

    it('sends a pasted screenshot scaled to what the provider reads, leaves old images out, and keeps them across a reload and an export', async () => {
      fake.reset();
      const { page, context, errors } = await newPage(browser);
      await page.goto(inject('appUrl'));
      await configure(page, fake, setup, { contextWindow: WINDOW });

      // A 4K screenshot: scaled down in the browser before it is kept, and said so.
      await pasteImage(page, 3840, 2160);
      const chip = page.getByRole('list', { name: 'Images to send' }).getByRole('listitem');
      expect(await chip.textContent()).toMatch(/Pasted image\.png2576×1449 · [\d.]+ (KB|MB) · ≈[\d,]+ tokensscaled down from 3840×2160/);
      await screenshot(page, `images-${providerId}-composer`);
      const [first] = await sendTurn(page, fake, 'What is on this screen?');
      expect(first!.validation).toEqual({ ok: true });
      const [sent] = imagesOf(first!);
      expect(sent!.mediaType).toBe('image/png');
      expect(pngSize(sent!.bytes)).toEqual({ width: 2576, height: 1449 });

      // Five more pictures: the newest four go with each request, the older ones as a note.
      for (let n = 2; n <= 6; n++) {
        await pasteImage(page, 640 + n, 480, `photo-${n}.png`);
        await sendTurn(page, fake, `And picture ${n}?`);
      }
      const requests = chatRequests(fake);
      expect(requests.map((r) => r.validation)).toEqual(requests.map(() => ({ ok: true })));
      expect(requests.map((r) => r.status)).toEqual(requests.map(() => 200));
      expect(requests.map((r) => imagesOf(r).length)).toEqual([1, 2, 3, 4, 4, 4]);
      const last = JSON.stringify(requests.at(-1)!.body);
      expect(last).toMatch(/\[image: Pasted image\.png, 2576×1449 — not sent to save [\d,]+ tokens\]/);
      expect(last).toMatch(/\[image: photo-2\.png, 642×480 — not sent to save [\d,]+ tokens\]/);
      // The provider counted the screenshot by its documented formula, as the app estimated it.
      const model = 'fromList' in setup.model ? setup.model.fromList : setup.model.custom;
      expect(requests[0]!.inputTokens).toBeGreaterThan(imageTokens(providerId === 'anthropic' ? 'anthropic' : 'openai', 2576, 1449, model));

      // The transcript marks the images the next request leaves out.
      const firstImages = page.getByRole('article', { name: 'User message' }).first().getByRole('list', { name: 'Images' });
      await page.getByRole('log', { name: 'Transcript' }).evaluate((el) => el.scrollTo({ top: 0 }));
      expect(await firstImages.getByText('not sent').count()).toBe(1);

      // After a reload the newest image is read back from storage and drawn.
      await page.reload();
      const newest = page.getByRole('article', { name: 'User message' }).last().getByRole('img', { name: 'photo-6.png' });
      await newest.waitFor();
      await page.waitForFunction(() => {
        const img = [...document.querySelectorAll('img')].find((i) => i.alt === 'photo-6.png');
        return img && img.complete && img.naturalWidth === 646;
      });
      await screenshot(page, `images-${providerId}-transcript`);

      // The JSON export names every image without carrying its bytes.
      const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Export', exact: true }).click()]);
      const exported = await savedDownload(download);
      const blocks = [...exported.text.matchAll(/"type": "image"/g)];
      expect(blocks).toHaveLength(6);
      expect(exported.text).toContain('"name": "photo-6.png"');
      expect(exported.text).not.toContain(sent!.bytes.toString('base64').slice(0, 200));

      // With its images, the same export is a complete backup: another browser profile gets them back.
      await page.getByRole('button', { name: 'Other formats' }).click();
      const withImages = page.getByRole('menuitem', { name: /^This conversation with its images and PDFs \(JSON, [\d.]+ (KB|MB)\)$/ });
      const [backupDownload] = await Promise.all([page.waitForEvent('download'), withImages.click()]);
      const backup = await savedDownload(backupDownload);
      expect((JSON.parse(backup.text) as { files: unknown[] }).files).toHaveLength(6);
      const elsewhere = await newPage(browser);
      await elsewhere.page.goto(inject('appUrl'));
      await elsewhere.page.getByLabel('Import file').setInputFiles({ name: backup.name, mimeType: 'application/json', buffer: Buffer.from(backup.text) });
      await elsewhere.page.getByRole('article', { name: 'User message' }).last().getByRole('img', { name: 'photo-6.png' }).waitFor();
      await elsewhere.page.waitForFunction(() =>
        [...document.querySelectorAll('img')].some((i) => i.alt === 'photo-6.png' && i.complete && i.naturalWidth === 646),
      );
      expect(unexpectedErrors(elsewhere.errors)).toEqual([]);
      await elsewhere.context.close();

      expect(unexpectedErrors(errors)).toEqual([]);
      await context.close();
    });
  });

  it('names a model that cannot read images and sends the message again without them', async () => {
    fake.reset();
    const { page, context, errors } = await newPage(browser);
    await page.goto(inject('appUrl'));
    await configure(page, fake, { ...PROVIDER_SETUPS.openai, model: { custom: 'gpt-e2e-text-only' } }, { contextWindow: WINDOW });
    await pasteImage(page, 800, 600, 'chart.png');
    const made = await sendTurn(page, fake, 'What does the chart show?');
    expect(made.map((r) => r.status)).toEqual([400, 200]);
    expect(imagesOf(made[1]!)).toEqual([]);
    expect(JSON.stringify(made[1]!.body)).toMatch(/\[image: chart\.png, 800×600 — not sent to save [\d,]+ tokens\]/);
    const warning = page.getByRole('status').filter({ hasText: 'gpt-e2e-text-only cannot read images' });
    await warning.waitFor();
    expect(await warning.textContent()).toContain('Windowpane sent the message again without its images');
    await waitIdle(page);
    expect(await page.getByRole('article', { name: 'Assistant message' }).last().getAttribute('data-status')).toBe('complete');
    await screenshot(page, 'images-refused');
    expect(unexpectedErrors(errors)).toEqual([]);
    await context.close();
  });
});
