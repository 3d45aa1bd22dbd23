/**
 * Every action a component may call, bound to one runtime: the store's behaviour as the
 * UI sees it. Each delegates to the action module that owns it.
 */
import * as attachments from './attachmentActions';
import { offerReloadAfterUpdate, offerUpdate } from './appUpdates';
import * as branches from './branches';
import * as conversations from './conversationActions';
import { isExportFile } from './exportFiles';
import { hydrate } from './hydrate';
import * as images from './imageActions';
import * as messages from './messageActions';
import { refreshModels } from './modelLists';
import { switchModel } from './modelSwitch';
import * as pdfs from './pdfActions';
import type { Runtime } from './runtime';
import * as chat from './sendPipeline';
import type { Settings } from './settings';
import type { ListTarget } from './state';
import * as storage from './storageView';
import * as sync from './syncActions';

/** Images and PDFs go in the composer, to be sent with the next message; other files are attached for read_attachment. */
async function attachFiles(rt: Runtime, conversationId: string | null, files: readonly File[]): Promise<void> {
  const pictures = files.filter(images.isImageFile);
  const documents = files.filter((file) => !images.isImageFile(file) && pdfs.isPdfFile(file));
  const others = files.filter((file) => !images.isImageFile(file) && !pdfs.isPdfFile(file));
  if (pictures.length > 0) await images.addDraftImages(rt, pictures);
  if (documents.length > 0) await pdfs.addDraftPdfs(rt, documents);
  if (others.length > 0) await attachments.attachFiles(rt, conversationId, others);
}

/** Export and import, with every format's reader and writer: a chunk of their own, loaded on first use. */
const transfer = () => import('./transferActions');

/** Everything a component may call, bound to one runtime. */
export function bindActions(rt: Runtime) {
  return {
    hydrate: async () => {
      await hydrate(rt);
      attachments.watchAttachments(rt);
      await sync.restoreSync(rt);
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
    exportConversations: async (format: 'json' | 'markdown', scope: 'active' | 'all', withImages?: boolean) =>
      (await transfer()).exportConversations(rt, format, scope, withImages),
    exportImageBytes: async () => (await transfer()).exportImageBytes(rt),
    importFiles: async (files: readonly File[]) => (await transfer()).importFiles(rt, files),
    cancelImport: async () => (await transfer()).cancelImport(rt),
    dismissNotice: (id: string) => rt.notifier.dismiss(id),
    turnOnSync: (input: sync.TurnOnSyncInput) => sync.turnOnSync(rt, input),
    syncNow: () => sync.syncNow(rt),
    pauseSync: () => sync.pauseSync(rt),
    resumeSync: () => sync.resumeSync(rt),
    turnOffSync: () => sync.turnOffSync(rt),
    send: (conversationId: string | null, text: string) => chat.send(rt, conversationId, text),
    /** Loads what sends a message ahead of the first Send; a failure is told when a message is sent. */
    prepareSend: () => void chat.loadTurnSteps().catch(() => undefined),
    stop: (conversationId: string) => chat.stop(rt, conversationId),
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
    removeDraftPdf: (id: string) => pdfs.removeDraftPdf(rt, id),
    removeDraftImage: (id: string) => images.removeDraftImage(rt, id),
    readImage: (fileId: string) => images.readImage(rt, fileId),
    removeAttachment: (conversationId: string, attachmentId: string) => attachments.removeAttachment(rt, conversationId, attachmentId),
    refreshModels: (target: ListTarget, signal?: AbortSignal) => refreshModels(rt, target, signal),
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
