// @vitest-environment node
import { mkdtempSync, rmSync } from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { scratchDir, startCouchServer, type CouchServer } from './couchServer';
import { startFaultProxy, type FaultProxy } from './faultProxy';

const ORIGIN = 'http://127.0.0.1:4173';
const basic = (name: string, password: string) => `Basic ${Buffer.from(`${name}:${password}`).toString('base64')}`;
const ALICE = basic('alice', 'alice-password');
const BOB = basic('bob', 'bob-password');

function request(url: string, options: { method?: string; auth?: string; body?: unknown; origin?: boolean } = {}) {
  const headers: Record<string, string> = { accept: 'application/json' };
  if (options.auth) headers.authorization = options.auth;
  if (options.origin ?? true) headers.origin = ORIGIN;
  if (options.body !== undefined) headers['content-type'] = 'application/json';
  return fetch(url, { method: options.method ?? 'GET', headers, body: options.body === undefined ? undefined : JSON.stringify(options.body) });
}

async function json(response: Response): Promise<Record<string, unknown>> {
  return (await response.json()) as Record<string, unknown>;
}

function preflight(url: string, method: string) {
  return fetch(url, {
    method: 'OPTIONS',
    headers: { origin: ORIGIN, 'access-control-request-method': method, 'access-control-request-headers': 'authorization,content-type' },
  });
}

/** Whether a TCP connection to the URL's port is refused. */
function refused(url: string): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect({ host: '127.0.0.1', port: Number(new URL(url).port) });
    socket.once('connect', () => {
      socket.destroy();
      resolve(false);
    });
    socket.once('error', (error: NodeJS.ErrnoException) => resolve(error.code === 'ECONNREFUSED'));
  });
}

function expectCors(response: Response) {
  expect(response.headers.get('access-control-allow-origin')).toBe(ORIGIN);
  expect(response.headers.get('access-control-allow-credentials')).toBe('true');
}

let couch: CouchServer;
let dbUrl: string;

beforeAll(async () => {
  couch = await startCouchServer();
  await couch.createUser('alice', 'alice-password');
  await couch.createUser('bob', 'bob-password');
  dbUrl = await couch.createDatabase('notes', ['alice']);
});
afterAll(() => couch?.stop());

describe('the CouchDB-protocol server', () => {
  it('answers GET / and a CORS preflight with the origin echoed and credentials allowed', async () => {
    const root = await request(`${couch.url}/`);
    expect(root.status).toBe(200);
    expect(await json(root)).toMatchObject({ version: '4.2.0' });
    expectCors(root);

    const answer = await preflight(`${dbUrl}/doc-1`, 'PUT');
    expect(answer.status).toBe(204);
    expectCors(answer);
    expect(answer.headers.get('access-control-allow-methods')).toContain('PUT');
    expect(answer.headers.get('access-control-allow-headers')).toMatch(/authorization.*content-type/);
  });

  it('lets the member write and read, and refuses as CouchDB 3 does: 401 without or with wrong credentials, 403 for a non-member', async () => {
    const doc = { payload: 'ciphertext', _attachments: { 'blob.bin': { content_type: 'application/octet-stream', data: 'AAEC' } } };
    const written = await request(`${dbUrl}/doc-1`, { method: 'PUT', auth: ALICE, body: doc });
    expect(written.status).toBe(201);
    expectCors(written);
    expect(await json(await request(`${dbUrl}/doc-1`, { auth: ALICE }))).toMatchObject({ payload: 'ciphertext' });

    const wrongPassword = await request(`${dbUrl}/doc-1`, { auth: basic('alice', 'nope') });
    expect([wrongPassword.status, (await json(wrongPassword)).error]).toEqual([401, 'unauthorized']);
    expectCors(wrongPassword);
    const anonymous = await request(`${dbUrl}/doc-1`);
    expect([anonymous.status, (await json(anonymous)).error]).toEqual([401, 'unauthorized']);
    expectCors(anonymous);
    for (const [method, suffix, body] of [
      ['GET', '/doc-1', undefined],
      ['GET', '', undefined],
      ['GET', '/_changes', undefined],
      ['POST', '/_bulk_get', { docs: [{ id: 'doc-1' }] }],
      ['POST', '/_bulk_docs', { docs: [{ _id: 'intruder' }] }],
    ] as const) {
      const answer = await request(`${dbUrl}${suffix}`, { method, auth: BOB, body });
      expect([method, suffix, answer.status, (await json(answer)).error]).toEqual([method, suffix, 403, 'forbidden']);
      expectCors(answer);
    }
    // pouchdb-server itself would answer this one to anyone.
    expect((await request(`${dbUrl}/_bulk_get`, { method: 'POST', body: { docs: [{ id: 'doc-1' }] } })).status).toBe(401);

    // Creating a database is for admins (pouchdb-server alone would crash), and the server goes on.
    const created = await request(`${couch.url}/bobs-db`, { method: 'PUT', auth: BOB });
    expect([created.status, (await json(created)).reason]).toEqual([401, 'You are not a server admin.']);
    expect((await request(`${dbUrl}/doc-1`, { auth: ALICE })).status).toBe(200);
  });

  it('shows what it stores, attachments inlined, and rewrites a document with a new revision', async () => {
    const stored = await couch.allDocs('notes');
    const doc = stored.rows.find((row) => row.id === 'doc-1')?.doc;
    expect(doc).toMatchObject({ payload: 'ciphertext', _attachments: { 'blob.bin': { content_type: 'application/octet-stream', data: 'AAEC' } } });

    const rev = await couch.rewriteDoc(dbUrl, 'doc-1', (current) => {
      current.payload = 'tampered';
    });
    expect(rev).toMatch(/^2-/);
    expect(await json(await request(`${dbUrl}/doc-1?attachments=true`, { auth: ALICE }))).toMatchObject({
      _rev: rev,
      payload: 'tampered',
      _attachments: { 'blob.bin': { data: 'AAEC' } },
    });
  });

  it('in memory, restart() closes the port and every connection, then serves the same data on the same port', async () => {
    const url = couch.url;
    await couch.restart();
    expect(couch.url).toBe(url);
    expect(await json(await request(`${dbUrl}/doc-1`, { auth: ALICE }))).toMatchObject({ payload: 'tampered' });
  });

  it('kept on disk, restarts its process on the same port with the data, users and CORS kept, and frees the port when stopped', async () => {
    const dir = mkdtempSync(path.join(scratchDir(), 'windowpane-couch-test-'));
    const disk = await startCouchServer({ persistentDir: dir });
    try {
      await disk.createUser('alice', 'alice-password');
      const url = await disk.createDatabase('kept', ['alice']);
      expect((await request(`${url}/doc`, { method: 'PUT', auth: ALICE, body: { n: 1 } })).status).toBe(201);
      await disk.restart();
      const read = await request(`${url}/doc`, { auth: ALICE });
      expect(await json(read)).toMatchObject({ n: 1 });
      expectCors(read);
      expect((await request(`${url}/doc`, { auth: BOB })).status).toBe(401);
    } finally {
      await disk.stop();
      rmSync(dir, { recursive: true, force: true });
    }
    expect(await refused(disk.url)).toBe(true);
  });
});

describe('the fault proxy', () => {
  let proxy: FaultProxy;
  let proxied: string;
  beforeAll(async () => {
    proxy = await startFaultProxy(couch.url);
    proxied = `${proxy.url}/notes`;
  });
  afterAll(() => proxy?.close());

  it('passes requests through, answers each injected status once with CORS headers, and never fails a preflight', async () => {
    expect((await request(`${proxied}/doc-1`, { auth: ALICE })).status).toBe(200);
    const data = Buffer.alloc(3_000_000, 7).toString('base64');
    const large = { _attachments: { 'large.bin': { content_type: 'application/octet-stream', data } } };
    expect((await request(`${proxied}/large`, { method: 'PUT', auth: ALICE, body: large })).status).toBe(201);
    const readBack = await json(await request(`${proxied}/large?attachments=true`, { auth: ALICE }));
    expect((readBack._attachments as Record<string, { data: string }>)['large.bin']!.data).toBe(data);
    const expected = { 401: 'unauthorized', 403: 'forbidden', 409: 'conflict', 413: 'too_large', 500: 'unknown_error' };
    for (const [status, error] of Object.entries(expected)) {
      proxy.failNext({ status: Number(status) });
      expect((await preflight(`${proxied}/doc-2`, 'PUT')).status).toBe(204);
      const failed = await request(`${proxied}/doc-2`, { method: 'PUT', auth: ALICE, body: { big: 'x'.repeat(200_000) } });
      expect([failed.status, (await json(failed)).error]).toEqual([Number(status), error]);
      expectCors(failed);
      expect((await request(`${proxied}/doc-1`, { auth: ALICE })).status).toBe(200);
    }
    const injected = proxy.requests.filter((entry) => entry.injected);
    expect(injected.map((entry) => [entry.method, entry.path, entry.status])).toEqual(
      [401, 403, 409, 413, 500].map((status) => ['PUT', '/notes/doc-2', status]),
    );
    expect(proxy.requests.filter((entry) => entry.method === 'OPTIONS').every((entry) => entry.status === 204)).toBe(true);
  });

  it('fails only matching requests, as many times as asked, and can let the server do what the client sees fail', async () => {
    proxy.failNext({ status: 500, times: 2, match: (r) => r.method === 'POST' && r.path.endsWith('/_bulk_docs') });
    const bulk = () => request(`${proxied}/_bulk_docs`, { method: 'POST', auth: ALICE, body: { docs: [{ _id: `bulk-${Math.random()}` }] } });
    expect((await request(`${proxied}/doc-1`, { auth: ALICE })).status).toBe(200);
    expect([(await bulk()).status, (await bulk()).status, (await bulk()).status]).toEqual([500, 500, 201]);

    proxy.failNext({ status: 500, forward: true, body: { error: 'unknown_error', reason: 'after the write' } });
    const failed = await request(`${proxied}/written-anyway`, { method: 'PUT', auth: ALICE, body: { n: 1 } });
    expect([failed.status, await json(failed)]).toEqual([500, { error: 'unknown_error', reason: 'after the write' }]);
    expect((await couch.allDocs('notes')).rows.map((row) => row.id)).toContain('written-anyway');

    proxy.failNext({ status: 401 });
    proxy.clearFaults();
    expect((await request(`${proxied}/doc-1`, { auth: ALICE })).status).toBe(200);
  });

  it('refuses connections once stopped and serves again on the same port once started', async () => {
    await proxy.stop();
    expect(await refused(proxy.url)).toBe(true);
    await expect(request(`${proxied}/doc-1`, { auth: ALICE })).rejects.toThrow();
    await proxy.start();
    expect((await request(`${proxied}/doc-1`, { auth: ALICE })).status).toBe(200);
  });
});
