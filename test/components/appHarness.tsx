/**
 * Gives each App test a first visit: a fresh runtime (`runtime`, with the browser's
 * services), an empty IndexedDB (fake-indexeddb), nothing in flight from the test before,
 * and the real Demo provider streaming with short delays so tests stay fast. Render with
 * `renderApp` so components find the runtime, as main.tsx gives it to them.
 */
import { render, type RenderResult } from '@testing-library/react';
import { IDBFactory } from 'fake-indexeddb';
import type { ReactElement } from 'react';
import { App } from '../../src/App';
import { browserDeps } from '../../src/browserRuntime';
import { AppRuntimeProvider } from '../../src/components/AppRuntime';
import { openWindowpaneStorage, type WindowpaneStorage } from '../../src/persistence';
import { createProvider } from '../../src/providers';
import { bindActions, createRuntime, type Actions, type Runtime } from '../../src/store';
import type { SyncService } from '../../src/sync/types';
import type { Settings } from '../../src/store/settings';
import { SETTINGS_KEY } from '../../src/store/storedSettings';

// jsdom does no layout, so every element measures 0×0 and the virtualized transcript would
// show no rows at all. Give the scrolling transcript (the `log`) a desktop-sized viewport.
for (const [prop, size] of [
  ['clientHeight', 800],
  ['clientWidth', 900],
] as const) {
  Object.defineProperty(HTMLElement.prototype, prop, {
    configurable: true,
    get(this: HTMLElement) {
      return this.getAttribute('role') === 'log' ? size : 0;
    },
  });
}

/** The runtime of the test running now (made by `resetApp`), and its actions. */
export let runtime: Runtime;
export let actions: Actions;

/** What a visit is given beside the browser's services. */
interface VisitOptions {
  /** The Demo's delay between chunks (0 by default). */
  chunkDelayMs?: number;
  /** A sync service (a fake); without one, sync is not offered, as in a browser that cannot run it. */
  sync?: SyncService;
}

export function resetApp(options: VisitOptions = {}): void {
  globalThis.indexedDB = new IDBFactory();
  sessionStorage.clear();
  newVisit(options);
}

/** A visit on what IndexedDB holds now, as a reload makes: the last runtime is stopped and a new one starts. */
export function newVisit(options: VisitOptions = {}): void {
  if (runtime) stop(runtime);
  runtime = createRuntime({
    ...browserDeps(),
    createProvider: (settings) => createProvider(settings, { demo: { firstChunkDelayMs: 0, chunkDelayMs: options.chunkDelayMs ?? 0 } }),
    sync: options.sync,
  });
  actions = bindActions(runtime);
}

/** Ends what the last test left running: requests in flight, the attachments watch, the storage connection. */
function stop(previous: Runtime): void {
  for (const controller of previous.controllers.values()) controller.abort();
  previous.stopWatchingAttachments?.();
  previous.storage?.close();
}

/** Renders `ui` (the whole app by default) inside this test's runtime. */
export function renderApp(ui: ReactElement = <App />): RenderResult {
  return render(ui, { wrapper: ({ children }) => <AppRuntimeProvider runtime={runtime}>{children}</AppRuntimeProvider> });
}

/** Has this test's runtime open the real storage and pass it through `change` (to script or record what it answers) before the app uses it. */
export function changeStorage(change: (storage: WindowpaneStorage) => WindowpaneStorage): void {
  const open = runtime.deps.openStorage;
  runtime.deps = { ...runtime.deps, openStorage: async (events) => change(await open(events)) };
}

/** Stores a finished conversation of alternating user/assistant texts, as an earlier visit would have left it. */
export async function seedConversation(title: string, texts: string[]): Promise<string> {
  const storage = await openWindowpaneStorage();
  try {
    const conversation = await storage.repositories.conversations.createConversation({ title });
    for (const [i, text] of texts.entries()) {
      await storage.repositories.conversations.appendMessage({
        conversationId: conversation.id,
        role: i % 2 === 0 ? 'user' : 'assistant',
        content: [{ type: 'text', text }],
      });
    }
    return conversation.id;
  } finally {
    storage.close();
  }
}

/** Stores settings as an earlier visit's Settings dialog would have saved them. */
export async function seedSettings(settings: Settings): Promise<void> {
  const storage = await openWindowpaneStorage();
  try {
    await storage.repositories.settings.setSetting(SETTINGS_KEY, settings);
  } finally {
    storage.close();
  }
}
