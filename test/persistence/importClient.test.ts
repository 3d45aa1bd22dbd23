import { describe, expect, it, vi } from 'vitest';
import { importInWorker, type ImportReply, type ImportRequest, type ImportWorkerPort } from '../../src/persistence/importClient';
import { emptyImportReport, type ImportOutcome, type ImportProgress } from '../../src/persistence/transferFiles';

/** A Worker stand-in: records what the page posts, and lets the test answer or fail. */
function fakeWorker() {
  const posted: ImportRequest[] = [];
  const listeners: { message: Array<(event: MessageEvent<ImportReply>) => void>; error: Array<(event: Event) => void> } = { message: [], error: [] };
  const port: ImportWorkerPort = {
    postMessage: (message) => posted.push(message),
    addEventListener: ((type: 'message' | 'error', listener: never) => listeners[type].push(listener)) as ImportWorkerPort['addEventListener'],
    terminate: vi.fn(),
  };
  return {
    port,
    posted,
    reply: (data: ImportReply) => listeners.message.forEach((l) => l({ data } as MessageEvent<ImportReply>)),
    fail: () => listeners.error.forEach((l) => l(new Event('error'))),
  };
}

const file = new File(['[]'], 'conversations.json');
const request = { dbName: 'windowpane', channelName: 'windowpane-sync', file };
const done: ImportOutcome = { ok: true, value: { ...emptyImportReport(), total: 3, read: 3, imported: 3 } };
const writing: ImportProgress = { phase: 'writing', done: 100, total: 1000, imported: 100 };

describe('importInWorker', () => {
  it('starts the Worker, passes its progress on, asks it to cancel, and resolves with its outcome', async () => {
    const worker = fakeWorker();
    const cancel = new AbortController();
    const seen: ImportProgress[] = [];
    const outcome = importInWorker(worker.port, request, { now: 5, signal: cancel.signal, onProgress: (p) => seen.push(p) }, () =>
      Promise.reject(new Error('not in the page')),
    );
    expect(worker.posted).toEqual([{ type: 'start', ...request, now: 5 }]);
    worker.reply({ type: 'progress', progress: writing });
    cancel.abort();
    expect(worker.posted.at(-1)).toEqual({ type: 'cancel' });
    worker.reply({ type: 'done', outcome: done });
    expect(await outcome).toBe(done);
    expect(seen).toEqual([writing]);
    expect(worker.port.terminate).toHaveBeenCalled();
  });

  it('runs the import in the page when the Worker fails before answering', async () => {
    const worker = fakeWorker();
    const outcome = importInWorker(worker.port, request, {}, async () => done);
    worker.fail();
    expect(await outcome).toBe(done);
  });

  it('says how far it got when the Worker dies midway', async () => {
    const worker = fakeWorker();
    const outcome = importInWorker(worker.port, request, {}, () => Promise.reject(new Error('not in the page')));
    worker.reply({ type: 'progress', progress: writing });
    worker.fail();
    expect(await outcome).toMatchObject({
      ok: true,
      value: { imported: 100, read: 100, total: 1000, stopped: { code: 'storage', message: expect.stringMatching(/stopped unexpectedly/) } },
    });
  });
});
