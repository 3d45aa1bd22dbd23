/**
 * The sandbox frame's own policy (public/sandbox.html): it allows no request of any kind,
 * runs only its one inline script (by hash) plus the code the worker evaluates, and starts
 * workers only from blob: URLs, which inherit the policy. The escape attempts themselves
 * run in Chromium: test/security/sandbox.e2e.test.ts.
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const html = readFileSync(resolve(dirname(fileURLToPath(import.meta.url)), '../../public/sandbox.html'), 'utf8');
const meta = /<meta http-equiv="Content-Security-Policy" content="([^"]+)"/.exec(html);
const policy = new Map(
  (meta?.[1] ?? '')
    .split(';')
    .map((d) => d.trim().split(/\s+/))
    .map(([name, ...sources]) => [name!, sources]),
);
const scripts = [...html.matchAll(/<script>([\s\S]*?)<\/script>/g)].map((m) => m[1]!);

describe('public/sandbox.html', () => {
  it('sets its policy in a meta element before its script', () => {
    expect(meta).not.toBeNull();
    expect(html.indexOf('Content-Security-Policy')).toBeLessThan(html.indexOf('<script>'));
  });

  it("falls back to default-src 'none', so no fetch, socket, image, font, frame or form can go out", () => {
    expect(policy.get('default-src')).toEqual(["'none'"]);
    for (const name of ['connect-src', 'img-src', 'font-src', 'media-src', 'frame-src', 'child-src', 'object-src', 'style-src', 'manifest-src'])
      expect(policy.has(name), name).toBe(false);
    expect(policy.get('base-uri')).toEqual(["'none'"]);
    expect(policy.get('form-action')).toEqual(["'none'"]);
  });

  it('runs only its own inline script (by hash) and eval, and starts workers only from blob: URLs', () => {
    expect(scripts).toHaveLength(1);
    const hash = `'sha256-${createHash('sha256').update(scripts[0]!).digest('base64')}'`;
    expect(policy.get('script-src')).toEqual([hash, "'unsafe-eval'"]);
    expect(policy.get('worker-src')).toEqual(['blob:']);
  });

  it('loads no script file and no other resource', () => {
    expect(html).not.toMatch(/\s(src|href)=/);
  });
});
