import { IDBFactory } from 'fake-indexeddb';
import { describe, expect, it } from 'vitest';
import { messageText } from '../../src/core';
import { openWindowpaneStorage } from '../../src/persistence';
import { createProvider } from '../../src/providers';
import { browserDeps } from '../../src/browserRuntime';
import { createRuntime, type AppDeps, type Runtime } from '../../src/store/runtime';
import { deleteConversation, renameConversation, search, selectConversation, undoDelete } from '../../src/store/conversationActions';
import { hydrate } from '../../src/store/hydrate';
import { send } from '../../src/store/sendPipeline';

let ids = 0;
function runtime(openStorage: AppDeps['openStorage']): Runtime {
  return createRuntime({
    ...browserDeps(),
    session: undefined,
    openStorage,
    createProvider: (settings) => createProvider(settings, { demo: { firstChunkDelayMs: 0, chunkDelayMs: 0 } }),
    now: () => Date.now(),
    newId: () => `id-${++ids}`,
  });
}

async function settled(rt: Runtime): Promise<void> {
  for (let i = 0; i < 1000 && rt.store.getState().sendingId !== null; i++) await new Promise((resolve) => setTimeout(resolve, 10));
  expect(rt.store.getState().sendingId).toBeNull();
}

describe('a tab whose IndexedDB cannot open', () => {
  it('goes on in an in-memory database: sends and answers, searches message text, renames, deletes with Undo', async () => {
    const rt = runtime(() => Promise.reject(new Error('IndexedDB is disabled')));
    await hydrate(rt);
    expect(rt.store.getState().status).toBe('ready');
    expect(rt.store.getState().storageProblem).toMatch(/Nothing you write now will be kept after you close this tab\.$/);

    expect(send(rt, null, 'Tell me what grows well along a sunny garden wall in a dry climate, next to the heliotrope.')).toBe(true);
    await settled(rt);
    const [conversation] = rt.store.getState().conversations;
    const messages = await rt.repositories.conversations.getMessages(conversation!.id);
    expect(messages.map((m) => m.role)).toEqual(['user', 'assistant']);
    expect(messages[1]!.status).toBe('complete');
    expect(messageText(messages[1]!)).not.toBe('');

    await search(rt, 'heliotrope');
    expect(rt.store.getState().searchHits?.map((h) => [h.conversationId, h.matchedIn])).toEqual([[conversation!.id, 'message']]);

    await renameConversation(rt, conversation!.id, 'Arithmetic');
    expect((await rt.repositories.conversations.getConversation(conversation!.id))?.title).toBe('Arithmetic');

    await deleteConversation(rt, conversation!.id);
    expect(await rt.repositories.conversations.listConversations()).toEqual([]);
    await undoDelete(rt, conversation!.id);
    expect((await rt.repositories.conversations.getMessages(conversation!.id)).map((m) => m.id)).toEqual(messages.map((m) => m.id));
  });
});

describe('calls made before hydrate', () => {
  it('wait for storage to open instead of finding none', async () => {
    const factory = new IDBFactory();
    const earlier = await openWindowpaneStorage({ factory, locks: null, rescue: null });
    const stored = await earlier.repositories.conversations.createConversation({ title: 'From an earlier visit' });
    await earlier.repositories.conversations.appendMessage({ conversationId: stored.id, role: 'user', content: [{ type: 'text', text: 'Still here?' }] });
    earlier.close();

    const rt = runtime(() => openWindowpaneStorage({ factory, locks: null, rescue: null }));
    const opening = selectConversation(rt, stored.id);
    await hydrate(rt);
    await opening;
    expect(rt.store.getState().messages[stored.id]?.map(messageText)).toEqual(['Still here?']);
  });
});
