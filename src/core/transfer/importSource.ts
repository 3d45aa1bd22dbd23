/**
 * Importing a large export conversation by conversation: the file is checked as a whole
 * (JSON, a known format, some conversations) and then read one conversation at a time, so
 * a conversation that cannot be read is left out and named instead of refusing the other
 * 999, and the caller can write what is read in bounded batches as it goes.
 */
import type { ConversationRecords, ExportedFile, ImportFailure, ImportFormat } from './exportFormat';
import { readChatGptConversation } from './importChatGpt';
import { readClaudeConversation } from './importClaude';
import { filesByConversation, readWindowpaneEntry, windowpaneEntries } from './importWindowpane';
import { detectImportFormat, notAnExport, readImportJson, type ParseImportOptions } from './importChecks';
import { MalformedImport, isRecord } from './readJson';

/** A conversation of the file that was left out, and why. */
export interface ConversationFailure {
  /** Its place in the file, counting from 1. */
  position: number;
  /** Its title as the file gives it, else "conversation N". */
  title: string;
  /** What is wrong, naming the field (e.g. `conversation 3.mapping should be an object, but is a list`). */
  reason: string;
}

export type ConversationRead = { ok: true; records: ConversationRecords } | { ok: false; failure: ConversationFailure };

/** An export file opened for reading conversation by conversation. */
export interface ImportSource {
  format: ImportFormat;
  /** How many conversations the file lists. */
  count: number;
  /**
   * Converts conversation `index` (from 0). Never throws. The file's own copy of it is let
   * go once read, so memory falls as the import goes on; read each index once.
   */
  read(index: number): ConversationRead;
}

export type ImportSourceResult = { ok: true; value: ImportSource } | { ok: false; error: ImportFailure };

/**
 * Opens an export file's text (a Windowpane JSON export, or `conversations.json` from a
 * ChatGPT or Claude data export, bare or wrapped as `{ "conversations": [...] }`). Fails,
 * reading no conversation, for a file over 200 MiB, empty, not JSON, nested absurdly deep,
 * of an unknown format or holding no conversations.
 */
export function openImport(text: string, options: ParseImportOptions): ImportSourceResult {
  const json = readImportJson(text, options);
  return json.ok ? openImportData(json.data, options.importedAt) : json;
}

/** As `openImport`, for JSON already parsed. `importedAt` (epoch ms) stands in for times missing from a foreign export. */
export function openImportData(data: unknown, importedAt: number): ImportSourceResult {
  const format = detectImportFormat(data);
  if (format === undefined) return { ok: false, error: notAnExport(data) };
  let list: unknown[];
  let files = new Map<string, ExportedFile[]>();
  if (format === 'windowpane') {
    try {
      const entries = windowpaneEntries(data);
      if (!entries.ok) return entries;
      list = entries.value;
      files = filesByConversation(entries.files);
    } catch (error) {
      if (!(error instanceof MalformedImport)) throw error;
      return invalid(`This Windowpane export is damaged, so nothing was imported: ${error.message}.`);
    }
  } else {
    list = Array.isArray(data) ? data : ((data as { conversations: unknown[] }).conversations ?? []);
  }
  if (list.length === 0) return invalid('This export contains no conversations, so there is nothing to import.');
  const readOne =
    format === 'windowpane'
      ? (item: unknown, i: number) => withFiles(readWindowpaneEntry(item, i), files)
      : format === 'chatgpt'
        ? (item: unknown, i: number) => readChatGptConversation(item, i, importedAt)
        : (item: unknown, i: number) => readClaudeConversation(item, i, importedAt);
  return {
    ok: true,
    value: {
      format,
      count: list.length,
      read(index) {
        const item = list[index];
        list[index] = undefined;
        try {
          return { ok: true, records: readOne(item, index) };
        } catch (error) {
          // A reader's bug or an input no check foresaw is still a conversation left out, never an exception.
          const reason = error instanceof Error ? error.message.slice(0, 300) : String(error);
          return { ok: false, failure: { position: index + 1, title: sourceTitle(format, item, index), reason } };
        }
      },
    },
  };
}

/** `records` with the images the file carries for its conversation. */
function withFiles(records: ConversationRecords, files: ReadonlyMap<string, ExportedFile[]>): ConversationRecords {
  const own = files.get(records.conversation.id);
  return own ? { ...records, files: own } : records;
}

/** The title a file gives a conversation, read without trusting its shape. */
function sourceTitle(format: ImportFormat, item: unknown, index: number): string {
  const raw = isRecord(item)
    ? format === 'windowpane'
      ? isRecord(item.conversation)
        ? item.conversation.title
        : undefined
      : format === 'chatgpt'
        ? item.title
        : item.name
    : undefined;
  const title = typeof raw === 'string' ? raw.trim().slice(0, 120) : '';
  return title || `conversation ${index + 1}`;
}

/** Most conversations and messages one batch holds; a conversation larger than `messages` is a batch of its own. */
export interface BatchLimits {
  conversations: number;
  messages: number;
}

/** What one pass of `importBatches` hands over to be written in one transaction. */
export interface ImportBatchPlan {
  /** Whole conversations, each with every message. */
  conversations: ConversationRecords[];
  /** Each conversation's place in the file, counting from 1. */
  positions: number[];
  /** Conversations read since the previous batch that were left out. */
  failures: ConversationFailure[];
  /** How many of the file's conversations have been read once this batch is written. */
  through: number;
}

/**
 * The file's conversations in batches of at most `limits`, each conversation whole in one
 * batch. A conversation that cannot be read, or repeats an id already read (a conversation
 * listed twice, a message id in two places), is left out and reported in `failures`. The
 * last batch may hold no conversations, only failures. Lazy: a conversation is converted
 * only when its batch is asked for.
 */
export function* importBatches(source: ImportSource, limits: BatchLimits): Generator<ImportBatchPlan, void, undefined> {
  const conversationIds = new Set<string>();
  const messageIds = new Set<string>();
  let batch: ImportBatchPlan = { conversations: [], positions: [], failures: [], through: 0 };
  let messages = 0;
  for (let i = 0; i < source.count; i++) {
    const read = source.read(i);
    const records = read.ok ? read.records : undefined;
    const failure = read.ok ? repeatedId(records!, i, conversationIds, messageIds) : read.failure;
    if (
      records &&
      batch.conversations.length > 0 &&
      (batch.conversations.length >= limits.conversations || messages + records.messages.length > limits.messages)
    ) {
      yield batch;
      batch = { conversations: [], positions: [], failures: [], through: i };
      messages = 0;
    }
    batch.through = i + 1;
    if (failure) {
      batch.failures.push(failure);
      continue;
    }
    conversationIds.add(records!.conversation.id);
    for (const message of records!.messages) messageIds.add(message.id);
    batch.conversations.push(records!);
    batch.positions.push(i + 1);
    messages += records!.messages.length;
  }
  if (batch.conversations.length > 0 || batch.failures.length > 0) yield batch;
}

function repeatedId(
  records: ConversationRecords,
  index: number,
  conversationIds: ReadonlySet<string>,
  messageIds: ReadonlySet<string>,
): ConversationFailure | undefined {
  const failure = (reason: string) => ({ position: index + 1, title: records.conversation.title, reason });
  if (conversationIds.has(records.conversation.id)) return failure('the file lists this conversation twice');
  const own = new Set<string>();
  for (const message of records.messages) {
    if (messageIds.has(message.id) || own.has(message.id)) return failure(`its message "${message.id}" appears twice in the file`);
    own.add(message.id);
  }
  return undefined;
}

function invalid(message: string): { ok: false; error: ImportFailure } {
  return { ok: false, error: { code: 'import_invalid', message } };
}
