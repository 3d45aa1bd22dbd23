/**
 * What every import checks on a file's text before reading any conversation: its size, that
 * it is JSON nested no deeper than any export, and which export it is. Always returns; bad
 * input is an `ImportFailure` with a message the user can act on.
 */
import { MAX_IMPORT_BYTES, MAX_IMPORT_DEPTH, WINDOWPANE_EXPORT_FORMAT, type ImportFailure, type ImportFormat } from './exportFormat';
import { isRecord } from './readJson';

/** What `openImport` needs besides the text. */
export interface ParseImportOptions {
  /** Epoch ms of the import; stands in for times missing from a foreign export. */
  importedAt: number;
  /** The file's size in bytes when known (`File.size`); else the text's length is used. */
  sizeBytes?: number;
}

/**
 * A failure when a file of `sizeBytes` is over `MAX_IMPORT_BYTES` (200 MiB), else
 * undefined. Call it before reading the file, so an oversized file is never loaded.
 */
export function checkImportSize(sizeBytes: number): ImportFailure | undefined {
  if (sizeBytes <= MAX_IMPORT_BYTES) return undefined;
  const mb = (bytes: number) => `${Math.round((bytes / (1024 * 1024)) * 10) / 10} MB`;
  return {
    code: 'import_too_large',
    message:
      `This file is ${mb(sizeBytes)}; Windowpane imports files up to ${mb(MAX_IMPORT_BYTES)}. ` + 'Export fewer conversations at a time and import each file.',
  };
}

/** Which export `data` (parsed JSON) looks like, or undefined when none. */
export function detectImportFormat(data: unknown): ImportFormat | undefined {
  if (isRecord(data) && data.format === WINDOWPANE_EXPORT_FORMAT) return 'windowpane';
  const list = Array.isArray(data) ? data : isRecord(data) && Array.isArray(data.conversations) ? data.conversations : undefined;
  const first = list?.find(isRecord);
  if (first && 'mapping' in first) return 'chatgpt';
  if (first && 'chat_messages' in first) return 'claude';
  return undefined;
}

/**
 * The checks every import makes on a file's text before reading any conversation: size,
 * emptiness, nesting depth, then `JSON.parse`. A UTF-8 byte-order mark is skipped.
 */
export function readImportJson(
  text: string,
  options: Pick<ParseImportOptions, 'sizeBytes'>,
): { ok: true; data: unknown } | { ok: false; error: ImportFailure } {
  const tooLarge = checkImportSize(options.sizeBytes ?? text.length);
  if (tooLarge) return { ok: false, error: tooLarge };
  const body = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
  if (body.trim() === '') return invalid('The file is empty. Choose a Windowpane JSON export or a conversations.json file.');
  // Checked on the text, before JSON.parse or anything else that recurses can overflow.
  if (jsonDepthExceeds(body, MAX_IMPORT_DEPTH)) {
    return invalid(`This file nests its data more than ${MAX_IMPORT_DEPTH} levels deep, which no export does, so nothing was imported.`);
  }
  try {
    return { ok: true, data: JSON.parse(body) };
  } catch (error) {
    const reason = error instanceof Error ? ` (${error.message})` : '';
    return invalid(`This file is not valid JSON${reason}; it may be truncated or not an export.`);
  }
}

/** The message for parsed JSON that is no export Windowpane reads, or one listing no conversations. */
export function notAnExport(data: unknown): ImportFailure {
  const list = Array.isArray(data) ? data : isRecord(data) && Array.isArray(data.conversations) ? data.conversations : undefined;
  return {
    code: 'import_invalid',
    message:
      list?.length === 0
        ? 'This export contains no conversations, so there is nothing to import.'
        : "This file isn't a format Windowpane can import. Choose a Windowpane JSON export, or conversations.json " + 'from a ChatGPT or Claude data export.',
  };
}

/**
 * Whether JSON `text` nests arrays and objects deeper than `limit`, in one pass that skips
 * strings. Malformed text is left for JSON.parse to report.
 */
export function jsonDepthExceeds(text: string, limit: number): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (inString) {
      if (code === 92 /* \\ */) i++;
      else if (code === 34 /* " */) inString = false;
    } else if (code === 34) inString = true;
    else if (code === 91 /* [ */ || code === 123 /* { */) {
      if (++depth > limit) return true;
    } else if (code === 93 /* ] */ || code === 125 /* } */) depth--;
  }
  return false;
}

function invalid(message: string): { ok: false; error: ImportFailure } {
  return { ok: false, error: { code: 'import_invalid', message } };
}
