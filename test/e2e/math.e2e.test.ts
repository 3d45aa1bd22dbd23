// Formulas and imported tool output in real Chromium, in the built app under its
// Content-Security-Policy: a ChatGPT export (a plain .json file) is imported and opened.
// The conversation with formulas comes in ChatGPT's data export .zip, as the provider sends it.
// KaTeX loads only with the first message that holds math, its fonts come from the app
// itself, a wide formula scrolls inside the message at phone width, a formula KaTeX cannot
// read shows its source, and ChatGPT's tool messages show as collapsed tool rows.
import { readFileSync } from 'node:fs';
import { strToU8, zipSync } from 'fflate';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { launchBrowser, newPage, screenshot } from './browser';
import { openApp, openConversation } from './persistenceHelpers';

let browser: Browser;
beforeAll(async () => {
  browser = await launchBrowser();
});
afterAll(async () => {
  await browser?.close();
});

const T0 = 1_767_000_000;

/** A ChatGPT `conversations.json` entry holding `turns` as one branch. */
function chatGptConversation(id: string, title: string, turns: Array<['user' | 'assistant', string]>) {
  const mapping: Record<string, unknown> = { root: { id: 'root', message: null, parent: null, children: ['m0'] } };
  turns.forEach(([role, text], i) => {
    mapping[`m${i}`] = {
      id: `m${i}`,
      message: {
        id: `m${i}`,
        author: { role, name: null, metadata: {} },
        create_time: T0 + i,
        content: { content_type: 'text', parts: [text] },
        status: 'finished_successfully',
        metadata: role === 'assistant' ? { model_slug: 'gpt-4o' } : {},
        recipient: 'all',
      },
      parent: i === 0 ? 'root' : `m${i - 1}`,
      children: i + 1 < turns.length ? [`m${i + 1}`] : [],
    };
  });
  return { id, title, create_time: T0, update_time: T0 + turns.length, mapping, current_node: `m${turns.length - 1}` };
}

const MATH_ANSWER = [
  'The mean absolute distance between two uniform points is',
  '\\[ E[|x-y|] = \\int_0^1 \\int_0^1 |x-y| \\, dx \\, dy = \\frac{1}{3} \\]',
  'where \\( x \\) and $y$ are independent. A long one scrolls on a phone:',
  '$$\\sum_{n=1}^{\\infty} \\frac{1}{n^2} = 1 + \\frac{1}{4} + \\frac{1}{9} + \\frac{1}{16} + \\frac{1}{25} + \\frac{1}{36} + \\frac{1}{49} + \\frac{1}{64} + \\cdots = \\frac{\\pi^2}{6}$$',
  'A formula KaTeX cannot read stays as written: $\\frac{1}{$. Prices stay text: it costs $5 and $10, or `$x$` in code.',
].join('\n\n');

const MATH_EXPORT = JSON.stringify([
  chatGptConversation('math-1', 'Distance between two points', [
    ['user', 'What is the expected distance between two random points in [0, 1], as \\(E[|x-y|]\\)?'],
    ['assistant', MATH_ANSWER],
  ]),
]);
const PLAIN_EXPORT = JSON.stringify([
  chatGptConversation('plain-1', 'Lunch budget', [
    ['user', 'Is $5 and $10 enough for lunch?'],
    ['assistant', 'Yes: $5 for a sandwich and $10 for a full meal.'],
  ]),
]);

async function importJson(page: Page, name: string, text: string, titles: string[]): Promise<void> {
  await page.getByLabel('Import file').setInputFiles({ name, mimeType: 'application/json', buffer: Buffer.from(text) });
  const list = page.getByRole('navigation', { name: 'Conversations' });
  for (const title of titles) await list.getByText(title, { exact: true }).first().waitFor();
}

/** Imports ChatGPT's data export as it downloads: a .zip holding conversations.json beside the rest. */
async function importZip(page: Page, conversationsJson: string, titles: string[]): Promise<void> {
  const zip = zipSync({ 'conversations.json': strToU8(conversationsJson), 'user.json': strToU8('{}'), 'chat.html': strToU8('<html></html>') });
  await page.getByLabel('Import file').setInputFiles({ name: 'chatgpt-data-export.zip', mimeType: 'application/zip', buffer: Buffer.from(zip) });
  const list = page.getByRole('navigation', { name: 'Conversations' });
  for (const title of titles) await list.getByText(title, { exact: true }).first().waitFor();
}

const answer = (page: Page) => page.getByRole('article', { name: 'Assistant message' }).last();

describe('math in Chromium', () => {
  it('loads KaTeX only for a message with math, renders every delimiter with its own fonts, and scrolls a wide formula at phone width', async () => {
    const { page, context, errors } = await newPage(browser);
    page.setDefaultTimeout(15_000);
    const fetched: string[] = [];
    page.on('response', (response) => fetched.push(`${response.status()} ${new URL(response.url()).pathname}`));
    await openApp(page, inject('appUrl'));
    await importJson(page, 'conversations.json', PLAIN_EXPORT, ['Lunch budget']);
    await openConversation(page, 'Lunch budget');
    await expect.poll(() => answer(page).textContent()).toContain('Yes: $5 for a sandwich and $10 for a full meal.');
    expect(await page.locator('.katex').count()).toBe(0);
    expect(fetched.filter((f) => /mathPlugins|KaTeX/.test(f))).toEqual([]);

    await importZip(page, MATH_EXPORT, ['Distance between two points']);

    await openConversation(page, 'Distance between two points');
    const formulas = answer(page).locator('.katex');
    await expect.poll(() => formulas.count()).toBe(4);
    // The user's question renders its formula too, the rest as typed.
    await expect.poll(() => page.getByRole('article', { name: 'User message' }).locator('.katex').count()).toBe(1);
    const tex = await answer(page).locator('annotation[encoding="application/x-tex"]').allTextContents();
    expect(tex.map((t) => t.trim())).toEqual([
      'E[|x-y|] = \\int_0^1 \\int_0^1 |x-y| \\, dx \\, dy = \\frac{1}{3}',
      'x',
      'y',
      expect.stringMatching(/^\\sum_\{n=1\}\^\{\\infty\}/),
    ]);
    expect(await answer(page).locator('.katex-display').count()).toBe(2);
    expect(await answer(page).locator('.katex-error').allTextContents()).toEqual(['\\frac{1}{']);
    expect(await answer(page).textContent()).toContain('Prices stay text: it costs $5 and $10, or $x$ in code.');
    expect(await answer(page).locator('code', { hasText: '$x$' }).count()).toBe(1);

    // KaTeX's fonts load from the app itself (woff2 only), and draw: a fraction is taller than a line of text.
    await page.evaluate(() => document.fonts.ready);
    expect(await page.evaluate(() => document.fonts.check('16px KaTeX_Main'))).toBe(true);
    expect(fetched.filter((f) => f.includes('KaTeX_') && !f.startsWith('200 '))).toEqual([]);
    expect(fetched.some((f) => /^200 \/assets\/KaTeX_Main-Regular-[\w-]+\.woff2$/.test(f))).toBe(true);
    expect(fetched.some((f) => /\.(woff|ttf)$/.test(f))).toBe(false);
    await screenshot(page, 'math-desktop');

    await page.setViewportSize({ width: 390, height: 844 });
    await expect
      .poll(() =>
        page.evaluate(() => {
          const wide = [...document.querySelectorAll<HTMLElement>('article[aria-label="Assistant message"] .katex-display')].at(-1)!;
          return { scrolls: wide.scrollWidth > wide.clientWidth, pageFits: document.documentElement.scrollWidth <= window.innerWidth };
        }),
      )
      .toEqual({ scrolls: true, pageFits: true });
    await screenshot(page, 'math-phone');
    // Nothing refused by the policy (KaTeX's inline styles go through React, not style attributes) and nothing thrown.
    expect(errors).toEqual([]);
    await context.close();
  });

  it('shows ChatGPT tool messages as collapsed tool rows, with placeholders and no export markup', async () => {
    const { page, context, errors } = await newPage(browser);
    page.setDefaultTimeout(15_000);
    await openApp(page, inject('appUrl'));
    const fixture = readFileSync(new URL('../core/transfer/fixtures/chatgpt-tools.json', import.meta.url), 'utf8');
    await importJson(page, 'conversations.json', fixture, ['Plotting a sine wave', 'Latest Python release']);

    await openConversation(page, 'Plotting a sine wave');
    const row = page.getByRole('button', { name: /^python import numpy as np/ });
    await row.waitFor();
    expect(await row.getAttribute('aria-expanded')).toBe('false');
    await expect.poll(() => answer(page).locator('.katex').count()).toBe(2);
    await row.click();
    await expect.poll(() => page.locator('.tool-call-output').first().textContent()).toBe('[Image — not included in the export file]');
    expect(await page.getByRole('article', { name: 'User message' }).count()).toBe(1);
    await screenshot(page, 'imported-tools-desktop');

    await openConversation(page, 'Latest Python release');
    await page.getByText('The latest release is Python 3.13.1, a maintenance release with about 400 fixes.').waitFor();
    expect(await page.getByRole('button', { name: /^browser\b/ }).count()).toBe(3);
    const body = (await page.locator('main').textContent()) ?? '';
    expect(body).not.toMatch(/<<ImageDisplayed>>|【|†|[\ue200-\ue204]/);
    await page.setViewportSize({ width: 390, height: 844 });
    await screenshot(page, 'imported-tools-phone');
    expect(errors).toEqual([]);
    await context.close();
  });
});
