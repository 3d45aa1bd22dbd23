// @vitest-environment node
/**
 * Two tabs of one browser profile: the one holding the Web Lock runs sync in its Worker; the
 * other's Sync now, Pause and Resume reach that Worker, and that Worker's notices reach the
 * other, over BroadcastChannels (Node's own, which deliver between the two clients as a
 * browser does between tabs).
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createSyncClient } from '../../src/sync/syncClient';
import type { SyncRequest } from '../../src/sync/syncProtocol';
import type { SyncConfig, SyncEvents } from '../../src/sync/types';

/** A Worker that records what it is posted. */
class FakeWorker extends EventTarget {
  readonly posted: SyncRequest[] = [];
  postMessage(request: SyncRequest): void {
    this.posted.push(request);
  }
}

/** Web Locks as a browser grants them: the first request holds the lock, the others wait. */
function fakeLocks() {
  let held = false;
  return {
    request(_name: string, callback: () => Promise<void> | undefined) {
      if (held) return new Promise<void>(() => undefined);
      held = true;
      return Promise.resolve(callback());
    },
  };
}

const config = { serverUrl: 'https://couch.example.com/windowpane', username: 'ada', password: 'pw', deviceId: 'd1', syncApiKeys: false } as SyncConfig;
const events = (): SyncEvents => ({ status: () => undefined, notice: () => undefined });
const types = (worker: FakeWorker) => worker.posted.map((r) => r.type);

beforeEach(() => {
  vi.stubGlobal('navigator', { locks: fakeLocks() });
});

afterEach(() => {
  vi.unstubAllGlobals();
});

describe('sync in two tabs', () => {
  it('runs sync in the tab holding the lock and passes the other tab’s buttons on to it', async () => {
    const workers = { first: new FakeWorker(), second: new FakeWorker() };
    const first = createSyncClient({ createWorker: () => workers.first as unknown as Worker });
    const second = createSyncClient({ createWorker: () => workers.second as unknown as Worker });
    first.start(config, events());
    second.start(config, events());
    await vi.waitFor(() => expect(types(workers.first)).toEqual(['start']));

    second.pause();
    await vi.waitFor(() => expect(types(workers.first)).toEqual(['start', 'pause']));
    second.resume();
    second.syncNow();
    await vi.waitFor(() => expect(types(workers.first)).toEqual(['start', 'pause', 'resume', 'syncNow']));
    // The first tab's own button goes straight to its Worker.
    first.pause();
    expect(types(workers.first)).toEqual(['start', 'pause', 'resume', 'syncNow', 'pause']);
    // The second tab never started a replication of its own.
    expect(workers.second.posted).toEqual([]);
  });

  it('ignores what is not a request on the control channel', async () => {
    const worker = new FakeWorker();
    const client = createSyncClient({ createWorker: () => worker as unknown as Worker });
    client.start(config, events());
    await vi.waitFor(() => expect(types(worker)).toEqual(['start']));
    const other = new BroadcastChannel('windowpane-sync-control');
    for (const junk of [null, 'pause', { type: 'stop', forget: true }, { type: 'start' }, { type: 'resume' }]) other.postMessage(junk);
    await vi.waitFor(() => expect(types(worker)).toEqual(['start', 'resume']));
    other.close();
  });

  it('shows the notices of the tab running sync in the other tab too, once in each', async () => {
    const workers = { first: new FakeWorker(), second: new FakeWorker() };
    const heard = { first: [] as string[], second: [] as string[] };
    const listener = (into: string[]): SyncEvents => ({ status: () => undefined, notice: (text) => into.push(text) });
    const first = createSyncClient({ createWorker: () => workers.first as unknown as Worker });
    const second = createSyncClient({ createWorker: () => workers.second as unknown as Worker });
    first.start(config, listener(heard.first));
    second.start(config, listener(heard.second));
    await vi.waitFor(() => expect(types(workers.first)).toEqual(['start']));

    const text = '“Draft a packing list” was deleted on another device.';
    workers.first.dispatchEvent(new MessageEvent('message', { data: { type: 'notice', text } }));
    await vi.waitFor(() => expect(heard.second).toEqual([text]));
    expect(heard.first).toEqual([text]);

    // What is not a notice on that channel is not shown.
    const other = new BroadcastChannel('windowpane-sync-notices');
    for (const junk of [null, 42, { text }, 'x'.repeat(5000)]) other.postMessage(junk);
    other.postMessage('The last one.');
    await vi.waitFor(() => expect(heard.second).toEqual([text, 'The last one.']));
    expect(heard.first).toEqual([text]);
    other.close();
  });
});
