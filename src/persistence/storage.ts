/**
 * Startup in one call: open the database, join the cross-tab channel, build the
 * repositories, and recover answers a closed tab left mid-stream.
 */
import type { StoredMessage } from '../core';
import { DB_NAME, openWindowpaneDb, type OpenDbOptions, type WindowpaneDb } from './db';
import { createRepositories, type Repositories } from './repositories';
import type { RepositoryOptions } from './repositoryContext';
import { lazySearch } from './lazySearch';
import type { SearchBuildListener } from './searchBuild';
import { liveStreamChecker, restoreRescuedStreams, type RescueStore, type StreamLocks } from './streamWriter';
import { createSyncChannel, SYNC_CHANNEL_NAME, type SyncChannel, type SyncChannelOptions } from './sync';
import type { ImportWorkerPort } from './importClient';
import type { ImportOptions, ImportOutcome } from './transferFiles';

export interface WindowpaneStorage {
  db: WindowpaneDb;
  repositories: Repositories;
  /** Subscribe here to re-read what other tabs change. */
  sync: SyncChannel;
  /** Answers found still `streaming` from a tab that closed, now marked `interrupted`. */
  interrupted: StoredMessage[];
  /**
   * Imports an export file (see `importFromFile`), in a Worker where the page can start one,
   * else here. This tab (through `sync`'s listeners) and the others hear of each batch
   * written as they hear of another tab's writes.
   */
  importFile(file: File, options: Omit<ImportOptions, 'limits'>): Promise<ImportOutcome>;
  /** Tells `listener` how a full build of the search index goes (see `ReportsSearchBuilds.watchBuild`); returns what stops it. */
  watchSearchBuild(listener: SearchBuildListener): () => void;
  /**
   * Loads the search index's code and starts loading the index, ahead of the first query.
   * Until then, or the first search, neither is loaded, so neither slows the first screen.
   */
  prepareSearch(): void;
  /** Closes the channel and the database connection. */
  close(): void;
}

export interface OpenStorageOptions extends OpenDbOptions, Pick<RepositoryOptions, 'now' | 'newId' | 'onUnreadable'> {
  channel?: SyncChannelOptions;
  /** Defaults to `navigator.locks`; `null` treats every leftover stream as interrupted. */
  locks?: StreamLocks | null;
  /** Defaults to `localStorage`; where stream writers kept their last copy while a page unloaded. */
  rescue?: RescueStore | null;
  /**
   * Where the search index runs. Defaults to a Worker when the page has Workers and the
   * database is the page's own IndexedDB (a Worker cannot see another factory), else the page.
   */
  searchIn?: 'worker' | 'page';
  /** Where imports run; defaults as `searchIn` does. */
  importIn?: 'worker' | 'page';
}

/**
 * Opens Windowpane's storage and prepares it for the app. Rejects with a WindowpaneError
 * (`storage`, `quota_exceeded`) when storage cannot be opened; see `OpenDbOptions` for
 * blocked upgrades and other tabs upgrading.
 */
export async function openWindowpaneStorage(options: OpenStorageOptions = {}): Promise<WindowpaneStorage> {
  const db = await openWindowpaneDb(options);
  const sync = createSyncChannel(options.channel);
  const workers = options.factory === undefined && typeof Worker === 'function' ? 'worker' : 'page';
  const searchIn = options.searchIn ?? workers;
  const importIn = options.importIn ?? workers;
  const name = options.name ?? DB_NAME;
  const search = lazySearch(async () => {
    const { createSearchEngine } = await import('./searchIndex');
    const inPage = () => {
      const engine = createSearchEngine(db);
      engine.start().catch(() => undefined); // a search asks again, and reports the failure
      return engine;
    };
    if (searchIn === 'page') return inPage();
    const { createWorkerSearch, spawnSearchWorker } = await import('./searchClient');
    try {
      return createWorkerSearch(spawnSearchWorker(), name, inPage);
    } catch {
      return inPage(); // a policy or browser refusing the Worker
    }
  });
  // Other tabs' writes reach the index as this tab's own do (the repositories tell it those).
  sync.subscribe((change) => search.notify(change));
  try {
    const repositories = createRepositories(db, { sync, search, now: options.now, newId: options.newId, onUnreadable: options.onUnreadable });
    const isStreamAlive = await liveStreamChecker(options.locks);
    await restoreRescuedStreams(repositories.conversations, isStreamAlive, options.rescue);
    const interrupted = await repositories.conversations.markInterruptedStreams(isStreamAlive);
    // In the page the repositories tell the other tabs and the index of each batch; this tab hears of it as it would from a Worker.
    const importHere = async (file: File, importOptions: Omit<ImportOptions, 'limits'>) => {
      const { importFromFile } = await import('./transferFiles');
      let imported = 0;
      return importFromFile(repositories.transfer, file, {
        ...importOptions,
        onProgress(progress) {
          if (progress.imported > imported) sync.echo({ type: 'conversation-changed' });
          imported = progress.imported;
          importOptions.onProgress?.(progress);
        },
      });
    };
    return {
      db,
      repositories,
      sync,
      interrupted,
      async importFile(file, importOptions) {
        if (importIn === 'page') return importHere(file, importOptions);
        // The import's code is loaded with its first file, never with the first screen.
        const { importInWorker, spawnImportWorker } = await import('./importClient');
        let worker: ImportWorkerPort;
        try {
          worker = spawnImportWorker();
        } catch {
          return importHere(file, importOptions);
        }
        const channelName = options.channel?.name ?? SYNC_CHANNEL_NAME;
        return importInWorker(worker, { dbName: name, channelName, file }, importOptions, () => importHere(file, importOptions));
      },
      watchSearchBuild: (listener) => search.watchBuild(listener),
      prepareSearch: () => search.prepare(),
      close() {
        search.close();
        sync.close();
        db.close();
      },
    };
  } catch (error) {
    search.close();
    sync.close();
    db.close();
    throw error;
  }
}

/**
 * The same storage in memory, for a visit whose IndexedDB cannot open (disabled, or a
 * browser mode without it): everything works as usual, nothing outlives the tab, and no
 * other tab hears of it. The in-memory database (fake-indexeddb) is loaded only then, and
 * takes the place of the page's IndexedDB classes, which idb checks its objects against.
 */
export async function openMemoryStorage(options: Pick<OpenStorageOptions, 'now' | 'newId'> = {}): Promise<WindowpaneStorage> {
  await import('fake-indexeddb/auto');
  const tab = options.newId?.() ?? String(Math.random()).slice(2);
  return openWindowpaneStorage({ ...options, factory: globalThis.indexedDB, channel: { name: `windowpane-in-memory-${tab}` }, locks: null, rescue: null });
}
