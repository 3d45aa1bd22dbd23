/**
 * Export and import against storage: reads records for the pure exporters in
 * core/transfer, and writes what the pure import readers return, batch by batch.
 */
import type { BatchLimits, ConversationFailure, ErrorCode, ExportedFile, ImportFormat } from '../core';
import { exportToJsonParts, importBatches, openImport } from '../core';
import { blobToBase64 } from './base64';
import { readImportTexts, type ImportFile } from './importFileText';
import type { FileRepository } from './fileRepository';
import type { ImportSummary, TransferRepository } from './transferRepository';
import { toStorageError } from './storageErrors';

/** Where an import is: reading or unpacking the file (bytes), parsing it, or writing (conversations of the file handled). */
export interface ImportProgress {
  phase: 'reading' | 'unpacking' | 'parsing' | 'writing';
  /** Bytes read, or conversations handled (written, skipped or left out); 0 of 0 while parsing. */
  done: number;
  total: number;
  /** Conversations written so far. */
  imported: number;
}

/** Everything an import did, however it ended. */
export interface ImportReport {
  format?: ImportFormat;
  /** Conversations the file lists. */
  total: number;
  /** Conversations handled before it ended: `total` when it ran through. */
  read: number;
  /** Conversations written, with their messages, and the extra branches they hold. */
  imported: number;
  messages: number;
  branches: number;
  importedIds: string[];
  /** Conversations already stored (same id: imported before), left untouched. */
  skipped: number;
  /** Conversations left out: they could not be read, or their messages are stored under another conversation. */
  failed: ConversationFailure[];
  /** Why the file could not be imported at all (not an export, too large, …); nothing was written. */
  error?: { code: ErrorCode; message: string };
  /** The write that failed and ended the import early; conversations written before it are kept whole. */
  stopped?: { title: string; code: ErrorCode; message: string };
  /** Cancel was pressed: what was written before stays. */
  cancelled: boolean;
  elapsedMs: number;
}

/** An import's outcome: `ok` unless nothing was imported because of a failure (then `error` says why). */
export type ImportOutcome = { ok: true; value: ImportReport } | { ok: false; error: { code: ErrorCode; message: string }; value: ImportReport };

export interface ImportOptions {
  /** Epoch ms of the import; defaults to now. */
  now?: number;
  /** Aborting it stops the import after the batch being written; what was written stays. */
  signal?: AbortSignal;
  onProgress?: (progress: ImportProgress) => void;
  /** Batch size; defaults to `IMPORT_BATCH`. */
  limits?: BatchLimits;
}

/**
 * Conversations written per transaction: small enough that a failure loses little, that Cancel
 * answers within about a second and that progress moves, large enough that transactions
 * cost little next to the data.
 */
export const IMPORT_BATCH: BatchLimits = { conversations: 50, messages: 5_000 };
const PROGRESS_INTERVAL_MS = 100;

/**
 * Imports a file: a Windowpane JSON export, or the `conversations.json` of a ChatGPT or
 * Claude data export (bare or wrapped in `{ "conversations": [...] }`), or that data export's
 * `.zip`. The file is checked as a whole first (a file that is no export writes nothing),
 * then written in batches of whole conversations, each batch one transaction: a
 * conversation that cannot be read is left out and named, a failed write stops the import
 * with the earlier batches kept, and conversations already stored are skipped, so importing
 * the file again continues where it stopped.
 */
export async function importFromFile(
  repository: Pick<TransferRepository, 'importBatch'>,
  file: ImportFile,
  options: ImportOptions = {},
): Promise<ImportOutcome> {
  const started = performance.now();
  const report = emptyImportReport();
  let lastProgress = { phase: '', at: -Infinity };
  const progress = (next: Omit<ImportProgress, 'imported'>, force = false) => {
    const at = performance.now();
    if (!force && next.phase === lastProgress.phase && at - lastProgress.at < PROGRESS_INTERVAL_MS) return;
    lastProgress = { phase: next.phase, at };
    options.onProgress?.({ ...next, imported: report.imported });
  };
  const finish = (): ImportOutcome => {
    report.elapsedMs = performance.now() - started;
    const error = report.imported === 0 && report.skipped === 0 && !report.cancelled ? whyNothing(report) : undefined;
    return error ? { ok: false, error, value: report } : { ok: true, value: report };
  };

  const read = await readImportTexts(file, { signal: options.signal, onProgress: (p) => progress(p, p.done === p.total) });
  if (!read) {
    report.cancelled = true;
    return finish();
  }
  if (!read.ok) {
    report.error = read.error;
    return finish();
  }
  const limits = options.limits ?? IMPORT_BATCH;
  const importedAt = options.now ?? Date.now();
  for (let n = 0; n < read.texts.length; n++) {
    const { name, bytes } = read.texts[n]!;
    progress({ phase: 'parsing', done: 0, total: 0 }, true);
    // Taken out of the list as it is parsed, so nothing holds the text (up to 200 MB) while the conversations are written.
    const opened = openImport(read.texts.splice(n, 1, { name, bytes, text: '' })[0]!.text, { importedAt, sizeBytes: bytes });
    if (!opened.ok) {
      if (report.read === 0) report.error = opened.error;
      else report.stopped = { title: name, code: opened.error.code, message: opened.error.message };
      return finish();
    }
    const source = opened.value;
    report.format ??= source.format;
    report.total += source.count;
    const before = report.read;
    progress({ phase: 'writing', done: report.read, total: report.total }, true);
    for (const batch of importBatches(source, limits)) {
      if (options.signal?.aborted) {
        report.cancelled = true;
        return finish();
      }
      if (batch.conversations.length > 0) {
        let summary: ImportSummary;
        try {
          summary = await repository.importBatch({ format: source.format, conversations: batch.conversations });
        } catch (error) {
          const failure = toStorageError(error, 'import the conversations');
          report.stopped = { title: batch.conversations[0]!.conversation.title, code: failure.code, message: failure.message };
          return finish();
        }
        report.imported += summary.imported;
        report.messages += summary.messages;
        report.branches += summary.branches;
        report.skipped += summary.skipped;
        report.importedIds.push(...summary.importedIds);
        for (const id of summary.clashing) {
          const at = batch.conversations.findIndex((entry) => entry.conversation.id === id);
          report.failed.push({
            position: before + batch.positions[at]!,
            title: batch.conversations[at]!.conversation.title,
            reason: 'some of its messages are already stored under a different conversation (the file may have been edited by hand)',
          });
        }
      }
      report.failed.push(...batch.failures.map((failure) => ({ ...failure, position: before + failure.position })));
      report.read = before + batch.through;
      progress({ phase: 'writing', done: report.read, total: report.total }, true);
    }
  }
  return finish();
}

/** The report of an import that has done nothing yet. */
export function emptyImportReport(): ImportReport {
  return { total: 0, read: 0, imported: 0, messages: 0, branches: 0, importedIds: [], skipped: 0, failed: [], cancelled: false, elapsedMs: 0 };
}

/** The outcome of an import that could not start: nothing written, and why. */
export function nothingImported(error: { code: ErrorCode; message: string }): ImportOutcome {
  return { ok: false, error, value: { ...emptyImportReport(), error } };
}

/** Why an import that wrote nothing failed, or undefined when nothing went wrong (every conversation was already here). */
function whyNothing(report: ImportReport): ImportReport['error'] {
  if (report.error) return report.error;
  if (report.stopped) return { code: report.stopped.code, message: report.stopped.message };
  const first = report.failed[0];
  if (!first) return undefined;
  const name = report.format === 'chatgpt' ? 'ChatGPT export' : report.format === 'claude' ? 'Claude export' : 'Windowpane export';
  const problem = report.format === 'windowpane' ? 'is damaged' : 'could not be read';
  const message =
    report.failed.length === 1
      ? `This ${name} ${problem}, so nothing was imported: ${first.reason}.`
      : `None of the ${report.failed.length.toLocaleString('en-US')} conversations in this ${name} could be read, so nothing was imported. The first problem: ${first.reason}.`;
  return { code: 'import_invalid', message };
}

/**
 * The Windowpane JSON export of the given conversations (all when `ids` is omitted), as one
 * file's text or, over `maxBytes` (Import's limit), several split between conversations;
 * `withImages` carries the images their messages refer to, bytes and all.
 */
export async function exportJsonFiles(
  repositories: { transfer: Pick<TransferRepository, 'readForExport'>; files: Pick<FileRepository, 'listFiles'> },
  ids?: readonly string[],
  exportedAt: number = Date.now(),
  withImages = false,
  maxBytes?: number,
): Promise<string[]> {
  const records = await repositories.transfer.readForExport(ids);
  if (!withImages) return exportToJsonParts(records, exportedAt, undefined, maxBytes);
  const files: ExportedFile[] = [];
  for (const record of await repositories.files.listFiles(records.map((r) => r.conversation.id))) {
    const { id, conversationId, name, mediaType, bytes, createdAt } = record;
    files.push({ id, conversationId, name, mediaType, bytes, createdAt, data: await blobToBase64(record.blob) });
  }
  return exportToJsonParts(records, exportedAt, files, maxBytes);
}
