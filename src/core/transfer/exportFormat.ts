/**
 * The shapes shared by export and import: one conversation with its messages, the
 * Windowpane file format, and the result an import parser returns.
 */
import type { Conversation, StoredMessage } from '../conversation';

/** One conversation and all of its stored messages (every branch), ordered by `seq`. */
export interface ConversationRecords {
  conversation: Conversation;
  messages: StoredMessage[];
  /** Images its messages refer to, when the file carries them (a Windowpane export with images). */
  files?: ExportedFile[];
}

/** The `format` tag of a Windowpane JSON export. */
export const WINDOWPANE_EXPORT_FORMAT = 'windowpane';

/**
 * The version of the Windowpane JSON export this code writes; it reads this one and every
 * older one. Raise it only with a reader for every older version.
 *
 * - 1: conversations were linear; messages have no `parentId`, each follows the one before.
 * - 2: conversations are trees: every message names its `parentId` (null for a first
 *   message), and a conversation names its `activeLeafId` when one is set.
 */
export const WINDOWPANE_EXPORT_VERSION = 2;

/** A Windowpane JSON export: full fidelity, re-importable without loss. */
export interface WindowpaneExport {
  format: typeof WINDOWPANE_EXPORT_FORMAT;
  version: typeof WINDOWPANE_EXPORT_VERSION;
  /** When the file was written, epoch milliseconds. */
  exportedAt: number;
  conversations: ConversationRecords[];
  /** The images the messages refer to, when the export was asked to carry them (a complete backup). */
  files?: ExportedFile[];
}

/** An image carried in an export: its record, and its bytes in base64. */
export interface ExportedFile {
  id: string;
  conversationId: string;
  name: string;
  mediaType: string;
  /** Bytes of the file (what `data` decodes to). */
  bytes: number;
  createdAt: number;
  data: string;
}

/**
 * Largest import file accepted, in bytes (200 MiB). Checked before the file is read or
 * parsed: a browser tab parsing a larger JSON document risks running out of memory.
 */
export const MAX_IMPORT_BYTES = 200 * 1024 * 1024;

/**
 * Most nesting of JSON arrays and objects: JSON nested 100,000 deep overflows the stack of
 * whatever reads it recursively. Refused with a message before anything is written.
 */
export const MAX_IMPORT_DEPTH = 200;

/** Where an imported file came from. */
export type ImportFormat = 'windowpane' | 'chatgpt' | 'claude';

/** A parsed import, ready to be written in one transaction. */
export interface ImportBatch {
  format: ImportFormat;
  /** One entry per conversation of the file, each holding all of its branches as one tree. */
  conversations: ConversationRecords[];
}

/** Why a file could not be imported; `message` is written for the user. */
export interface ImportFailure {
  code: 'import_invalid' | 'import_too_large';
  message: string;
}
