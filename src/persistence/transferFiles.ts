/**
 * Export and import against storage: reads records for the pure exporters in
 * core/transfer, and writes what the pure import parser returns in one transaction.
 */
import type { ErrorCode, ExportedFile, MarkdownExportOptions } from '../core';
import { blobToBase64 } from './base64';
import { checkImportSize, exportToJson, exportToMarkdown, parseImport } from '../core';
import type { ImportSummary, Repository } from './repository';
import { toStorageError } from './storageErrors';

/** An import's outcome: what was written, or why nothing was. */
export type ImportOutcome = { ok: true; value: ImportSummary } | { ok: false; error: { code: ErrorCode; message: string } };

export interface ImportOptions {
  /** Epoch ms of the import; defaults to now. */
  now?: number;
}

/**
 * Imports a chosen file (a Windowpane JSON export, or conversations.json from a ChatGPT or
 * Claude data export). The size limit is checked before the file is read. On any failure
 * nothing is written; conversations already stored are skipped, not duplicated.
 */
export async function importFromFile(
  repository: Pick<Repository, 'importBatch'>,
  file: Pick<Blob, 'size' | 'text'>,
  options: ImportOptions = {},
): Promise<ImportOutcome> {
  const tooLarge = checkImportSize(file.size);
  if (tooLarge) return { ok: false, error: tooLarge };
  let text: string;
  try {
    text = await file.text();
  } catch {
    return { ok: false, error: { code: 'import_invalid', message: 'The file could not be read. Choose it again, or copy it somewhere local first.' } };
  }
  return importFromText(repository, text, { ...options, sizeBytes: file.size });
}

/** As `importFromFile`, for text already in memory (e.g. pasted). */
export async function importFromText(
  repository: Pick<Repository, 'importBatch'>,
  text: string,
  options: ImportOptions & { sizeBytes?: number } = {},
): Promise<ImportOutcome> {
  const parsed = parseImport(text, { importedAt: options.now ?? Date.now(), sizeBytes: options.sizeBytes });
  if (!parsed.ok) return parsed;
  try {
    return { ok: true, value: await repository.importBatch(parsed.value) };
  } catch (error) {
    const failure = toStorageError(error, 'import the conversations');
    return { ok: false, error: { code: failure.code, message: failure.message } };
  }
}

/**
 * The Windowpane JSON export of the given conversations (all when `ids` is omitted);
 * `withImages` carries the images their messages refer to, bytes and all.
 */
export async function exportJsonText(
  repository: Pick<Repository, 'readForExport' | 'listFiles'>,
  ids?: readonly string[],
  exportedAt: number = Date.now(),
  withImages = false,
): Promise<string> {
  const records = await repository.readForExport(ids);
  if (!withImages) return exportToJson(records, exportedAt);
  const files: ExportedFile[] = [];
  for (const record of await repository.listFiles(records.map((r) => r.conversation.id))) {
    const { id, conversationId, name, mediaType, bytes, createdAt } = record;
    files.push({ id, conversationId, name, mediaType, bytes, createdAt, data: await blobToBase64(record.blob) });
  }
  return exportToJson(records, exportedAt, files);
}

/** The Markdown transcript of the given conversations (all when `ids` is omitted). */
export async function exportMarkdownText(
  repository: Pick<Repository, 'readForExport'>,
  ids?: readonly string[],
  options?: MarkdownExportOptions,
): Promise<string> {
  return exportToMarkdown(await repository.readForExport(ids), options);
}
