/**
 * The Settings dialog's Storage section: how much room the history takes, conversation by
 * conversation, what the browser says about usage, quota and persistence, and ways to free
 * room (a conversation's attached files, a whole conversation), each with Undo. Measured
 * when the section opens, never at startup: measuring reads every stored record. What the
 * section shows of a measurement is in storageRows.ts; this module is loaded on first use.
 */
import { readBrowserStorage, requestPersistentStorage, type AttachmentRecord, type FileRecord } from '../persistence';
import { fileBytes, recordBytes } from '../persistence/storageReport';
import type { Runtime } from './runtime';
import type { StorageViewState } from './state';
import { formatBytes, loadAttachments } from './filesShown';
import { EMPTY_STORAGE_VIEW } from './storageRows';

function update(rt: Runtime, patch: Partial<StorageViewState>): void {
  rt.store.setState((s) => ({ storageView: { ...(s.storageView ?? EMPTY_STORAGE_VIEW), ...patch } }));
}

/** Measures the history and asks the browser about its storage. Does nothing while a measurement runs. */
export async function loadStorageView(rt: Runtime): Promise<void> {
  if (rt.store.getState().storageView?.status === 'measuring') return;
  update(rt, { status: 'measuring', problem: undefined });
  const browser = readBrowserStorage(rt.deps.browserStorage);
  try {
    const report = await rt.repositories.conversations.measureStorage();
    update(rt, { status: 'ready', report, browser: await browser });
  } catch (error) {
    const problem = error instanceof Error ? error.message : String(error);
    update(rt, { status: 'failed', problem, browser: await browser });
  }
}

/** Asks the browser to keep this site's data under storage pressure ("Keep my data"), then reads its answer back. */
export async function keepMyData(rt: Runtime): Promise<void> {
  update(rt, { persistRequest: 'asking' });
  const outcome = await requestPersistentStorage(rt.deps.browserStorage);
  update(rt, { persistRequest: outcome, browser: await readBrowserStorage(rt.deps.browserStorage) });
}

/** Adds `attachments` files of `bytes` to a measured row (negative to take them away). */
function addToRow(rt: Runtime, conversationId: string, attachments: number, bytes: number): void {
  const report = rt.store.getState().storageView?.report;
  if (!report) return;
  const conversations = report.conversations.map((row) =>
    row.id === conversationId
      ? { ...row, attachments: Math.max(0, row.attachments + attachments), attachmentBytes: Math.max(0, row.attachmentBytes + bytes) }
      : row,
  );
  update(rt, { report: { ...report, conversations } });
}

/** Re-reads a conversation's files for the composer's chips, when they are on show. */
function refreshChips(rt: Runtime, conversationId: string): Promise<void> | undefined {
  return conversationId in rt.store.getState().attachments ? loadAttachments(rt, conversationId) : undefined;
}

/** Deletes every file attached to a conversation at once and offers Undo, which puts them back. */
export async function deleteAttachmentsOf(rt: Runtime, conversationId: string): Promise<void> {
  const title = rt.store.getState().conversations.find((c) => c.id === conversationId)?.title ?? 'this conversation';
  let removed: AttachmentRecord[];
  let images: FileRecord[];
  try {
    removed = await rt.repositories.files.deleteAttachments(conversationId);
    images = await rt.repositories.files.deleteFiles(conversationId);
  } catch (error) {
    rt.notifier.reportError(error, 'delete the attached files', 'storage');
    return;
  }
  const bytes = removed.reduce((sum, record) => sum + recordBytes(record), 0) + images.reduce((sum, record) => sum + fileBytes(record), 0);
  const count = removed.length + images.length;
  addToRow(rt, conversationId, -count, -bytes);
  await refreshChips(rt, conversationId);
  if (count === 0) return;
  const files = count === 1 ? `${(removed[0] ?? images[0])!.name}` : `${count} attached files`;
  rt.notifier.notify(
    {
      tone: 'info',
      text: `Deleted ${files} from “${title}” (${formatBytes(bytes)}).`,
      action: { label: 'Undo', run: () => void undoDeleteAttachments(rt, conversationId, removed, images, bytes) },
      section: 'storage',
    },
    15000,
  );
}

async function undoDeleteAttachments(rt: Runtime, conversationId: string, removed: AttachmentRecord[], images: FileRecord[], bytes: number): Promise<void> {
  try {
    if (removed.length > 0) await rt.repositories.files.restoreAttachments(removed);
    if (images.length > 0) await rt.repositories.files.restoreFiles(images);
    addToRow(rt, conversationId, removed.length + images.length, bytes);
  } catch (error) {
    rt.notifier.reportError(error, 'put the attached files back', 'storage');
  }
  await refreshChips(rt, conversationId);
}
