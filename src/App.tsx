import { lazy, Suspense, useCallback, useEffect, useMemo, useRef, useState } from 'react';
import { ErrorBoundary } from 'react-error-boundary';
import { useShallow } from 'zustand/react/shallow';
import { AppCrashed } from './components/AppCrashed';
import { ChatHeader } from './components/ChatHeader';
import { loadMessageParts } from './components/MessageView';
import { ChatPane } from './components/ChatPane';
import { ConversationDrawer } from './components/ConversationDrawer';
import { ConversationFailure } from './components/ConversationFailure';
import { DropFiles } from './components/DropFiles';
import { Notices } from './components/Notices';
import { LazySettings, loadSettings } from './components/LazySettings';
import { Sidebar } from './components/Sidebar';
import { activeModelIn, modelPickerIn } from './store';
import { useActions, useApp } from './components/AppRuntime';
import { loadMarkdown, loadUserText } from './components/LazyMarkdown';
import { useKeyboardInset, usePhoneLayout } from './components/phoneLayout';
import { applyTheme } from './components/theme';

// Shown only while an import runs: its code loads with the first one.
const ImportProgressBar = lazy(() => import('./components/ImportProgressBar'));
// A phone's edge swipe opens the drawer its button opens: it may arrive a moment after the page.
const EdgeSwipe = lazy(() => import('./components/EdgeSwipe').then((module) => ({ default: module.EdgeSwipe })));

/** Runs `load` once the frame being drawn has been painted; returns what cancels it. */
function afterPaint(load: () => void): () => void {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const frame = requestAnimationFrame(() => (timer = setTimeout(load)));
  return () => {
    cancelAnimationFrame(frame);
    if (timer !== undefined) clearTimeout(timer);
  };
}

/** Runs `load` once the page is idle (within 3 s), or at once where the browser cannot tell; returns what cancels it. */
function whenIdle(load: () => void): (() => void) | undefined {
  if (typeof requestIdleCallback !== 'function') {
    load();
    return undefined;
  }
  const id = requestIdleCallback(load, { timeout: 3_000 });
  return () => cancelIdleCallback(id);
}

/** The app inside its last-resort boundary: whatever fails to render, the page is never blank. */
export function SafeApp() {
  const actions = useActions();
  return (
    <ErrorBoundary fallbackRender={({ error }) => <AppCrashed error={error} onExportAll={() => void actions.exportConversations('json', 'all')} />}>
      <App />
    </ErrorBoundary>
  );
}

export function App() {
  const actions = useActions();
  const dropFiles = useCallback((files: File[]) => void actions.dropFiles(files), [actions]);
  const searchRef = useRef<HTMLInputElement>(null);
  const composerRef = useRef<HTMLTextAreaElement>(null);
  const conversationsButton = useRef<HTMLButtonElement>(null);
  const phone = usePhoneLayout();
  const [drawerOpen, setDrawerOpen] = useState(false);
  // Widened to the desktop layout, the list is beside the chat: no drawer stays open to reappear later.
  if (!phone && drawerOpen) setDrawerOpen(false);
  useKeyboardInset();
  // The open conversation and whether there is any, not the list: a conversation arriving from
  // another tab or device re-renders the sidebar's list, not the whole page.
  const { status, storageProblem, storageNeedsReload, notices, settingsOpen, activeId, settings, conversation, hasHistory, sendingId, modelLists, importing } =
    useApp(
      useShallow((s) => ({
        status: s.status,
        storageProblem: s.storageProblem,
        storageNeedsReload: s.storageNeedsReload,
        notices: s.notices,
        settingsOpen: s.settingsOpen,
        activeId: s.activeId,
        settings: s.settings,
        conversation: s.conversations.find((c) => c.id === s.activeId),
        hasHistory: s.conversations.length > 0,
        sendingId: s.sendingId,
        modelLists: s.modelLists,
        importing: s.importing,
      })),
    );

  useEffect(() => {
    void actions.hydrate();
  }, [actions]);

  // The stylesheet picks the palette from this attribute (base.css); "system" follows the system's.
  const { theme } = settings;
  useEffect(() => applyTheme(theme), [theme]);

  // With conversations to open, the search index starts loading as soon as the list is painted
  // (its Worker reads and parses it off this thread, which takes seconds at a year of history, so
  // the first search need not wait for it), and the Markdown renderer once the page is idle: the
  // first conversation opened shows formatted at once rather than as plain text for a moment.
  useEffect(() => {
    if (status !== 'ready' || !hasHistory) return;
    return afterPaint(actions.prepareSearch);
  }, [actions, status, hasHistory]);
  useEffect(() => {
    if (status !== 'ready' || !hasHistory) return;
    return whenIdle(() => {
      // A failure shows when a message renders.
      void loadMarkdown().catch(() => undefined);
      void loadUserText().catch(() => undefined);
    });
  }, [status, hasHistory]);

  // The Settings dialog, too, history or not (a first visit is asked to add a key there): it opens
  // without waiting for its chunk.
  useEffect(() => {
    if (status !== 'ready') return;
    return whenIdle(() => void loadSettings().catch(() => undefined)); // a failure shows when Settings opens
  }, [status]);

  // What sends a message, too: the first Send does not wait for its chunk, nor its answer's thinking.
  useEffect(() => {
    if (status !== 'ready') return;
    return whenIdle(() => {
      actions.prepareSend();
      void loadMessageParts().catch(() => undefined); // a failure shows when a message renders
    });
  }, [actions, status]);

  useEffect(() => {
    function onKey(event: KeyboardEvent) {
      const mod = event.ctrlKey || event.metaKey;
      if (mod && event.shiftKey && event.key.toLowerCase() === 'o') {
        event.preventDefault();
        actions.newChat();
        composerRef.current?.focus();
      } else if (mod && !event.shiftKey && event.key.toLowerCase() === 'k') {
        event.preventDefault();
        searchRef.current?.focus();
      } else if (event.key === 'Escape' && sendingId && !settingsOpen && !drawerOpen) {
        actions.stop(sendingId);
      }
    }
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, [actions, sendingId, settingsOpen, drawerOpen]);

  const { provider, label: modelLabel } = useApp(useShallow(activeModelIn));
  const picker = useMemo(
    () => modelPickerIn({ settings, conversations: conversation ? [conversation] : [], activeId, modelLists }),
    [settings, conversation, activeId, modelLists],
  );
  // A notice of a Settings section shows there while the dialog is open, and here once it is closed: never in both.
  const pageNotices = useMemo(() => (settingsOpen ? notices.filter((n) => !n.section) : notices), [notices, settingsOpen]);

  if (status === 'loading') {
    return (
      <div className="app app-loading" aria-busy="true">
        <p className="muted">Opening your conversations…</p>
        {storageProblem && (
          <p className="notice notice-error" role="alert">
            {storageProblem}
          </p>
        )}
      </div>
    );
  }

  return (
    <div className="app">
      {phone ? (
        <ConversationDrawer open={drawerOpen} onClose={() => setDrawerOpen(false)} returnFocus={conversationsButton}>
          <Sidebar ref={searchRef} onChosen={() => setDrawerOpen(false)} />
        </ConversationDrawer>
      ) : (
        <Sidebar ref={searchRef} />
      )}
      <main className="chat">
        <ChatHeader
          title={conversation?.title ?? 'New chat'}
          modelLabel={modelLabel}
          isDemo={provider === 'demo'}
          canExportActive={Boolean(conversation)}
          onSettings={actions.openSettings}
          onExport={(format, scope, options) => void actions.exportConversations(format, scope, options)}
          imageBytes={actions.exportImageBytes}
          models={picker.choices}
          modelId={picker.modelId}
          onModelChange={(id) => void actions.switchModel(id)}
          phone={phone ? { onOpenConversations: () => setDrawerOpen(true), conversationsOpen: drawerOpen, onNewChat: actions.newChat } : undefined}
          conversationsButtonRef={conversationsButton}
        />
        {storageProblem && (
          <p className="notice notice-error" role="alert">
            {storageProblem}
            {storageNeedsReload && (
              <>
                {' '}
                <button type="button" onClick={() => window.location.reload()}>
                  Reload
                </button>
              </>
            )}
          </p>
        )}
        {importing && (
          <Suspense fallback={null}>
            <ImportProgressBar importing={importing} onCancel={actions.cancelImport} />
          </Suspense>
        )}
        <Notices notices={pageNotices} onDismiss={actions.dismissNotice} />
        <ErrorBoundary
          resetKeys={[activeId]}
          fallbackRender={({ error }) => (
            <ConversationFailure error={error} onExport={() => void actions.exportConversations('json', 'active')} onNewChat={actions.newChat} />
          )}
        >
          <ChatPane ref={composerRef} />
        </ErrorBoundary>
        {phone && !drawerOpen && (
          <Suspense fallback={null}>
            <EdgeSwipe onSwipe={() => setDrawerOpen(true)} />
          </Suspense>
        )}
      </main>
      <DropFiles onDrop={dropFiles} />
      {settingsOpen && <LazySettings onClose={actions.closeSettings} />}
    </div>
  );
}
