/**
 * The run_javascript sandbox: a module Web Worker that runs one snippet the model wrote.
 * Before any of it runs, every way out of the worker (network, storage, other workers,
 * messaging, dynamic code that could `import()`) is made unreachable: replaced with
 * non-configurable stubs on the global object and on every prototype that defines it,
 * so neither `self.fetch` nor the original accessor on a prototype can be reached again.
 * The host enforces the time limit by terminating the worker; the output cap is applied
 * here too, so a loop that prints forever cannot flood the page with messages.
 */
import { RUN_MAX_OUTPUT_CHARS } from '../../core/tools/definitions';
import type { SandboxReply, SandboxRequest } from './sandboxProtocol';

const scope = globalThis as unknown as Record<string, unknown> & {
  postMessage(message: SandboxReply): void;
  addEventListener(type: 'message', listener: (event: MessageEvent<SandboxRequest>) => void): void;
};

// Taken before the lockdown: user code never gets these references.
const post = scope.postMessage.bind(scope);
const evaluate = globalThis.eval;
const AsyncFunctionCtor = Object.getPrototypeOf(async function () {}).constructor as FunctionConstructor;

const BLOCKED_CALLABLES = [
  'fetch',
  'XMLHttpRequest',
  'WebSocket',
  'WebSocketStream',
  'WebTransport',
  'EventSource',
  'RTCPeerConnection',
  'importScripts',
  'BroadcastChannel',
  'Worker',
  'SharedWorker',
  // The worker's own channel to the page and its lifetime belong to the host.
  'postMessage',
  'close',
];
// navigator reaches storage (navigator.storage, the origin private file system) and locks.
const BLOCKED_OBJECTS = ['indexedDB', 'caches', 'cookieStore', 'navigator'];

function blocked(name: string) {
  return function unavailable(): never {
    throw new Error(`${name} is not available: run_javascript has no network, no DOM and no storage.`);
  };
}

/** Replaces `name` on `root` and wherever a prototype of it defines it, non-configurably. */
function seal(name: string, value: unknown, root: object = globalThis): void {
  for (let target: object | null = root; target; target = Object.getPrototypeOf(target)) {
    const own = Object.getOwnPropertyDescriptor(target, name);
    if (target !== root && !own) continue;
    if (own && !own.configurable) {
      if ('value' in own && own.writable) (target as Record<string, unknown>)[name] = value;
      continue;
    }
    Object.defineProperty(target, name, { value, writable: false, enumerable: false, configurable: false });
  }
}

const IMPORT = /\bimport\b/;

/** Code strings built at run time must not `import()` a module (a network request). */
function checkedSource(source: unknown): string {
  const text = String(source);
  if (IMPORT.test(text)) throw new Error('import is not available: run_javascript has no network.');
  return text;
}

function lockDown(): void {
  // Should the engine keep `navigator` itself, its ways to storage and the page go instead.
  const navigator = (globalThis as { navigator?: object }).navigator;
  if (navigator) for (const name of ['storage', 'locks', 'serviceWorker', 'permissions']) seal(name, undefined, navigator);
  for (const name of BLOCKED_CALLABLES) seal(name, blocked(name));
  for (const name of BLOCKED_OBJECTS) seal(name, undefined);
  // Timers with a string handler evaluate it; only functions are accepted.
  for (const name of ['setTimeout', 'setInterval'] as const) {
    const original = (globalThis[name] as (...args: unknown[]) => number).bind(globalThis);
    seal(name, (handler: unknown, ...rest: unknown[]) => {
      if (typeof handler !== 'function') throw new TypeError(`${name} needs a function, not a string of code.`);
      return original(handler, ...rest);
    });
  }
  seal('eval', (source: unknown) => (typeof source === 'string' ? evaluate(checkedSource(source)) : source));
  // Every function constructor (plain, async, generator, async generator) compiles code too.
  const constructors = [Function, AsyncFunctionCtor, Object.getPrototypeOf(function* () {}).constructor, Object.getPrototypeOf(async function* () {}).constructor];
  for (const Ctor of constructors as FunctionConstructor[]) {
    const guarded = function (...args: unknown[]) {
      return Ctor(...args.map(checkedSource));
    };
    // `f instanceof Function` keeps working.
    Object.defineProperty(guarded, 'prototype', { value: Ctor.prototype });
    Object.defineProperty(Ctor.prototype, 'constructor', { value: guarded, writable: false, configurable: false });
  }
  seal('Function', Function.prototype.constructor);
}

let printed = 0;
let cut = false;

function print(args: unknown[]): void {
  if (cut) return;
  let text = args.map((value) => (typeof value === 'string' ? value : describe(value))).join(' ');
  if (printed + text.length > RUN_MAX_OUTPUT_CHARS) {
    text = text.slice(0, Math.max(0, RUN_MAX_OUTPUT_CHARS - printed));
    cut = true;
  }
  printed += text.length;
  post({ type: 'print', text, cut });
}

/** A value as a short readable string: JSON where it can be, never throwing. */
function describe(value: unknown): string {
  if (typeof value === 'string') return JSON.stringify(value);
  if (typeof value === 'bigint') return `${value}n`;
  if (typeof value === 'function') return `[Function ${value.name || 'anonymous'}]`;
  if (typeof value === 'symbol' || value === undefined || value === null || typeof value !== 'object') return String(value);
  if (value instanceof Error) return `${value.name}: ${value.message}`;
  const seen = new WeakSet<object>();
  try {
    const json = JSON.stringify(value, (_key, inner: unknown) => {
      if (typeof inner === 'bigint') return `${inner}n`;
      if (typeof inner === 'function') return `[Function ${inner.name || 'anonymous'}]`;
      if (inner instanceof Map) return Object.fromEntries(inner);
      if (inner instanceof Set) return [...inner];
      if (inner && typeof inner === 'object') {
        if (seen.has(inner)) return '[Circular]';
        seen.add(inner);
      }
      return inner;
    });
    return json ?? String(value);
  } catch {
    return Object.prototype.toString.call(value);
  }
}

const STATEMENT_START = /^(?:(?:const|let|var|if|for|while|do|switch|try|return|throw|function|class|async\s+function)\b|[{}])/;

/**
 * Top-level `await` is not allowed in a script, so such code runs as the body of an async
 * function; its last line, when it looks like an expression, becomes the returned value.
 */
function asAsyncBody(code: string): string {
  const lines = code.replace(/\s+$/, '').split('\n');
  const last = (lines.at(-1) ?? '').trim();
  if (last && !STATEMENT_START.test(last)) lines[lines.length - 1] = `return (${last.replace(/;$/, '')});`;
  return lines.join('\n');
}

async function run(code: string): Promise<SandboxReply> {
  let value: unknown;
  try {
    try {
      value = evaluate(checkedSource(code));
    } catch (error) {
      if (!(error instanceof SyntaxError) || !/\bawait\b/.test(code)) throw error;
      let body: FunctionConstructor;
      try {
        body = new AsyncFunctionCtor(checkedSource(asAsyncBody(code))) as unknown as FunctionConstructor;
      } catch {
        body = new AsyncFunctionCtor(checkedSource(code)) as unknown as FunctionConstructor;
      }
      value = body();
    }
    if (value !== null && typeof value === 'object' && typeof (value as PromiseLike<unknown>).then === 'function') value = await value;
    return { type: 'done', result: value === undefined ? undefined : describe(value) };
  } catch (error) {
    return { type: 'done', error: error instanceof Error ? `${error.name}: ${error.message}` : `Thrown: ${describe(error)}` };
  }
}

scope.addEventListener('message', (event) => {
  const { code } = event.data;
  void run(code).then(post, (error: unknown) => post({ type: 'done', error: String(error) }));
});

const capture = (...args: unknown[]) => print(args);
seal('console', Object.freeze({ log: capture, info: capture, debug: capture, warn: capture, error: capture, table: capture, dir: capture }));
lockDown();
