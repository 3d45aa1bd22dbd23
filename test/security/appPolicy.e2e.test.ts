/**
 * The built app's Content-Security-Policy in real Chromium: the policy is in the served
 * index.html, it is enforced (an inline script, a data: request and an <object> are
 * refused and reported), and a whole session under it (settings, a
 * streamed Markdown answer, a run_javascript call in the sandbox frame, the gauge, the
 * service worker and the web app manifest) reports no violation at all.
 */
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { startFakeApi, type FakeApi, type ReplySpec } from '../fake-api/server';
import { launchBrowser, newPage } from '../e2e/browser';
import { configure, PROVIDER_SETUPS, sendTurn, storedRecords } from '../e2e/providersHelpers';

interface Violation {
  directive: string;
  blocked: string;
}

/** Registered before the app loads: every violation the page reports. */
function recordViolations(): void {
  const seen: { directive: string; blocked: string }[] = [];
  (window as unknown as { __violations: typeof seen }).__violations = seen;
  document.addEventListener('securitypolicyviolation', (event) => seen.push({ directive: event.effectiveDirective, blocked: event.blockedURI }));
}

const violations = (page: Page) => page.evaluate(() => (window as unknown as { __violations: Violation[] }).__violations.splice(0));

/** The policy's directives from the served index.html. */
async function servedPolicy(): Promise<Map<string, string[]>> {
  const html = await (await fetch(inject('appUrl'))).text();
  const content = /<meta http-equiv="Content-Security-Policy" content="([^"]+)"/.exec(html)?.[1] ?? '';
  const policy = content.replaceAll('&#39;', "'");
  return new Map(
    policy
      .split(';')
      .map((d) => d.trim().split(/\s+/))
      .map(([name, ...sources]) => [name!, sources]),
  );
}

describe("the built app's Content-Security-Policy", () => {
  let browser: Browser;
  let fake: FakeApi;
  beforeAll(async () => {
    [browser, fake] = await Promise.all([launchBrowser(), startFakeApi({ contextWindow: 50_000, deltaDelayMs: 1 })]);
  });
  afterAll(async () => {
    await Promise.all([browser?.close(), fake?.close()]);
  });

  it('is served in index.html: no inline script, no plugins, no base or form targets, requests only over http(s)', async () => {
    const policy = await servedPolicy();
    expect(policy.get('script-src')).toEqual(["'self'"]);
    expect(policy.get('object-src')).toEqual(["'none'"]);
    expect(policy.get('base-uri')).toEqual(["'none'"]);
    expect(policy.get('form-action')).toEqual(["'none'"]);
    expect(policy.get('img-src')).toEqual(["'self'", 'data:', 'blob:']);
    expect(policy.get('connect-src')).toEqual(["'self'", 'https:', 'http:']);
    expect(policy.get('frame-src')).toEqual(["'self'"]);
    // The service worker (sw.js) and the web app manifest, from the app's own origin only.
    expect(policy.get('worker-src')).toEqual(["'self'"]);
    expect(policy.get('manifest-src')).toEqual(["'self'"]);
    for (const sources of policy.values()) expect(sources).not.toContain("'unsafe-inline'");
    for (const sources of policy.values()) expect(sources).not.toContain("'unsafe-eval'");
  });

  it('is enforced: an inline script, a data: request and an <object> are refused and reported', async () => {
    const { page, context } = await newPage(browser);
    await page.addInitScript(recordViolations);
    await page.goto(inject('appUrl'));
    await page.getByRole('textbox', { name: 'Message' }).waitFor();
    const ran = await page.evaluate(async () => {
      const script = document.createElement('script');
      script.textContent = 'window.__inlineRan = true';
      document.body.append(script);
      const object = document.createElement('object');
      object.data = '/favicon.svg';
      document.body.append(object);
      const fetched = await fetch('data:text/plain,leak').then(
        () => 'reached',
        () => 'refused',
      );
      await new Promise((resolve) => setTimeout(resolve, 200));
      return { inline: (window as unknown as { __inlineRan?: boolean }).__inlineRan === true, fetched };
    });
    expect(ran).toEqual({ inline: false, fetched: 'refused' });
    const directives = (await violations(page)).map((v) => v.directive).sort();
    expect(directives).toEqual(['connect-src', 'object-src', 'script-src-elem']);
    await context.close();
  });

  it('lets a whole session run without one violation: settings, a Markdown answer, a sandboxed snippet, the gauge', async () => {
    const markdown = [
      'Here is **bold** text, a [link](https://example.com) and `code`.',
      '',
      '| left | right |',
      '|:-----|------:|',
      '| a | 1 |',
      '',
      '```ts',
      'const plan = planContext(history, policy);',
      '```',
    ].join('\n');
    const script: ReplySpec[] = [
      { text: 'Let me compute.', toolCalls: [{ name: 'run_javascript', input: { code: "console.log('from the sandbox'); 6 * 7" } }] },
      { text: markdown },
    ];
    fake.reset();
    fake.setReply(() => script.shift());
    const { page, context, errors } = await newPage(browser);
    await page.addInitScript(recordViolations);
    await page.goto(inject('appUrl'));
    await configure(page, fake, PROVIDER_SETUPS.anthropic, { contextWindow: 50_000 });
    await sendTurn(page, fake, 'Compute, then show me a table.');
    await page.getByRole('columnheader', { name: 'right' }).waitFor();
    const results = (await storedRecords(page)).flatMap((r) => r.content).filter((b) => b.type === 'tool_result');
    expect(results).toMatchObject([{ content: 'Output:\nfrom the sandbox\nResult: 42' }]);
    await page.getByText("console.log('from the sandbox')").first().click();
    await page.getByRole('button', { name: 'Settings' }).click();
    await page.getByRole('dialog', { name: 'Settings' }).getByRole('button', { name: 'Cancel' }).click();
    // The service worker registered and took control under the policy, and the manifest
    // (which Chromium fetches when asked for it, as when offering to install) was read.
    await page.waitForFunction(() => navigator.serviceWorker.controller !== null);
    const manifest = (await (await context.newCDPSession(page)).send('Page.getAppManifest')) as { errors: unknown[]; data?: string };
    expect(manifest.errors).toEqual([]);
    expect(JSON.parse(manifest.data ?? '{}')).toMatchObject({ name: 'Windowpane' });

    expect(await violations(page)).toEqual([]);
    expect(errors).toEqual([]);
    await context.close();
  });
});
