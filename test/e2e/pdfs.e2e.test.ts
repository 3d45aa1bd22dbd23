/**
 * PDFs in real Chromium against the local fake of both APIs, which checks document blocks
 * and file parts as the real APIs document them. A user attaches a generated three-page
 * PDF, PDF.js reads its pages in its Worker, and the message goes to Anthropic as a
 * document block, to OpenAI as a file part, and to an OpenAI-compatible server as the
 * text with page markers.
 */
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { startFakeApi, type FakeApi, type RecordedRequest } from '../fake-api/server';
import { launchBrowser, newPage, screenshot } from './browser';
import { configure, PROVIDER_SETUPS, sendTurn, sentMessages, unexpectedErrors, waitIdle, type ProviderUnderTest } from './providersHelpers';

const WINDOW = 60_000;
const PAGES = ['Quarterly report: revenue grew.', 'Page two says costs fell.', 'Page three holds the outlook.'];

/** A small valid PDF: one page per text, set in Helvetica, with a cross-reference table. */
function realPdf(pageTexts: readonly string[]): Buffer {
  const n = pageTexts.length;
  const fontId = 3 + 2 * n;
  const objects = [`<< /Type /Catalog /Pages 2 0 R >>`, `<< /Type /Pages /Count ${n} /Kids [${pageTexts.map((_, i) => `${3 + 2 * i} 0 R`).join(' ')}] >>`];
  for (const [i, text] of pageTexts.entries()) {
    const stream = `BT /F1 18 Tf 72 700 Td (${text.replace(/[\\()]/g, '\\$&')}) Tj ET`;
    objects.push(`<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 ${fontId} 0 R >> >> /Contents ${4 + 2 * i} 0 R >>`);
    objects.push(`<< /Length ${stream.length} >>\nstream\n${stream}\nendstream`);
  }
  objects.push('<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>');
  let body = '%PDF-1.7\n';
  const offsets: number[] = [];
  for (const [i, object] of objects.entries()) {
    offsets.push(body.length);
    body += `${i + 1} 0 obj\n${object}\nendobj\n`;
  }
  const xref = body.length;
  body += `xref\n0 ${objects.length + 1}\n0000000000 65535 f \n${offsets.map((o) => `${String(o).padStart(10, '0')} 00000 n \n`).join('')}`;
  body += `trailer\n<< /Size ${objects.length + 1} /Root 1 0 R >>\nstartxref\n${xref}\n%%EOF\n`;
  return Buffer.from(body, 'latin1');
}

async function attachPdf(page: Page, name: string, bytes: Buffer): Promise<void> {
  await page.getByLabel('Files to attach').setInputFiles({ name, mimeType: 'application/pdf', buffer: bytes });
  await page.getByRole('list', { name: 'PDFs to send' }).getByRole('listitem').first().waitFor({ timeout: 30_000 });
}

/** The content blocks or parts of a request's last user message. */
function lastUserContent(request: RecordedRequest): Record<string, unknown>[] {
  const messages = sentMessages(request).filter((m) => m.role === 'user');
  const content = messages.at(-1)!.content;
  return Array.isArray(content) ? (content as Record<string, unknown>[]) : [{ type: 'text', text: content }];
}

describe('PDFs against the fake API', () => {
  let browser: Browser;
  let fake: FakeApi;
  beforeAll(async () => {
    [browser, fake] = await Promise.all([launchBrowser(), startFakeApi({ contextWindow: WINDOW, deltaDelayMs: 1 })]);
  });
  afterAll(async () => {
    await Promise.all([browser?.close(), fake?.close()]);
  });

  it.each<ProviderUnderTest>(['anthropic', 'openai', 'openai-compatible'])(
    '%s: attaches a PDF, shows its pages and sends it as the provider reads it',
    async (providerId) => {
      fake.reset();
      const { page, context, errors } = await newPage(browser);
      await page.goto(inject('appUrl'));
      await configure(page, fake, PROVIDER_SETUPS[providerId], { contextWindow: WINDOW });
      const pdf = realPdf(PAGES);
      await attachPdf(page, 'report.pdf', pdf);

      const chip = page.getByRole('list', { name: 'PDFs to send' }).getByRole('listitem');
      expect(await chip.textContent()).toMatch(/report\.pdf3 pages · [\d.]+ (B|KB) · ≈[\d,]+ tokens/);
      if (providerId === 'openai-compatible') expect(await chip.textContent()).toContain('sent as text');
      await screenshot(page, `pdfs-${providerId}-composer`);

      const made = await sendTurn(page, fake, 'What does page two say?');
      expect(made.map((r) => r.validation)).toEqual(made.map(() => ({ ok: true })));
      expect(made.map((r) => r.status)).toEqual(made.map(() => 200));
      const [first, second] = lastUserContent(made[0]!);
      expect(second).toMatchObject({ type: providerId === 'openai' ? 'input_text' : 'text', text: 'What does page two say?' });
      if (providerId === 'anthropic') {
        expect(first).toEqual({ type: 'document', source: { type: 'base64', media_type: 'application/pdf', data: pdf.toString('base64') } });
      } else if (providerId === 'openai') {
        // OpenAI's own endpoint: the Responses API's file part.
        expect(first).toEqual({ type: 'input_file', filename: 'report.pdf', file_data: `data:application/pdf;base64,${pdf.toString('base64')}` });
      } else {
        expect(first!.type).toBe('text');
        const text = first!.text as string;
        expect(text).toContain(`[PDF: report.pdf — page 1 of 3]\n${PAGES[0]}`);
        expect(text).toContain(`[PDF: report.pdf — page 2 of 3]\n${PAGES[1]}`);
        expect(text).toContain(`[PDF: report.pdf — page 3 of 3]\n${PAGES[2]}`);
      }

      // The transcript shows the PDF as a chip with its page count.
      const sent = page.getByRole('article', { name: 'User message' }).last().getByRole('list', { name: 'PDFs' });
      await sent.waitFor();
      expect(await sent.textContent()).toContain('report.pdf3 pages');
      await screenshot(page, `pdfs-${providerId}-transcript`);

      expect(unexpectedErrors(errors)).toEqual([]);
      await context.close();
    },
  );

  it('takes a dropped PDF, and sends its text again when the model refuses PDFs, saying so', async () => {
    const strict = await startFakeApi({ contextWindow: WINDOW, deltaDelayMs: 1, noPdfModels: ['claude-haiku-5-5'] });
    try {
      const { page, context, errors } = await newPage(browser);
      await page.goto(inject('appUrl'));
      await configure(page, strict, PROVIDER_SETUPS.anthropic, { contextWindow: WINDOW });
      await page.locator('form.composer').evaluate((form, data) => {
        const bytes = Uint8Array.from(atob(data), (c) => c.charCodeAt(0));
        const transfer = new DataTransfer();
        transfer.items.add(new File([bytes], 'dropped.pdf', { type: 'application/pdf' }));
        form.dispatchEvent(new DragEvent('drop', { dataTransfer: transfer, bubbles: true, cancelable: true }));
      }, realPdf(PAGES).toString('base64'));
      await page.getByRole('list', { name: 'PDFs to send' }).getByRole('listitem').first().waitFor({ timeout: 30_000 });

      const made = await sendTurn(page, strict, 'Summarize it.');
      expect(made.map((r) => r.status)).toEqual([400, 200]);
      expect(made[1]!.validation).toEqual({ ok: true });
      const [first] = lastUserContent(made[1]!);
      expect(first!.text).toContain(`[PDF: dropped.pdf — page 2 of 3]\n${PAGES[1]}`);
      const warning = page.getByRole('status').filter({ hasText: 'claude-haiku-5-5 cannot read PDFs' });
      await warning.waitFor();
      expect(await warning.textContent()).toContain("sent the message again with each PDF's text instead of the file");
      await waitIdle(page);
      expect(unexpectedErrors(errors)).toEqual([]);
      await context.close();
    } finally {
      await strict.close();
    }
  });

  it('refuses a file named .pdf that is not one, naming it', async () => {
    fake.reset();
    const { page, context } = await newPage(browser);
    await page.goto(inject('appUrl'));
    await configure(page, fake, PROVIDER_SETUPS.anthropic, { contextWindow: WINDOW });
    await page.getByLabel('Files to attach').setInputFiles({ name: 'invoice.pdf', mimeType: 'application/pdf', buffer: Buffer.from('<html>not a pdf</html>') });
    await page.getByText('invoice.pdf is not a PDF (its contents say otherwise).').waitFor();
    expect(await page.getByRole('list', { name: 'PDFs to send' }).count()).toBe(0);
    await context.close();
  });
});
