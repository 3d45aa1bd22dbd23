/**
 * Every action a component may call, bound to one runtime: the store's behaviour as the
 * UI sees it. Each delegates to the action module that owns it.
 */
import type { ExportOptions } from './transferActions';
import type { ThinkingSetting } from '../core';
import { offerReloadAfterUpdate, offerUpdate } from './appUpdates';
import * as branches from './branches';
import * as conversations from './conversationActions';
import { isExportFile } from './exportFiles';
import * as files from './filesShown';
import { hydrate } from './hydrate';
import * as messages from './messageActions';
import { refreshModels } from './modelLists';
import { setThinking, switchModel } from './modelSwitch';
import type { Runtime } from './runtime';
import * as chat from './sendPipeline';
import type { Settings } from './settings';
import type { ListTarget, NoticeSection } from './state';
import type { TurnOnSyncInput } from './syncActions';
import type { CountJob } from './exactCount';
import type * as McpSettingsModule from './mcp/mcpSettings';

type McpSettings = typeof McpSettingsModule;

/**
 * A chunk loaded on first use, or undefined when it cannot load (offline before it was
 * saved, say): the user is told what could not be done.
 */
async function onFirstUse<T>(rt: Runtime, load: () => Promise<T>, doing: string, section?: NoticeSection): Promise<T | undefined> {
  try {
    return await load();
  } catch (error) {
    rt.notifier.reportError(error, doing, section);
    return undefined;
  }
}

/** Adding files to the composer or the conversation, with every file reader: a chunk of their own, loaded on first use. */
const adding = (rt: Runtime) => onFirstUse(rt, () => import('./addFiles'), 'add the files');

/** The Storage section's measuring and freeing of room: a chunk of their own, loaded on first use. */
const storage = (rt: Runtime) => onFirstUse(rt, () => import('./storageView'), 'read the storage');

/** Turning sync on and off, and starting it again at startup where this device syncs: a chunk of their own, loaded on first use. */
const loadSync = () => import('./syncActions');
const syncing = (rt: Runtime) => onFirstUse(rt, loadSync, 'load sync', 'sync');

/** Sync as Settings → Sync and the sidebar drive it. */
function syncControls(rt: Runtime) {
  return {
    /** Returns what went wrong, or undefined. */
    turnOnSync: async (input: TurnOnSyncInput): Promise<string | undefined> => {
      try {
        return await (await loadSync()).turnOnSync(rt, input);
      } catch (error) {
        return `Sync could not be turned on: ${error instanceof Error ? error.message : String(error)}`;
      }
    },
    syncNow: async () => (await syncing(rt))?.syncNow(rt),
    pauseSync: async () => (await syncing(rt))?.pauseSync(rt),
    resumeSync: async () => (await syncing(rt))?.resumeSync(rt),
    turnOffSync: async () => (await syncing(rt))?.turnOffSync(rt),
  };
}

async function attachFiles(rt: Runtime, conversationId: string | null, dropped: readonly File[]): Promise<void> {
  await (await adding(rt))?.addFiles(rt, conversationId, dropped);
}

/**
 * The provider's exact count of a request, in the background, with the steps of a turn (loaded
 * while the page is idle). Steps that cannot load leave the estimate, saying why.
 */
async function countRequest(rt: Runtime, job: CountJob): Promise<void> {
  try {
    (await chat.loadTurnSteps()).countRequest(rt, job);
  } catch {
    rt.store.setState(({ requestCounts }) => ({ requestCounts: { ...requestCounts, [job.key]: { status: 'failed', note: 'Counting could not load.' } } }));
  }
}

/** Export and import, with every format's reader and writer: a chunk of their own, loaded on first use. */
const transfer = () => import('./transferActions');

/** Everything a component may call, bound to one runtime. */
export function bindActions(rt: Runtime) {
  return {
    hydrate: async () => {
      await hydrate(rt);
      files.watchAttachments(rt);
      if (rt.deps.sync) await (await syncing(rt))?.restoreSync(rt);
    },
    newChat: () => conversations.newChat(rt),
    selectConversation: (id: string, messageId?: string) => conversations.selectConversation(rt, id, messageId),
    renameConversation: (id: string, title: string) => conversations.renameConversation(rt, id, title),
    deleteConversation: (id: string) => conversations.deleteConversation(rt, id),
    search: (query: string) => conversations.search(rt, query),
    showSearchHits: (conversationIds: readonly string[]) => conversations.showSearchHits(rt, conversationIds),
    prepareSearch: () => conversations.prepareSearch(rt),
    saveSettings: (settings: Settings, scope: 'global' | 'conversation') => conversations.saveSettings(rt, settings, scope),
    openSettings: () => rt.store.setState({ settingsOpen: true }),
    closeSettings: () => rt.store.setState({ settingsOpen: false }),
    exportConversations: async (format: 'json' | 'markdown', scope: 'active' | 'all', options?: ExportOptions) =>
      (await transfer()).exportConversations(rt, format, scope, options),
    exportImageBytes: async () => (await transfer()).exportImageBytes(rt),
    importFiles: async (files: readonly File[]) => (await transfer()).importFiles(rt, files),
    cancelImport: async () => (await transfer()).cancelImport(rt),
    dismissNotice: (id: string) => rt.notifier.dismiss(id),
    ...syncControls(rt),
    send: (conversationId: string | null, text: string) => chat.send(rt, conversationId, text),
    /** Loads what sends a message ahead of the first Send; a failure is told when a message is sent. */
    prepareSend: () => void chat.loadTurnSteps().catch(() => undefined),
    stop: (conversationId: string) => chat.stop(rt, conversationId),
    /** Asks the provider for its exact count of the request the gauge shows (`asked`: the user pressed Count exactly); never waits for it. */
    countRequest: (job: CountJob) => void countRequest(rt, job),
    regenerate: (messageId: string) => messages.regenerate(rt, messageId),
    editAndResend: (messageId: string, text: string) => messages.editAndResend(rt, messageId, text),
    regenerateSummary: (summaryId: string) => chat.regenerateSummary(rt, summaryId),
    togglePin: (messageId: string) => messages.togglePin(rt, messageId),
    switchVersion: (messageId: string, step: -1 | 1) => branches.switchVersion(rt, messageId, step),
    setDraft: (text: string) => rt.store.setState({ draft: text }),
    attachFiles: (conversationId: string | null, files: readonly File[]) => attachFiles(rt, conversationId, files),
    /** Files dropped on the window: exports (.json, .zip) are imported, the rest attached as the composer attaches them. */
    dropFiles: async (files: readonly File[]) => {
      const exports = files.filter(isExportFile);
      const others = files.filter((file) => !isExportFile(file));
      if (others.length > 0) await attachFiles(rt, rt.store.getState().activeId, others);
      if (exports.length > 0) await (await transfer()).importFiles(rt, exports);
    },
    removeDraftPdf: (id: string) => files.removeDraftPdf(rt, id),
    removeDraftImage: (id: string) => files.removeDraftImage(rt, id),
    readImage: (fileId: string) => files.readImage(rt, fileId),
    removeAttachment: async (conversationId: string, attachmentId: string) => (await adding(rt))?.removeAttachment(rt, conversationId, attachmentId),
    refreshModels: (target: ListTarget, signal?: AbortSignal) => refreshModels(rt, target, signal),
    switchModel: (modelId: string) => switchModel(rt, modelId),
    setThinking: (setting: ThinkingSetting) => setThinking(rt, setting),
    offerUpdate: (reload: () => void) => offerUpdate(rt, reload),
    offerReloadAfterUpdate: (reload: () => void) => offerReloadAfterUpdate(rt, reload),
    loadStorageView: async () => (await storage(rt))?.loadStorageView(rt),
    keepMyData: async () => (await storage(rt))?.keepMyData(rt),
    deleteAttachmentsOf: async (conversationId: string) => (await storage(rt))?.deleteAttachmentsOf(rt, conversationId),
    deleteConversationFromStorage: (id: string) => conversations.deleteConversation(rt, id, 'storage'),
    ...mcpServerActions(rt),
  };
}

/** Settings → Tools, over the MCP client (a chunk of its own): list a server's tools, sign in to it with OAuth and out. */
const mcpServerActions = (rt: Runtime) => {
  const settings = () => import('./mcp/mcpSettings');
  return {
    listMcpServerTools: async (...args: DropRuntime<McpSettings['listMcpServerTools']>) => (await settings()).listMcpServerTools(rt, ...args),
    signInMcpServer: async (...args: DropRuntime<McpSettings['signInMcpServer']>) => (await settings()).signInMcpServer(rt, ...args),
    signOutMcpServer: async (...args: DropRuntime<McpSettings['signOutMcpServer']>) => (await settings()).signOutMcpServer(rt, ...args),
  };
};

/** The parameters of a store action after its runtime. */
type DropRuntime<F> = F extends (rt: Runtime, ...rest: infer Rest) => unknown ? Rest : never;

export type Actions = ReturnType<typeof bindActions>;
