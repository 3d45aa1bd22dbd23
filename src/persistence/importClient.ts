/**
 * Imports run in a Worker (importWorker.ts): it reads, unzips and parses the file and
 * writes the conversations to IndexedDB itself, batch by batch, so the page never holds
 * the file nor a long task, and is sent only progress. The Worker announces each batch on
 * the cross-tab channel like any tab's repositories, so this page and the others list the new
 * conversations and index them for search as they arrive. Should no Worker start, the same
 * import runs in the page (see transferFiles.ts), only on the main thread.
 */
import { emptyImportReport, nothingImported, type ImportOptions, type ImportOutcome, type ImportProgress } from './transferFiles';

/** What the page posts to the Worker: `start` once, then `cancel` when the user asks. */
export type ImportRequest = { type: 'start'; dbName: string; channelName: string; file: File; now: number } | { type: 'cancel' };

/** What the Worker answers: progress as it goes, then the outcome. */
export type ImportReply = { type: 'progress'; progress: ImportProgress } | { type: 'done'; outcome: ImportOutcome };

/** The parts of a Worker the client uses. */
export interface ImportWorkerPort {
  postMessage(message: ImportRequest): void;
  addEventListener(type: 'message', listener: (event: MessageEvent<ImportReply>) => void): void;
  addEventListener(type: 'error', listener: (event: Event) => void): void;
  terminate(): void;
}

/** Starts an import Worker as a module Worker of the app's own origin (CSP: worker-src 'self'). */
export function spawnImportWorker(): ImportWorkerPort {
  return new Worker(new URL('./importWorker.ts', import.meta.url), { type: 'module', name: 'windowpane-import' });
}

/**
 * Imports `file` through `worker` into the database `dbName`, announcing on `channelName`.
 * Aborting `options.signal` asks the Worker to stop after its current batch. Should the
 * Worker fail before it answers at all (it could not load), `inPage` runs the import
 * instead; failing later (out of memory, say), the outcome says how far it got.
 */
export function importInWorker(
  worker: ImportWorkerPort,
  request: { dbName: string; channelName: string; file: File },
  options: Omit<ImportOptions, 'limits'>,
  inPage: () => Promise<ImportOutcome>,
): Promise<ImportOutcome> {
  return new Promise((resolve) => {
    let last: ImportProgress | undefined;
    let settled = false;
    const settle = (outcome: Promise<ImportOutcome> | ImportOutcome) => {
      if (settled) return;
      settled = true;
      worker.terminate();
      resolve(outcome);
    };
    worker.addEventListener('message', ({ data }) => {
      if (data.type === 'progress') {
        last = data.progress;
        options.onProgress?.(data.progress);
      } else settle(data.outcome);
    });
    worker.addEventListener('error', () => settle(last ? brokeOff(last) : inPage()));
    options.signal?.addEventListener('abort', () => worker.postMessage({ type: 'cancel' }), { once: true });
    worker.postMessage({ type: 'start', ...request, now: options.now ?? Date.now() });
    if (options.signal?.aborted) worker.postMessage({ type: 'cancel' });
  });
}

/** The outcome of a Worker that died mid-import: what its last progress said was written. */
function brokeOff(last: ImportProgress): ImportOutcome {
  const error = { code: 'storage' as const, message: 'The import stopped unexpectedly (the browser may have run out of memory).' };
  if (last.imported === 0) return nothingImported(error);
  const writing = last.phase === 'writing';
  return {
    ok: true,
    value: {
      ...emptyImportReport(),
      total: writing ? last.total : 0,
      read: writing ? last.done : 0,
      imported: last.imported,
      stopped: { title: '', ...error },
    },
  };
}
