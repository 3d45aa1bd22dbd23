/**
 * The composition root: the one place that wires the browser's services — IndexedDB
 * (persistence), the provider SDKs (providers), the run_javascript sandbox and the media
 * Workers — into a store runtime. main.tsx makes the app's runtime here; tests make their
 * own runtimes with fakes, so no module holds a runtime of its own.
 */
import { openWindowpaneStorage, randomUuid } from './persistence';
import { createProvider, listModels } from './providers';
import type { SyncService } from './sync/types';
import { createRuntime, type AppDeps, type Runtime } from './store';

/**
 * What makes `T` the first time it is asked for, and gives the same one after: the services
 * a visit may never use (the run_javascript sandbox, the image and PDF readers, sync) are
 * chunks of their own, loaded on first use rather than with the first screen.
 */
function onFirstUse<T>(load: () => Promise<T>): () => Promise<T> {
  let loading: Promise<T> | undefined;
  return () => {
    loading ??= load();
    loading.catch(() => (loading = undefined)); // the next use tries again
    return loading;
  };
}

/** The browser's services, as the store's runtime takes them. */
export function browserDeps(): AppDeps {
  const runner = onFirstUse(async () => (await import('./sandbox/javascriptRunner')).createWorkerRunner());
  return {
    openStorage: (events) => openWindowpaneStorage(events),
    createProvider: (settings) => createProvider(settings),
    listModels: (target, signal) => listModels(target, { signal }),
    now: () => Date.now(),
    // Not crypto.randomUUID: it is missing on plain http (a LAN address next to Ollama).
    newId: randomUuid,
    runJavascript: async (code, signal) => (await runner())(code, signal),
    isOnline: () => navigator.onLine,
    session: tabSession(),
    prepareImage: async (file) => (await import('./media/prepareImage')).prepareImage(file),
    readPdf: async (file) => (await import('./media/readPdf')).readPdf(file),
    sync: syncOnFirstUse(onFirstUse(async () => (await import('./sync/syncClient')).createSyncClient())),
  };
}

/**
 * The sync client, loaded with its first call (at startup only where this device syncs).
 * Calls made while it loads reach it in the order they were made.
 */
function syncOnFirstUse(client: () => Promise<SyncService>): SyncService {
  const later = (call: (service: SyncService) => void) => void client().then(call);
  return {
    connect: async (input) => (await client()).connect(input),
    start: (config, events) => later((service) => service.start(config, events)),
    syncNow: () => later((service) => service.syncNow()),
    pause: () => later((service) => service.pause()),
    resume: () => later((service) => service.resume()),
    stop: async (options) => (await client()).stop(options),
  };
}

/** sessionStorage, or undefined where the browser blocks it (reading it then throws). */
function tabSession(): Storage | undefined {
  try {
    return sessionStorage;
  } catch {
    return undefined;
  }
}

/** The app's runtime in this page. */
export function createBrowserRuntime(): Runtime {
  return createRuntime(browserDeps());
}
