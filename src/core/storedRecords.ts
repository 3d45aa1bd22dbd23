/**
 * Records read back from IndexedDB are outside input too: another version of Windowpane,
 * a sync or a hand edit may have written them. These checks use the same readers as the
 * Windowpane import, so a record the app can export is one it can read back.
 */
import type { Conversation, StoredMessage } from './conversation';
import { readConversation, readMessage } from './transfer/readRecords';
import { MalformedImport } from './transfer/readJson';

/** Why a stored message cannot be used, or undefined when it can. Never throws. */
export function storedMessageProblem(value: unknown): string | undefined {
  try {
    readMessage(value, 'message');
    return undefined;
  } catch (error) {
    if (error instanceof MalformedImport) return error.message;
    return error instanceof Error ? error.message : String(error);
  }
}

/**
 * A stored message as the app can use it: undefined when it cannot (see
 * `storedMessageProblem`); else the record itself, or, when one of the facts read as
 * untrusted (`thinkingPrefix`, `thinkingMs`, `usage.reasoningTokens`, `contextEdits`) is not valid, a copy
 * without it. Everything else, `status` included, is the record's own; it is never changed.
 */
export function readStoredMessage(value: unknown): StoredMessage | undefined {
  let read: StoredMessage;
  try {
    read = readMessage(value, 'message');
  } catch {
    return undefined;
  }
  const record = value as StoredMessage;
  const usageOk = record.usage?.reasoningTokens === read.usage?.reasoningTokens;
  const editsOk = JSON.stringify(record.contextEdits) === JSON.stringify(read.contextEdits);
  if (record.thinkingPrefix === read.thinkingPrefix && record.thinkingMs === read.thinkingMs && usageOk && editsOk) return record;
  const copy: StoredMessage = { ...record, contextEdits: read.contextEdits };
  if (!read.contextEdits) delete copy.contextEdits;
  for (const key of ['thinkingPrefix', 'thinkingMs'] as const) {
    if (read[key] === undefined) delete copy[key];
  }
  if (!usageOk) copy.usage = read.usage;
  return copy;
}

const finite = (value: unknown, fallback: number) => (typeof value === 'number' && Number.isFinite(value) ? value : fallback);

/**
 * A stored conversation as the app can show it: the record itself when it is valid, else a
 * copy with each bad field replaced (a title that is not text becomes "Untitled
 * conversation", bad times and counts 0) and `repaired` set; undefined only when it has no
 * id to find its messages by. The stored record is never changed.
 */
export function readStoredConversation(value: unknown): { conversation: Conversation; repaired: boolean } | undefined {
  try {
    readConversation(value, 'conversation');
    return { conversation: value as Conversation, repaired: false };
  } catch {
    if (typeof value !== 'object' || value === null) return undefined;
    const raw = value as Record<string, unknown>;
    if (typeof raw.id !== 'string' || raw.id === '') return undefined;
    const conversation: Conversation = {
      id: raw.id,
      title: typeof raw.title === 'string' ? raw.title : 'Untitled conversation',
      createdAt: finite(raw.createdAt, 0),
      updatedAt: finite(raw.updatedAt, 0),
      messageCount: finite(raw.messageCount, 0),
    };
    if (typeof raw.activeLeafId === 'string' && raw.activeLeafId !== '') conversation.activeLeafId = raw.activeLeafId;
    if (typeof raw.overrides === 'object' && raw.overrides !== null) conversation.overrides = raw.overrides as Record<string, unknown>;
    const source = raw.source as Record<string, unknown> | undefined;
    if (source && typeof source.kind === 'string' && typeof source.id === 'string') conversation.source = source as unknown as Conversation['source'];
    return { conversation, repaired: true };
  }
}
