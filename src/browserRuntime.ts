/**
 * The composition root: the one place that wires the browser's services — IndexedDB
 * (persistence), the provider SDKs (providers), the run_javascript sandbox and the media
 * Workers — into a store runtime. main.tsx makes the app's runtime here; tests make their
 * own runtimes with fakes, so no module holds a runtime of its own.
 */
import { prepareImage } from './media/prepareImage';
import { readPdf } from './media/readPdf';
import { openWindowpaneStorage, randomUuid } from './persistence';
import { createProvider, listModels } from './providers';
import { createWorkerRunner } from './sandbox/javascriptRunner';
import { createSyncClient } from './sync/syncClient';
import { createRuntime, type AppDeps, type Runtime } from './store';

/** The browser's services, as the store's runtime takes them. */
export function browserDeps(): AppDeps {
  return {
    openStorage: (events) => openWindowpaneStorage(events),
    createProvider: (settings) => createProvider(settings),
    listModels: (target, signal) => listModels(target, { signal }),
    now: () => Date.now(),
    // Not crypto.randomUUID: it is missing on plain http (a LAN address next to Ollama).
    newId: randomUuid,
    runJavascript: createWorkerRunner(),
    isOnline: () => navigator.onLine,
    session: tabSession(),
    prepareImage,
    readPdf,
    sync: createSyncClient(),
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
