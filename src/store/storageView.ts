/**
 * The Settings dialog's Storage section: how much room the history takes, conversation by
 * conversation, what the browser says about usage, quota and persistence, and ways to free
 * room (a conversation's attached files, a whole conversation), each with Undo. Measured
 * when the section opens, never at startup: measuring reads every stored record.
 */
import type { Conversation } from '../core';
import {
  fileBytes,
  readBrowserStorage,
  recordBytes,
  requestPersistentStorage,
  type AttachmentRecord,
  type FileRecord,
  type ConversationStorage,
} from '../persistence';
import type { Runtime } from './runtime';
import type { StorageViewState } from './state';
import { formatBytes, loadAttachments } from './attachmentActions';

/** One conversation's row: its sizes as measured, under its current title. */
export interface StorageRow extends ConversationStorage {
  /** Messages and attachments together, in bytes (an estimate). */
  bytes: number;
}

/** What the section shows. */
export interface StorageView extends Omit<StorageViewState, 'report'> {
  /** The history's estimated size: the conversations still stored. Null before the first measurement. */
  totalBytes: number | null;
  /** The largest conversations first, at most `limit` of them. */
  rows: StorageRow[];
  /** Conversations left out of `rows`. */
  more: number;
}

const EMPTY: StorageViewState = { status: 'measuring', report: null, browser: null };

/** Rows the section shows at most; the rest are counted ("and N more"). */
export const STORAGE_ROWS = 50;

/**
 * The section's view of `state`: the measured conversations still in the list (a deleted
 * one leaves, and comes back with Undo), under their current titles, largest first.
 */
export function storageViewOf(state: StorageViewState | null, conversations: readonly Conversation[], limit = STORAGE_ROWS): StorageView {
  const { report, ...rest } = state ?? EMPTY;
  const titles = new Map(conversations.map((c) => [c.id, c.title]));
  const all = (report?.conversations ?? [])
    .filter((row) => titles.has(row.id))
    .map((row): StorageRow => ({ ...row, title: titles.get(row.id)!, bytes: row.messageBytes + row.attachmentBytes }))
    .sort((a, b) => b.bytes - a.bytes || b.updatedAt - a.updatedAt);
  return {
    ...rest,
    totalBytes: report ? all.reduce((sum, row) => sum + row.bytes, 0) : null,
    rows: all.slice(0, limit),
    more: Math.max(0, all.length - limit),
  };
}

function update(rt: Runtime, patch: Partial<StorageViewState>): void {
  rt.store.setState((s) => ({ storageView: { ...(s.storageView ?? EMPTY), ...patch } }));
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
