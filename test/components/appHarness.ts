/**
 * Puts the app's one runtime (`appRuntime`, a module singleton) back to a first visit
 * before each App test: an empty IndexedDB (fake-indexeddb), the initial state, nothing
 * in flight, and the real Demo provider streaming with short delays so tests stay fast.
 */
import { IDBFactory } from 'fake-indexeddb';
import { openWindowpaneStorage } from '../../src/persistence';
import { createProvider } from '../../src/providers';
import { appRuntime } from '../../src/store';
import { resetRuntime, SETTINGS_KEY } from '../../src/store/appStore';
import type { Settings } from '../../src/store/settings';

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

export function resetApp(demo: { chunkDelayMs?: number } = {}): void {
  resetRuntime(appRuntime);
  globalThis.indexedDB = new IDBFactory();
  sessionStorage.clear();
  appRuntime.deps = {
    ...appRuntime.deps,
    createProvider: (settings) => createProvider(settings, { demo: { firstChunkDelayMs: 0, chunkDelayMs: demo.chunkDelayMs ?? 0 } }),
  };
}

/** Stores a finished conversation of alternating user/assistant texts, as an earlier visit would have left it. */
export async function seedConversation(title: string, texts: string[]): Promise<string> {
  const storage = await openWindowpaneStorage();
  try {
    const conversation = await storage.repository.createConversation({ title });
    for (const [i, text] of texts.entries()) {
      await storage.repository.appendMessage({ conversationId: conversation.id, role: i % 2 === 0 ? 'user' : 'assistant', content: [{ type: 'text', text }] });
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
    await storage.repository.setSetting(SETTINGS_KEY, settings);
  } finally {
    storage.close();
  }
}
