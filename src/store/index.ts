/**
 * The app's store instance and its React binding. Components select narrowly with
 * `useApp(selector)` (use `useShallow` for several fields) and call `actions.*`;
 * `appRuntime.store.getState()` works outside React too.
 */
import { useStore } from 'zustand';
import { openWindowpaneStorage, randomUuid } from '../persistence';
import { createProvider, listModels } from '../providers';
import { createRuntime, dismiss, type AppDeps, type AppState, type Runtime } from './appStore';
import * as attachments from './attachmentActions';
import { offerReloadAfterUpdate, offerUpdate } from './appUpdates';
import * as branches from './branches';
import * as conversations from './conversationActions';
import { hydrate } from './hydrate';
import * as messages from './messageActions';
import { refreshModels, type ListTarget } from './modelLists';
import { switchModel } from './modelSwitch';
import * as storage from './storageView';
import * as chat from './sendPipeline';
import { regenerateSummary } from './summaries';
import * as transfer from './transferActions';
import type { Settings } from './settings';
import { createWorkerRunner } from '../sandbox/javascriptRunner';
import { prepareImage } from '../media/prepareImage';
import * as images from './imageActions';
import * as pdfs from './pdfActions';
import { readPdf } from '../media/readPdf';

export const browserDeps: AppDeps = {
  openStorage: (events) => openWindowpaneStorage(events),
  createProvider: (settings) => createProvider(settings),
  listModels: (target) => listModels(target),
  now: () => Date.now(),
  // Not crypto.randomUUID: it is missing on plain http (a LAN address next to Ollama).
  newId: randomUuid,
  runJavascript: createWorkerRunner(),
  isOnline: () => navigator.onLine,
  session: tabSession(),
  prepareImage,
  readPdf,
};

/** sessionStorage, or undefined where the browser blocks it (reading it then throws). */
function tabSession(): Storage | undefined {
  try {
    return sessionStorage;
  } catch {
    return undefined;
  }
}

/** Images and PDFs go in the composer, to be sent with the next message; other files are attached for read_attachment. */
async function attachFiles(rt: Runtime, conversationId: string | null, files: readonly File[]): Promise<void> {
  const pictures = files.filter(images.isImageFile);
  const documents = files.filter((file) => !images.isImageFile(file) && pdfs.isPdfFile(file));
  const others = files.filter((file) => !images.isImageFile(file) && !pdfs.isPdfFile(file));
  if (pictures.length > 0) await images.addDraftImages(rt, pictures);
  if (documents.length > 0) await pdfs.addDraftPdfs(rt, documents);
  if (others.length > 0) await attachments.attachFiles(rt, conversationId, others);
}

/** Everything a component may call, bound to one runtime. */
export function bindActions(rt: Runtime) {
  return {
    hydrate: async () => {
      await hydrate(rt);
      attachments.watchAttachments(rt);
    },
    newChat: () => conversations.newChat(rt),
    selectConversation: (id: string, messageId?: string) => conversations.selectConversation(rt, id, messageId),
    renameConversation: (id: string, title: string) => conversations.renameConversation(rt, id, title),
    deleteConversation: (id: string) => conversations.deleteConversation(rt, id),
    search: (query: string) => conversations.search(rt, query),
    saveSettings: (settings: Settings, scope: 'global' | 'conversation') => conversations.saveSettings(rt, settings, scope),
    openSettings: () => rt.store.setState({ settingsOpen: true }),
    closeSettings: () => rt.store.setState({ settingsOpen: false }),
    exportConversations: (format: 'json' | 'markdown', scope: 'active' | 'all', withImages?: boolean) =>
      transfer.exportConversations(rt, format, scope, withImages),
    exportImageBytes: () => transfer.exportImageBytes(rt),
    importFiles: (files: readonly File[]) => transfer.importFiles(rt, files),
    cancelImport: () => transfer.cancelImport(rt),
    dismissNotice: (id: string) => dismiss(rt, id),
    send: (conversationId: string | null, text: string) => chat.send(rt, conversationId, text),
    stop: (conversationId: string) => chat.stop(rt, conversationId),
    regenerate: (messageId: string) => messages.regenerate(rt, messageId),
    editAndResend: (messageId: string, text: string) => messages.editAndResend(rt, messageId, text),
    regenerateSummary: (summaryId: string) => regenerateSummary(rt, summaryId),
    togglePin: (messageId: string) => messages.togglePin(rt, messageId),
    switchVersion: (messageId: string, step: -1 | 1) => branches.switchVersion(rt, messageId, step),
    setDraft: (text: string) => rt.store.setState({ draft: text }),
    attachFiles: (conversationId: string | null, files: readonly File[]) => attachFiles(rt, conversationId, files),
    /** Files dropped on the window: exports (.json, .zip) are imported, the rest attached as the composer attaches them. */
    dropFiles: async (files: readonly File[]) => {
      const exports = files.filter(transfer.isExportFile);
      const others = files.filter((file) => !transfer.isExportFile(file));
      if (others.length > 0) await attachFiles(rt, rt.store.getState().activeId, others);
      if (exports.length > 0) await transfer.importFiles(rt, exports);
    },
    removeDraftPdf: (id: string) => pdfs.removeDraftPdf(rt, id),
    removeDraftImage: (id: string) => images.removeDraftImage(rt, id),
    readImage: (fileId: string) => images.readImage(rt, fileId),
    removeAttachment: (conversationId: string, attachmentId: string) => attachments.removeAttachment(rt, conversationId, attachmentId),
    refreshModels: (target: ListTarget) => refreshModels(rt, target),
    switchModel: (modelId: string) => switchModel(rt, modelId),
    offerUpdate: (reload: () => void) => offerUpdate(rt, reload),
    offerReloadAfterUpdate: (reload: () => void) => offerReloadAfterUpdate(rt, reload),
    loadStorageView: () => storage.loadStorageView(rt),
    keepMyData: () => storage.keepMyData(rt),
    deleteAttachmentsOf: (conversationId: string) => storage.deleteAttachmentsOf(rt, conversationId),
    deleteConversationFromStorage: (id: string) => conversations.deleteConversation(rt, id, 'storage'),
  };
}

export type Actions = ReturnType<typeof bindActions>;

export const appRuntime = createRuntime(browserDeps);
export const actions: Actions = bindActions(appRuntime);

export function useApp<T>(selector: (state: AppState) => T): T {
  return useStore(appRuntime.store, selector);
}

export type { AppState, AttachmentInfo, Notice, Runtime } from './appStore';
export type { ImportState } from './importState';
export type { SearchIndexing } from './searchState';
// The store's public surface for components: what they may read and the views they render.
export { contextOf, holdsPdfs, screenPlan } from './planning';
export { activeModelIn, modelChoicesFor, modelPickerIn } from './selectors';
export { modelListKey, type ListTarget } from './modelLists';
export { chatView, draftTokens, openingRows, type GaugePart } from './chatView';
export { branchOf, leafOf, treeOf } from './branches';
export type { PlanReport } from './planReport';
export { ADDITIONS, additionsFor, resetToOwnRule, type Addition } from './strategyAdditions';
export { clearedToolCalls, pairToolResults } from './toolTranscript';
export type { ToolResultView, TranscriptRow } from './transcript';
export { formatBytes } from './attachmentActions';
export { isExportFile } from './transferActions';
export type { DraftImage } from './imageActions';
export type { DraftPdf } from './pdfActions';
export { storageViewOf, type StorageRow, type StorageView } from './storageView';
export { conversationOverrides } from './appStore';
export { DEFAULT_BASE_URLS, TOOL_ROUNDS_RANGE, effectiveSettings, type Settings, type ToolSettings, type WindowSettings } from './settings';
export { settingsProblems, type Knob } from './settingsRules';
