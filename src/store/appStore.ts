/**
 * The app's one Zustand store, composed of slices: conversations (metadata + the open
 * conversation's messages), settings, and ui (notices, dialogs, streaming text).
 * Actions live on the state so they are callable outside React (`appStore.getState()`).
 * Storage is the source of truth: every change is written first, then reflected here;
 * when a write fails the in-memory state is kept and the user is told.
 */
import { createStore, type StoreApi } from 'zustand/vanilla';
import type { CalibrationState, Conversation, StoredMessage, Usage } from '../core';
import { emptyCalibration, isWindowpaneError } from '../core';
import type { BrowserStorage, DeletedConversation, Repository, WindowpaneStorage } from '../persistence';
import type { ChatProvider, ModelListing, ProviderSettings, RetryInfo } from '../providers';
import type { ListTarget, ModelListState } from './modelLists';
import type { StorageViewState } from './storageView';
import { readOverrides, withDefaults, type ConversationOverrides, type Settings } from './settings';
import type { JavascriptRunner } from '../sandbox/javascriptRunner';
import type { PreparedImage } from '../media/fitImage';
import type { AttachmentInfo } from './attachmentInfo';
import type { DraftImage } from './imageActions';
import type { ImportState } from './importState';
import { initialSearchState, type SearchState } from './searchState';
import type { DraftPdf } from './pdfActions';
import type { ReadPdf } from '../media/pdfResult';

export type { AttachmentInfo };

export interface AppDeps {
  /** Opens IndexedDB; `events` hears of a blocked upgrade and of the connection closing later. */
  openStorage: (events?: StorageEvents) => Promise<WindowpaneStorage>;
  createProvider: (settings: ProviderSettings) => Promise<ChatProvider>;
  /** Lists the models a key can use (see listModels); absent where listing is not offered. */
  listModels?: (target: ListTarget) => Promise<ModelListing>;
  /** Epoch ms. */
  now: () => number;
  newId: () => string;
  /** Runs a run_javascript snippet: a sandboxed Web Worker in the browser, a fake in jsdom tests. */
  runJavascript: JavascriptRunner;
  /** Whether the browser thinks it is online (navigator.onLine); absent in tests, which are online. */
  isOnline?: () => boolean;
  /** This tab's sessionStorage, which remembers the open conversation so a reload reopens it; absent in tests. */
  session?: Pick<Storage, 'getItem' | 'setItem' | 'removeItem'>;
  /** What the Storage section asks about usage, quota and persistence; absent: the page's `navigator.storage`. */
  browserStorage?: BrowserStorage;
  /** Checks an image file and scales it down to what the providers use (in a worker in the browser); absent: images are refused. */
  prepareImage?: (file: File) => Promise<PreparedImage>;
  /** Reads a PDF's pages and their text (PDF.js in its Worker in the browser); absent: PDFs are refused. */
  readPdf?: ReadPdf;
}

export interface StreamingState {
  conversationId: string;
  messageId: string;
  text: string;
}

/** A tool loop in progress: which round of how many, and the call running now (null between calls). */
export interface ToolRunState {
  conversationId: string;
  /** 1-based round of tool calls in this turn. */
  round: number;
  /** The per-turn limit in force (settings.tools.maxRounds). */
  maxRounds: number;
  running: { id: string; name: string } | null;
}

/** What the open connection to IndexedDB reports over its life (see openWindowpaneDb). */
export interface StorageEvents {
  onBlocked?: (error: Error) => void;
  onVersionChange?: () => void;
  onTerminated?: () => void;
  /** Stored records another version wrote that cannot be used as they are. */
  onUnreadable?: (notice: string) => void;
}

/** A transient message for the user: compaction, overflow recovery, retries, errors, Undo. */
export interface Notice {
  id: string;
  tone: 'info' | 'warning' | 'error';
  text: string;
  /** An optional action, e.g. Undo after a delete. */
  action?: { label: string; run: () => void };
  /** A part of the Settings dialog that shows it instead of the page while the dialog is open (it covers the page): what that part's buttons did. */
  section?: NoticeSection;
}

export type NoticeSection = 'storage';

export interface AppState extends SearchState {
  status: 'loading' | 'ready' | 'failed';
  /** Why storage could not be opened or is no longer usable (the app still works in memory for this visit). */
  storageProblem?: string;
  /** The storage connection was closed under this tab (a newer version, the browser): only a reload brings it back. */
  storageNeedsReload?: boolean;
  settings: Settings;
  conversations: Conversation[];
  activeId: string | null;
  /** Messages of conversations that have been opened (every branch), by conversation id. */
  messages: Record<string, StoredMessage[]>;
  /** The newest messages of a long conversation being opened, shown (read-only) until all of it is read. */
  opening: { conversationId: string; newest: StoredMessage[]; leafId?: string } | null;
  /** The last message of the branch this tab shows, by conversation id (see branches.ts). */
  branchLeaf: Record<string, string>;
  streaming: StreamingState | null;
  /** The conversation whose request is in flight, if any. */
  sendingId: string | null;
  retry: RetryInfo | null;
  toolRun: ToolRunState | null;
  /** Usage the provider reported for the last request, by conversation id. */
  lastUsage: Record<string, Usage>;
  notices: Notice[];
  settingsOpen: boolean;
  /** What is typed in the composer, so the gauge can count it before it is sent. */
  draft: string;
  /** Files attached to conversations that have been opened, by conversation id (their text stays in storage). */
  attachments: Record<string, AttachmentInfo[]>;
  /** Images in the composer, sent with the next message. */
  draftImages: DraftImage[];
  /** PDFs in the composer, sent with the next message. */
  draftPdfs: DraftPdf[];
  /** Per-model correction of the token estimate, learned from reported usage (saved per model). */
  calibration: CalibrationState;
  /** Endpoints (provider, base URL, model) that refused tools in this visit: later requests go without them. */
  toolsRefused: readonly string[];
  /** Endpoints (provider, base URL, model) that refused images in this visit: later requests carry a note for each instead. */
  imagesRefused: readonly string[];
  /** The models each endpoint listed, by provider and base URL (see modelLists.ts). */
  modelLists: Record<string, ModelListState>;
  /** What the Storage section shows, measured when it opens (see storageView.ts); null until then. */
  storageView: StorageViewState | null;
  /** The import running (files are imported one after another); null when none. */
  importing: ImportState | null;
}

export const initialState = (): AppState => ({
  status: 'loading',
  settings: withDefaults(undefined),
  conversations: [],
  activeId: null,
  messages: {},
  opening: null,
  branchLeaf: {},
  streaming: null,
  sendingId: null,
  retry: null,
  toolRun: null,
  lastUsage: {},
  notices: [],
  ...initialSearchState(),
  settingsOpen: false,
  draft: '',
  attachments: {},
  draftImages: [],
  draftPdfs: [],
  calibration: emptyCalibration(),
  toolsRefused: [],
  imagesRefused: [],
  modelLists: {},
  storageView: null,
  importing: null,
});

export type AppStore = StoreApi<AppState>;

/** Settings key in storage. Must not change without a migration. */
export const SETTINGS_KEY = 'settings';

/** Holds the storage handle and other non-serializable parts behind the store. */
export interface Runtime {
  store: AppStore;
  deps: AppDeps;
  /**
   * Where everything is kept: IndexedDB once hydrate opens it, or an in-memory database of
   * the same shape when IndexedDB cannot open. Calls made before hydrate ends wait for it.
   */
  repository: Repository;
  /** The open IndexedDB connection and its cross-tab channel; null before hydrate and when storage is in memory. */
  storage: WindowpaneStorage | null;
  /** True when IndexedDB could not open and the in-memory database stands in: nothing outlives the tab. */
  inMemory: boolean;
  /** Hands the repository to the calls waiting for hydrate. */
  repositoryOpened: (repository: Repository) => void;
  /** In-flight request per conversation (Stop aborts it). */
  controllers: Map<string, AbortController>;
  /** Deleted conversations kept for Undo. */
  deleted: Map<string, DeletedConversation>;
  /** Conversations storage could not create (e.g. full): kept in memory for this visit, their messages not written. */
  memoryOnly: Set<string>;
  /** Models whose saved calibration has been read into the state in this visit. */
  calibrationLoaded: Set<string>;
  /** Ends the attachments watch (see watchAttachments), if one runs. */
  stopWatchingAttachments: (() => void) | null;
  /** Images of conversations storage could not take, kept for this visit, by file id. */
  memoryFiles: Map<string, Blob>;
  /** The images being added to the composer, so a later paste waits for an earlier one. */
  imageWork: Promise<void>;
}

export function createRuntime(deps: AppDeps): Runtime {
  let opened: (repository: Repository) => void = () => undefined;
  const repository = repositoryOnceOpen(new Promise<Repository>((resolve) => (opened = resolve)));
  return {
    store: createStore<AppState>()(initialState),
    deps,
    repository,
    storage: null,
    inMemory: false,
    repositoryOpened: opened,
    controllers: new Map(),
    deleted: new Map(),
    memoryOnly: new Set(),
    calibrationLoaded: new Set(),
    stopWatchingAttachments: null,
    memoryFiles: new Map(),
    imageWork: Promise.resolve(),
  };
}

/** Puts a runtime back to a first visit, before hydrate: nothing in flight, storage closed, the initial state. */
export function resetRuntime(rt: Runtime): void {
  for (const controller of rt.controllers.values()) controller.abort();
  rt.stopWatchingAttachments?.();
  rt.storage?.close();
  Object.assign(rt, { ...createRuntime(rt.deps), store: rt.store });
  rt.store.setState(initialState(), true);
}

/** A repository whose calls wait until `opened` gives the real one; no thenable, since nothing awaits the repository itself. */
function repositoryOnceOpen(opened: Promise<Repository>): Repository {
  return new Proxy({} as Repository, {
    get: (_target, name) =>
      name === 'then'
        ? undefined
        : async (...args: unknown[]) => {
            const repository = await opened;
            return (repository[name as keyof Repository] as (...a: unknown[]) => unknown).apply(repository, args);
          },
  });
}

export function repo(rt: Runtime): Repository {
  return rt.repository;
}

/** Adds a notice; errors and warnings stay until dismissed, info notices fade after a while. */
export function notify(rt: Runtime, notice: Omit<Notice, 'id'> & { id?: string }, ttlMs = notice.tone === 'info' ? 8000 : 0): string {
  const id = notice.id ?? rt.deps.newId();
  const shown: Notice = { ...notice, id };
  rt.store.setState((s) => ({ notices: [...s.notices.filter((n) => n.id !== id), shown] }));
  // Fades only this notice: a newer one under the same id (the next retry, say) keeps its own time.
  if (ttlMs > 0) setTimeout(() => rt.store.setState((s) => ({ notices: s.notices.filter((n) => n !== shown) })), ttlMs);
  return id;
}

export function dismiss(rt: Runtime, id: string): void {
  rt.store.setState((s) => ({ notices: s.notices.filter((n) => n.id !== id) }));
}

/** Turns any failure into a notice the user can act on (in `section` while Settings is open); returns its message. */
export function reportError(rt: Runtime, error: unknown, doing: string, section?: NoticeSection): string {
  const message = isWindowpaneError(error) ? error.message : `Windowpane couldn't ${doing}: ${error instanceof Error ? error.message : String(error)}`;
  // The same failure met by several writes in a row (e.g. storage full) is shown once.
  const shown = rt.store.getState().notices.find((n) => n.tone === 'error' && n.text === message);
  // A conversation too long for the model fails each send with new counts: one notice says it, the newest.
  notify(rt, { id: isWindowpaneError(error, 'context_length') ? 'context-length' : shown?.id, tone: 'error', text: message, section });
  return message;
}

export function setConversation(rt: Runtime, conversation: Conversation): void {
  rt.store.setState((s) => {
    const others = s.conversations.filter((c) => c.id !== conversation.id);
    return { conversations: [conversation, ...others].sort((a, b) => b.updatedAt - a.updatedAt) };
  });
}

export function setMessages(rt: Runtime, conversationId: string, update: (messages: StoredMessage[]) => StoredMessage[]): void {
  rt.store.setState((s) => ({ messages: { ...s.messages, [conversationId]: update(s.messages[conversationId] ?? []) } }));
}

/** Replaces or inserts one message, keeping seq order. */
export function upsertMessage(rt: Runtime, message: StoredMessage): void {
  setMessages(rt, message.conversationId, (list) => {
    const index = list.findIndex((m) => m.id === message.id);
    if (index >= 0) {
      const copy = list.slice();
      copy[index] = message;
      return copy;
    }
    const copy = [...list, message];
    if (list.length > 0 && (list.at(-1)?.seq ?? -1) > message.seq) copy.sort((a, b) => a.seq - b.seq);
    return copy;
  });
}

/** The conversation's overrides that are valid; the rest is ignored (and the user told, see noticeIgnoredSettings). */
export function conversationOverrides(conversation: Conversation | undefined): ConversationOverrides | undefined {
  return readOverrides(conversation?.overrides).overrides;
}
