/**
 * Reads an import file's text: a JSON file as it is, or each `conversations.json` inside a
 * ChatGPT or Claude data export `.zip`. Both are read in chunks, so progress can be shown
 * and a Cancel is seen between chunks, and a zip is never held whole: the archive streams
 * through fflate and only the entries wanted are inflated, their unpacked size counted as it
 * grows, so a zip bomb is stopped at the limit instead of filling memory.
 */
import { Unzip, UnzipInflate } from 'fflate';
import { MAX_IMPORT_BYTES, checkImportSize, type ImportFailure } from '../core';

/** The parts of a File (or any Blob) an import reads: it is read in slices, never whole. */
export interface ImportFile {
  size: number;
  slice(start?: number, end?: number): { arrayBuffer(): Promise<ArrayBuffer> };
}

/** One text to import, named as in the archive (or the file's own name). */
export interface ImportText {
  name: string;
  text: string;
  /** Its size in bytes (UTF-8). */
  bytes: number;
}

export type ImportTextsResult = { ok: true; texts: ImportText[] } | { ok: false; error: ImportFailure };

export interface ReadProgress {
  phase: 'reading' | 'unpacking';
  /** Bytes of the file read so far. */
  done: number;
  total: number;
}

export interface ReadImportOptions {
  signal?: AbortSignal;
  onProgress?: (progress: ReadProgress) => void;
  /** Most bytes a zip's conversations.json files may unpack to together; defaults to `MAX_IMPORT_BYTES`. */
  maxUnpackedBytes?: number;
}

/** What the data exports of ChatGPT and Claude name their conversations; a folder around it is fine. */
const CONVERSATIONS_ENTRY = /(^|\/)conversations\.json$/i;
/** Small enough that one chunk can never inflate to much past the limit (deflate expands at most ~1,032 times). */
const ZIP_CHUNK = 64 * 1024;
const TEXT_CHUNK = 4 * 1024 * 1024;

/** Thrown (and caught below) when reading stops early. */
class ReadStopped extends Error {
  constructor(readonly failure: ImportFailure | 'cancelled') {
    super(typeof failure === 'string' ? failure : failure.message);
  }
}

function invalid(message: string): ImportFailure {
  return { code: 'import_invalid', message };
}

function mb(bytes: number): string {
  return `${Math.round((bytes / (1024 * 1024)) * 10) / 10} MB`;
}

/** True when `blob` starts with a zip's local file header. */
async function isZip(blob: ImportFile): Promise<boolean> {
  const head = new Uint8Array(await blob.slice(0, 4).arrayBuffer());
  return head[0] === 0x50 && head[1] === 0x4b && head[2] === 0x03 && head[3] === 0x04;
}

/** Calls `each` with the file's bytes in order, `size` bytes at a time, stopping when `signal` aborts. */
async function eachChunk(blob: ImportFile, size: number, signal: AbortSignal | undefined, each: (bytes: Uint8Array, end: number) => void): Promise<void> {
  for (let start = 0; start < blob.size; start += size) {
    if (signal?.aborted) throw new ReadStopped('cancelled');
    const end = Math.min(blob.size, start + size);
    each(new Uint8Array(await blob.slice(start, end).arrayBuffer()), end);
  }
}

/**
 * The texts to import from `file`: its own text, or each conversations.json of a zip.
 * Undefined when the read was cancelled. Fails for a JSON file over `MAX_IMPORT_BYTES`
 * (by its size, unread), a file that cannot be read, a zip that is damaged, holds no
 * conversations.json or unpacks past the limit.
 */
export async function readImportTexts(file: ImportFile, options: ReadImportOptions = {}): Promise<ImportTextsResult | undefined> {
  try {
    return (await isZip(file)) ? await unzipConversations(file, options) : await readText(file, options);
  } catch (error) {
    if (error instanceof ReadStopped) return error.failure === 'cancelled' ? undefined : { ok: false, error: error.failure };
    return { ok: false, error: invalid('The file could not be read. Choose it again, or copy it somewhere local first.') };
  }
}

async function readText(file: ImportFile, options: ReadImportOptions): Promise<ImportTextsResult> {
  const tooLarge = checkImportSize(file.size);
  if (tooLarge) return { ok: false, error: tooLarge };
  const decoder = new TextDecoder();
  const parts: string[] = [];
  await eachChunk(file, TEXT_CHUNK, options.signal, (bytes, end) => {
    parts.push(decoder.decode(bytes, { stream: true }));
    options.onProgress?.({ phase: 'reading', done: end, total: file.size });
  });
  parts.push(decoder.decode());
  return { ok: true, texts: [{ name: '', text: parts.join(''), bytes: file.size }] };
}

async function unzipConversations(file: ImportFile, options: ReadImportOptions): Promise<ImportTextsResult> {
  const limit = options.maxUnpackedBytes ?? MAX_IMPORT_BYTES;
  const texts: ImportText[] = [];
  let unpacked = 0;
  let unfinished = 0;
  let failure: ImportFailure | undefined;
  const unzip = new Unzip((entry) => {
    if (!CONVERSATIONS_ENTRY.test(entry.name) || entry.name.startsWith('__MACOSX/')) return;
    // A size the archive states is checked before inflating anything; the bytes are counted anyway, as it may lie.
    if (entry.originalSize !== undefined && unpacked + entry.originalSize > limit) {
      failure ??= tooLarge(limit);
      return;
    }
    const decoder = new TextDecoder();
    const parts: string[] = [];
    let bytes = 0;
    entry.ondata = (error, data, final) => {
      if (failure) return;
      if (error) {
        failure = invalid(`This .zip archive is damaged (${entry.name}: ${error.message}), so nothing was imported from it.`);
        return;
      }
      bytes += data.length;
      unpacked += data.length;
      if (unpacked > limit) {
        failure = tooLarge(limit);
        entry.terminate();
        return;
      }
      parts.push(decoder.decode(data, { stream: !final }));
      if (final) {
        unfinished--;
        texts.push({ name: entry.name, text: parts.join(''), bytes });
      }
    };
    try {
      unfinished++;
      entry.start();
    } catch (error) {
      failure ??= invalid(
        `${entry.name} in this .zip archive is compressed in a way Windowpane cannot unpack (${error instanceof Error ? error.message : 'unknown method'}).`,
      );
    }
  });
  unzip.register(UnzipInflate);
  try {
    await eachChunk(file, ZIP_CHUNK, options.signal, (bytes, end) => {
      unzip.push(bytes, end === file.size);
      if (failure) throw new ReadStopped(failure);
      options.onProgress?.({ phase: 'unpacking', done: end, total: file.size });
    });
  } catch (error) {
    if (error instanceof ReadStopped) throw error;
    throw new ReadStopped(
      invalid(`This .zip archive is damaged (${error instanceof Error ? error.message : String(error)}), so nothing was imported from it.`),
    );
  }
  if (failure) return { ok: false, error: failure };
  if (unfinished > 0)
    return { ok: false, error: invalid('This .zip archive ends early (it may not have finished downloading), so nothing was imported from it.') };
  if (texts.length === 0) {
    return {
      ok: false,
      error: invalid(
        'This .zip archive holds no conversations.json, so there is nothing to import. Choose the data export .zip from ChatGPT or Claude, ' +
          'or a Windowpane JSON export.',
      ),
    };
  }
  return { ok: true, texts };
}

function tooLarge(limit: number): ImportFailure {
  return {
    code: 'import_too_large',
    message: `The conversations in this .zip archive unpack to more than ${mb(limit)}; Windowpane imports up to ${mb(limit)} at a time, so nothing was imported. Export fewer conversations at a time and import each file.`,
  };
}
