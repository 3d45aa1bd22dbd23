/**
 * Startup and what other tabs change: open storage (or, when IndexedDB cannot open, an
 * in-memory stand-in), load settings and conversation metadata, reopen this tab's
 * conversation, re-read exactly what another tab wrote, and show the search index being built.
 */
import { newestLeafUnder, type Conversation } from '../core';
import { openMemoryStorage, requestPersistentStorage, type StorageChange, type UnreadableRecords, type WindowpaneStorage } from '../persistence';
import type { Runtime } from './runtime';
import { setConversations, setMessages, upsertMessage } from './state';
import { followLeaf, settleLeaf, shownLeaf, treeOf } from './branches';
import { loadCalibration } from './calibration';
import { loadModelLists, MODEL_LISTS_KEY } from './modelLists';
import { conversationRead, search, selectConversation } from './conversationActions';
import { contextFor } from './planning';
import type { Settings } from './settings';
import { readOverrides, readSettings, SETTINGS_KEY, withDefaults } from './storedSettings';
import { unreadableNotice } from './storageNotices';

/**
 * What the user is told when storage is held up or taken away: an older tab blocking the
 * upgrade (the open continues by itself once it closes), a newer tab upgrading, or the
 * browser closing the connection. The last two close it for good, so they ask for a
 * reload at once rather than letting the next write fail.
 */
function storageEvents(rt: Runtime) {
  const lost = (why: string) =>
    rt.store.setState({
      storageNeedsReload: true,
      storageProblem: `${why} Reload this tab to keep working; until then, nothing you write here is saved.`,
    });
  return {
    onBlocked: (error: Error) => rt.store.setState({ storageProblem: error.message }),
    onVersionChange: () => lost('Windowpane was updated in another tab, so this tab closed its storage to let the update finish.'),
    onTerminated: () => lost('The browser closed Windowpane’s storage (site data may have been cleared).'),
    onUnreadable: (found: UnreadableRecords) => {
      const text = unreadableNotice(found);
      rt.notifier.notify({ id: `unreadable-${text}`, tone: 'warning', text });
    },
  };
}

/**
 * Shows each full build of the search index (keeping it up to date with each change is
 * none) and, when one ends, asks the open query again, so hits found while it ran are
 * completed by those it indexed since.
 */
function followSearchBuilds(rt: Runtime, storage: WindowpaneStorage): void {
  storage.watchSearchBuild((progress) => {
    const { searchIndexing, query } = rt.store.getState();
    rt.store.setState({ searchIndexing: progress });
    if (progress === null && searchIndexing !== null && query.trim()) void search(rt, query);
  });
}

/** IndexedDB could not open: the visit goes on in memory, and the user is told that nothing will be kept. */
async function goOnInMemory(rt: Runtime, problem: string): Promise<void> {
  const memory = await openMemoryStorage({ now: rt.deps.now, newId: rt.deps.newId });
  rt.inMemory = true;
  rt.repositories = memory.repositories;
  rt.repositoriesOpened(memory.repositories);
  rt.store.setState({ status: 'ready', storageProblem: `${problem} Nothing you write now will be kept after you close this tab.` });
}

/** Opens storage, loads settings and conversation metadata (never messages), and subscribes to other tabs. */
export async function hydrate(rt: Runtime): Promise<void> {
  let storage: WindowpaneStorage;
  try {
    storage = await rt.deps.openStorage(storageEvents(rt));
    rt.store.setState({ storageProblem: undefined });
  } catch (error) {
    await goOnInMemory(rt, rt.notifier.reportError(error, 'open its storage'));
    return;
  }
  rt.storage = storage;
  rt.repositories = storage.repositories;
  followSearchBuilds(rt, storage);
  rt.repositoriesOpened(storage.repositories);
  const repositories = storage.repositories;
  try {
    const [saved, conversations] = await Promise.all([
      repositories.settings.getSetting<Partial<Settings>>(SETTINGS_KEY),
      repositories.conversations.listConversations(),
    ]);
    // A conversation the user opened while storage was opening wins over the one this tab had open before.
    const chosen = rt.store.getState().activeId;
    const reopen = readOpenConversation(rt);
    const reopening = !chosen && reopen && conversations.some((c) => c.id === reopen) ? reopen : null;
    const read = readSettings(saved);
    rt.store.setState({ settings: read.settings, conversations, activeId: chosen ?? reopening });
    if (chosen) settleLeaf(rt, chosen);
    // A reload reopens the conversation this tab had open; the list shows while its messages are read.
    const reopened = reopening ? selectConversation(rt, reopening) : undefined;
    // The windows endpoints listed before are planned with again, and the counts use the calibration learned before,
    // so a reload shows the same numbers.
    await loadModelLists(rt);
    await loadCalibration(rt, contextFor(rt, chosen ?? reopening).model.id);
    rt.store.setState({ status: 'ready' });
    noticeIgnoredSettings(rt, 'settings', 'for all conversations', read.ignored);
    followOpenConversation(rt);
    await reopened;
  } catch (error) {
    rt.notifier.reportError(error, 'read your conversations');
    rt.store.setState({ status: 'ready' });
  }
  const interrupted = storage.interrupted.length;
  if (interrupted > 0) {
    rt.notifier.notify({
      tone: 'info',
      text: `${interrupted} answer${interrupted === 1 ? ' was' : 's were'} interrupted when the page closed; the partial text is kept.`,
    });
  }
  storage.sync.subscribe((change) => void applyRemoteChange(rt, change));
  void requestPersistentStorage();
}

/** Names the ignored overrides of the open conversation, now and whenever another is opened, and remembers which is open for a reload. */
function followOpenConversation(rt: Runtime): void {
  const { conversations, activeId } = rt.store.getState();
  noticeIgnoredOverrides(
    rt,
    conversations.find((c) => c.id === activeId),
  );
  rt.store.subscribe((state, previous) => {
    if (state.activeId === previous.activeId) return;
    rememberOpenConversation(rt, state.activeId);
    noticeIgnoredOverrides(
      rt,
      state.conversations.find((c) => c.id === state.activeId),
    );
  });
}

const OPEN_CONVERSATION_KEY = 'windowpane:open-conversation';

function readOpenConversation(rt: Runtime): string | null {
  try {
    return rt.deps.session?.getItem(OPEN_CONVERSATION_KEY) ?? null;
  } catch {
    return null;
  }
}

function rememberOpenConversation(rt: Runtime, id: string | null): void {
  try {
    if (id) rt.deps.session?.setItem(OPEN_CONVERSATION_KEY, id);
    else rt.deps.session?.removeItem(OPEN_CONVERSATION_KEY);
  } catch {
    // Only the convenience of reopening it after a reload is lost.
  }
}

/** Tells the user which stored settings were ignored (another version or a hand edit wrote them) and that defaults apply. */
function noticeIgnoredSettings(rt: Runtime, key: string, where: string, ignored: readonly string[]): void {
  if (ignored.length === 0) return;
  rt.notifier.notify({
    id: `ignored-${key}`,
    tone: 'info',
    text: `Some stored settings ${where} could not be used and were ignored: ${ignored.join(', ')}. The defaults apply instead.`,
  });
}

function noticeIgnoredOverrides(rt: Runtime, conversation: Conversation | undefined): void {
  if (conversation)
    noticeIgnoredSettings(rt, conversation.id, `of "${String(conversation.title).slice(0, 60)}"`, readOverrides(conversation.overrides).ignored);
}

/** How long changed conversations are gathered before they are read and shown together. */
const CONVERSATION_BURST_MS = 50;
const gathering = new WeakMap<Runtime, { ids: Set<string>; read: Promise<void> }>();

/**
 * Re-reads a conversation another tab or the sync Worker changed, together with the others
 * changed within CONVERSATION_BURST_MS: a burst (a first sync, an import) updates the list
 * once per read, not once per conversation. Resolves once it is shown.
 */
function readChangedConversation(rt: Runtime, id: string): Promise<void> {
  const pending = gathering.get(rt);
  if (pending) {
    pending.ids.add(id);
    return pending.read;
  }
  const ids = new Set([id]);
  const read = new Promise((resolve) => setTimeout(resolve, CONVERSATION_BURST_MS)).then(async () => {
    gathering.delete(rt);
    const wanted = [...ids];
    try {
      const found = await Promise.all(wanted.map((one) => rt.repositories.conversations.getConversation(one)));
      setConversations(rt.store, wanted, found);
    } catch (error) {
      rt.notifier.reportError(error, 'read a change made in another tab');
    }
  });
  gathering.set(rt, { ids, read });
  return read;
}

/**
 * Moves this tab down to the newest leaf under `from` (a message that was, or now continues,
 * the leaf shown), unless this tab is answering in the conversation. Messages may arrive
 * children first (sync applies what the server hands over in its order), so the leaf may be
 * several messages below the one that just arrived.
 */
function followArrivals(rt: Runtime, conversationId: string, from: string): void {
  const state = rt.store.getState();
  if (state.sendingId === conversationId) return;
  const leaf = newestLeafUnder(treeOf(state.messages[conversationId] ?? []), from);
  if (leaf && leaf !== shownLeaf(state, conversationId)) followLeaf(rt, conversationId, leaf);
}

/** Re-reads exactly what another tab changed. */
export async function applyRemoteChange(rt: Runtime, change: StorageChange): Promise<void> {
  const repositories = rt.repositories;
  try {
    if (change.type === 'settings-changed' && change.settingKey === SETTINGS_KEY) {
      rt.store.setState({ settings: withDefaults(await repositories.settings.getSetting<Partial<Settings>>(SETTINGS_KEY)) });
    } else if (change.type === 'settings-changed' && change.settingKey === MODEL_LISTS_KEY) {
      await loadModelLists(rt);
    } else if (change.type === 'conversation-changed') {
      if (!change.conversationId) {
        rt.store.setState({ conversations: await repositories.conversations.listConversations() });
        return;
      }
      await readChangedConversation(rt, change.conversationId);
    } else if (change.type === 'messages-changed' && change.conversationId) {
      const conversationId = change.conversationId;
      // Being read now: the read may have begun before this write, so the change is applied after it.
      await conversationRead(rt, conversationId);
      if (!(conversationId in rt.store.getState().messages)) return; // not open here: read when opened
      const sending = rt.store.getState().streaming;
      if (change.messageId) {
        // Our own stream is the newer copy of the message it is writing.
        if (sending?.messageId === change.messageId) return;
        const message = await repositories.conversations.getMessage(change.messageId);
        if (message) {
          const leaf = shownLeaf(rt.store.getState(), conversationId);
          upsertMessage(rt.store, message);
          // Another tab continuing the branch shown here: follow it, unless this tab is answering on it.
          if (message.kind !== 'summary' && message.parentId === leaf) followArrivals(rt, conversationId, message.id);
        }
      } else {
        const leaf = shownLeaf(rt.store.getState(), conversationId);
        const messages = await repositories.conversations.getMessages(conversationId);
        setMessages(rt.store, conversationId, () => messages);
        if (leaf) followArrivals(rt, conversationId, leaf);
      }
    }
  } catch (error) {
    rt.notifier.reportError(error, 'read a change made in another tab');
  }
}
