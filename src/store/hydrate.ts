/**
 * Startup and what other tabs change: open storage (or, when IndexedDB cannot open, an
 * in-memory stand-in), load settings and conversation metadata, reopen this tab's
 * conversation, re-read exactly what another tab wrote, and show the search index being built.
 */
import { newestLeafUnder, type Conversation } from '../core';
import { openMemoryStorage, requestPersistentStorage, type StorageChange, type UnreadableRecords, type WindowpaneStorage } from '../persistence';
import type { Runtime } from './runtime';
import { setConversations, setMessages, upsertMessages } from './state';
import { createChangeBatcher } from './changeBatches';
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
    followMcpServers(rt);
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
  const batches = createChangeBatcher((changes) => applyRemoteChanges(rt, changes));
  storage.sync.subscribe((change) => batches.add(change));
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

/** Offers the MCP servers' tools (store/mcp/mcpTools.ts, a chunk loaded once a server is configured), now and after each change. */
function followMcpServers(rt: Runtime): void {
  const offer = () =>
    rt.store.getState().settings.tools.mcpServers.length
      ? import('./mcp/mcpTools').then(
          (m) => m.refreshMcpTools(rt),
          () => undefined,
        )
      : rt.store.setState({ mcpTools: undefined });
  void offer();
  rt.store.subscribe((state, previous) => void (state.settings.tools.mcpServers !== previous.settings.tools.mcpServers && offer()));
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

/** Which messages of one conversation a batch changed: `whole` when a notice named none (re-read them all). */
interface MessageChanges {
  whole: boolean;
  ids: string[];
}

/**
 * Re-reads exactly what a batch of notices from other tabs (or the sync Worker) changed: each
 * kind in one read, the settings, the conversations and the messages of each conversation
 * open here. Everything read is then put in the store at once, so the page updates once per
 * batch, however many records it names.
 */
export async function applyRemoteChanges(rt: Runtime, changes: readonly StorageChange[]): Promise<void> {
  const settingKeys = new Set<string>();
  let relist = false;
  const conversationIds = new Set<string>();
  const messages = new Map<string, MessageChanges>();
  for (const change of changes) {
    if (change.type === 'settings-changed' && change.settingKey) settingKeys.add(change.settingKey);
    else if (change.type === 'conversation-changed') {
      if (change.conversationId) conversationIds.add(change.conversationId);
      else relist = true;
    } else if (change.type === 'messages-changed' && change.conversationId) {
      const entry = messages.get(change.conversationId) ?? { whole: false, ids: [] };
      if (change.messageId) entry.ids.push(change.messageId);
      else entry.whole = true;
      messages.set(change.conversationId, entry);
    }
  }
  const reads: Array<Promise<(() => void) | undefined>> = [];
  if (settingKeys.has(SETTINGS_KEY)) reads.push(reading(rt, readSettingsChange(rt)));
  if (settingKeys.has(MODEL_LISTS_KEY))
    reads.push(
      reading(
        rt,
        loadModelLists(rt).then(() => undefined),
      ),
    );
  if (relist || conversationIds.size > 0) reads.push(reading(rt, readConversationChanges(rt, relist ? undefined : [...conversationIds])));
  for (const [conversationId, changed] of messages) reads.push(reading(rt, readMessageChanges(rt, conversationId, changed)));
  // Applied together, with nothing awaited between: one update of the page for the batch.
  for (const show of await Promise.all(reads)) show?.();
}

/** What `read` returns to put in the store, or nothing when it failed (reported). */
async function reading(rt: Runtime, read: Promise<(() => void) | undefined>): Promise<(() => void) | undefined> {
  try {
    return await read;
  } catch (error) {
    rt.notifier.reportError(error, 'read a change made in another tab');
    return undefined;
  }
}

async function readSettingsChange(rt: Runtime): Promise<() => void> {
  const settings = withDefaults(await rt.repositories.settings.getSetting<Partial<Settings>>(SETTINGS_KEY));
  return () => rt.store.setState({ settings });
}

/** The conversations `ids` as they are now (gone ones leave the list), or every conversation again. */
async function readConversationChanges(rt: Runtime, ids: string[] | undefined): Promise<() => void> {
  const repository = rt.repositories.conversations;
  if (!ids) {
    const conversations = await repository.listConversations();
    return () => rt.store.setState({ conversations });
  }
  const found = await repository.getConversations(ids);
  return () => setConversations(rt.store, ids, found);
}

/**
 * The changed messages of a conversation open here (one not open is read when it is opened):
 * applied after a read of it that may have begun before these writes. Another tab continuing
 * the branch shown here is followed, unless this tab is answering on it.
 */
async function readMessageChanges(rt: Runtime, conversationId: string, changed: MessageChanges): Promise<(() => void) | undefined> {
  await conversationRead(rt, conversationId);
  if (!(conversationId in rt.store.getState().messages)) return undefined;
  const repository = rt.repositories.conversations;
  if (changed.whole) {
    const all = await repository.getMessages(conversationId);
    return () => {
      const leaf = shownLeaf(rt.store.getState(), conversationId);
      setMessages(rt.store, conversationId, () => all);
      if (leaf) followArrivals(rt, conversationId, leaf);
    };
  }
  const found = await repository.getMessagesById(changed.ids);
  return () => {
    // Our own stream is the newer copy of the message it is writing.
    const writing = rt.store.getState().streaming?.messageId;
    const arrived = found.filter((m) => m.id !== writing && m.conversationId === conversationId);
    if (arrived.length === 0) return;
    let leaf = shownLeaf(rt.store.getState(), conversationId);
    upsertMessages(rt.store, conversationId, arrived);
    // In the order announced, parents first: each arrival continuing the branch shown moves this tab down to it.
    for (const message of arrived) {
      if (message.kind === 'summary' || message.parentId !== leaf) continue;
      followArrivals(rt, conversationId, message.id);
      leaf = shownLeaf(rt.store.getState(), conversationId);
    }
  };
}
