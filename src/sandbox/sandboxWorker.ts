/**
 * The run_javascript worker: runs one snippet the model wrote. It is started from a
 * `blob:` URL by the sandbox frame (public/sandbox.html), so it inherits that frame's
 * Content-Security-Policy, which forbids every request: that policy is the wall. The
 * lockdown here is a second wall and a source of clear messages ("fetch is not
 * available"): every way out (network, storage, other workers, messaging, code strings
 * that could `import()`) is replaced with a non-configurable stub, on the global object
 * and on every prototype that defines it.
 *
 * Hostile code shares this realm, so everything the runner uses after the snippet starts
 * is taken before it starts (a snippet may replace String.prototype.slice, JSON,
 * Promise.prototype.then...) and no method is looked up on a prototype afterwards. The
 * only code of the snippet's the runner calls is its values' own hooks (toJSON, getters,
 * iterators, Symbol.hasInstance), which get nothing of the runner's: the post function
 * is never passed anywhere, and the script is strict, so `fn.caller` cannot reach it.
 *
 * `sandboxWorkerMain` is sent to the frame as text (`sandboxWorkerSource`): it must not use
 * anything from outside its own body.
 */
import type { SandboxLimits, SandboxReply } from './sandboxProtocol';

export function sandboxWorkerMain(limits: SandboxLimits): void {
  type Scope = Record<string, unknown> & typeof globalThis;
  const scope = globalThis as unknown as Scope;

  // Taken before the snippet runs: it never gets these references.
  const post = (scope.postMessage as (message: SandboxReply) => void).bind(scope);
  const listen = scope.addEventListener.bind(scope) as (type: string, listener: (event: MessageEvent) => void) => void;
  const evaluate = scope.eval;
  const bindCall = Function.prototype.bind.bind(Function.prototype.call) as <A extends unknown[], R>(fn: (...args: A) => R) => (self: unknown, ...args: A) => R;
  const slice = bindCall(String.prototype.slice);
  const indexOf = bindCall(String.prototype.indexOf);
  const charCodeAt = bindCall(String.prototype.charCodeAt);
  const objectToString = bindCall(Object.prototype.toString);
  const weakHas = bindCall(WeakSet.prototype.has);
  const weakAdd = bindCall(WeakSet.prototype.add);
  const WeakSetCtor = WeakSet;
  const MapCtor = Map;
  const SetCtor = Set;
  const ErrorCtor = Error;
  const SyntaxErrorCtor = SyntaxError;
  const TypeErrorCtor = TypeError;
  const StringCtor = String;
  const stringify = JSON.stringify;
  const fromEntries = Object.fromEntries;
  const arrayFrom = Array.from;
  const defineProperty = Object.defineProperty;
  const getOwnPropertyDescriptor = Object.getOwnPropertyDescriptor;
  const getPrototypeOf = Object.getPrototypeOf;
  const freeze = Object.freeze;
  const reflectApply = Reflect.apply;
  const reflectConstruct = Reflect.construct;
  const now = performance.now.bind(performance);
  const setTimer = (scope.setTimeout as typeof setTimeout).bind(scope);
  const AsyncFunctionCtor = getPrototypeOf(async function () {}).constructor as FunctionConstructor;
  const GeneratorFunctionCtor = getPrototypeOf(function* () {}).constructor as FunctionConstructor;
  const AsyncGeneratorFunctionCtor = getPrototypeOf(async function* () {}).constructor as FunctionConstructor;
  const FunctionCtor = Function;
  const max = limits.maxOutputChars;

  /** `text` cut to `room` characters. */
  const cutTo = (text: string, room: number): string => (text.length > room ? slice(text, 0, room > 0 ? room : 0) : text);

  /** A fresh array of `values`, written without setters a snippet could have put on Array.prototype. */
  function listOf(values: ArrayLike<unknown>, map: (value: unknown) => unknown): unknown[] {
    const list: unknown[] = [];
    for (let i = 0; i < values.length; i++) defineProperty(list, i, { value: map(values[i]), writable: true, enumerable: true, configurable: true });
    return list;
  }

  function blocked(name: string) {
    return function unavailable(): never {
      throw new ErrorCtor(`${name} is not available: run_javascript has no network, no DOM and no storage.`);
    };
  }

  /** Replaces `name` on `root` and wherever a prototype of it defines it, non-configurably. */
  function seal(name: string, value: unknown, root: object = scope): void {
    for (let target: object | null = root; target; target = getPrototypeOf(target) as object | null) {
      const own = getOwnPropertyDescriptor(target, name);
      if (target !== root && !own) continue;
      if (own && !own.configurable) {
        if ('value' in own && own.writable) (target as Record<string, unknown>)[name] = value;
        continue;
      }
      defineProperty(target, name, { value, writable: false, enumerable: false, configurable: false });
    }
  }

  const isIdentifierChar = (code: number) =>
    (code >= 48 && code <= 57) || (code >= 65 && code <= 90) || (code >= 97 && code <= 122) || code === 36 || code === 95 || code === 92 || code > 127;

  /** Code strings built at run time must not `import()` a module (a network request). */
  function checkedSource(source: unknown): string {
    const text = StringCtor(source);
    for (let at = indexOf(text, 'import'); at !== -1; at = indexOf(text, 'import', at + 1)) {
      const before = at > 0 ? charCodeAt(text, at - 1) : 32;
      const after = at + 6 < text.length ? charCodeAt(text, at + 6) : 32;
      if (!isIdentifierChar(before) && !isIdentifierChar(after)) throw new ErrorCtor('import is not available: run_javascript has no network.');
    }
    return text;
  }

  function lockDown(): void {
    // Should the engine keep `navigator` itself, its ways to storage and the page go instead.
    const navigator = (scope as { navigator?: object }).navigator;
    if (navigator) for (const name of ['storage', 'locks', 'serviceWorker', 'permissions', 'sendBeacon']) seal(name, undefined, navigator);
    const callables = [
      'fetch',
      'XMLHttpRequest',
      'WebSocket',
      'WebSocketStream',
      'WebTransport',
      'EventSource',
      'RTCPeerConnection',
      'RTCDataChannel',
      'importScripts',
      'BroadcastChannel',
      'Worker',
      'SharedWorker',
      'FontFace',
      'Request',
      'postMessage',
      'close',
    ];
    for (const name of callables) seal(name, blocked(name));
    for (const name of ['indexedDB', 'caches', 'cookieStore', 'navigator', 'fonts', 'onmessage']) seal(name, undefined);
    // Timers with a string handler evaluate it; only functions are accepted.
    for (const name of ['setTimeout', 'setInterval']) {
      const original = scope[name] as (...args: unknown[]) => number;
      seal(name, function timer(handler: unknown) {
        if (typeof handler !== 'function') throw new TypeErrorCtor(`${name} needs a function, not a string of code.`);
        // eslint-disable-next-line prefer-rest-params
        return reflectApply(original, scope, arguments);
      });
    }
    seal('eval', (source: unknown) => (typeof source === 'string' ? evaluate(checkedSource(source)) : source));
    // Every function constructor (plain, async, generator, async generator) compiles code too.
    for (const Ctor of [FunctionCtor, AsyncFunctionCtor, GeneratorFunctionCtor, AsyncGeneratorFunctionCtor]) {
      const guarded = function () {
        // eslint-disable-next-line prefer-rest-params
        return reflectConstruct(Ctor, listOf(arguments, checkedSource));
      };
      // `f instanceof Function` keeps working.
      defineProperty(guarded, 'prototype', { value: Ctor.prototype });
      defineProperty(Ctor.prototype, 'constructor', { value: guarded, writable: false, configurable: false });
    }
    seal('Function', FunctionCtor.prototype.constructor);
  }

  /** `text`, which stands for `total` characters, within `max`: cut, saying how long it was. */
  function limited(text: string, total: number): string {
    if (total <= max && text.length <= max) return text;
    const label = `[${total} characters, cut] `;
    return label + slice(text, 0, max - label.length);
  }

  /** A value as a short readable string: JSON where it can be, never throwing, at most `max` characters. */
  function describe(value: unknown): string {
    try {
      if (typeof value === 'string') return limited(stringify(cutTo(value, max)), value.length + 2);
      if (typeof value === 'bigint') return limited(`${value}n`, max);
      if (typeof value === 'function') return `[Function ${cutTo(StringCtor(value.name) || 'anonymous', 200)}]`;
      if (typeof value === 'symbol' || value === undefined || value === null || typeof value !== 'object') return cutTo(StringCtor(value), max);
      if (value instanceof ErrorCtor) return errorText(value);
      const seen = new WeakSetCtor();
      const json = stringify(value, (_key, inner: unknown) => {
        if (typeof inner === 'bigint') return `${inner}n`;
        if (typeof inner === 'function') return `[Function ${StringCtor(inner.name) || 'anonymous'}]`;
        if (inner instanceof MapCtor) return fromEntries(inner);
        if (inner instanceof SetCtor) return arrayFrom(inner);
        if (inner && typeof inner === 'object') {
          if (weakHas(seen, inner)) return '[Circular]';
          weakAdd(seen, inner);
        }
        return inner;
      });
      const text = typeof json === 'string' ? json : StringCtor(value);
      return limited(text, text.length);
    } catch {
      try {
        return objectToString(value);
      } catch {
        return '[a value that cannot be shown]';
      }
    }
  }

  function errorText(error: Error): string {
    const name = StringCtor(error.name);
    const message = StringCtor(error.message);
    return limited(`${cutTo(name, max)}: ${cutTo(message, max)}`, name.length + 2 + message.length);
  }

  // Output is batched: at most `burst` messages at once, then one per `flushMs` (a token
  // bucket), so a snippet printing in a loop cannot flood the page with messages: over the
  // 5 s limit at most burst + 5000 / flushMs of them, plus the cut notice and the last.
  let printed = 0;
  let cut = false;
  let cutSent = false;
  let buffer = '';
  let buffered = 0;
  let tokens = limits.burst;
  let refilledAt = now();
  let timerSet = false;

  function flush(): void {
    if (buffered === 0 && (!cut || cutSent)) return;
    if (cut) cutSent = true;
    post({ type: 'print', text: buffer, cut });
    buffer = '';
    buffered = 0;
  }

  /** Flushes when a token is left; else once, later, when the next token will be. Every flush but the last spends one. */
  function flushWhenAllowed(): void {
    const at = now();
    tokens += (at - refilledAt) / limits.flushMs;
    if (tokens > limits.burst) tokens = limits.burst;
    refilledAt = at;
    if (tokens >= 1) {
      tokens -= 1;
      flush();
    } else if (!timerSet) {
      timerSet = true;
      setTimer(flushLater, (1 - tokens) * limits.flushMs);
    }
  }

  function flushLater(): void {
    timerSet = false;
    if (buffered > 0) flushWhenAllowed();
  }

  function print(args: unknown[]): void {
    if (cut) return;
    let line = '';
    for (let i = 0; i < args.length; i++) {
      const value = args[i];
      line += (i > 0 ? ' ' : '') + (typeof value === 'string' ? cutTo(value, max) : describe(value));
      if (line.length > max) break;
    }
    // Each line costs its length plus its line break; one character is kept for the cut notice.
    const room = max - 1 - printed;
    if (line.length + 1 > room) {
      cut = true;
      if (room > 0) {
        buffer += (buffered > 0 ? '\n' : '') + slice(line, 0, room - 1);
        buffered++;
      }
      flush();
      return;
    }
    printed += line.length + 1;
    buffer += (buffered > 0 ? '\n' : '') + line;
    buffered++;
    flushWhenAllowed();
  }

  const STATEMENT_START = /^(?:(?:const|let|var|if|for|while|do|switch|try|return|throw|function|class|async\s+function)\b|[{}])/;

  /**
   * Top-level `await` is not allowed in a script, so such code runs as the body of an async
   * function; its last line, when it looks like an expression, becomes the returned value.
   * (Runs before the snippet does, so the RegExp and Array methods are still the engine's.)
   */
  function asAsyncBody(code: string): string {
    const lines = code.replace(/\s+$/, '').split('\n');
    const last = (lines.at(-1) ?? '').trim();
    if (last && !STATEMENT_START.test(last)) lines[lines.length - 1] = `return (${last.replace(/;$/, '')});`;
    return lines.join('\n');
  }

  /** Compiles the snippet (before any of it runs), as a script or, when it awaits, as an async function body. */
  function compile(code: string): () => unknown {
    checkedSource(code);
    try {
      // Parsing only: a script's syntax error is caught here, before anything runs.
      new FunctionCtor(code);
      return () => evaluate(code);
    } catch (error) {
      if (!(error instanceof SyntaxErrorCtor) || !/\bawait\b/.test(code)) return () => evaluate(code);
      let body: () => unknown;
      try {
        body = new AsyncFunctionCtor(asAsyncBody(code)) as () => unknown;
      } catch {
        body = new AsyncFunctionCtor(code) as () => unknown;
      }
      return body;
    }
  }

  let started = false;

  async function run(code: string): Promise<void> {
    let done: { type: 'done'; result?: string; error?: string };
    try {
      let value = compile(code)();
      if (value !== null && typeof value === 'object' && typeof (value as PromiseLike<unknown>).then === 'function') value = await value;
      done = { type: 'done', result: value === undefined ? undefined : describe(value) };
    } catch (error) {
      let text: string;
      try {
        text = error instanceof ErrorCtor ? errorText(error) : `Thrown: ${describe(error)}`;
      } catch {
        text = 'Thrown: a value that cannot be shown';
      }
      done = { type: 'done', error: cutTo(text, max) };
    }
    flush();
    post(done);
  }

  const capture = (...args: unknown[]) => print(args);
  seal('console', freeze({ log: capture, info: capture, debug: capture, warn: capture, error: capture, table: capture, dir: capture }));
  lockDown();

  listen('message', (event: MessageEvent) => {
    // One snippet per worker: a message the snippet dispatches to itself starts nothing.
    if (started) return;
    started = true;
    const code: unknown = event.data && (event.data as { code?: unknown }).code;
    void run(typeof code === 'string' ? code : '');
  });
}

/** The worker's whole script, as the sandbox frame starts it from a `blob:` URL; strict, so a snippet's function cannot read the runner through `caller`. */
export function sandboxWorkerSource(limits: SandboxLimits): string {
  return `'use strict';\n(${sandboxWorkerMain.toString()})(${JSON.stringify(limits)});\n`;
}
