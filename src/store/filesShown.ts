/**
 * The files the first screen shows and lets go of: the open conversation's attachments (the
 * composer's chips, kept in the store and read again when another tab changes them), the
 * images and PDFs waiting in the composer, and the stored images of the messages shown.
 * Adding files (attachmentActions.ts, imageActions.ts, pdfActions.ts) is loaded on first use.
 */
import { utf8Bytes } from '../core';
import type { AttachmentRecord } from '../persistence';
import type { Runtime } from './runtime';
import type { AttachmentInfo } from './state';

/** "812 B", "3.4 KB", "12 KB", "1.5 MB", "2.1 GB", "3 TB" (1 KB = 1,024 bytes), rounded down. */
export function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  const units = ['KB', 'MB', 'GB', 'TB'];
  let [value, unit] = [bytes / 1024, 0];
  while (value >= 1024 && unit < units.length - 1) [value, unit] = [value / 1024, unit + 1];
  return `${value < 10 ? Math.floor(value * 10) / 10 : Math.floor(value)} ${units[unit]}`;
}

function infoOf(record: AttachmentRecord): AttachmentInfo {
  return {
    id: record.id,
    conversationId: record.conversationId,
    name: record.name,
    size: utf8Bytes(record.text),
    createdAt: record.createdAt,
  };
}

export function setAttachments(rt: Runtime, conversationId: string, list: AttachmentInfo[]): void {
  rt.store.setState((s) => ({ attachments: { ...s.attachments, [conversationId]: list } }));
}

/** Re-reads one conversation's attachments from storage into the store. */
export async function loadAttachments(rt: Runtime, conversationId: string): Promise<void> {
  if (rt.memoryOnly.has(conversationId)) return;
  try {
    setAttachments(rt, conversationId, (await rt.repositories.files.listAttachments(conversationId)).map(infoOf));
  } catch (error) {
    rt.notifier.reportError(error, 'read the attached files');
  }
}

/**
 * Keeps the open conversation's attachments in the store: read when it opens (a reload
 * reopens one too) and again when another tab attaches or removes a file. Call after
 * hydrate; calling again replaces the previous watch.
 */
export function watchAttachments(rt: Runtime): void {
  rt.stopWatchingAttachments?.();
  const unsubscribeStore = rt.store.subscribe((state, previous) => {
    if (state.activeId && state.activeId !== previous.activeId) void loadAttachments(rt, state.activeId);
  });
  const unsubscribeSync = rt.storage?.sync.subscribe((change) => {
    if (change.type === 'attachments-changed' && change.conversationId && change.conversationId in rt.store.getState().attachments) {
      void loadAttachments(rt, change.conversationId);
    }
  });
  rt.stopWatchingAttachments = () => {
    unsubscribeStore();
    unsubscribeSync?.();
  };
  const active = rt.store.getState().activeId;
  if (active) void loadAttachments(rt, active);
}

/** Takes an image out of the composer, with Undo to put it back where it was. */
export function removeDraftImage(rt: Runtime, id: string): void {
  removeFromComposer(rt, 'draftImages', id);
}

/** Takes a file out of one of the composer's lists, with Undo to put it back where it was. */
export function removeFromComposer(rt: Runtime, list: 'draftImages' | 'draftPdfs', id: string): void {
  const files: readonly { id: string; name: string }[] = rt.store.getState()[list];
  const index = files.findIndex((file) => file.id === id);
  if (index < 0) return;
  const file = files[index]!;
  rt.store.setState({ [list]: files.filter((f) => f.id !== id) });
  const undo = () =>
    rt.store.setState((s) => {
      const now: readonly { id: string }[] = s[list];
      if (now.some((f) => f.id === id)) return {};
      const next = [...now];
      next.splice(Math.min(index, next.length), 0, file);
      return { [list]: next };
    });
  rt.notifier.notify({ tone: 'info', text: `Removed ${file.name}.`, action: { label: 'Undo', run: undo } }, 15000);
}

/** Takes a PDF out of the composer, with Undo to put it back where it was. */
export function removeDraftPdf(rt: Runtime, id: string): void {
  removeFromComposer(rt, 'draftPdfs', id);
}

/** The Blob of a stored image, or undefined when it is gone. */
export async function readImage(rt: Runtime, fileId: string): Promise<Blob | undefined> {
  const kept = rt.memoryFiles.get(fileId);
  if (kept) return kept;
  try {
    return (await rt.repositories.files.getFile(fileId))?.blob;
  } catch {
    return undefined;
  }
}
