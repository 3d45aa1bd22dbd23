/**
 * The runtime every action receives as its first argument: the store, the platform
 * services it was given (storage, providers, clock, ids, the sandbox, media readers), the
 * repositories, the notifier, and what one visit keeps beside the state (requests in
 * flight, deleted conversations kept for Undo). The composition root makes one with the
 * browser's services; tests make theirs with fakes. No module holds a runtime of its own.
 */
import { createStore } from 'zustand/vanilla';
import { isWindowpaneError } from '../core';
import type { BrowserStorage, DeletedConversation, Repositories, UnreadableRecords, WindowpaneStorage } from '../persistence';
import type { ChatProvider, ModelListing, ProviderSettings } from '../providers';
import type { JavascriptRunner } from '../sandbox/javascriptRunner';
import type { PreparedImage } from '../media/fitImage';
import type { ReadPdf } from '../media/pdfResult';
import type { SyncService } from '../sync/types';
import { initialState, type AppState, type AppStore, type ListTarget, type Notice, type NoticeSection } from './state';
import { errorText } from './storageNotices';

export interface AppDeps {
  /** Opens IndexedDB; `events` hears of a blocked upgrade and of the connection closing later. */
  openStorage: (events?: StorageEvents) => Promise<WindowpaneStorage>;
  createProvider: (settings: ProviderSettings) => Promise<ChatProvider>;
  /** Lists the models a key can use (see listModels), stopping when `signal` aborts; absent where listing is not offered. */
  listModels?: (target: ListTarget, signal?: AbortSignal) => Promise<ModelListing>;
  /** Epoch ms. */
  now: () => number;
  newId: () => string;
  /** Runs a run_javascript snippet: a sandboxed Web Worker in the browser, a fake in jsdom tests. */
  runJavascript: JavascriptRunner;
  /** Whether the browser thinks it is online (navigator.onLine); absent in tests, which are online. */
  isOnline?: () => boolean;
  /** This tab's sessionStorage, which remembers the open conversation so a reload reopens it; absent in tests. */
  session?: Pick<Storage, 'getItem' | 'setItem' | 'removeItem'>;
  /** What the Storage section asks about usage, quota and persistence; absent: the page's `navigator.storage`. */
  browserStorage?: BrowserStorage;
  /** Checks an image file and scales it down to what the providers use (in a worker in the browser); absent: images are refused. */
  prepareImage?: (file: File) => Promise<PreparedImage>;
  /** Reads a PDF's pages and their text (PDF.js in its Worker in the browser); absent: PDFs are refused. */
  readPdf?: ReadPdf;
  /** Replication with the user's CouchDB server (the sync Worker in the browser); absent: sync is not offered. */
  sync?: SyncService;
}

/** What the open connection to IndexedDB reports over its life (see openWindowpaneDb). */
export interface StorageEvents {
  onBlocked?: (error: Error) => void;
  onVersionChange?: () => void;
  onTerminated?: () => void;
  /** Stored records another version wrote that cannot be used as they are. */
  onUnreadable?: (found: UnreadableRecords) => void;
}

/** Tells the user things: the notices under the header (or in a Settings section). */
export interface Notifier {
  /** Adds a notice (replacing one with the same id); errors and warnings stay until dismissed, info notices fade after `ttlMs`. Returns its id. */
  notify(notice: Omit<Notice, 'id'> & { id?: string }, ttlMs?: number): string;
  dismiss(id: string): void;
  /** Turns any failure into a notice the user can act on (in `section` while Settings is open); returns its message. */
  reportError(error: unknown, doing: string, section?: NoticeSection): string;
}

export interface Runtime {
  store: AppStore;
  deps: AppDeps;
  notifier: Notifier;
  /**
   * Where everything is kept: IndexedDB once hydrate opens it, or an in-memory database of
   * the same shape when IndexedDB cannot open. Calls made before hydrate ends wait for it.
   */
  repositories: Repositories;
  /** The open IndexedDB connection and its cross-tab channel; null before hydrate and when storage is in memory. */
  storage: WindowpaneStorage | null;
  /** True when IndexedDB could not open and the in-memory database stands in: nothing outlives the tab. */
  inMemory: boolean;
  /** Hands the repositories to the calls waiting for hydrate. */
  repositoriesOpened: (repositories: Repositories) => void;
  /** In-flight request per conversation (Stop aborts it). */
  controllers: Map<string, AbortController>;
  /** Deleted conversations kept for Undo. */
  deleted: Map<string, DeletedConversation>;
  /** Conversations storage could not create (e.g. full): kept in memory for this visit, their messages not written. */
  memoryOnly: Set<string>;
  /** Models whose saved calibration has been read into the state in this visit. */
  calibrationLoaded: Set<string>;
  /** Ends the attachments watch (see watchAttachments), if one runs. */
  stopWatchingAttachments: (() => void) | null;
  /** Images of conversations storage could not take, kept for this visit, by file id. */
  memoryFiles: Map<string, Blob>;
  /** The images being added to the composer, so a later paste waits for an earlier one. */
  imageWork: Promise<void>;
}

/** A runtime at the start of a visit: the initial state, storage not yet open (see hydrate). */
export function createRuntime(deps: AppDeps): Runtime {
  let opened: (repositories: Repositories) => void = () => undefined;
  const repositories = repositoriesOnceOpen(new Promise<Repositories>((resolve) => (opened = resolve)));
  const store = createStore<AppState>()(initialState);
  return {
    store,
    deps,
    notifier: createNotifier(store, deps.newId),
    repositories,
    storage: null,
    inMemory: false,
    repositoriesOpened: opened,
    controllers: new Map(),
    deleted: new Map(),
    memoryOnly: new Set(),
    calibrationLoaded: new Set(),
    stopWatchingAttachments: null,
    memoryFiles: new Map(),
    imageWork: Promise.resolve(),
  };
}

/** Repositories whose calls wait until `opened` gives the real ones; no thenables, since nothing awaits a repository itself. */
function repositoriesOnceOpen(opened: Promise<Repositories>): Repositories {
  const onceOpen = <K extends keyof Repositories>(key: K): Repositories[K] =>
    new Proxy({} as Repositories[K], {
      get: (_target, name) =>
        name === 'then'
          ? undefined
          : async (...args: unknown[]) => {
              const repository = (await opened)[key];
              return (repository[name as keyof Repositories[K]] as (...a: unknown[]) => unknown).apply(repository, args);
            },
    });
  return {
    conversations: onceOpen('conversations'),
    files: onceOpen('files'),
    settings: onceOpen('settings'),
    search: onceOpen('search'),
    transfer: onceOpen('transfer'),
  };
}

function createNotifier(store: AppStore, newId: () => string): Notifier {
  const notifier: Notifier = {
    notify(notice, ttlMs = notice.tone === 'info' ? 8000 : 0) {
      const id = notice.id ?? newId();
      const shown: Notice = { ...notice, id };
      store.setState((s) => ({ notices: [...s.notices.filter((n) => n.id !== id), shown] }));
      // Fades only this notice: a newer one under the same id (the next retry, say) keeps its own time.
      if (ttlMs > 0) setTimeout(() => store.setState((s) => ({ notices: s.notices.filter((n) => n !== shown) })), ttlMs);
      return id;
    },
    dismiss(id) {
      store.setState((s) => ({ notices: s.notices.filter((n) => n.id !== id) }));
    },
    reportError(error, doing, section) {
      const message = isWindowpaneError(error) ? errorText(error) : `Windowpane couldn't ${doing}: ${error instanceof Error ? error.message : String(error)}`;
      // The same failure met by several writes in a row (e.g. storage full) is shown once.
      const shown = store.getState().notices.find((n) => n.tone === 'error' && n.text === message);
      // A conversation too long for the model fails each send with new counts: one notice says it, the newest.
      notifier.notify({ id: isWindowpaneError(error, 'context_length') ? 'context-length' : shown?.id, tone: 'error', text: message, section });
      return message;
    },
  };
  return notifier;
}
