/**
 * The import Worker: opens its own connection to the app's database, imports the file it
 * is given batch by batch (see importFromFile) and announces every batch on the cross-tab
 * channel, as a tab's repositories do, so the pages list and index what it wrote.
 */
import { openWindowpaneDb, type WindowpaneDb } from './db';
import type { ImportReply, ImportRequest } from './importClient';
import { createRepositories } from './repositories';
import { toStorageError } from './storageErrors';
import { createSyncChannel } from './sync';
import { importFromFile, nothingImported } from './transferFiles';

const scope = globalThis as unknown as {
  postMessage(message: ImportReply): void;
  addEventListener(type: 'message', listener: (event: MessageEvent<ImportRequest>) => void): void;
};

const cancel = new AbortController();

scope.addEventListener('message', ({ data }) => {
  if (data.type === 'cancel') cancel.abort();
  else void run(data);
});

async function run(request: Extract<ImportRequest, { type: 'start' }>): Promise<void> {
  let db: WindowpaneDb;
  try {
    db = await openWindowpaneDb({ name: request.dbName });
  } catch (error) {
    const failure = toStorageError(error, 'open its storage to import');
    scope.postMessage({ type: 'done', outcome: nothingImported({ code: failure.code, message: failure.message }) });
    return;
  }
  const sync = createSyncChannel({ name: request.channelName });
  // The pages' own indexes hear of each batch on the channel; this one is never asked.
  const { transfer } = createRepositories(db, {
    sync,
    search: { search: async () => ({ hits: [] }), details: async () => [], notify: () => undefined, close: () => undefined },
  });
  try {
    const outcome = await importFromFile(transfer, request.file, {
      now: request.now,
      signal: cancel.signal,
      onProgress: (progress) => scope.postMessage({ type: 'progress', progress }),
    });
    scope.postMessage({ type: 'done', outcome });
  } finally {
    sync.close();
    db.close();
  }
}
