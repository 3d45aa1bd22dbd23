/**
 * Startup, conversations, settings, search, export/import and cross-tab sync.
 * The send loop is in chatActions.ts.
 */
import type { Conversation, StoredMessage } from '../core';
import { exportToMarkdown } from '../core';
import { exportJsonText, importFromFile, requestPersistentStorage, type StorageChange } from '../persistence';
import { conversationOverrides, dismiss, notify, repo, reportError, setConversation, setMessages, SETTINGS_KEY, upsertMessage, type Runtime } from './appStore';
import { contextFor, loadCalibration, planFor } from './chatActions';
import { activeSummary } from './history';
import { readOverrides, readSettings, withDefaults, type ConversationOverrides, type Settings } from './settings';

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
    onUnreadable: (text: string) => void notify(rt, { id: `unreadable-${text}`, tone: 'warning', text }),
  };
}

/** Opens storage, loads settings and conversation metadata (never messages), and subscribes to other tabs. */
export async function hydrate(rt: Runtime): Promise<void> {
  let storage: NonNullable<Runtime['storage']>;
  try {
    storage = await rt.deps.openStorage(storageEvents(rt));
    rt.store.setState({ storageProblem: undefined });
    rt.storage = storage;
  } catch (error) {
    const message = reportError(rt, error, 'open its storage');
    rt.store.setState({ status: 'ready', storageProblem: `${message} Nothing you write now will be kept after you close this tab.` });
    return;
  }
  const repository = storage.repository;
  try {
    // A reload reopens the conversation this tab had open, with its messages read in the same pass.
    const reopen = readOpenConversation(rt);
    const [saved, conversations, reopened] = await Promise.all([
      repository.getSetting<Partial<Settings>>(SETTINGS_KEY),
      repository.listConversations(),
      reopen ? repository.getMessages(reopen).catch(() => undefined) : undefined,
    ]);
    const activeId = reopen && reopened && conversations.some((c) => c.id === reopen) ? reopen : null;
    const read = readSettings(saved);
    rt.store.setState((s) => ({
      settings: read.settings,
      conversations,
      activeId,
      messages: activeId && reopened ? { ...s.messages, [activeId]: reopened } : s.messages,
    }));
    // The counts on screen use the calibration learned before, so a reload shows the same numbers.
    await loadCalibration(rt, contextFor(rt, activeId).model.id);
    rt.store.setState({ status: 'ready' });
    noticeIgnoredSettings(rt, 'settings', 'for all conversations', read.ignored);
    noticeIgnoredOverrides(rt, conversations.find((c) => c.id === activeId));
    rt.store.subscribe((state, previous) => {
      if (state.activeId === previous.activeId) return;
      rememberOpenConversation(rt, state.activeId);
      noticeIgnoredOverrides(rt, state.conversations.find((c) => c.id === state.activeId));
    });
  } catch (error) {
    reportError(rt, error, 'read your conversations');
    rt.store.setState({ status: 'ready' });
  }
  const interrupted = storage.interrupted.length;
  if (interrupted > 0) {
    notify(rt, { tone: 'info', text: `${interrupted} answer${interrupted === 1 ? ' was' : 's were'} interrupted when the page closed; the partial text is kept.` });
  }
  storage.sync.subscribe((change) => void applyRemoteChange(rt, change));
  void requestPersistentStorage();
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
  notify(rt, {
    id: `ignored-${key}`,
    tone: 'info',
    text: `Some stored settings ${where} could not be used and were ignored: ${ignored.join(', ')}. The defaults apply instead.`,
  });
}

function noticeIgnoredOverrides(rt: Runtime, conversation: Conversation | undefined): void {
  if (conversation) noticeIgnoredSettings(rt, conversation.id, `of "${String(conversation.title).slice(0, 60)}"`, readOverrides(conversation.overrides).ignored);
}

/** Re-reads exactly what another tab changed. */
export async function applyRemoteChange(rt: Runtime, change: StorageChange): Promise<void> {
  const repository = repo(rt);
  if (!repository) return;
  try {
    if (change.type === 'settings-changed' && change.settingKey === SETTINGS_KEY) {
      rt.store.setState({ settings: withDefaults(await repository.getSetting<Partial<Settings>>(SETTINGS_KEY)) });
    } else if (change.type === 'conversation-changed') {
      if (!change.conversationId) {
        rt.store.setState({ conversations: await repository.listConversations() });
        return;
      }
      const conversation = await repository.getConversation(change.conversationId);
      if (conversation) setConversation(rt, conversation);
      else
        rt.store.setState((s) => ({
          conversations: s.conversations.filter((c) => c.id !== change.conversationId),
          activeId: s.activeId === change.conversationId ? null : s.activeId,
        }));
    } else if (change.type === 'messages-changed' && change.conversationId) {
      if (!(change.conversationId in rt.store.getState().messages)) return; // not open here: read when opened
      const sending = rt.store.getState().streaming;
      if (change.messageId) {
        // Our own stream is the newer copy of the message it is writing.
        if (sending?.messageId === change.messageId) return;
        const message = await repository.getMessage(change.messageId);
        if (message) upsertMessage(rt, message);
      } else {
        const messages = await repository.getMessages(change.conversationId);
        setMessages(rt, change.conversationId, () => messages);
      }
    }
  } catch (error) {
    reportError(rt, error, 'read a change made in another tab');
  }
}

/** Starts an empty conversation and opens it. Stored on the first message, not before. */
export function newChat(rt: Runtime): void {
  rt.store.setState({ activeId: null, query: '', searchHits: null });
}

/** Opens a conversation, reading its messages from storage the first time. */
export async function selectConversation(rt: Runtime, id: string): Promise<void> {
  rt.store.setState({ activeId: id });
  if (rt.store.getState().messages[id]) return;
  const repository = repo(rt);
  if (!repository) return;
  try {
    const messages = await repository.getMessages(id);
    setMessages(rt, id, () => messages);
  } catch (error) {
    reportError(rt, error, 'open that conversation');
  }
}

export async function renameConversation(rt: Runtime, id: string, title: string): Promise<void> {
  const repository = repo(rt);
  const current = rt.store.getState().conversations.find((c) => c.id === id);
  if (!current) return;
  setConversation(rt, { ...current, title });
  if (!repository) return;
  try {
    const saved = await repository.renameConversation(id, title);
    if (saved) setConversation(rt, saved);
  } catch (error) {
    reportError(rt, error, 'rename the conversation');
  }
}

/** Deletes at once and offers Undo, which puts back exactly what was removed. */
export async function deleteConversation(rt: Runtime, id: string): Promise<void> {
  const repository = repo(rt);
  const state = rt.store.getState();
  const conversation = state.conversations.find((c) => c.id === id);
  if (!conversation) return;
  rt.controllers.get(id)?.abort();
  try {
    const deleted = repository ? await repository.deleteConversation(id) : { conversation, messages: state.messages[id] ?? [], attachments: [] };
    if (deleted) rt.deleted.set(id, deleted);
  } catch (error) {
    reportError(rt, error, 'delete the conversation');
    return;
  }
  rt.store.setState((s) => {
    const messages = { ...s.messages };
    delete messages[id];
    return { conversations: s.conversations.filter((c) => c.id !== id), messages, activeId: s.activeId === id ? null : s.activeId };
  });
  notify(rt, { tone: 'info', text: `Deleted “${conversation.title}”.`, action: { label: 'Undo', run: () => void undoDelete(rt, id) } }, 15000);
}

export async function undoDelete(rt: Runtime, id: string): Promise<void> {
  const deleted = rt.deleted.get(id);
  if (!deleted) return;
  rt.deleted.delete(id);
  try {
    await repo(rt)?.restoreConversation(deleted);
    setConversation(rt, deleted.conversation);
    setMessages(rt, id, () => deleted.messages);
  } catch (error) {
    reportError(rt, error, 'restore the conversation');
  }
}

/** Filters the sidebar by title and message text; results of a query typed over since are dropped. */
export async function search(rt: Runtime, query: string): Promise<void> {
  rt.store.setState({ query });
  const repository = repo(rt);
  if (!query.trim()) {
    rt.store.setState({ searchHits: null });
    return;
  }
  if (!repository) {
    const q = query.toLowerCase();
    const hits = rt.store
      .getState()
      .conversations.filter((c) => c.title.toLowerCase().includes(q))
      .map((c) => ({ conversationId: c.id, title: c.title, matchedIn: 'title' as const, snippet: c.title }));
    rt.store.setState({ searchHits: hits });
    return;
  }
  try {
    const hits = await repository.searchConversations(query, { limit: 100 });
    if (rt.store.getState().query === query) rt.store.setState({ searchHits: hits });
  } catch (error) {
    reportError(rt, error, 'search');
  }
}

/** Saves settings globally, or as overrides of the open conversation. */
export async function saveSettings(rt: Runtime, next: Settings, scope: 'global' | 'conversation'): Promise<void> {
  const state = rt.store.getState();
  const repository = repo(rt);
  if (scope === 'conversation' && state.activeId) {
    const conversation = state.conversations.find((c) => c.id === state.activeId);
    if (!conversation) return;
    const overrides: ConversationOverrides = {
      provider: next.provider,
      model: next.models[next.provider],
      contextWindow: next.contextWindow,
      systemPrompt: next.systemPrompt,
      window: next.window,
    };
    // Keys and base URLs are per provider, and tools apply to every conversation: never per conversation.
    const settings = { ...state.settings, apiKeys: next.apiKeys, baseUrls: next.baseUrls, tools: next.tools };
    setConversation(rt, { ...conversation, overrides: overrides as Record<string, unknown> });
    rt.store.setState({ settings, settingsOpen: false });
    try {
      await repository?.setConversationOverrides(conversation.id, overrides as Record<string, unknown>);
      await repository?.setSetting(SETTINGS_KEY, settings);
    } catch (error) {
      reportError(rt, error, 'save the settings');
    }
    return;
  }
  rt.store.setState({ settings: next, settingsOpen: false });
  try {
    await repository?.setSetting(SETTINGS_KEY, next);
  } catch (error) {
    reportError(rt, error, 'save the settings');
  }
}

/** The overrides of the open conversation, for the settings dialog. */
export function activeOverrides(rt: Runtime): ConversationOverrides | undefined {
  const state = rt.store.getState();
  return conversationOverrides(state.conversations.find((c) => c.id === state.activeId));
}

function download(name: string, type: string, text: string): void {
  const url = URL.createObjectURL(new Blob([text], { type }));
  const a = document.createElement('a');
  a.href = url;
  a.download = name;
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}

function fileStem(title: string): string {
  return title.replace(/[^\p{L}\p{N}]+/gu, '-').replace(/^-|-$/g, '').slice(0, 60).toLowerCase() || 'conversation';
}

/** Downloads one conversation (or all) as Windowpane JSON or Markdown. API keys are never included. */
export async function exportConversations(rt: Runtime, format: 'json' | 'markdown', scope: 'active' | 'all'): Promise<void> {
  const state = rt.store.getState();
  const repository = repo(rt);
  const ids = scope === 'active' && state.activeId ? [state.activeId] : undefined;
  const title = scope === 'active' ? (state.conversations.find((c) => c.id === state.activeId)?.title ?? 'conversation') : 'windowpane-conversations';
  const date = new Date(rt.deps.now()).toISOString().slice(0, 10);
  if (!repository) {
    notify(rt, { tone: 'error', text: 'Export needs browser storage, which is unavailable in this tab.' });
    return;
  }
  try {
    if (format === 'json') download(`${fileStem(title)}-${date}.json`, 'application/json', await exportJsonText(repository, ids, rt.deps.now()));
    else {
      // Trim markers go where the transcript dims messages: those the next request leaves out or a summary covers.
      const records = await repository.readForExport(ids);
      const notSentIds = new Set<string>();
      for (const { conversation, messages } of records) {
        for (const evicted of planFor(contextFor(rt, conversation.id), messages).evicted) notSentIds.add(evicted.id);
        for (const id of activeSummary(messages)?.covers ?? []) notSentIds.add(id);
      }
      download(`${fileStem(title)}-${date}.md`, 'text/markdown', exportToMarkdown(records, { notSentIds }));
    }
  } catch (error) {
    reportError(rt, error, 'export');
  }
}

/** Imports a Windowpane, ChatGPT or Claude export file; a bad file changes nothing and says why. */
export async function importFile(rt: Runtime, file: File): Promise<void> {
  const repository = repo(rt);
  if (!repository) {
    notify(rt, { tone: 'error', text: 'Import needs browser storage, which is unavailable in this tab.' });
    return;
  }
  const outcome = await importFromFile(repository, file, { now: rt.deps.now() });
  if (!outcome.ok) {
    notify(rt, { tone: 'error', text: `Nothing was imported from ${file.name}: ${outcome.error.message}` });
    return;
  }
  const { imported, skipped, branches } = outcome.value;
  rt.store.setState({ conversations: await repository.listConversations() });
  const parts = [`Imported ${imported} conversation${imported === 1 ? '' : 's'}`];
  if (branches) parts.push(`${branches} of them extra branches`);
  if (skipped) parts.push(`${skipped} already here, skipped`);
  notify(rt, { tone: 'info', text: `${parts.join(', ')} from ${file.name}.` });
  const first = outcome.value.importedIds[0];
  if (first) await selectConversation(rt, first);
}

export { dismiss };
export type { StoredMessage };
