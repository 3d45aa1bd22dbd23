/**
 * Text files the user attaches to a conversation. They are checked in the browser (text,
 * not binary; UTF-8; under the size cap), stored in IndexedDB and never pasted into the
 * prompt: the model lists and reads them through `read_attachment`. The open
 * conversation's attachments are kept in the store for the composer's chips, re-read when
 * another tab attaches or removes one.
 */
import { isWindowpaneError, WindowpaneError } from '../core';
import type { AttachmentRecord } from '../persistence';
import type { Runtime } from './runtime';
import { formatBytes, loadAttachments, setAttachments } from './filesShown';
import { createConversationFor } from './newConversation';

/** The largest file that can be attached, in bytes (5 MB): far more text than any model reads at once. */
export const ATTACHMENT_MAX_BYTES = 5 * 1024 * 1024;

export type FileCheck = { ok: true; name: string; text: string } | { ok: false; name: string; reason: string };

const utf8 = new TextDecoder('utf-8', { fatal: true });

/** Reads `file` as UTF-8 text, or says in one sentence why the model could not read it. */
export async function readTextFile(file: File): Promise<FileCheck> {
  const name = file.name;
  if (file.size > ATTACHMENT_MAX_BYTES) {
    const [size, cap] = [formatBytes(file.size), formatBytes(ATTACHMENT_MAX_BYTES)];
    return { ok: false, name, reason: `${name} is ${size === cap ? '' : `${size}, `}over the ${cap} limit for an attachment.` };
  }
  let bytes: Uint8Array;
  try {
    bytes = new Uint8Array(await file.arrayBuffer());
  } catch (error) {
    return { ok: false, name, reason: `${name} could not be read (${error instanceof Error ? error.message : String(error)}).` };
  }
  // Text files never hold a NUL byte; images, archives, PDFs and UTF-16 files do.
  if (bytes.includes(0)) return { ok: false, name, reason: `${name} is not a text file (it contains binary data).` };
  try {
    return { ok: true, name, text: utf8.decode(bytes) };
  } catch {
    return { ok: false, name, reason: `${name} is not UTF-8 text. Save it as UTF-8 and attach it again.` };
  }
}

function notAttached(names: string[]): string {
  return names.length === 1 ? `${names[0]} was not attached.` : `${names.join(', ')} were not attached.`;
}

/**
 * Attaches `files` to a conversation, creating it (named after the first file) when none
 * is open. Files that are not UTF-8 text or are over the cap are left out and the user is
 * told which and why; the others are stored. A different file under a name already
 * attached is stored as "name (2).ext", the same file again is not stored twice; either
 * way the user is told.
 */
export async function attachFiles(rt: Runtime, conversationId: string | null, files: readonly File[]): Promise<void> {
  if (files.length === 0) return;
  if (rt.inMemory) {
    rt.notifier.notify({
      tone: 'error',
      text: `Attaching files needs browser storage, which is unavailable in this tab. ${notAttached(files.map((f) => f.name))}`,
    });
    return;
  }
  const checks = await Promise.all(files.map(readTextFile));
  const problems = checks.flatMap((c) => (c.ok ? [] : [c.reason]));
  if (problems.length > 0) {
    rt.notifier.notify({
      tone: 'error',
      text: `${problems.length === 1 ? 'One file was' : `${problems.length} files were`} not attached. ${problems.join(' ')}`,
    });
  }
  const good = checks.filter((c) => c.ok);
  if (good.length === 0) return;

  const id = conversationId ?? (await createConversationFor(rt, good[0]!.name)).id;
  if (rt.memoryOnly.has(id)) {
    rt.notifier.notify({
      tone: 'error',
      text: `This conversation could not be saved in browser storage, so files cannot be attached to it. ${notAttached(good.map((c) => c.name))}`,
    });
    return;
  }
  const notes: string[] = [];
  for (const [index, file] of good.entries()) {
    const newId = rt.deps.newId();
    try {
      const stored = await rt.repositories.files.addAttachment({ id: newId, conversationId: id, name: file.name, text: file.text });
      if (stored.id !== newId) notes.push(`${file.name} is already attached.`);
      else if (stored.name !== file.name) notes.push(`A different ${file.name} is already attached, so this one was attached as ${stored.name}.`);
    } catch (error) {
      // Storage full: the files after this one would fail the same way, so one alert names them all.
      const full = isWindowpaneError(error, 'quota_exceeded');
      const rest = good.slice(index + 1).map((c) => c.name);
      rt.notifier.reportError(
        full && rest.length > 0 ? new WindowpaneError('quota_exceeded', `${error.message} ${notAttached(rest)}`) : error,
        `attach ${file.name}`,
      );
      if (full) break;
    }
  }
  if (notes.length > 0) rt.notifier.notify({ tone: 'info', text: notes.join(' ') });
  await loadAttachments(rt, id);
}

/** Removes an attachment at once and offers Undo, which puts it back as it was. */
export async function removeAttachment(rt: Runtime, conversationId: string, attachmentId: string): Promise<void> {
  const shown = rt.store.getState().attachments[conversationId]?.find((a) => a.id === attachmentId);
  if (!shown) return;
  let removed: AttachmentRecord | undefined;
  try {
    removed = await rt.repositories.files.removeAttachment(attachmentId);
  } catch (error) {
    rt.notifier.reportError(error, `remove ${shown.name}`);
    return;
  }
  setAttachments(
    rt,
    conversationId,
    (rt.store.getState().attachments[conversationId] ?? []).filter((a) => a.id !== attachmentId),
  );
  if (!removed) return;
  const record = removed;
  rt.notifier.notify({ tone: 'info', text: `Removed ${record.name}.`, action: { label: 'Undo', run: () => void undoRemove(rt, record) } }, 15000);
}

async function undoRemove(rt: Runtime, record: AttachmentRecord): Promise<void> {
  try {
    await rt.repositories.files.addAttachment(record);
  } catch (error) {
    rt.notifier.reportError(error, `put ${record.name} back`);
  }
  await loadAttachments(rt, record.conversationId);
}
