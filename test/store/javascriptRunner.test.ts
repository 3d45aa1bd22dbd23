/**
 * The page side of run_javascript with a stand-in for the worker: one worker per run,
 * terminated when the run ends for any reason, the time limit and Stop enforced from the
 * page, and the output held to the cap whatever the worker sends. (The real worker runs in
 * Chromium: test/e2e/tools.e2e.test.ts.)
 */
import { describe, expect, it } from 'vitest';
import { RUN_MAX_OUTPUT_CHARS } from '../../src/core';
import { createWorkerRunner, type SandboxPort } from '../../src/store/tools/javascriptRunner';
import type { SandboxReply, SandboxRequest } from '../../src/store/tools/sandboxProtocol';

/** A worker that answers each posted snippet with `script` (or never, when it returns nothing). */
function fakeWorkers(script: (code: string, reply: (message: SandboxReply) => void) => void) {
  const spawned: { posted: SandboxRequest[]; terminated: boolean }[] = [];
  const spawn = (): SandboxPort => {
    const record = { posted: [] as SandboxRequest[], terminated: false };
    spawned.push(record);
    const port: SandboxPort = {
      onmessage: null,
      onerror: null,
      postMessage(message) {
        record.posted.push(message);
        queueMicrotask(() => script(message.code, (reply) => !record.terminated && port.onmessage?.(new MessageEvent('message', { data: reply }))));
      },
      terminate() {
        record.terminated = true;
      },
    };
    return port;
  };
  return { spawn, spawned };
}

describe('createWorkerRunner', () => {
  it('collects printed lines and the result, then terminates the worker', async () => {
    const { spawn, spawned } = fakeWorkers((code, reply) => {
      reply({ type: 'print', text: `running ${code}`, cut: false });
      reply({ type: 'print', text: 'a warning', cut: false });
      reply({ type: 'done', result: '42' });
    });
    const run = await createWorkerRunner(spawn)('6 * 7', new AbortController().signal);
    expect(run).toEqual({ logs: ['running 6 * 7', 'a warning'], result: '42', truncated: false });
    expect(spawned).toHaveLength(1);
    expect(spawned[0]).toEqual({ posted: [{ code: '6 * 7' }], terminated: true });
  });

  it('starts a fresh worker for every run', async () => {
    const { spawn, spawned } = fakeWorkers((_code, reply) => reply({ type: 'done' }));
    const runner = createWorkerRunner(spawn);
    await runner('1', new AbortController().signal);
    await runner('2', new AbortController().signal);
    expect(spawned.map((w) => [w.posted[0]?.code, w.terminated])).toEqual([['1', true], ['2', true]]);
  });

  it('terminates a worker that never finishes at the time limit, keeping what it printed', async () => {
    const { spawn, spawned } = fakeWorkers((_code, reply) => reply({ type: 'print', text: 'tick', cut: false }));
    const run = await createWorkerRunner(spawn, 50)('while (true) {}', new AbortController().signal);
    expect(run).toEqual({ logs: ['tick'], timedOut: true, truncated: false });
    expect(spawned[0]!.terminated).toBe(true);
  });

  it('terminates the worker when Stop aborts, and does not start one after Stop', async () => {
    const { spawn, spawned } = fakeWorkers(() => {});
    const controller = new AbortController();
    const pending = createWorkerRunner(spawn)('spin()', controller.signal);
    controller.abort();
    expect(await pending).toEqual({ logs: [], stopped: true, truncated: false });
    expect(spawned[0]!.terminated).toBe(true);

    expect(await createWorkerRunner(spawn)('again()', controller.signal)).toMatchObject({ stopped: true });
    expect(spawned).toHaveLength(1);
  });

  it('holds the output to the cap even when the worker sends more', async () => {
    const { spawn } = fakeWorkers((_code, reply) => {
      for (let i = 0; i < 30; i++) reply({ type: 'print', text: 'x'.repeat(1000), cut: false });
      reply({ type: 'done' });
    });
    const run = await createWorkerRunner(spawn)('flood()', new AbortController().signal);
    expect(run.truncated).toBe(true);
    const printed = run.logs.join('\n').length;
    expect(printed).toBeLessThanOrEqual(RUN_MAX_OUTPUT_CHARS + 30);
    expect(printed).toBeGreaterThan(RUN_MAX_OUTPUT_CHARS - 30);
  });

  it('reports a worker that cannot start or fails as an error, never a rejection', async () => {
    const cannot = await createWorkerRunner(() => {
      throw new ReferenceError('Worker is not defined');
    })('1', new AbortController().signal);
    expect(cannot).toEqual({ logs: [], error: 'The sandbox could not start: Worker is not defined', truncated: false });

    let port: SandboxPort | undefined;
    const failing = createWorkerRunner(() => {
      port = { onmessage: null, onerror: null, postMessage: () => {}, terminate: () => {} };
      return port;
    })('1', new AbortController().signal);
    port!.onerror!(new ErrorEvent('error', { message: 'Uncaught SyntaxError: bad module' }));
    expect(await failing).toEqual({ logs: [], error: 'The sandbox failed: Uncaught SyntaxError: bad module', truncated: false });
  });
});
