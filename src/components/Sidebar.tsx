import { forwardRef, lazy, Suspense, useCallback, useMemo, useRef } from 'react';
import { useShallow } from 'zustand/react/shallow';
import { useActions, useApp } from './AppRuntime';
import { ConversationList, type ConversationItem } from './ConversationList';
import { SearchIndexingStatus } from './SearchIndexingStatus';

// Its words and buttons only while this device syncs: a chunk of its own, out of the first load.
const SyncStatus = lazy(() => import('./SyncStatus').then((m) => ({ default: m.SyncStatus })));

interface SidebarProps {
  /** A conversation was opened or a new chat started from the list (the phone's drawer then closes). */
  onChosen?: () => void;
}

/** The conversation list bound to the store: search hits when searching, else every conversation. */
export const Sidebar = forwardRef<HTMLInputElement, SidebarProps>(function Sidebar({ onChosen }, searchRef) {
  const actions = useActions();
  const syncing = useApp((s) => s.sync !== null);
  const { conversations, activeId, query, hits, indexing, olderLoading } = useApp(
    useShallow((s) => ({
      conversations: s.conversations,
      activeId: s.activeId,
      query: s.query,
      hits: s.searchHits,
      indexing: s.searchIndexing,
      olderLoading: s.searchOlderLoading,
    })),
  );
  const fileRef = useRef<HTMLInputElement>(null);
  const items: ConversationItem[] = useMemo(() => {
    if (!hits) return conversations.map((c) => ({ id: c.id, title: c.title, updatedAt: c.updatedAt }));
    const byId = new Map(conversations.map((c) => [c.id, c]));
    return hits.map((h) => {
      const title = byId.get(h.conversationId)?.title ?? h.title;
      const item: ConversationItem = { id: h.conversationId, title, updatedAt: byId.get(h.conversationId)?.updatedAt ?? 0 };
      if (h.matchedIn === 'message') {
        item.snippet = h.snippet;
        item.matchedAt = h.createdAt;
      }
      // Its snippet is read once the row is shown; the line is kept meanwhile so the row does not grow.
      if (h.matchedIn === 'pending') item.snippet = '…';
      // A title renamed since the search has no range of its own.
      const rangeFits = h.matchedIn === 'message' || title === h.snippet;
      if (rangeFits && h.matchStart !== undefined && h.matchLength !== undefined) item.match = { start: h.matchStart, length: h.matchLength };
      return item;
    });
  }, [conversations, hits]);
  const searching = hits !== null;
  const showHits = useCallback((ids: string[]) => void actions.showSearchHits(ids), [actions]);

  return (
    <ConversationList
      ref={searchRef}
      items={items}
      activeId={activeId ?? undefined}
      query={query}
      onQueryChange={(q) => void actions.search(q)}
      searchStatus={<SearchIndexingStatus indexing={indexing} searching={hits !== null} olderLoading={olderLoading} />}
      indexing={indexing !== null}
      olderLoading={olderLoading}
      onRowsShown={searching ? showHits : undefined}
      onNew={() => {
        actions.newChat();
        onChosen?.();
      }}
      // A hit in a message opens the branch that holds it.
      onSelect={(id) => {
        void actions.selectConversation(id, hits?.find((h) => h.conversationId === id)?.messageId);
        onChosen?.();
      }}
      onRename={(id, title) => void actions.renameConversation(id, title)}
      onDelete={(id) => void actions.deleteConversation(id)}
      footer={
        <>
          {syncing && (
            <Suspense fallback={null}>
              <SyncStatus />
            </Suspense>
          )}
          <button
            type="button"
            onClick={() => fileRef.current?.click()}
            title="Import a Windowpane, ChatGPT or Claude export (.json or .zip), or drop it on the window"
          >
            Import
          </button>
          <input
            ref={fileRef}
            type="file"
            accept=".json,.zip,application/json,application/zip"
            multiple
            className="visually-hidden"
            aria-label="Import file"
            tabIndex={-1}
            onChange={(e) => {
              const files = Array.from(e.target.files ?? []);
              e.target.value = '';
              if (files.length > 0) void actions.importFiles(files);
            }}
          />
        </>
      }
    />
  );
});
