/** The conversation list and settings: open, rename, delete with Undo, search, save settings. */
import type { Runtime } from './runtime';
import { setConversation, setMessages, type NoticeSection } from './state';
import { SETTINGS_KEY } from './storedSettings';
import { leafToOpen, settleLeaf, showBranchHolding } from './branches';
import type { ConversationOverrides, Settings } from './settings';

/** Starts an empty conversation and opens it. Stored on the first message, not before. */
export function newChat(rt: Runtime): void {
  rt.store.setState({ activeId: null, query: '', searchHits: null, searchOlderLoading: false });
  releaseClosed(rt);
}

/**
 * Lets go of the messages of conversations no longer open, so a day of opening one
 * conversation after another holds one in memory, not all: only the open one, the one
 * being answered, and those kept only in memory (storage could not take them) stay.
 * Another tab's writes to a released conversation are read when it is opened again.
 */
function releaseClosed(rt: Runtime): void {
  const { messages, activeId, sendingId } = rt.store.getState();
  const released = Object.keys(messages).filter((id) => id !== activeId && id !== sendingId && !rt.memoryOnly.has(id));
  if (released.length === 0) return;
  const kept = { ...messages };
  for (const id of released) delete kept[id];
  rt.store.setState({ messages: kept });
}

/** Conversations longer than this show their newest messages while the rest is read. */
const SHOW_NEWEST_FIRST_FROM = 200;
/** How many newest messages are shown first: more than any screen holds. */
const NEWEST_SHOWN_FIRST = 40;

/** The reads of conversations being opened, so a message sent meanwhile follows what is stored. */
const reading = new WeakMap<Runtime, Map<string, Promise<unknown>>>();

/** While the conversation `id` is being read: a promise of the read's end (never rejected); else undefined. */
export function conversationRead(rt: Runtime, id: string | null): Promise<void> | undefined {
  const read = id ? reading.get(rt)?.get(id) : undefined;
  return read?.then(
    () => undefined,
    () => undefined,
  );
}

/**
 * Opens a conversation, reading its messages from storage the first time. A long one shows
 * its newest messages as soon as they are read (the plan, the gauge and the older messages
 * follow when all of it is). `messageId` (a search hit) opens the branch that holds it.
 */
export async function selectConversation(rt: Runtime, id: string, messageId?: string): Promise<void> {
  rt.store.setState((s) => ({ activeId: id, opening: s.opening?.conversationId === id ? s.opening : null }));
  if (!rt.store.getState().messages[id]) {
    const reads = reading.get(rt) ?? new Map<string, Promise<unknown>>();
    reading.set(rt, reads);
    const count = rt.store.getState().conversations.find((c) => c.id === id)?.messageCount ?? 0;
    const all = (async () => {
      if (count > SHOW_NEWEST_FIRST_FROM && !messageId) {
        const newest = await rt.repositories.conversations.getNewestMessages(id, NEWEST_SHOWN_FIRST).catch(() => undefined);
        const s = rt.store.getState();
        if (newest && s.activeId === id && !s.messages[id]) rt.store.setState({ opening: { conversationId: id, newest, leafId: leafToOpen(rt, id) } });
      }
      return rt.repositories.conversations.getMessages(id);
    })();
    reads.set(id, all);
    try {
      const messages = await all;
      rt.store.setState((s) => ({
        messages: { ...s.messages, [id]: messages },
        opening: s.opening?.conversationId === id ? null : s.opening,
      }));
    } catch (error) {
      rt.store.setState((s) => (s.opening?.conversationId === id ? { opening: null } : {}));
      rt.notifier.reportError(error, 'open that conversation');
      return;
    } finally {
      if (reads.get(id) === all) reads.delete(id);
    }
  }
  settleLeaf(rt, id);
  releaseClosed(rt);
  if (messageId) await showBranchHolding(rt, id, messageId);
}

export async function renameConversation(rt: Runtime, id: string, title: string): Promise<void> {
  const current = rt.store.getState().conversations.find((c) => c.id === id);
  if (!current) return;
  setConversation(rt.store, { ...current, title });
  try {
    const saved = await rt.repositories.conversations.renameConversation(id, title);
    if (saved) setConversation(rt.store, saved);
  } catch (error) {
    rt.notifier.reportError(error, 'rename the conversation');
  }
}

/** Deletes at once and offers Undo, which puts back exactly what was removed; `section` shows the notice there while Settings is open. */
export async function deleteConversation(rt: Runtime, id: string, section?: NoticeSection): Promise<void> {
  const conversation = rt.store.getState().conversations.find((c) => c.id === id);
  if (!conversation) return;
  rt.controllers.get(id)?.abort();
  try {
    const deleted = await rt.repositories.conversations.deleteConversation(id);
    if (deleted) rt.deleted.set(id, deleted);
  } catch (error) {
    rt.notifier.reportError(error, 'delete the conversation', section);
    return;
  }
  rt.store.setState((s) => {
    const messages = { ...s.messages };
    delete messages[id];
    return { conversations: s.conversations.filter((c) => c.id !== id), messages, activeId: s.activeId === id ? null : s.activeId };
  });
  rt.notifier.notify(
    { tone: 'info', text: `Deleted “${conversation.title}”.`, action: { label: 'Undo', run: () => void undoDelete(rt, id, section) }, section },
    15000,
  );
}

export async function undoDelete(rt: Runtime, id: string, section?: NoticeSection): Promise<void> {
  const deleted = rt.deleted.get(id);
  if (!deleted) return;
  rt.deleted.delete(id);
  try {
    await rt.repositories.conversations.restoreConversation(deleted);
    setConversation(rt.store, deleted.conversation);
    setMessages(rt.store, id, () => deleted.messages);
  } catch (error) {
    rt.notifier.reportError(error, 'restore the conversation', section);
  }
}

/** How many searches each runtime has asked: only the latest one's hits are shown. */
const searchesAsked = new WeakMap<Runtime, number>();

/**
 * Filters the sidebar by title and message text; results of a query typed over since are
 * dropped, and so are those of an earlier asking of the same query (see followSearchBuilds).
 * While the search index is still loading after a start, the hits shown are those of the
 * conversations loaded (the most recently updated first), asked again as more load.
 */
export async function search(rt: Runtime, query: string): Promise<void> {
  const asked = (searchesAsked.get(rt) ?? 0) + 1;
  searchesAsked.set(rt, asked);
  rt.store.setState({ query });
  if (!query.trim()) {
    rt.store.setState({ searchHits: null, searchOlderLoading: false });
    return;
  }
  const current = () => rt.store.getState().query === query && searchesAsked.get(rt) === asked;
  try {
    let answer = await rt.repositories.search.searchConversations(query, { limit: 100 });
    for (;;) {
      if (!current()) return;
      detailsAsked.delete(rt); // new hits: their pending rows are asked afresh
      rt.store.setState({ searchHits: answer.hits, searchOlderLoading: answer.loading !== undefined });
      if (!answer.loading) return;
      answer = await rt.repositories.search.searchConversations(query, { limit: 100, after: answer.loading.loaded });
    }
  } catch (error) {
    if (current()) rt.store.setState({ searchOlderLoading: false });
    rt.notifier.reportError(error, 'search');
  }
}

/** The conversations whose pending hits have been asked for, per runtime, since its hits were last set: each is asked once. */
const detailsAsked = new WeakMap<Runtime, { query: string; ids: Set<string> }>();

/**
 * Fills in the pending hits (best match and snippet) of the conversations `conversationIds`,
 * the rows the list shows: a query reads the first rows' messages only, and the rest as they
 * are scrolled to. A conversation that no longer matches leaves the list.
 */
export async function showSearchHits(rt: Runtime, conversationIds: readonly string[]): Promise<void> {
  const { query, searchHits } = rt.store.getState();
  if (!searchHits || !query.trim()) return;
  let asked = detailsAsked.get(rt);
  if (asked?.query !== query) detailsAsked.set(rt, (asked = { query, ids: new Set() }));
  const pending = new Set(searchHits.filter((h) => h.matchedIn === 'pending').map((h) => h.conversationId));
  const wanted = conversationIds.filter((id) => pending.has(id) && !asked.ids.has(id));
  if (wanted.length === 0) return;
  for (const id of wanted) asked.ids.add(id);
  try {
    const found = new Map((await rt.repositories.search.searchHitDetails(query, wanted)).map((h) => [h.conversationId, h]));
    const now = rt.store.getState();
    if (now.query !== query || !now.searchHits) return;
    const answered = new Set(wanted);
    rt.store.setState({
      searchHits: now.searchHits.flatMap((h) => {
        if (h.matchedIn !== 'pending' || !answered.has(h.conversationId)) return [h];
        const full = found.get(h.conversationId);
        return full ? [full] : [];
      }),
    });
  } catch (error) {
    for (const id of wanted) asked.ids.delete(id);
    rt.notifier.reportError(error, 'search');
  }
}

/**
 * Loads the search index ahead of the first query (its code and, in its Worker, the saved
 * index), so that query need not wait for either. Before storage opens it does nothing: the
 * first search loads it then.
 */
export function prepareSearch(rt: Runtime): void {
  rt.storage?.prepareSearch();
}

const usesMcp = (settings: Settings) => settings.tools.mcpServers.length > 0 || Object.keys(settings.mcpSecrets).length > 0;

/** Saves settings globally, or as overrides of the open conversation. */
export async function saveSettings(rt: Runtime, edited: Settings, scope: 'global' | 'conversation'): Promise<void> {
  // A send refused for the settings saved before is answered by these: the chat says again if they still cannot be used.
  rt.notifier.dismiss('cannot-plan');
  // An OAuth server's sign-in is stored when it changes, not with the draft: an older draft never puts back spent tokens.
  // (Worked out in a chunk of its own, loaded only where a server or a secret is.)
  const mcp = usesMcp(rt.store.getState().settings) || usesMcp(edited) ? await import('./mcp/mcpSecretsOnSave') : undefined;
  const state = rt.store.getState();
  const next: Settings = { ...edited, mcpSecrets: mcp ? mcp.mcpSecretsOnSave(state.settings, edited) : {} };
  const repositories = rt.repositories;
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
    // Keys and base URLs are per provider, windows given by model are per model, and tools and the theme apply to every
    // conversation: never per conversation.
    const settings = {
      ...state.settings,
      apiKeys: next.apiKeys,
      baseUrls: next.baseUrls,
      tools: next.tools,
      // The MCP servers' secrets go with the servers, which apply to every conversation.
      mcpSecrets: next.mcpSecrets,
      modelWindows: next.modelWindows,
      theme: next.theme,
    };
    setConversation(rt.store, { ...conversation, overrides: overrides as Record<string, unknown> });
    rt.store.setState({ settings, settingsOpen: false });
    try {
      await repositories.conversations.setConversationOverrides(conversation.id, overrides as Record<string, unknown>);
      await repositories.settings.setSetting(SETTINGS_KEY, settings);
    } catch (error) {
      rt.notifier.reportError(error, 'save the settings');
    }
    return;
  }
  rt.store.setState({ settings: next, settingsOpen: false });
  try {
    await repositories.settings.setSetting(SETTINGS_KEY, next);
  } catch (error) {
    rt.notifier.reportError(error, 'save the settings');
  }
}
