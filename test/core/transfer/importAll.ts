// A file's text through the path the app imports by (openImport, then importBatches), read
// to the end, for tests that look at what a file turns into.
import {
  importBatches,
  openImport,
  type ConversationFailure,
  type ConversationRecords,
  type ImportFailure,
  type ImportFormat,
  type ParseImportOptions,
} from '../../../src/core';

export type ImportAll =
  { ok: true; value: { format: ImportFormat; conversations: ConversationRecords[]; failures: ConversationFailure[] } } | { ok: false; error: ImportFailure };

/** Every conversation the file yields and every one left out, or why the whole file was refused. */
export function importAll(text: string, options: ParseImportOptions = { importedAt: 0 }): ImportAll {
  const opened = openImport(text, options);
  if (!opened.ok) return opened;
  const batches = [...importBatches(opened.value, { conversations: Infinity, messages: Infinity })];
  return {
    ok: true,
    value: { format: opened.value.format, conversations: batches.flatMap((b) => b.conversations), failures: batches.flatMap((b) => b.failures) },
  };
}

/** The file's conversations, when every one of them could be read; else throws naming the first problem. */
export function importEvery(text: string, options?: ParseImportOptions): { format: ImportFormat; conversations: ConversationRecords[] } {
  const result = importAll(text, options);
  if (!result.ok) throw new Error(result.error.message);
  const [failure] = result.value.failures;
  if (failure) throw new Error(`conversation ${failure.position} was left out: ${failure.reason}`);
  return { format: result.value.format, conversations: result.value.conversations };
}
