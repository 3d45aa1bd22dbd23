/**
 * The branch a tab shows survives that tab's reload even when the reload comes before the
 * switch is written to storage: the tab keeps its leaf per conversation in sessionStorage,
 * written as the user switches, and prefers it on opening when it names a message of that
 * conversation. Whatever else is found there is ignored. Other tabs (another
 * sessionStorage) get the leaf stored with the conversation.
 */
import { IDBFactory } from 'fake-indexeddb';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { messageText, type ContentBlock } from '../../src/core';
import { openWindowpaneStorage, randomUuid } from '../../src/persistence';
import type { ChatProvider, ChatRequest } from '../../src/providers';
import { createRuntime, type AppDeps, type Runtime } from '../../src/store/runtime';
import { shownBranch, switchVersion } from '../../src/store/branches';
import { newChat, selectConversation } from '../../src/store/conversationActions';
import { hydrate } from '../../src/store/hydrate';
import { regenerate } from '../../src/store/messageActions';
import { DEFAULT_SETTINGS } from '../../src/store/settings';
import { answer, sendAndSettle, settled } from './scriptedStore';

/** The sessionStorage key the branches are kept under (see branches.ts). */
const TAB_LEAVES_KEY = 'windowpane:shown-leaves';
const OPEN_CONVERSATION_KEY = 'windowpane:open-conversation';

type Session = NonNullable<AppDeps['session']>;

/** A tab's sessionStorage: it outlives the tab's runtime, as across a reload. */
function tabSession(): Session & { items: Map<string, string> } {
  const items = new Map<string, string>();
  return {
    items,
    getItem: (key) => items.get(key) ?? null,
    setItem: (key, value) => void items.set(key, String(value)),
    removeItem: (key) => void items.delete(key),
  };
}

const text = (t: string): ContentBlock => ({ type: 'text', text: t });

let count = 0;
const provider: ChatProvider = {
  id: 'anthropic',
  wireShape: 'anthropic',
  async send(request: ChatRequest) {
    const last = request.messages.at(-1)!;
    return answer([text(`re: ${typeof last.content === 'string' ? last.content : ''} #${++count}`)]);
  },
  async complete() {
    return 'Summary.';
  },
};

/** A tab (re)loaded over the current IndexedDB with `session` as its sessionStorage. */
async function tab(session: Session | undefined): Promise<Runtime> {
  const rt = createRuntime({
    openStorage: () => openWindowpaneStorage(),
    createProvider: async () => provider,
    now: () => Date.now(),
    newId: randomUuid,
    runJavascript: async () => ({ logs: [], result: '', truncated: false }),
    session,
  });
  await hydrate(rt);
  rt.store.setState({ settings: { ...DEFAULT_SETTINGS, provider: 'anthropic', apiKeys: { anthropic: 'sk-test-key-0123456789' } } });
  return rt;
}

const shown = (rt: Runtime, id = rt.store.getState().activeId) => shownBranch(rt.store.getState(), id).map((m) => messageText(m));
const byText = (rt: Runtime, id: string, t: string) => rt.store.getState().messages[id]!.find((m) => messageText(m) === t)!;

/** A conversation with two answers to "Hello", the second shown (and stored as shown); returns the tab and the conversation. */
async function twoVersions(session: Session | undefined) {
  const rt = await tab(session);
  const id = await sendAndSettle(rt, 'Hello');
  await regenerate(rt, byText(rt, id, 're: Hello #1').id);
  await settled(rt);
  expect(shown(rt)).toEqual(['Hello', 're: Hello #2']);
  return { rt, id };
}

/** Switches to the first answer while storage never takes the switch, as when the page unloads before the write lands. */
function switchWithoutStoring(rt: Runtime, id: string): void {
  vi.spyOn(rt.repositories.conversations, 'setActiveLeaf').mockReturnValue(new Promise(() => undefined));
  void switchVersion(rt, byText(rt, id, 're: Hello #2').id, -1);
  expect(shown(rt)).toEqual(['Hello', 're: Hello #1']);
}

beforeEach(() => {
  globalThis.indexedDB = new IDBFactory();
  count = 0;
});

describe('the branch a tab shows, across its reload', () => {
  it('a reload right after a switch reopens the branch switched to, though storage still has the other', async () => {
    const session = tabSession();
    const { rt, id } = await twoVersions(session);
    switchWithoutStoring(rt, id);
    rt.storage!.close();

    const reloaded = await tab(session);
    expect(reloaded.store.getState().activeId).toBe(id);
    expect(shown(reloaded)).toEqual(['Hello', 're: Hello #1']);
    // Storage never had the switch: the branch came from this tab's session.
    expect((await reloaded.repositories.conversations.getConversation(id))?.activeLeafId).toBe(byText(reloaded, id, 're: Hello #2').id);
    reloaded.storage!.close();

    // Opened from the list rather than reopened by the reload: the same.
    session.removeItem(OPEN_CONVERSATION_KEY);
    const opened = await tab(session);
    expect(opened.store.getState().activeId).toBeNull();
    await selectConversation(opened, id);
    expect(shown(opened)).toEqual(['Hello', 're: Hello #1']);
    opened.storage!.close();

    // Another tab has its own session: it opens the branch stored with the conversation.
    const other = await tab(tabSession());
    await selectConversation(other, id);
    expect(shown(other)).toEqual(['Hello', 're: Hello #2']);
    other.storage!.close();
  });

  it('keeps the branch the tab moved on to after a switch, not the one switched to', async () => {
    const session = tabSession();
    const { rt, id } = await twoVersions(session);
    await switchVersion(rt, byText(rt, id, 're: Hello #2').id, -1);
    await regenerate(rt, byText(rt, id, 're: Hello #1').id);
    await settled(rt);
    expect(shown(rt)).toEqual(['Hello', 're: Hello #3']);
    rt.storage!.close();

    const reloaded = await tab(session);
    expect(shown(reloaded)).toEqual(['Hello', 're: Hello #3']);
    reloaded.storage!.close();
  });

  it('remembers a branch per conversation', async () => {
    const session = tabSession();
    const { rt, id } = await twoVersions(session);
    newChat(rt);
    const second = await sendAndSettle(rt, 'Bonjour');
    await regenerate(rt, byText(rt, second, 're: Bonjour #3').id);
    await settled(rt);
    await selectConversation(rt, id);
    switchWithoutStoring(rt, id);
    rt.storage!.close();

    const reloaded = await tab(session);
    expect(shown(reloaded, id)).toEqual(['Hello', 're: Hello #1']);
    await selectConversation(reloaded, second);
    expect(shown(reloaded, second)).toEqual(['Bonjour', 're: Bonjour #4']);
    reloaded.storage!.close();
  });

  describe('ignores what it cannot use in sessionStorage and opens the stored branch', () => {
    // The stored branch is the first answer's, not the newest: falling back to the newest would show.
    const cases: Array<[string, (ids: { id: string; elsewhere: string; second: string }) => string]> = [
      ['not JSON', () => '{"broken'],
      ['JSON null', () => 'null'],
      ['a JSON string', ({ second }) => JSON.stringify(second)],
      ['a number', () => '42'],
      ['an array', ({ id, second }) => JSON.stringify([id, second])],
      ['a leaf that is not a string', ({ id }) => JSON.stringify({ [id]: 42 })],
      ['a leaf that is an object', ({ id, second }) => JSON.stringify({ [id]: { id: second } })],
      ['an unknown message id', ({ id }) => JSON.stringify({ [id]: 'no-such-message' })],
      ['a message of another conversation', ({ id, elsewhere }) => JSON.stringify({ [id]: elsewhere })],
      ['an inherited name as the key', ({ second }) => `{"__proto__": ${JSON.stringify(second)}, "constructor": ${JSON.stringify(second)}}`],
    ];

    it.each(cases)('%s', async (_what, value) => {
      const session = tabSession();
      const { rt, id } = await twoVersions(session);
      const second = byText(rt, id, 're: Hello #2').id;
      await switchVersion(rt, second, -1);
      newChat(rt);
      const other = await sendAndSettle(rt, 'Elsewhere');
      const elsewhere = rt.store.getState().messages[other]![1]!.id;
      await selectConversation(rt, id);
      rt.storage!.close();
      session.setItem(TAB_LEAVES_KEY, value({ id, elsewhere, second }));

      const reloaded = await tab(session);
      expect(reloaded.store.getState().activeId).toBe(id);
      expect(shown(reloaded)).toEqual(['Hello', 're: Hello #1']);
      expect(reloaded.store.getState().notices).toEqual([]);
      // The next switch writes a value that can be used again.
      await switchVersion(reloaded, byText(reloaded, id, 're: Hello #1').id, 1);
      expect((JSON.parse(session.getItem(TAB_LEAVES_KEY)!) as Record<string, unknown>)[id]).toBe(second);
      reloaded.storage!.close();
    });

    it('a sessionStorage that throws', async () => {
      const { rt, id } = await twoVersions(undefined);
      rt.storage!.close();
      const failing: Session = {
        getItem: () => {
          throw new DOMException('blocked', 'SecurityError');
        },
        setItem: () => {
          throw new DOMException('full', 'QuotaExceededError');
        },
        removeItem: () => undefined,
      };
      const reloaded = await tab(failing);
      await selectConversation(reloaded, id);
      expect(shown(reloaded)).toEqual(['Hello', 're: Hello #2']);
      await switchVersion(reloaded, byText(reloaded, id, 're: Hello #2').id, -1);
      expect(shown(reloaded)).toEqual(['Hello', 're: Hello #1']);
      expect(reloaded.store.getState().notices).toEqual([]);
      reloaded.storage!.close();
    });
  });
});
