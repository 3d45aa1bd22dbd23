/**
 * How much room each conversation takes in IndexedDB. Browsers do not say what one record
 * costs on disk, so each record is sized as the UTF-8 length of its JSON: an estimate of
 * the stored size (the browser's own encoding, compression and indexes make the real one
 * differ), good for telling which conversations are large.
 */
import { readStoredConversation, utf8Bytes } from '../core';
import { withTransaction, type WindowpaneDb, type WindowpaneSchema } from './db';

/** One conversation's share of storage; sizes are estimates in bytes (see `recordBytes`). */
export interface ConversationStorage {
  id: string;
  title: string;
  /** Stored message records, summaries and every branch included. */
  messages: number;
  messageBytes: number;
  /** Text files attached and images sent. */
  attachments: number;
  attachmentBytes: number;
  updatedAt: number;
}

export interface StorageReport {
  /** Largest first (messages and attachments together), then most recently updated. */
  conversations: ConversationStorage[];
  /** All conversations' messages and attachments, in bytes (an estimate). */
  totalBytes: number;
}

/** Messages read per transaction: memory stays flat however long the history, and writes wait for one batch at most. */
const MESSAGE_BATCH = 500;
/** Attachments are up to 5 MB each, so far fewer are read at once. */
const ATTACHMENT_BATCH = 8;

/** An image's size: its bytes, and its other fields as JSON (a Blob has no JSON of its own). */
export function fileBytes(record: { blob: Blob; bytes: number }): number {
  return record.bytes + recordBytes({ ...record, blob: undefined });
}

/** A record's size as the UTF-8 length of its JSON: an estimate of what it takes in storage. */
export function recordBytes(record: unknown): number {
  return utf8Bytes(JSON.stringify(record) ?? '');
}

/**
 * Measures every conversation. Messages and attachments are read in batches by primary key,
 * each batch in a transaction of its own, so no more than one batch is held at once and a
 * save in another part of the app never waits for the whole measurement. Records written
 * while it runs may or may not be counted; records of no stored conversation are not.
 */
export async function measureStorage(db: WindowpaneDb): Promise<StorageReport> {
  const records = await withTransaction(db, ['conversations'], 'readonly', 'measure storage', (tx) => tx.store.getAll());
  const byId = new Map<string, ConversationStorage>();
  for (const record of records) {
    const conversation = readStoredConversation(record)?.conversation;
    if (!conversation) continue;
    const { id, title, updatedAt } = conversation;
    byId.set(id, { id, title, messages: 0, messageBytes: 0, attachments: 0, attachmentBytes: 0, updatedAt });
  }
  await eachBatch(db, 'messages', MESSAGE_BATCH, (message) => {
    const row = byId.get(message.conversationId);
    if (!row) return;
    row.messages++;
    row.messageBytes += recordBytes(message);
  });
  await eachBatch(db, 'attachments', ATTACHMENT_BATCH, (attachment) => {
    const row = byId.get(attachment.conversationId);
    if (!row) return;
    row.attachments++;
    row.attachmentBytes += recordBytes(attachment);
  });
  await eachBatch(db, 'files', ATTACHMENT_BATCH, (file) => {
    const row = byId.get(file.conversationId);
    if (!row) return;
    row.attachments++;
    row.attachmentBytes += fileBytes(file);
  });
  const conversations = [...byId.values()].sort((a, b) => sizeOf(b) - sizeOf(a) || b.updatedAt - a.updatedAt);
  return { conversations, totalBytes: conversations.reduce((sum, row) => sum + sizeOf(row), 0) };
}

function sizeOf(row: ConversationStorage): number {
  return row.messageBytes + row.attachmentBytes;
}

/** Hands every record of `store` to `visit`, `size` records per transaction, in primary-key order. */
async function eachBatch<Name extends 'messages' | 'attachments' | 'files'>(
  db: WindowpaneDb,
  store: Name,
  size: number,
  visit: (record: WindowpaneSchema[Name]['value']) => void,
): Promise<void> {
  let after: string | undefined;
  for (;;) {
    const range = after === undefined ? undefined : IDBKeyRange.lowerBound(after, true);
    const batch = await withTransaction(db, [store], 'readonly', 'measure storage', (tx) => tx.objectStore(store).getAll(range, size));
    for (const record of batch) visit(record);
    if (batch.length < size) return;
    after = batch.at(-1)!.id;
  }
}
