/**
 * Reads a Windowpane JSON export back into canonical records. Every field is checked;
 * the records built are exactly the exported ones (the round trip is property-tested).
 * Version 1 files, written before conversations had branches, come back as one branch.
 * Each conversation and message is read by `readRecords.ts`; what is here, the file's
 * header, its entries and the files it carries, only an import needs, so it loads with it.
 */
import { withExplicitParents } from '../branches';
import { IMAGE_MEDIA_TYPES } from '../tokens/imageTokens';
import { WINDOWPANE_EXPORT_FORMAT, WINDOWPANE_EXPORT_VERSION, type ConversationRecords, type ExportedFile, type ImportFailure } from './exportFormat';
import { MalformedImport, malformed, readArray, readFiniteNumber, readNonEmptyString, readOneOf, readRecord, readString } from './readJson';
import { readByteCount, readConversation, readMessage } from './readRecords';

/**
 * The images an export carries (its `files`, `[]` when absent), by conversation, each
 * checked; a damaged entry is left out (its message then says its file was deleted), so
 * one bad image never costs the conversations. Throws `MalformedImport` when `files` is
 * not a list.
 */
export function filesByConversation(raw: unknown, conversationIds?: ReadonlySet<string>): Map<string, ExportedFile[]> {
  const byConversation = new Map<string, ExportedFile[]>();
  if (raw === undefined) return byConversation;
  readArray(raw, 'files').forEach((entry, i) => {
    let file: ExportedFile;
    try {
      file = readExportedFile(entry, `files[${i}]`);
    } catch (error) {
      if (error instanceof MalformedImport) return;
      throw error;
    }
    if (conversationIds && !conversationIds.has(file.conversationId)) return;
    const list = byConversation.get(file.conversationId);
    if (list) list.push(file);
    else byConversation.set(file.conversationId, [file]);
  });
  return byConversation;
}

const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;
/** What an export's `files` may hold: the images and PDFs messages are sent with. */
const EXPORTED_FILE_TYPES: readonly string[] = [...IMAGE_MEDIA_TYPES, 'application/pdf'];

/** An image or PDF an export carries: its record, and base64 bytes that decode to exactly `bytes`. */
function readExportedFile(value: unknown, path: string): ExportedFile {
  const raw = readRecord(value, path);
  const conversationId = readNonEmptyString(raw.conversationId, `${path}.conversationId`);
  const data = readString(raw.data, `${path}.data`);
  const bytes = readByteCount(raw.bytes, `${path}.bytes`);
  const padding = data.endsWith('==') ? 2 : data.endsWith('=') ? 1 : 0;
  if (data.length % 4 !== 0 || !BASE64.test(data) || (data.length / 4) * 3 - padding !== bytes) {
    malformed(`${path}.data`, `the file's ${bytes} bytes in base64`, `${data.slice(0, 12)}…`);
  }
  return {
    id: readNonEmptyString(raw.id, `${path}.id`),
    conversationId,
    name: readString(raw.name, `${path}.name`),
    mediaType: readOneOf(raw.mediaType, EXPORTED_FILE_TYPES, `${path}.mediaType`),
    bytes,
    createdAt: readFiniteNumber(raw.createdAt, `${path}.createdAt`),
    data,
  };
}

/**
 * The conversation entries of a Windowpane export, once its header (format, version,
 * `exportedAt`) is checked: a failure for a file from a newer Windowpane; throws
 * `MalformedImport` for a damaged header.
 */
export function windowpaneEntries(data: unknown): { ok: true; value: unknown[]; files: unknown } | { ok: false; error: ImportFailure } {
  const file = readRecord(data, 'the file');
  if (file.format !== WINDOWPANE_EXPORT_FORMAT) malformed('format', `"${WINDOWPANE_EXPORT_FORMAT}"`, file.format);
  if (typeof file.version === 'number' && file.version > WINDOWPANE_EXPORT_VERSION) {
    return invalid(
      `This file was exported by a newer Windowpane (format version ${file.version}); this one reads version ` +
        `${WINDOWPANE_EXPORT_VERSION}. Update Windowpane, then import it again.`,
    );
  }
  if (typeof file.version !== 'number' || !Number.isInteger(file.version) || file.version < 1) {
    malformed('version', `a version number from 1 to ${WINDOWPANE_EXPORT_VERSION}`, file.version);
  }
  readFiniteNumber(file.exportedAt, 'exportedAt');
  return { ok: true, value: readArray(file.conversations, 'conversations'), files: file.files };
}

/**
 * One entry (`index` counts from 0) of a Windowpane export's `conversations`: the
 * conversation and its messages, each checked, ordered by `seq`, with parents written out.
 * Throws `MalformedImport` naming the first bad field; ids repeated across entries are
 * the caller's to find.
 */
export function readWindowpaneEntry(item: unknown, index: number): ConversationRecords {
  const path = `conversations[${index}]`;
  const entry = readRecord(item, path);
  const conversation = readConversation(entry.conversation, `${path}.conversation`);
  const messages = readArray(entry.messages, `${path}.messages`).map((raw, j) => {
    const messagePath = `${path}.messages[${j}]`;
    const message = readMessage(raw, messagePath);
    if (message.conversationId !== conversation.id) {
      malformed(`${messagePath}.conversationId`, `"${conversation.id}" (its conversation's id)`, message.conversationId);
    }
    return message;
  });
  const ids = new Set(messages.map((m) => m.id));
  messages.forEach((message, j) => {
    if (typeof message.parentId === 'string' && !ids.has(message.parentId)) {
      throw new MalformedImport(
        `${path}.messages[${j}].parentId`,
        `${path}.messages[${j}].parentId names "${message.parentId}", which is not a message of the same conversation`,
      );
    }
  });
  if (conversation.activeLeafId !== undefined && !ids.has(conversation.activeLeafId)) delete conversation.activeLeafId;
  messages.sort((a, b) => a.seq - b.seq);
  conversation.messageCount = messages.length;
  return { conversation, messages: withExplicitParents(messages) };
}

function invalid(message: string): { ok: false; error: ImportFailure } {
  return { ok: false, error: { code: 'import_invalid', message } };
}
