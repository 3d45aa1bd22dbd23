/**
 * What the store holds: one Zustand state made of slices — conversations (metadata and the
 * opened conversations' messages), settings, the composer's draft, and the UI (notices,
 * dialogs, streaming text, search, import, storage view) — and the few updates several
 * actions share. Storage is the source of truth: every change is written first, then
 * reflected here; when a write fails the in-memory state is kept and the user is told.
 * Types only and pure updates: this module imports no action, so every action can import it.
 */
import type { StoreApi } from 'zustand/vanilla';
import type { CalibrationState, Conversation, ListedModel, McpToolOffer, StoredMessage, Usage } from '../core';
import { emptyCalibration } from '../core';
import type { McpApproval } from './mcp/types';
import type { BrowserStorageFacts, ImportProgress, PersistenceOutcome, SearchHit, SearchIndexProgress, StorageReport } from '../persistence';
import type { ProviderSettings, RetryInfo } from '../providers';
import type { SyncStatus } from '../sync/types';
import type { Settings } from './settings';
import { withDefaults } from './storedSettings';

export interface StreamingState {
  conversationId: string;
  messageId: string;
  text: string;
  /** Thinking (or a reasoning summary) streamed so far, before or between the answer's text. */
  thinking: string;
  /** When the first thinking arrived (the runtime's clock, epoch ms); absent until then. */
  thinkingStartedAt?: number;
  /** How long it thought, fixed when the answer's text (or a tool call) began; absent while thinking. */
  thinkingMs?: number;
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

export type NoticeSection = 'storage' | 'sync';

/** What the chips show of an attachment; its text stays in storage. */
export interface AttachmentInfo {
  id: string;
  conversationId: string;
  name: string;
  /** UTF-8 bytes of the stored text. */
  size: number;
  createdAt: number;
}

/** An image waiting in the composer for Send. */
export interface DraftImage {
  /** The id its file will be stored under. */
  id: string;
  name: string;
  mediaType: string;
  blob: Blob;
  width: number;
  height: number;
  bytes: number;
  original?: { width: number; height: number; bytes: number };
}

/** A PDF waiting in the composer for Send. */
export interface DraftPdf {
  /** The id its file will be stored under. */
  id: string;
  name: string;
  blob: Blob;
  bytes: number;
  pages: number;
  /** Each page's extracted text, in page order. */
  pageTexts: string[];
  /** Estimated tokens of each page's text. */
  pageTokens: number[];
}

/** One endpoint's list of models as the app holds it (see modelLists.ts). */
export interface ModelListState {
  status: 'loading' | 'ready' | 'failed';
  /** The models of the last successful listing (kept while a refresh runs or after it fails). */
  models: ListedModel[];
  /** Epoch ms of the last successful listing. */
  fetchedAt?: number;
  /** The endpoint listed more than is kept. */
  truncated?: boolean;
  /** Why the last listing failed, for the user. */
  error?: string;
}

/** Where a listing goes: the provider, its key and base URL (as typed in Settings, maybe not saved yet). */
export type ListTarget = Omit<ProviderSettings, 'model'>;

/** What the Storage section measured (see storageView.ts). */
export interface StorageViewState {
  /** `measuring` keeps the previous report on screen until the new one is in. */
  status: 'measuring' | 'ready' | 'failed';
  /** The last measurement, kept in step with what the section's buttons delete and put back. */
  report: StorageReport | null;
  browser: BrowserStorageFacts | null;
  /** Why measuring failed. */
  problem?: string;
  /** "Keep my data": being asked, or the browser's last answer. */
  persistRequest?: 'asking' | PersistenceOutcome;
}

/** An import in progress, for its progress bar. */
export interface ImportState {
  fileName: string;
  /** Which of the files chosen or dropped this is, from 1, of `fileCount`. */
  fileIndex: number;
  fileCount: number;
  /** Null until the import reports where it is. */
  progress: ImportProgress | null;
  /** Cancel was pressed: the batch being written is finishing. */
  cancelling: boolean;
}

/** A full build of the search index in progress: `done` of `total` messages indexed. */
export type SearchIndexing = SearchIndexProgress;

export interface AppState {
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
  /** The MCP servers' tools switched on, as requests define them (store/mcp/mcpTools.ts fills it, in a chunk loaded only when a server is configured). */
  mcpTools?: McpToolOffer;
  /** The MCP tool call waiting for the user's Allow or Refuse. */
  mcpApproval?: McpApproval | null;
  /** Usage the provider reported for the last request, by conversation id. */
  lastUsage: Record<string, Usage>;
  notices: Notice[];
  /** The sidebar's search: what is typed. */
  query: string;
  /** What the search found; null when nothing is typed. */
  searchHits: SearchHit[] | null;
  /** The search index is still loading after a start: `searchHits` come from the most recently updated conversations, and older ones' are asked again as they load. */
  searchOlderLoading: boolean;
  /** A full build of the search index running (its progress), during which hits may miss matches; null when none. */
  searchIndexing: SearchIndexing | null;
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
  /** The providers' exact counts of requests in this visit, and the counts still asked, by request key (see requestCounts.ts). */
  requestCounts: Record<string, RequestCount>;
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
  /** This device's sync (see syncActions.ts); null while sync is off. */
  sync: SyncState | null;
  /** Turn on sync is checking the server and the passphrase. */
  syncConnecting: boolean;
}

/** What became of the provider's count of one request (by `requestKeyOf`, requestCounts.ts). */
export type RequestCount =
  | { status: 'counted'; tokens: number }
  | { status: 'counting' }
  /** Paused by the provider's rate limit, or failed: the estimate stands; `note` says why. */
  | { status: 'waiting' | 'failed'; note: string };

/** What the sidebar and Settings → Sync show of sync; the password and keys stay in storage. */
export interface SyncState {
  serverUrl: string;
  username: string;
  syncApiKeys: boolean;
  status: SyncStatus;
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
  query: '',
  searchHits: null,
  searchOlderLoading: false,
  searchIndexing: null,
  settingsOpen: false,
  draft: '',
  attachments: {},
  draftImages: [],
  draftPdfs: [],
  calibration: emptyCalibration(),
  requestCounts: {},
  toolsRefused: [],
  imagesRefused: [],
  modelLists: {},
  storageView: null,
  importing: null,
  sync: null,
  syncConnecting: false,
});

export type AppStore = StoreApi<AppState>;

/** Puts `conversation` in the list (replacing its old record), most recently updated first. */
export function setConversation(store: AppStore, conversation: Conversation): void {
  store.setState((s) => {
    const others = s.conversations.filter((c) => c.id !== conversation.id);
    return { conversations: [conversation, ...others].sort((a, b) => b.updatedAt - a.updatedAt) };
  });
}

/** Shows what was read of each of `ids` (`found[i]` for `ids[i]`): updated, added, or removed when it is gone. */
export function setConversations(store: AppStore, ids: readonly string[], found: ReadonlyArray<Conversation | undefined>): void {
  store.setState((s) => {
    const changed = new Set(ids);
    const fresh = found.filter((c): c is Conversation => c !== undefined);
    const gone = s.activeId !== null && changed.has(s.activeId) && !fresh.some((c) => c.id === s.activeId);
    return {
      conversations: [...fresh, ...s.conversations.filter((c) => !changed.has(c.id))].sort((a, b) => b.updatedAt - a.updatedAt),
      ...(gone ? { activeId: null } : {}),
    };
  });
}

export function setMessages(store: AppStore, conversationId: string, update: (messages: StoredMessage[]) => StoredMessage[]): void {
  store.setState((s) => ({ messages: { ...s.messages, [conversationId]: update(s.messages[conversationId] ?? []) } }));
}

/** Replaces or inserts each of `messages` (all of conversation `conversationId`) in one update, keeping seq order. */
export function upsertMessages(store: AppStore, conversationId: string, messages: readonly StoredMessage[]): void {
  if (messages.length === 0) return;
  setMessages(store, conversationId, (list) => {
    const incoming = new Map(messages.map((m) => [m.id, m]));
    const copy = list.map((m) => {
      const replacement = incoming.get(m.id);
      if (replacement) incoming.delete(m.id);
      return replacement ?? m;
    });
    copy.push(...incoming.values());
    let ordered = true;
    for (let i = 1; i < copy.length && ordered; i++) ordered = copy[i - 1]!.seq <= copy[i]!.seq;
    if (!ordered) copy.sort((a, b) => a.seq - b.seq);
    return copy;
  });
}

/** Replaces or inserts one message, keeping seq order. */
export function upsertMessage(store: AppStore, message: StoredMessage): void {
  upsertMessages(store, message.conversationId, [message]);
}
