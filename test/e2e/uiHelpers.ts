/**
 * Steps the UI browser journeys share. They find things only by role and by the
 * accessible names the app promises (composer "Message", "Send", "Stop", "Settings",
 * "Export", the "Context usage" meter, "User message" / "Assistant message" articles…),
 * as a user with a screen reader would.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { Locator, Page } from 'playwright-core';

/** The Settings dialog's sections, as their tabs name them. */
export type SettingsSection = 'Model and key' | 'Context' | 'Tools' | 'Storage' | 'Sync' | 'Appearance';

/**
 * Shows a section of the open Settings dialog by clicking its tab, and returns its panel.
 * Settings opens on "Model and key"; the other sections' fields are hidden until chosen.
 */
export async function openSettingsSection(page: Page, name: SettingsSection): Promise<Locator> {
  const dialog = page.getByRole('dialog', { name: 'Settings' });
  const tab = dialog.getByRole('tab', { name, exact: true });
  await tab.click();
  await tab.and(page.locator('[aria-selected="true"]')).waitFor();
  return dialog.getByRole('tabpanel', { name, exact: true });
}

/** Opens the app and waits until it has read its storage (the composer is shown). */
export async function openApp(page: Page, appUrl: string): Promise<void> {
  await page.goto(appUrl);
  await page.getByRole('textbox', { name: 'Message' }).waitFor();
}

/**
 * Types `text` and presses Enter, then waits for the answer: Stop appears while the
 * request runs (summary first, then the stream) and gives way to Send when it is done.
 */
export async function sendWithEnter(page: Page, text: string): Promise<void> {
  const box = page.getByRole('textbox', { name: 'Message' });
  await box.fill(text);
  await box.press('Enter');
  await page.getByRole('button', { name: 'Stop', exact: true }).waitFor({ state: 'visible' });
  await page.getByRole('button', { name: 'Send', exact: true }).waitFor({ state: 'visible', timeout: 20_000 });
}

/** The gauge's value and maximum, in tokens. */
export async function contextUsage(page: Page): Promise<{ now: number; max: number }> {
  const meter = page.getByRole('meter', { name: 'Context usage' });
  return { now: Number(await meter.getAttribute('aria-valuenow')), max: Number(await meter.getAttribute('aria-valuemax')) };
}

/**
 * Scrolls the transcript up with the mouse wheel (it is virtualized: rows far from view
 * are not in the page) until `target` is in view, then back to the newest messages if
 * asked. Returns whether it was found.
 */
export async function scrollUpTo(page: Page, target: Locator, options: { maxSteps?: number } = {}): Promise<boolean> {
  const anchor = page.getByRole('article').last();
  await anchor.hover();
  for (let step = 0; step < (options.maxSteps ?? 40); step++) {
    if ((await target.count()) > 0 && (await target.first().isVisible())) {
      await target.first().scrollIntoViewIfNeeded();
      return true;
    }
    await page.mouse.wheel(0, -400);
    await page.waitForTimeout(50);
  }
  return false;
}

/** Scrolls the transcript back down to the newest message. */
export async function scrollToNewest(page: Page): Promise<void> {
  for (let step = 0; step < 60; step++) {
    await page.mouse.wheel(0, 2000);
    await page.waitForTimeout(30);
    const atBottom = await page
      .getByRole('article')
      .last()
      .evaluate((el) => {
        const log = el.closest('[role="log"]');
        return !log || log.scrollTop + log.clientHeight >= log.scrollHeight - 2;
      });
    if (atBottom) return;
  }
}

export interface AxeViolation {
  id: string;
  impact: string | null;
  help: string;
  nodes: string[];
}

const axePath = createRequire(import.meta.url).resolve('axe-core/axe.min.js');

/** Runs axe-core on the page as it stands; returns the serious and critical violations. */
export async function seriousAxeViolations(page: Page): Promise<AxeViolation[]> {
  // Evaluated rather than added as a <script>: the built app's policy refuses inline scripts.
  if (!(await page.evaluate(() => 'axe' in window))) await page.evaluate(readFileSync(axePath, 'utf8'));
  const violations = await page.evaluate(async () => {
    const result = await (
      window as unknown as {
        axe: {
          run: (ctx: Document, opts: object) => Promise<{ violations: { id: string; impact: string | null; help: string; nodes: { target: unknown[] }[] }[] }>;
        };
      }
    ).axe.run(document, {
      resultTypes: ['violations'],
    });
    return result.violations.map((v) => ({ id: v.id, impact: v.impact, help: v.help, nodes: v.nodes.map((n) => JSON.stringify(n.target)) }));
  });
  return violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
}
