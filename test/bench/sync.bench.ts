// End-to-end-encrypted sync of a year of history in real Chromium (the built app, served by
// vite preview), against pouchdb-server (a CouchDB-protocol server, test/sync/couchServer.ts)
// keeping its database on disk. Device A holds the history bench's year (1,000 conversations,
// 200,000 messages, written straight into its IndexedDB, search index built); device B is a
// fresh browser profile. Baseline in the same run: moving the same history by hand, "All
// conversations (JSON)" exported from A (click until every file is downloaded: the app splits an
// export over the 200 MiB Import takes into parts) and imported on a fresh profile (choosing the
// files together until the last progress bar goes). Measured against it:
// - first sync, A: Settings → Sync → "Turn on sync" on an empty server database until A's
//   status says Synced (every record sealed, in A's replicated copy and sent), and until the
//   server holds a document for every conversation and message;
// - first sync, B: the same passphrase on a fresh profile until B's IndexedDB holds every
//   conversation and message and its status says Synced;
// - one new message: A sends one in an existing conversation (the Demo answers in the page)
//   until B's IndexedDB holds it and its answer;
// - the server's space (LevelDB's `disk_size`, and the JSON of every document with its
//   attachments) against the export file's size, and each device's storage
//   (navigator.storage.estimate) against what it held without sync;
// - the longest main-thread task on A and on B while each syncs (PerformanceObserver
//   'longtask'), and whether any went over 200 ms.
// A sampler reads every 2 s (0.5 s for small sizes) the record counts at each stage: A's
// replicated copy (records sealed), the server's documents (pushed), B's replicated copy
// (pulled) and B's app database (applied), with each sidebar's status text; the rates are
// printed and the samples and long tasks written to test-results/bench-sync/timeline.json,
// with what the Workers printed (worker-a.log, worker-b.log).
//
// Size: WINDOWPANE_SYNC_SIZE=100x200 (conversations × messages each) for a quick run; the
// default is the year. A's first sync is given up WINDOWPANE_SYNC_LIMIT_MIN minutes (20)
// after it began: its rows say how far it got, A's tab is closed, and B syncs what the server
// holds by then (within the same limit), so the rates still say where the time goes.
// WINDOWPANE_SYNC_PROFILE=1 also records CPU profiles of each device's page and sync Worker
// (see profileSync).
import { mkdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { Browser, BrowserContext, Download, Page } from 'playwright-core';
import { startCouchServer, type CouchServer } from '../sync/couchServer';
import { newPage } from '../e2e/browser';
import { typeAndSend } from '../e2e/persistenceHelpers';
import { turnOnSync } from '../e2e/syncHelpers';
import { withPreviewBrowser } from './chromium';
import { fmtRatio, type Row } from './harness';
import { indexAll, seed, yearShape, type HistoryShape } from './history.bench';
import { importThrough } from './import.bench';

export const title = 'Encrypted sync of a year of history in Chromium (ratio = time ÷ export from A + import on B, same run)';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const WORK = `${ROOT}test-results/bench-sync/`;
const LIMIT_MS = Number(process.env.WINDOWPANE_SYNC_LIMIT_MIN ?? 20) * 60_000;
const USER = { name: 'ada', password: 'lovelace-pw' };

interface Size {
  shape: HistoryShape;
  conversations: number;
  messages: number;
  label: string;
}

/** The year of the history bench, or `WINDOWPANE_SYNC_SIZE=<conversations>x<messages each>`. */
function chosenSize(): Size {
  const wanted = process.env.WINDOWPANE_SYNC_SIZE ?? 'year';
  let shape: HistoryShape;
  if (wanted === 'year') shape = yearShape();
  else {
    const match = /^(\d+)x(\d+)$/.exec(wanted);
    if (!match) throw new Error(`WINDOWPANE_SYNC_SIZE is “year” or <conversations>x<messages each> (such as 100x200), not “${wanted}”`);
    const [conversations, each] = [Number(match[1]), Number(match[2])];
    shape = { sizes: Array.from({ length: conversations }, () => each), needle: [Math.min(6, conversations - 1), Math.min(11, each - 1)] };
  }
  const conversations = shape.sizes.length;
  const messages = shape.sizes.reduce((a, b) => a + b, 0);
  return { shape, conversations, messages, label: `${n(conversations)} conversations, ${n(messages)} messages` };
}

const n = (value: number) => value.toLocaleString('en-US');
const mb = (bytes: number) => `${(bytes / 1_048_576).toFixed(1)} MB`;
const duration = (ms: number) => (ms >= 60_000 ? `${Math.floor(ms / 60_000)} min ${((ms % 60_000) / 1000).toFixed(0)} s` : `${(ms / 1000).toFixed(1)} s`);
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

interface Device {
  name: string;
  context: BrowserContext;
  page: Page;
  errors: string[];
  workerLog: string[];
}

/** A fresh profile with the app open, its long tasks recorded (as [page time, ms] in `window.longTasks`, the import bench's shape) and its Workers' console kept. */
async function openDevice(browser: Browser, appUrl: string, name: string): Promise<Device> {
  const { context, page, errors } = await newPage(browser, { viewport: { width: 1280, height: 800 } });
  page.setDefaultTimeout(120_000);
  // tsx keeps function names with a `__name` helper that the functions run in the page would miss.
  await page.addInitScript('globalThis.__name = globalThis.__name || ((f) => f)');
  await page.addInitScript(() => {
    const tasks: Array<[number, number]> = [];
    (window as unknown as { longTasks: Array<[number, number]> }).longTasks = tasks;
    new PerformanceObserver((list) => {
      for (const entry of list.getEntries()) tasks.push([entry.startTime, entry.duration]);
    }).observe({ type: 'longtask', buffered: true });
  });
  const workerLog: string[] = [];
  page.on('worker', (worker) => {
    const started = Date.now();
    workerLog.push(`${new Date(started).toISOString()} worker started: ${worker.url()}`);
    worker.on('console', (message) => workerLog.push(`${new Date().toISOString()} [${message.type()}] ${message.text()}`));
    worker.on('close', () => workerLog.push(`${new Date().toISOString()} worker closed: ${worker.url()}`));
  });
  await page.goto(appUrl);
  await page.getByRole('textbox', { name: 'Message' }).waitFor();
  return { name, context, page, errors, workerLog };
}

interface Counts {
  conversations: number;
  messages: number;
  /** Documents in the sync Worker's replicated copy (PouchDB's document store), 0 before sync starts. */
  replica: number;
}

/** Counts read in the page, never opening (and so never creating) a database that is not there yet. */
async function counts(page: Page): Promise<Counts> {
  return page.evaluate(async () => {
    const names = new Set((await indexedDB.databases()).map((d) => d.name));
    const count = async (name: string, stores: string[]): Promise<number[]> => {
      if (!names.has(name)) return stores.map(() => 0);
      const db = await new Promise<IDBDatabase>((resolve, reject) => {
        const request = indexedDB.open(name);
        request.onsuccess = () => resolve(request.result);
        request.onerror = () => reject(request.error);
      });
      try {
        const present = stores.filter((s) => db.objectStoreNames.contains(s));
        if (present.length === 0) return stores.map(() => 0);
        const tx = db.transaction(present, 'readonly');
        const requests = present.map((s) => tx.objectStore(s).count());
        await new Promise<void>((resolve, reject) => {
          tx.oncomplete = () => resolve();
          tx.onerror = () => reject(tx.error);
        });
        return stores.map((s) => (present.includes(s) ? requests[present.indexOf(s)]!.result : 0));
      } finally {
        db.close();
      }
    };
    const [conversations = 0, messages = 0] = await count('windowpane', ['conversations', 'messages']);
    const [replica = 0] = await count('_pouch_windowpane-replica', ['document-store']);
    return { conversations, messages, replica };
  });
}

/** What the origin stores (navigator.storage.estimate), in bytes. */
async function storageUsage(page: Page): Promise<number> {
  return page.evaluate(async () => (await navigator.storage.estimate()).usage ?? NaN);
}

async function statusText(page: Page): Promise<string> {
  return page.evaluate(() => document.querySelector('[role="status"][aria-label="Sync"]')?.textContent?.trim() ?? '');
}

interface ServerFacts {
  docs: number;
  diskSize: number;
}

function adminFetch(couch: CouchServer, url: string): Promise<Response> {
  return fetch(url, {
    headers: { accept: 'application/json', authorization: `Basic ${Buffer.from(`${couch.admin.username}:${couch.admin.password}`).toString('base64')}` },
  });
}

async function serverFacts(couch: CouchServer, dbUrl: string): Promise<ServerFacts> {
  const info = (await (await adminFetch(couch, dbUrl)).json()) as { doc_count?: number; disk_size?: number };
  return { docs: info.doc_count ?? 0, diskSize: info.disk_size ?? NaN };
}

/** The JSON length of every document the server keeps, attachments inlined, read 2,000 at a time. */
async function serverJsonBytes(couch: CouchServer, dbUrl: string): Promise<{ docs: number; bytes: number; largest: number }> {
  let bytes = 0;
  let docs = 0;
  let largest = 0;
  let after: string | undefined;
  for (;;) {
    const query = new URLSearchParams({ include_docs: 'true', attachments: 'true', limit: '2000' });
    if (after !== undefined) {
      query.set('startkey', JSON.stringify(after));
      query.set('skip', '1');
    }
    const page = (await (await adminFetch(couch, `${dbUrl}/_all_docs?${query}`)).json()) as { rows: Array<{ id: string; doc?: unknown }> };
    for (const row of page.rows) {
      const length = Buffer.byteLength(JSON.stringify(row.doc));
      bytes += length;
      largest = Math.max(largest, length);
      docs++;
    }
    if (page.rows.length < 2000) return { docs, bytes, largest };
    after = page.rows.at(-1)!.id;
  }
}

interface Sample {
  /** ms since the sampler started */
  t: number;
  server: number;
  a?: Counts;
  b?: Counts;
  aStatus?: string;
  bStatus?: string;
}

/** Reads every stage's count every `everyMs` until stopped; a slow read delays the next, never overlaps it. */
function startSampler(couch: CouchServer, dbUrl: string, devices: () => { a?: Page; b?: Page }, everyMs: number) {
  const samples: Sample[] = [];
  const began = Date.now();
  let stopped = false;
  const done = (async () => {
    while (!stopped) {
      const { a, b } = devices();
      const at = Date.now();
      const [server, aCounts, bCounts, aStatus, bStatus] = await Promise.all([
        serverFacts(couch, dbUrl).then((f) => f.docs),
        a ? counts(a).catch(() => undefined) : undefined,
        b ? counts(b).catch(() => undefined) : undefined,
        a ? statusText(a).catch(() => undefined) : undefined,
        b ? statusText(b).catch(() => undefined) : undefined,
      ]);
      samples.push({ t: at - began, server, a: aCounts, b: bCounts, aStatus, bStatus });
      await sleep(Math.max(0, everyMs - (Date.now() - at)));
    }
  })();
  return {
    samples,
    began,
    async stop() {
      stopped = true;
      await done;
    },
  };
}

/** Polls `check` until it holds; ms since `since`, or undefined when `limitMs` passed first. */
async function until(check: () => Promise<boolean>, since: number, limitMs: number, pollMs: number): Promise<number | undefined> {
  for (;;) {
    if (await check().catch(() => false)) return Date.now() - since;
    if (Date.now() - since > limitMs) return undefined;
    await sleep(pollMs);
  }
}

/** Records per second of one stage's counter within [from, to] (ms of the sampler): from its first move to when it reached its last value. */
function rate(
  samples: Sample[],
  read: (s: Sample) => number | undefined,
  window: [number, number],
): { perSecond: number; from: number; to: number; moved: number } | undefined {
  const points = samples
    .filter((s) => s.t >= window[0] && s.t <= window[1])
    .map((s) => [s.t, read(s)] as const)
    .filter((p): p is readonly [number, number] => p[1] !== undefined);
  if (points.length < 2) return undefined;
  const first = points[0]![1];
  const startAt = points.findIndex((p) => p[1] !== first);
  if (startAt < 0) return undefined;
  const last = Math.max(...points.map((p) => p[1]));
  const endAt = points.findIndex((p) => p[1] === last);
  const from = points[startAt - 1]![0];
  const to = points[endAt]![0];
  return { perSecond: ((last - first) / Math.max(1, to - from)) * 1000, from, to, moved: last - first };
}

/** A device's long tasks that overlap [from, to] (epoch ms), as [start (epoch ms), ms]. */
async function longTasks(page: Page, from: number, to: number): Promise<Array<[number, number]>> {
  const [origin, tasks] = await page.evaluate(() => [performance.timeOrigin, (window as unknown as { longTasks: Array<[number, number]> }).longTasks] as const);
  return tasks.map(([at, ms]): [number, number] => [Math.round(origin + at), Math.round(ms)]).filter(([at, ms]) => at + ms >= from && at <= to);
}

const longest = (tasks: Array<[number, number]>) => Math.max(0, ...tasks.map(([, ms]) => ms));

/** "All conversations (JSON)" from the Export menu: ms from the click until the file is downloaded, and its path and size. */
async function exportAll(page: Page): Promise<{ ms: number; bytes: number; paths: string[] }> {
  await page.getByRole('button', { name: 'Other formats' }).click();
  // An export too large for one Import comes as several files ("…-part-1-of-2.json"), downloaded one after another.
  const downloads: Download[] = [];
  const heard = (download: Download) => void downloads.push(download);
  page.on('download', heard);
  const started = performance.now();
  await page.getByRole('menuitem', { name: 'All conversations (JSON)' }).click();
  const expected = () => Number(/-part-\d+-of-(\d+)\.json$/.exec(downloads[0]?.suggestedFilename() ?? '')?.[1] ?? 1);
  const deadline = Date.now() + LIMIT_MS;
  while (downloads.length === 0 || downloads.length < expected()) {
    if (Date.now() > deadline) throw new Error(`the export gave ${downloads.length} of ${expected()} files in ${duration(LIMIT_MS)}`);
    await sleep(100);
  }
  page.off('download', heard);
  const paths: string[] = [];
  for (const [i, download] of downloads.entries()) {
    const failure = await download.failure();
    if (failure) throw new Error(`the export's download failed: ${failure}`);
    const path = `${WORK}export-${i + 1}.json`;
    await download.saveAs(path);
    await download.delete();
    paths.push(path);
  }
  const ms = performance.now() - started;
  return { ms, bytes: paths.reduce((sum, path) => sum + statSync(path).size, 0), paths };
}

interface CpuProfile {
  nodes: Array<{ id: number; callFrame: { functionName: string; url: string; lineNumber: number } }>;
  samples: number[];
  timeDeltas: number[];
}

/** Writes a CPU profile to test-results/bench-sync/<name>.cpuprofile and prints its self time by function on stderr. */
function keepProfile(profile: CpuProfile, name: string): void {
  writeFileSync(`${WORK}${name}.cpuprofile`, JSON.stringify(profile));
  const byNode = new Map(profile.nodes.map((node) => [node.id, node]));
  const self = new Map<string, number>();
  let total = 0;
  profile.samples.forEach((id, i) => {
    const frame = byNode.get(id)!.callFrame;
    const key = `${frame.functionName || '(anonymous)'} ${frame.url.split('/').pop()}:${frame.lineNumber}`;
    const ms = (profile.timeDeltas[i] ?? 0) / 1000;
    self.set(key, (self.get(key) ?? 0) + ms);
    total += ms;
  });
  const top = [...self.entries()].sort((x, y) => y[1] - x[1]).slice(0, 25);
  console.error(`[sync bench] ${name}: ${duration(total)} profiled, self time:`);
  for (const [key, ms] of top) console.error(`  ${((ms / total) * 100).toFixed(1).padStart(5)} %  ${duration(ms).padStart(9)}  ${key}`);
}

/**
 * With WINDOWPANE_SYNC_PROFILE=1: CPU profiles of the page's main thread and of its sync
 * Worker, from now (the Worker: from when it starts) until `stop`, through the page's
 * DevTools session (the Worker auto-attached, non-flat, so Playwright's own session is left
 * alone): <name>-page.cpuprofile and <name>-worker.cpuprofile (the build's source maps
 * in dist/assets name the functions).
 */
async function profileSync(page: Page, name: string): Promise<{ stop(): Promise<void> }> {
  const cdp = await page.context().newCDPSession(page);
  await cdp.send('Profiler.enable');
  await cdp.send('Profiler.setSamplingInterval', { interval: 1000 });
  await cdp.send('Profiler.start');
  let nextId = 1;
  const waiting = new Map<number, (result: unknown) => void>();
  let worker: string | undefined;
  const send = (method: string, params: object = {}) =>
    new Promise<unknown>((resolve) => {
      const id = nextId++;
      waiting.set(id, resolve);
      void cdp.send('Target.sendMessageToTarget', { sessionId: worker!, message: JSON.stringify({ id, method, params }) });
    });
  const started = new Promise<void>((resolve) => {
    cdp.on('Target.attachedToTarget', (event: { sessionId: string; targetInfo: { type: string; url: string } }) => {
      if (event.targetInfo.type !== 'worker' || !event.targetInfo.url.includes('syncWorker')) return;
      worker = event.sessionId;
      void send('Profiler.enable')
        .then(() => send('Profiler.setSamplingInterval', { interval: 500 }))
        .then(() => send('Profiler.start'))
        .then(() => resolve());
    });
  });
  cdp.on('Target.receivedMessageFromTarget', (event: { sessionId: string; message: string }) => {
    const message = JSON.parse(event.message) as { id?: number; result?: unknown };
    if (message.id !== undefined) waiting.get(message.id)?.(message.result);
  });
  await cdp.send('Target.setAutoAttach', { autoAttach: true, waitForDebuggerOnStart: false, flatten: false });
  return {
    async stop() {
      keepProfile((await cdp.send('Profiler.stop')).profile as CpuProfile, `${name}-page`);
      if (worker) {
        await started;
        keepProfile(((await send('Profiler.stop')) as { profile: CpuProfile }).profile, `${name}-worker`);
      }
      await cdp.detach();
    },
  };
}

const taskText = (ms: number) => (ms === 0 ? 'none (< 50 ms)' : `${Math.round(ms)} ms`);

export async function run(): Promise<Row[]> {
  const size = chosenSize();
  const pollMs = size.messages >= 50_000 ? 2_000 : 500;
  return withPreviewBrowser(async ({ appUrl, browser, defer }) => {
    rmSync(WORK, { recursive: true, force: true });
    mkdirSync(WORK, { recursive: true });
    // The export file is as large as the history; the timeline and the Workers' logs stay for reading.
    defer(() => rmSync(`${WORK}couch`, { recursive: true, force: true }));
    const couch = await startCouchServer({ persistentDir: `${WORK}couch` });
    defer(() => couch.stop());
    await couch.createUser(USER.name, USER.password);

    // ------------------------------------------------ A's history
    const a = await openDevice(browser, appUrl, 'A');
    defer(() => a.context.close());
    await seed(a.page, size.shape);
    await indexAll(a.page, size.messages);
    const seeded = await counts(a.page);
    if (seeded.conversations !== size.conversations || seeded.messages !== size.messages) throw new Error(`A holds ${JSON.stringify(seeded)}`);

    // ------------------------------------------------ baseline: export from A, import on a fresh profile
    const exported = await exportAll(a.page);
    const files = exported.paths;
    defer(() => files.forEach((file) => rmSync(file, { force: true })));
    const importer = await openDevice(browser, appUrl, 'import');
    const imported = await importThrough(importer.page, files, size.conversations);
    if (imported.messages !== size.messages) throw new Error(`the import stored ${imported.messages} messages of ${size.messages}`);
    const importerUsage = await storageUsage(importer.page);
    if (importer.errors.length > 0) throw new Error(`the importing page reported errors: ${importer.errors.join('; ')}`);
    await importer.context.close();
    const baseline = exported.ms + imported.ms;
    console.error(`[sync bench] ${size.label}: export ${duration(exported.ms)} (${mb(exported.bytes)}), import ${duration(imported.ms)}`);

    // ------------------------------------------------ first sync
    const dbUrl = await couch.createDatabase('history', [USER.name]);
    const server = { url: dbUrl, username: USER.name, password: USER.password };
    const device: { a?: Page; b?: Page } = { a: a.page };
    const sampler = startSampler(couch, dbUrl, () => device, pollMs);
    const expectedDocs = size.conversations + size.messages + 1; // and the passphrase check
    const profiling = process.env.WINDOWPANE_SYNC_PROFILE === '1';
    const aProfile = profiling ? await profileSync(a.page, 'profile-a') : undefined;
    const aUsageBefore = await storageUsage(a.page);
    const aStart = Date.now();
    const aRefused = await turnOnSync(a.page, server);
    if (aRefused) throw new Error(`A's sync was refused: ${aRefused}`);
    const aSynced = await until(async () => /^Synced/.test(await statusText(a.page)), aStart, LIMIT_MS, 250);
    const aOnServer = await until(async () => (await serverFacts(couch, dbUrl)).docs >= expectedDocs, aStart, aSynced === undefined ? 0 : LIMIT_MS, 250);
    const aEnd = Date.now();
    await aProfile?.stop();
    const aDone = aSynced !== undefined && aOnServer !== undefined;
    const [aReached, aServer, aTasks, aUsageAfter] = await Promise.all([
      counts(a.page),
      serverFacts(couch, dbUrl),
      longTasks(a.page, aStart, aEnd),
      storageUsage(a.page),
    ]);
    const aTask = longest(aTasks);
    console.error(`[sync bench] A: synced ${aSynced ?? 'no'} ms, server complete ${aOnServer ?? 'no'} ms; replica ${aReached.replica}, server ${aServer.docs}`);
    // Given up: A stops (its Worker would go on sealing), and B takes what the server has, for the rates of pulling and applying.
    if (!aDone) {
      delete device.a;
      await a.context.close();
    }

    const b = await openDevice(browser, appUrl, 'B');
    device.b = b.page;
    defer(() => b.context.close());
    const bProfile = profiling ? await profileSync(b.page, 'profile-b') : undefined;
    const bStart = Date.now();
    const bRefused = await turnOnSync(b.page, server);
    if (bRefused) throw new Error(`B's sync was refused: ${bRefused}`);
    // Every conversation and message on the server: all of them, or (A given up) what A had sent.
    const target = aDone ? size.conversations + size.messages : aServer.docs - 1;
    const bComplete = await until(
      async () => {
        const c = await counts(b.page);
        return aDone ? c.conversations >= size.conversations && c.messages >= size.messages : c.conversations + c.messages >= target;
      },
      bStart,
      LIMIT_MS,
      pollMs,
    );
    const bSynced = bComplete === undefined ? undefined : await until(async () => /^Synced/.test(await statusText(b.page)), bStart, LIMIT_MS, 250);
    const bEnd = Date.now();
    await bProfile?.stop();
    const [bTasks, bUsage] = await Promise.all([longTasks(b.page, bStart, bEnd), storageUsage(b.page)]);
    const bTask = longest(bTasks);
    console.error(`[sync bench] B: complete ${bComplete ?? 'no'} ms, synced ${bSynced ?? 'no'} ms`);

    // ------------------------------------------------ one new message, once both are synced
    let newUser: number | undefined;
    let newAnswer: number | undefined;
    /** When A had stored the answer (read after B had it, so only the upper bound of the Demo's own time). */
    let answeredOnA: number | undefined;
    if (aDone && bSynced !== undefined) {
      await a.page.locator('.conversation-link').first().click();
      await a.page.getByRole('log', { name: 'Transcript' }).waitFor();
      await a.page.getByRole('button', { name: 'Send', exact: true }).waitFor();
      const before = (await counts(b.page)).messages;
      const sent = Date.now();
      await typeAndSend(a.page, 'One new message, sent from A after the first sync.');
      newUser = await until(async () => (await counts(b.page)).messages >= before + 1, sent, 120_000, 50);
      newAnswer = await until(async () => (await counts(b.page)).messages >= before + 2, sent, 120_000, 50);
      answeredOnA = await until(async () => (await counts(a.page)).messages >= size.messages + 2, sent, 120_000, 50);
    }
    await sampler.stop();
    const facts = await serverFacts(couch, dbUrl);
    const json = await serverJsonBytes(couch, dbUrl);
    const { samples } = sampler;
    const since = (tasks: Array<[number, number]>) => tasks.map(([at, ms]) => [at - sampler.began, ms]);
    const timeline = {
      size: size.label,
      aStart: aStart - sampler.began,
      bStart: bStart - sampler.began,
      aLongTasks: since(aTasks),
      bLongTasks: since(bTasks),
      samples,
    };
    writeFileSync(`${WORK}timeline.json`, JSON.stringify(timeline, null, 1));
    writeFileSync(`${WORK}worker-a.log`, a.workerLog.join('\n'));
    writeFileSync(`${WORK}worker-b.log`, b.workerLog.join('\n'));
    for (const { name, errors } of [a, b]) if (errors.length > 0) throw new Error(`${name} reported errors: ${errors.join('; ')}`);

    const aWindow: [number, number] = [aStart - sampler.began, aEnd - sampler.began];
    const bWindow: [number, number] = [bStart - sampler.began, bEnd - sampler.began];
    const sealed = rate(samples, (s) => s.a?.replica, aWindow);
    const pushed = rate(samples, (s) => s.server, aWindow);
    const pulled = rate(samples, (s) => s.b?.replica, bWindow);
    const applied = rate(samples, (s) => (s.b ? s.b.messages + s.b.conversations : undefined), bWindow);
    const last = samples.at(-1);
    const baselineRate = ((size.messages + size.conversations) / baseline) * 1000;
    const stage = (name: string, r: ReturnType<typeof rate>, total: number): Row => ({
      benchmark: `rate: ${name}`,
      case: r ? `${n(r.moved)} of ${n(total)} records, ${duration(r.from)} to ${duration(r.to)} of the run` : size.label,
      value: r ? `${Math.round(r.perSecond)} records/s` : 'did not move',
      baseline: `export + import: ${Math.round(baselineRate)} records/s`,
      ratio: r ? fmtRatio(r.perSecond / baselineRate) : '—',
    });
    const vsBaseline = (ms: number | undefined) => (ms === undefined ? '—' : fmtRatio(ms / baseline));
    const timeOr = (ms: number | undefined, reached: string) => (ms === undefined ? `not done in ${duration(LIMIT_MS)}: ${reached}` : duration(ms));
    const baselineText = `export ${duration(exported.ms)} + import ${duration(imported.ms)} = ${duration(baseline)}`;
    const fileText = files.length === 1 ? 'one file' : `${files.length} files (the app splits an export over the 200 MiB Import takes)`;
    return [
      {
        benchmark: 'baseline: "All conversations (JSON)" from A, imported on a fresh profile',
        case: `${size.label}, ${mb(exported.bytes)}, ${fileText}`,
        value: duration(baseline),
        baseline: baselineText,
        ratio: fmtRatio(1),
      },
      {
        benchmark: 'first sync, A: "Turn on sync" until its status says Synced',
        case: `${size.label}, empty server database`,
        value: timeOr(aSynced, `${n(aReached.replica)} documents in A's replica, ${n(aServer.docs)} on the server`),
        baseline: baselineText,
        ratio: vsBaseline(aSynced),
      },
      {
        benchmark: 'first sync, A: until the server holds every conversation and message',
        case: `${n(expectedDocs)} documents`,
        value: timeOr(aOnServer, `${n(aServer.docs)} on the server`),
        baseline: baselineText,
        ratio: vsBaseline(aOnServer),
      },
      {
        benchmark: "first sync, B: turned on (same passphrase) until B's IndexedDB holds every conversation and message",
        case: aDone ? size.label : `only what A had sent: ${n(aServer.docs - 1)} records`,
        value: timeOr(bComplete, `${n(last?.b?.conversations ?? 0)} conversations, ${n(last?.b?.messages ?? 0)} messages`),
        baseline: baselineText,
        ratio: vsBaseline(bComplete),
      },
      {
        benchmark: 'first sync, B: … and its status says Synced',
        case: aDone ? size.label : 'what A had sent',
        value: timeOr(bSynced, 'not Synced'),
        baseline: baselineText,
        ratio: vsBaseline(bSynced),
      },
      {
        benchmark: 'first sync, both: A until Synced + B until Synced',
        case: size.label,
        value: aSynced !== undefined && bSynced !== undefined ? duration(aSynced + bSynced) : '—',
        baseline: baselineText,
        ratio: aSynced !== undefined && bSynced !== undefined ? vsBaseline(aSynced + bSynced) : '—',
      },
      {
        benchmark: "one new message on A (Demo) until it and its answer are in B's IndexedDB",
        case: `both synced; the message alone: ${newUser === undefined ? '—' : `${(newUser / 1000).toFixed(2)} s`}; answer stored on A by ${answeredOnA === undefined ? '—' : `${(answeredOnA / 1000).toFixed(2)} s`}`,
        value: newAnswer === undefined ? '—' : `${(newAnswer / 1000).toFixed(2)} s`,
        baseline: baselineText,
        ratio: vsBaseline(newAnswer),
      },
      {
        benchmark: 'server space: LevelDB disk_size of the database',
        case: `${n(facts.docs)} documents`,
        value: mb(facts.diskSize),
        baseline: `export file ${mb(exported.bytes)}`,
        ratio: fmtRatio(facts.diskSize / exported.bytes),
      },
      {
        benchmark: 'server space: JSON of every document, attachments inlined',
        case: `${n(json.docs)} documents, largest ${n(json.largest)} bytes`,
        value: mb(json.bytes),
        baseline: `export file ${mb(exported.bytes)}`,
        ratio: fmtRatio(json.bytes / exported.bytes),
      },
      {
        benchmark: 'longest main-thread task on A while it synced (goal: none over 200 ms)',
        case: aTask > 200 ? 'over 200 ms' : 'none over 200 ms',
        value: taskText(aTask),
        baseline: '—',
        ratio: '—',
      },
      {
        benchmark: 'longest main-thread task on B while it synced (goal: none over 200 ms)',
        case: bTask > 200 ? 'over 200 ms' : 'none over 200 ms',
        value: taskText(bTask),
        baseline: '—',
        ratio: '—',
      },
      {
        benchmark: "storage on A: the origin's usage (navigator.storage.estimate) after the first sync",
        case: 'replicated copy and sync state added to the history',
        value: mb(aUsageAfter),
        baseline: `before sync: ${mb(aUsageBefore)}`,
        ratio: fmtRatio(aUsageAfter / aUsageBefore),
      },
      {
        benchmark: "storage on B: the origin's usage after the first sync",
        case: aDone ? size.label : 'what A had sent',
        value: mb(bUsage),
        baseline: `the importing profile after its import: ${mb(importerUsage)}`,
        ratio: fmtRatio(bUsage / importerUsage),
      },
      stage('A seals records into its replicated copy', sealed, expectedDocs),
      stage('A pushes them to the server', pushed, expectedDocs),
      stage('B pulls them into its replicated copy', pulled, expectedDocs),
      stage('B applies them to its IndexedDB (conversations + messages)', applied, size.conversations + size.messages),
    ];
  });
}
