/**
 * The page's side of sync (the `SyncService` the store is given). The Worker is started on
 * first use. One tab per browser profile runs the replication, the one holding the Web
 * Lock; the others show the status and notices it broadcasts, pass their Sync now, Pause and
 * Resume on to it, and take over when it closes. That tab also tells the Worker when the browser goes
 * offline or back online (a Worker hears neither).
 */
import { CONTROL_CHANNEL, NOTICE_CHANNEL, STATUS_CHANNEL, SYNC_LOCK, type SyncControl, type SyncReply, type SyncRequest } from './syncProtocol';
import type { ConnectResult, SyncConfig, SyncEvents, SyncService, SyncStatus } from './types';

export interface SyncClientOptions {
  /** Makes the Worker; tests and benchmarks may give their own. */
  createWorker?: () => Worker;
  /** The app's database and cross-tab channel names, when not the defaults. */
  dbName?: string;
  channelName?: string;
}

/** Longer than any notice sync words (titles in them are cut to 80 characters): anything longer on the channel is not one. */
const MAX_NOTICE_CHARS = 1000;

const defaultWorker = () => new Worker(new URL('./syncWorker.ts', import.meta.url), { type: 'module', name: 'windowpane-sync' });

export function createSyncClient(options: SyncClientOptions = {}): SyncService {
  let worker: Worker | undefined;
  let events: SyncEvents | undefined;
  let nextId = 1;
  const connecting = new Map<number, (result: ConnectResult) => void>();
  let stopped: (() => void) | undefined;
  let release: (() => void) | undefined;
  let holdsLock = false;
  let statusChannel: BroadcastChannel | undefined;
  let controlChannel: BroadcastChannel | undefined;
  let noticeChannel: BroadcastChannel | undefined;

  function ensureWorker(): Worker {
    if (worker) return worker;
    worker = (options.createWorker ?? defaultWorker)();
    worker.addEventListener('message', (event: MessageEvent<SyncReply>) => {
      const reply = event.data;
      if (reply.type === 'connected') {
        connecting.get(reply.id)?.(reply.result);
        connecting.delete(reply.id);
      } else if (reply.type === 'status') events?.status(reply.status);
      else if (reply.type === 'notice') {
        events?.notice(reply.text);
        noticeChannel?.postMessage(reply.text);
      } else if (reply.type === 'stopped') {
        stopped?.();
        stopped = undefined;
      }
    });
    // A Worker hears no online and offline events: the tab running sync passes them on.
    for (const [type, online] of [
      ['online', true],
      ['offline', false],
    ] as const) {
      globalThis.addEventListener?.(type, () => holdsLock && post({ type: 'network', online }));
    }
    worker.addEventListener('error', () => events?.status({ phase: 'stopped', problem: { code: 'server_error', detail: 'the sync Worker failed to start' } }));
    return worker;
  }

  const post = (request: SyncRequest) => ensureWorker().postMessage(request);

  function followOtherTab(): void {
    if (statusChannel || typeof BroadcastChannel !== 'function') return;
    statusChannel = new BroadcastChannel(STATUS_CHANNEL);
    statusChannel.addEventListener('message', (event: MessageEvent<SyncStatus>) => {
      if (!holdsLock && event.data && typeof event.data === 'object' && typeof event.data.phase === 'string') events?.status(event.data);
    });
    noticeChannel = new BroadcastChannel(NOTICE_CHANNEL);
    noticeChannel.addEventListener('message', (event: MessageEvent<unknown>) => {
      if (!holdsLock && typeof event.data === 'string' && event.data.length <= MAX_NOTICE_CHARS) events?.notice(event.data);
    });
    controlChannel = new BroadcastChannel(CONTROL_CHANNEL);
    controlChannel.addEventListener('message', (event: MessageEvent<SyncControl>) => {
      const type = event.data?.type;
      if (holdsLock && (type === 'syncNow' || type === 'pause' || type === 'resume')) post({ type });
    });
  }

  /** This tab's button: to its own Worker when it runs sync, else to the tab that does. */
  function control(type: SyncControl['type']): void {
    if (holdsLock) post({ type });
    else controlChannel?.postMessage({ type } satisfies SyncControl);
  }

  function runWithLock(config: SyncConfig): void {
    const begin = () => {
      holdsLock = true;
      post({ type: 'start', config, dbName: options.dbName, channelName: options.channelName });
    };
    const locks = typeof navigator !== 'undefined' ? navigator.locks : undefined;
    if (!locks) {
      begin();
      return;
    }
    followOtherTab();
    void locks.request(SYNC_LOCK, () => {
      if (release === undefined && !events) return undefined;
      begin();
      return new Promise<void>((resolve) => (release = resolve));
    });
  }

  return {
    connect(input) {
      const id = nextId++;
      return new Promise<ConnectResult>((resolve) => {
        connecting.set(id, resolve);
        post({ type: 'connect', id, input });
      });
    },
    start(config, listener) {
      events = listener;
      if (holdsLock) post({ type: 'start', config, dbName: options.dbName, channelName: options.channelName });
      else runWithLock(config);
    },
    syncNow: () => control('syncNow'),
    pause: () => control('pause'),
    resume: () => control('resume'),
    async stop(stopOptions = {}) {
      events = undefined;
      if (worker) {
        const done = new Promise<void>((resolve) => (stopped = resolve));
        post({ type: 'stop', forget: stopOptions.forget === true });
        await done;
      }
      holdsLock = false;
      release?.();
      release = undefined;
    },
  };
}
