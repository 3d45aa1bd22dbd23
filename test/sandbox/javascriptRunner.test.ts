/**
 * The page side of run_javascript with a stand-in for the sandbox frame: one sandbox per
 * run, removed when the run ends for any reason, the time limit and Stop enforced from the
 * page, and every message from the sandbox checked and counted whatever it sends. (The
 * real frame and worker run in Chromium: test/e2e/tools.e2e.test.ts and
 * test/security/sandbox.e2e.test.ts.)
 */
import { describe, expect, it, vi } from 'vitest';
import { RUN_MAX_OUTPUT_CHARS } from '../../src/core';
import { createWorkerRunner, RUN_MAX_MESSAGES, SANDBOX_LIMITS, type SandboxPort } from '../../src/sandbox/javascriptRunner';
import type { SandboxRequest } from '../../src/sandbox/sandboxProtocol';
import { sandboxWorkerSource } from '../../src/sandbox/sandboxWorker';

type Reply = (message: unknown) => void;

/** A sandbox that says it is ready, then answers each posted snippet with `script` (or never, when it returns nothing). */
function fakeSandboxes(script: (code: string, reply: Reply) => void) {
  const spawned: { posted: SandboxRequest[]; terminated: boolean }[] = [];
  const spawn = (): SandboxPort => {
    const record = { posted: [] as SandboxRequest[], terminated: false };
    spawned.push(record);
    const reply: Reply = (message) => {
      if (!record.terminated) port.onmessage?.(message);
    };
    const port: SandboxPort = {
      onmessage: null,
      onerror: null,
      postMessage(message) {
        record.posted.push(message);
        queueMicrotask(() => script(message.code, reply));
      },
      terminate() {
        record.terminated = true;
      },
    };
    queueMicrotask(() => reply({ type: 'ready' }));
    return port;
  };
  return { spawn, spawned };
}

const run = (spawn: () => SandboxPort, code = 'snippet()') => createWorkerRunner(spawn)(code, new AbortController().signal);

describe('createWorkerRunner', () => {
  it('sends the snippet with the worker script once the sandbox is ready, collects output and the result, then removes the sandbox', async () => {
    const { spawn, spawned } = fakeSandboxes((code, reply) => {
      reply({ type: 'print', text: `running ${code}`, cut: false });
      reply({ type: 'print', text: 'a warning', cut: false });
      reply({ type: 'done', result: '42' });
    });
    const outcome = await run(spawn, '6 * 7');
    expect(outcome).toEqual({ logs: ['running 6 * 7', 'a warning'], result: '42', truncated: false });
    expect(spawned).toHaveLength(1);
    expect(spawned[0]!.posted).toEqual([{ worker: sandboxWorkerSource(SANDBOX_LIMITS), code: '6 * 7' }]);
    expect(spawned[0]!.terminated).toBe(true);
  });

  it('starts a fresh sandbox for every run', async () => {
    const { spawn, spawned } = fakeSandboxes((_code, reply) => reply({ type: 'done' }));
    const runner = createWorkerRunner(spawn);
    await runner('1', new AbortController().signal);
    await runner('2', new AbortController().signal);
    expect(spawned.map((w) => [w.posted[0]?.code, w.terminated])).toEqual([
      ['1', true],
      ['2', true],
    ]);
  });

  it('sends the snippet once even when the sandbox says it is ready again', async () => {
    const { spawn, spawned } = fakeSandboxes((_code, reply) => {
      reply({ type: 'ready' });
      reply({ type: 'done', result: '1' });
    });
    expect(await run(spawn)).toMatchObject({ result: '1' });
    expect(spawned[0]!.posted).toHaveLength(1);
  });

  it('removes a sandbox that never finishes at the time limit, keeping what it printed', async () => {
    const { spawn, spawned } = fakeSandboxes((_code, reply) => reply({ type: 'print', text: 'tick', cut: false }));
    const outcome = await createWorkerRunner(spawn, 50)('while (true) {}', new AbortController().signal);
    expect(outcome).toEqual({ logs: ['tick'], timedOut: true, truncated: false });
    expect(spawned[0]!.terminated).toBe(true);
  });

  it('says the sandbox did not start when it never reports ready', async () => {
    let terminated = false;
    const silent = (): SandboxPort => ({ onmessage: null, onerror: null, postMessage: () => {}, terminate: () => void (terminated = true) });
    expect(await createWorkerRunner(silent, 50)('1', new AbortController().signal)).toEqual({
      logs: [],
      error: 'The sandbox did not start within 0.05 seconds.',
      truncated: false,
    });
    expect(terminated).toBe(true);
  });

  it('says why when the device is offline: the sandbox page loads only from the network', async () => {
    vi.spyOn(navigator, 'onLine', 'get').mockReturnValue(false);
    const silent = (): SandboxPort => ({ onmessage: null, onerror: null, postMessage: () => {}, terminate: () => {} });
    expect((await createWorkerRunner(silent, 50)('1', new AbortController().signal)).error).toBe(
      "The sandbox did not start within 0.05 seconds. This device is offline, and the sandbox's page (sandbox.html) loads only from the network.",
    );
  });

  it('removes the sandbox when Stop aborts, and does not start one after Stop', async () => {
    const { spawn, spawned } = fakeSandboxes(() => {});
    const controller = new AbortController();
    const pending = createWorkerRunner(spawn)('spin()', controller.signal);
    controller.abort();
    expect(await pending).toEqual({ logs: [], stopped: true, truncated: false });
    expect(spawned[0]!.terminated).toBe(true);

    expect(await createWorkerRunner(spawn)('again()', controller.signal)).toMatchObject({ stopped: true });
    expect(spawned).toHaveLength(1);
  });

  it('keeps the output the worker cut at the cap and says it was cut', async () => {
    const { spawn } = fakeSandboxes((_code, reply) => {
      reply({ type: 'print', text: 'x'.repeat(RUN_MAX_OUTPUT_CHARS - 10), cut: false });
      reply({ type: 'print', text: 'y'.repeat(5), cut: true });
      reply({ type: 'done', result: '1' });
    });
    expect(await run(spawn)).toEqual({ logs: ['x'.repeat(RUN_MAX_OUTPUT_CHARS - 10), 'yyyyy'], result: '1', truncated: true });
  });

  it('stops the snippet when the sandbox sends more output than the cap, keeping exactly the cap', async () => {
    const { spawn, spawned } = fakeSandboxes((_code, reply) => {
      for (let i = 0; i < 30; i++) reply({ type: 'print', text: 'x'.repeat(1000), cut: false });
      reply({ type: 'done', result: 'never read' });
    });
    const outcome = await run(spawn, 'flood()');
    expect(outcome.truncated).toBe(true);
    expect(outcome.result).toBeUndefined();
    expect(outcome.error).toBe('The snippet was stopped: it printed more than 10,000 characters.');
    expect(outcome.logs.reduce((sum, line) => sum + line.length + 1, 0)).toBe(RUN_MAX_OUTPUT_CHARS);
    expect(spawned[0]!.terminated).toBe(true);
  });

  it('counts an empty message against the output cap too', async () => {
    const { spawn } = fakeSandboxes((_code, reply) => {
      // 100 lines of 99 characters and their line breaks fill the cap exactly; one empty message passes it.
      for (let i = 0; i < 100; i++) reply({ type: 'print', text: 'z'.repeat(99), cut: false });
      reply({ type: 'print', text: '', cut: false });
      reply({ type: 'done', result: 'never read' });
    });
    const outcome = await run(spawn);
    expect(outcome).toMatchObject({ error: 'The snippet was stopped: it printed more than 10,000 characters.', truncated: true });
    expect(outcome.logs).toHaveLength(100);
  });

  it(`stops the snippet at the ${RUN_MAX_MESSAGES + 1}th message, however small`, async () => {
    let sent = 0;
    const { spawn, spawned } = fakeSandboxes((_code, reply) => {
      for (let i = 0; i < 100_000 && !spawned[0]!.terminated; i++, sent++) reply({ type: 'print', text: '', cut: false });
    });
    const outcome = await run(spawn);
    expect(outcome).toMatchObject({ error: `The snippet was stopped: it sent more than ${RUN_MAX_MESSAGES} messages.` });
    // The ready message counts too.
    expect(outcome.logs).toHaveLength(RUN_MAX_MESSAGES - 1);
    expect(sent).toBe(RUN_MAX_MESSAGES);
    expect(spawned[0]!.terminated).toBe(true);
  });

  it.each<[string, unknown]>([
    ['not an object', 'done'],
    ['null', null],
    ['a print without text', { type: 'print', cut: false }],
    ['a print whose text is not a string', { type: 'print', text: { toString: () => 'x' }, cut: false }],
    ['a done whose result is not a string', { type: 'done', result: 42 }],
    ['an unknown kind', { type: 'eval', code: 'alert(1)' }],
  ])('stops the snippet when the sandbox sends %s', async (_name, message) => {
    const { spawn, spawned } = fakeSandboxes((_code, reply) => {
      reply({ type: 'print', text: 'before', cut: false });
      reply(message);
      reply({ type: 'done', result: 'after' });
    });
    const outcome = await run(spawn);
    expect(outcome.logs).toEqual(['before']);
    expect(outcome.result).toBeUndefined();
    expect(outcome.error).toMatch(/^The snippet was stopped: the sandbox sent a (malformed message|message of an unknown kind)\.$/);
    expect(spawned[0]!.terminated).toBe(true);
  });

  it('cuts a result or an error longer than the cap', async () => {
    const long = 'r'.repeat(RUN_MAX_OUTPUT_CHARS * 3);
    const result = await run(fakeSandboxes((_code, reply) => reply({ type: 'done', result: long })).spawn);
    expect(result.result).toHaveLength(RUN_MAX_OUTPUT_CHARS);
    const error = await run(fakeSandboxes((_code, reply) => reply({ type: 'done', error: long })).spawn);
    expect(error.error).toHaveLength(RUN_MAX_OUTPUT_CHARS);
  });

  it('reports a sandbox that cannot start or fails as an error, never a rejection', async () => {
    const cannot = await createWorkerRunner(() => {
      throw new ReferenceError('document is not defined');
    })('1', new AbortController().signal);
    expect(cannot).toEqual({ logs: [], error: 'The sandbox could not start: document is not defined', truncated: false });

    let port: SandboxPort | undefined;
    const failing = createWorkerRunner(() => {
      port = { onmessage: null, onerror: null, postMessage: () => {}, terminate: () => {} };
      return port;
    })('1', new AbortController().signal);
    port!.onerror!('the sandbox page could not load');
    expect(await failing).toEqual({ logs: [], error: 'The sandbox failed: the sandbox page could not load', truncated: false });

    const failed = await run(fakeSandboxes((_code, reply) => reply({ type: 'failed', error: 'Uncaught SyntaxError: bad script' })).spawn);
    expect(failed).toEqual({ logs: [], error: 'The sandbox failed: Uncaught SyntaxError: bad script', truncated: false });
  });
});

describe('sandboxWorkerSource', () => {
  it('is one strict script that parses on its own and carries its limits', () => {
    const source = sandboxWorkerSource(SANDBOX_LIMITS);
    expect(source.startsWith("'use strict';")).toBe(true);
    expect(() => new Function(source)).not.toThrow();
    expect(source).toContain(JSON.stringify(SANDBOX_LIMITS));
  });
});
