/**
 * The sync Worker: runs the replication and the engine off the page's thread. It opens its
 * own connection to the app's database (as the import Worker does), hears every write the
 * tabs announce on the cross-tab channel, and announces what it applies the same way, so
 * the pages and the search index follow. It reports its status to its page and, on a
 * channel of its own, to the other tabs.
 */
import { createSyncChannel, createSyncRepositories, openWindowpaneDb, type WindowpaneDb } from '../persistence';
import { docStoreOver } from './docStore';
import { createEngine, type Engine } from './engine';
import { createProgressTally } from './progressTally';
import { checkStillOpens, connect, isStorageFailure, openReplica, openServer, problemOf, type Database } from './replication';
import type { SyncRequest, SyncReply } from './syncProtocol';
import { STATUS_CHANNEL } from './syncProtocol';
import type { SyncConfig, SyncProblem, SyncStatus } from './types';

const scope = globalThis as unknown as {
  postMessage(message: SyncReply): void;
  addEventListener(type: 'message', listener: (event: MessageEvent<SyncRequest>) => void): void;
  addEventListener(type: 'unhandledrejection', listener: (event: PromiseRejectionEvent) => void): void;
};

// PouchDB leaves a request that failed on the network unhandled now and then (a changes feed
// cut as the server goes away): the replication retries by itself and says so in its status,
// so such a failure is not an error of the page. Any other stays an error.
// (A failed fetch is a TypeError whose message each browser words its own way.)
const FAILED_FETCH = /^(Failed to fetch|NetworkError when attempting to fetch resource\.|Load failed)$/;
scope.addEventListener('unhandledrejection', (event) => {
  if (event.reason instanceof TypeError && FAILED_FETCH.test(event.reason.message)) event.preventDefault();
});

/** The wait before the replication retries a failed request: 1 s, doubling to 10 s. */
const backOff = (delay: number) => (delay === 0 ? 1000 : Math.min(delay * 2, 10_000));

interface Running {
  config: SyncConfig;
  /** The app's database and channel names, to start again with. */
  names: [dbName: string | undefined, channelName: string | undefined];
  db: WindowpaneDb;
  replica: Database;
  server: Database;
  engine: Engine;
  replication?: ReturnType<Database['sync']>;
  stopChannel: () => void;
  paused: boolean;
  reopening?: boolean;
}

/** The wait before opening everything again after this device's storage failed. */
const REOPEN_DELAY = 5000;

let running: Running | undefined;
let status: SyncStatus = { phase: 'starting' };
/** Why the current replication is stopped or retrying, if it is: the engine's progress does not hide it. */
let replicationProblem: () => SyncProblem | undefined = () => undefined;
let lastSyncedAt: number | undefined;
const statusChannel = typeof BroadcastChannel === 'function' ? new BroadcastChannel(STATUS_CHANNEL) : undefined;
const refused = new Set<string>();

/** The counts "Sending …" and "Receiving …" show; they start afresh once the status rests. */
const tally = createProgressTally();

function report(next: SyncStatus): void {
  if (next.phase !== 'sending' && next.phase !== 'receiving') tally.rest();
  status = {
    ...next,
    ...(lastSyncedAt !== undefined ? { lastSyncedAt } : {}),
    ...(refused.size > 0 ? { refused: { count: refused.size, lastId: [...refused].at(-1)! } } : {}),
  };
  scope.postMessage({ type: 'status', status });
  statusChannel?.postMessage(status);
}

// ------------------------------------------------------------------ one queue for the engine

let queue: Promise<void> = Promise.resolve();
let queued = 0;
let replicationIdle = false;

function enqueue(work: (engine: Engine) => Promise<void>): void {
  const current = running;
  if (!current) return;
  queued++;
  queue = queue
    .then(() => (running === current ? work(current.engine) : undefined))
    .catch((error: unknown) => {
      if (isStorageFailure(error)) return reopenLater(current, error);
      if (running === current) report({ phase: 'stopped', problem: problemOf(error) });
      // A failed write is tried again by the next pass (a failed storage opens everything again).
      setTimeout(() => enqueue((e) => e.pull()), 15_000);
    })
    .finally(() => {
      queued--;
      settleIfIdle();
    });
}

/** After this device's storage failed (full, say), PouchDB's connection is closed: everything is opened again a little later. */
function reopenLater(current: Running, error: unknown): void {
  if (running !== current || current.reopening) return;
  current.reopening = true;
  current.replication?.cancel();
  current.replication = undefined;
  report({ phase: 'stopped', problem: problemOf(error) });
  setTimeout(() => {
    current.reopening = false; // paused meanwhile: the next failure after Resume tries again
    if (running === current && !current.paused)
      void start(current.config, ...current.names).catch((e: unknown) => report({ phase: 'stopped', problem: problemOf(e) }));
  }, REOPEN_DELAY);
}

let pullQueued = false;
function enqueuePull(): void {
  if (pullQueued) return;
  pullQueued = true;
  enqueue(async (engine) => {
    pullQueued = false;
    await engine.pull();
  });
}

function settleIfIdle(): void {
  if (!running || running.paused || queued > 0 || !replicationIdle) return;
  if (status.phase === 'stopped') return;
  lastSyncedAt = Date.now();
  report({ phase: 'synced' });
}

// ------------------------------------------------------------------ replication

function startReplication(current: Running): void {
  replicationIdle = false;
  const replication = current.replica.sync(current.server, { live: true, retry: true, batch_size: 100, back_off_function: backOff });
  current.replication = replication;
  // PouchDB's two-way sync says "paused" without the error when one way is waiting to retry:
  // each way's own failure is kept here, and idle means both ways idle without one.
  // An error that ends it (a refused login: PouchDB does not retry those) is kept until the next start.
  const failing: Partial<Record<'push' | 'pull' | 'ended', SyncProblem>> = {};
  // A replication cancelled (paused, offline, Sync now) may still say something: only the current one is heard.
  const isCurrent = () => running === current && current.replication === replication;
  replicationProblem = () => (isCurrent() ? (failing.ended ?? failing.pull ?? failing.push) : undefined);
  for (const direction of ['push', 'pull'] as const) {
    const way = replication[direction];
    const fail = (error: unknown) => {
      if (!isCurrent()) return;
      if (isStorageFailure(error)) return reopenLater(current, error);
      failing[direction] = problemOf(error);
      replicationIdle = false;
      report({ phase: 'stopped', problem: failing[direction] });
    };
    way.on('requestError', fail);
    way.on('paused', (error) => (error ? fail(error) : delete failing[direction]));
    way.on('active', () => delete failing[direction]);
  }
  // docs_written counts from the start of each attempt: only what is new since the last change counts.
  const lastWritten = { push: 0, pull: 0 };
  replication
    .on('change', (info) => {
      if (!isCurrent()) return;
      const direction = info.direction === 'pull' ? 'pull' : 'push';
      const written = info.change?.docs_written ?? 0;
      const more = written >= lastWritten[direction] ? written - lastWritten[direction] : written;
      lastWritten[direction] = written;
      const pending = info.change?.pending;
      if (direction === 'pull') {
        if (more > 0) report({ phase: 'receiving', progress: tally.pulled(more, pending) });
        enqueuePull();
      } else if (more > 0) {
        report({ phase: 'sending', progress: tally.pushed(more, pending) });
      }
    })
    .on('active', () => {
      if (isCurrent()) replicationIdle = false;
    })
    .on('paused', () => {
      if (!isCurrent()) return;
      const problem = failing.pull ?? failing.push;
      if (problem) {
        replicationIdle = false;
        report({ phase: 'stopped', problem });
        return;
      }
      replicationIdle = true;
      if (status.phase === 'stopped') report({ phase: 'starting' });
      settleIfIdle();
    })
    .on('denied', (error) => isCurrent() && report({ phase: 'stopped', problem: problemOf(error) }))
    .on('error', (error) => {
      if (!isCurrent()) return;
      failing.ended = problemOf(error);
      report({ phase: 'stopped', problem: failing.ended });
    });
}

// ------------------------------------------------------------------ requests

async function start(config: SyncConfig, dbName: string | undefined, channelName: string | undefined): Promise<void> {
  await stop(false);
  report({ phase: 'starting' });
  const db = await openWindowpaneDb(dbName ? { name: dbName } : {});
  const channel = createSyncChannel(channelName ? { name: channelName } : {});
  // The pages' own search indexes hear of each write on the channel; this Worker never searches.
  const repositories = createSyncRepositories(db, {
    sync: channel,
    search: { search: async () => ({ hits: [] }), details: async () => [], notify: () => undefined, close: () => undefined },
  });
  const replica = openReplica();
  const server = openServer(config);
  const engine = createEngine({
    keys: config.keys,
    deviceId: config.deviceId,
    syncApiKeys: config.syncApiKeys,
    docs: docStoreOver(replica),
    repositories,
    now: () => Date.now(),
    // Paused: the batch being saved is finished; the rest waits (in the replica, or here) until Resume.
    paused: () => running?.paused === true,
    events: {
      // The batch still being saved after Pause says nothing: the status stays "paused". Nor does
      // it hide why the replication stopped: the records it saves were received before that.
      progress: (moved) =>
        running?.paused ||
        replicationProblem() ||
        report(
          moved.phase === 'sending'
            ? { phase: 'sending', progress: tally.sealing(moved.total) }
            : { phase: 'receiving', progress: tally.applied(moved.applied) },
        ),
      refused: (docId) => {
        refused.add(docId);
        report(status);
      },
      notice: (text) => scope.postMessage({ type: 'notice', text }),
    },
  });
  const unsubscribe = channel.subscribe((change) => enqueue((e) => e.pushChange(change)));
  const current: Running = {
    config,
    names: [dbName, channelName],
    db,
    replica,
    server,
    engine,
    paused: false,
    stopChannel: () => (unsubscribe(), channel.close()),
  };
  running = current;
  const opens = await checkStillOpens(server, config.keys);
  if (opens === false) {
    report({ phase: 'stopped', problem: { code: 'wrong_passphrase' } });
    return;
  }
  if (opens !== true && opens.code !== 'offline' && opens.code !== 'server_error') {
    report({ phase: 'stopped', problem: opens });
  }
  enqueue((e) => e.pull());
  enqueue((e) => e.pushAll());
  startReplication(current);
}

async function stop(forget: boolean): Promise<void> {
  const current = running;
  running = undefined;
  if (current) {
    current.replication?.cancel();
    current.stopChannel();
    await queue.catch(() => undefined);
    if (forget) {
      await current.replica.destroy().catch(() => undefined);
      await createSyncRepositories(current.db)
        .sync.clearSynced()
        .catch(() => undefined);
    } else {
      await current.replica.close().catch(() => undefined);
    }
    await current.server.close().catch(() => undefined);
    current.db.close();
  } else if (forget) {
    await openReplica()
      .destroy()
      .catch(() => undefined);
  }
  refused.clear();
  lastSyncedAt = undefined;
}

scope.addEventListener('message', ({ data }) => {
  switch (data.type) {
    case 'connect':
      void connect(data.input).then((result) => scope.postMessage({ type: 'connected', id: data.id, result }));
      break;
    case 'start':
      void start(data.config, data.dbName, data.channelName).catch((error: unknown) => report({ phase: 'stopped', problem: problemOf(error) }));
      break;
    case 'syncNow':
      if (running && !running.paused) {
        running.replication?.cancel();
        enqueue((e) => e.pushAll());
        enqueuePull();
        startReplication(running);
      }
      break;
    case 'pause':
      if (running && !running.paused) {
        const current = running;
        current.paused = true;
        current.replication?.cancel();
        current.replication = undefined;
        // Said once the batch being saved is done: from "paused" on, nothing more is written.
        void queue.then(() => running === current && current.paused && report({ phase: 'paused' }));
      }
      break;
    case 'network':
      // The page hears the browser go offline (a Worker is not told): a request waiting on the server would not notice.
      if (running && !running.paused) {
        running.replication?.cancel();
        running.replication = undefined;
        replicationIdle = false;
        if (data.online) {
          report({ phase: 'starting' });
          startReplication(running);
        } else report({ phase: 'stopped', problem: { code: 'offline' } });
      }
      break;
    case 'resume':
      if (running?.paused) {
        running.paused = false;
        report({ phase: 'starting' });
        enqueue((e) => e.pushAll());
        enqueuePull();
        startReplication(running);
      }
      break;
    case 'stop':
      void stop(data.forget).then(() => scope.postMessage({ type: 'stopped' }));
      break;
  }
});
