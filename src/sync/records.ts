/**
 * What travels for each record, and the rules that merge two versions of it. Every rule is
 * a pure function of the versions alone, so each device, whatever order versions reach it
 * in, ends with the same record:
 *
 * - a **message** is immutable once finished; versions differ only in `pinned`, and the
 *   later pin stamp wins. Two devices answering or editing the same message made two
 *   different messages (siblings in the tree), so nothing there can conflict.
 * - a **conversation**'s title, shown branch and settings each carry a stamp (time, then
 *   device id to break ties): each field takes the later one. A deletion carries a stamp
 *   and the ids of the messages the deleting device had; it wins unless a field was changed
 *   after it (`isDeleted`) or a message it did not know exists (`deletionStands`), and then
 *   the conversation is kept whole on every device.
 * - the **settings** record merges field by field the same way.
 * - **files** and **attachments** never change once written.
 */
import type { Conversation } from '../core';
import { hashString, readStoredConversation, readStoredMessage } from '../core';
import type { AttachmentRecord, FileRecord, PortableConversation, PortableMessage } from '../persistence';

/** When and where a field was last set: epoch ms, then the device id for ties. */
export type Stamp = readonly [time: number, device: string];

export const NO_STAMP: Stamp = [0, ''];

export function compareStamps(a: Stamp, b: Stamp): number {
  if (a[0] !== b[0]) return a[0] < b[0] ? -1 : 1;
  return a[1] < b[1] ? -1 : a[1] > b[1] ? 1 : 0;
}

const laterOf = (a: Stamp, b: Stamp) => (compareStamps(a, b) >= 0 ? a : b);

/** The conversation fields a user changes, each merged on its own. */
export const CONVERSATION_FIELDS = ['title', 'activeLeafId', 'overrides'] as const;
export type ConversationField = (typeof CONVERSATION_FIELDS)[number];

export interface ConversationPayload {
  kind: 'conversation';
  conversation: PortableConversation;
  stamps: Record<ConversationField, Stamp>;
  /** Present when the conversation was deleted: when, and the messages the deleting device had. */
  deleted?: { stamp: Stamp; known: string[] };
}

export interface MessagePayload {
  kind: 'message';
  message: PortableMessage;
  /** When `pinned` was last set. */
  stamp: Stamp;
}

export interface AttachmentPayload {
  kind: 'attachment';
  attachment: AttachmentRecord;
}

/** A file's facts; its bytes travel encrypted in the chunk documents named in order. */
export interface FilePayload {
  kind: 'file';
  file: Omit<FileRecord, 'blob'>;
  chunks: string[];
}

export interface SettingsPayload {
  kind: 'settings';
  settings: Record<string, unknown>;
  stamps: Record<string, Stamp>;
}

export type RecordPayload = ConversationPayload | MessagePayload | AttachmentPayload | FilePayload | SettingsPayload;

/** The key a record is known by before it becomes a document id (see crypto.ts `docIdOf`). */
export const recordKey = {
  conversation: (id: string) => `c:${id}`,
  message: (id: string) => `m:${id}`,
  attachment: (id: string) => `a:${id}`,
  file: (id: string) => `f:${id}`,
  chunk: (fileId: string, index: number) => `f:${fileId}:${index}`,
  settings: () => 's:settings',
};

export function keyOf(payload: RecordPayload): string {
  switch (payload.kind) {
    case 'conversation':
      return recordKey.conversation(payload.conversation.id);
    case 'message':
      return recordKey.message(payload.message.id);
    case 'attachment':
      return recordKey.attachment(payload.attachment.id);
    case 'file':
      return recordKey.file(payload.file.id);
    case 'settings':
      return recordKey.settings();
  }
}

/** A stable text of a value: object keys sorted, so equal records hash equal whichever device wrote them. */
export function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (value && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonical(v)}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

export function mergeMessages(a: MessagePayload, b: MessagePayload): MessagePayload {
  return compareStamps(a.stamp, b.stamp) >= 0 ? a : b;
}

export function mergeConversations(a: ConversationPayload, b: ConversationPayload): ConversationPayload {
  const stamps = {} as Record<ConversationField, Stamp>;
  const conversation: PortableConversation = {
    ...a.conversation,
    createdAt: Math.min(a.conversation.createdAt, b.conversation.createdAt),
    updatedAt: Math.max(a.conversation.updatedAt, b.conversation.updatedAt),
  };
  for (const field of CONVERSATION_FIELDS) {
    const fromB = compareStamps(b.stamps[field], a.stamps[field]) > 0;
    stamps[field] = laterOf(a.stamps[field], b.stamps[field]);
    const value = (fromB ? b : a).conversation[field];
    if (value === undefined) delete conversation[field];
    else (conversation as Record<ConversationField, unknown>)[field] = value;
  }
  if (conversation.source === undefined && b.conversation.source !== undefined) conversation.source = b.conversation.source;
  const merged: ConversationPayload = { kind: 'conversation', conversation, stamps };
  // Deletions are kept whatever the fields say (see `isDeleted`), so merging stays order-free.
  if (a.deleted || b.deleted) {
    const stamp = [a.deleted?.stamp, b.deleted?.stamp].filter((s) => s !== undefined).reduce((x, y) => laterOf(x, y));
    merged.deleted = { stamp, known: [...new Set([...(a.deleted?.known ?? []), ...(b.deleted?.known ?? [])])].sort() };
  }
  return merged;
}

/**
 * Whether a conversation is deleted: its latest deletion is later than every field's last
 * change. A field set after it means a device went on with the conversation without seeing
 * the deletion; then the conversation stays.
 */
export function isDeleted(payload: ConversationPayload): boolean {
  const deleted = payload.deleted;
  return deleted !== undefined && CONVERSATION_FIELDS.every((field) => compareStamps(payload.stamps[field], deleted.stamp) < 0);
}

/** Settings merge field by field; a field only one side has is kept. */
export function mergeSettings(a: SettingsPayload, b: SettingsPayload): SettingsPayload {
  const settings: Record<string, unknown> = {};
  const stamps: Record<string, Stamp> = {};
  for (const field of new Set([...Object.keys(a.stamps), ...Object.keys(b.stamps)])) {
    const sa = a.stamps[field] ?? NO_STAMP;
    const sb = b.stamps[field] ?? NO_STAMP;
    const from = compareStamps(sb, sa) > 0 ? b : a;
    stamps[field] = laterOf(sa, sb);
    if (from.settings[field] !== undefined) settings[field] = from.settings[field];
  }
  return { kind: 'settings', settings, stamps };
}

/** Merges two versions of the same record; versions of different kinds keep `a`. */
export function mergePayloads<P extends RecordPayload>(a: P, b: P): P {
  if (a.kind === 'message' && b.kind === 'message') return mergeMessages(a, b) as P;
  if (a.kind === 'conversation' && b.kind === 'conversation') return mergeConversations(a, b) as P;
  if (a.kind === 'settings' && b.kind === 'settings') return mergeSettings(a, b) as P;
  return a;
}

/**
 * Whether a conversation's deletion stands against the messages a device holds: only when
 * the deleting device knew every one of them. Otherwise the conversation is kept, with every
 * message, on every device.
 */
export function deletionStands(deleted: NonNullable<ConversationPayload['deleted']>, messageIds: Iterable<string>): boolean {
  const known = new Set(deleted.known);
  for (const id of messageIds) if (!known.has(id)) return false;
  return true;
}

/** The fingerprint of each field a user changes, as remembered once it is synced. */
export function conversationValues(payload: ConversationPayload): Record<string, string> {
  const values: Record<string, string> = {};
  for (const field of CONVERSATION_FIELDS) values[field] = fingerprint(payload.conversation[field]);
  return values;
}

/**
 * Whether two reads of a conversation hold the same of what a tab changes (title, shown
 * branch, settings, last activity): the count and the order of reading do not matter. Raw
 * stored values are read as the app reads them, so a repaired record compares as read.
 */
export function sameConversation(a: unknown, b: unknown): boolean {
  const view = (value: unknown) => {
    const c = value === undefined ? undefined : readStoredConversation(value)?.conversation;
    return c && canonical([c.title, c.activeLeafId ?? null, c.overrides ?? null, c.updatedAt]);
  };
  return view(a) === view(b);
}

/** Whether two reads of a message are the same record, whatever its place (`seq`) on this device. */
export function sameMessage(a: unknown, b: unknown): boolean {
  const view = (value: unknown) => {
    const m = value === undefined ? undefined : readStoredMessage(value);
    return m && canonical({ ...m, seq: undefined });
  };
  return view(a) === view(b);
}

/** What is kept of a field's value as last synced: enough to tell it changed, never the value again. */
export const fingerprint = (value: unknown): string => hashString(canonical(value));

/**
 * The stamps of `next`'s fields that differ from what was last synced (`previous`), set to
 * `now`; `values` are their fingerprints, kept for the next time.
 */
export function restamp<F extends string>(
  fields: readonly F[],
  next: Record<F, unknown>,
  previous: { values: Record<string, string>; stamps: Record<string, Stamp> } | undefined,
  now: Stamp,
): { stamps: Record<F, Stamp>; values: Record<F, string> } {
  const stamps = {} as Record<F, Stamp>;
  const values = {} as Record<F, string>;
  for (const field of fields) {
    const value = canonical(next[field]);
    values[field] = hashString(value);
    const before = previous?.stamps[field];
    // Earlier versions kept the value itself: it still tells whether the field changed.
    const kept = previous?.values[field];
    stamps[field] = before && (kept === values[field] || kept === value) ? before : now;
  }
  return { stamps, values };
}

const isStamp = (v: unknown): v is Stamp => Array.isArray(v) && v.length === 2 && typeof v[0] === 'number' && Number.isFinite(v[0]) && typeof v[1] === 'string';
const isStampMap = (v: unknown): v is Record<string, Stamp> => typeof v === 'object' && v !== null && !Array.isArray(v) && Object.values(v).every(isStamp);
const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const isString = (v: unknown): v is string => typeof v === 'string';

/**
 * Checks a decrypted payload like an imported file: another version of the app (with the
 * passphrase) may have written it. Undefined when this version cannot use it.
 */
export function readPayload(value: unknown): RecordPayload | undefined {
  if (!isObject(value)) return undefined;
  switch (value.kind) {
    case 'message': {
      const message = value.message;
      if (!isStamp(value.stamp) || !isObject(message)) return undefined;
      // What it cannot use refuses the record; a bad fact it can do without (a thinking time, say) is left out.
      const read = readStoredMessage({ ...message, seq: 0 });
      if (!read) return undefined;
      const { seq: _seq, ...portable } = read;
      return { kind: 'message', message: portable, stamp: value.stamp };
    }
    case 'conversation': {
      const read = readStoredConversation({ ...(value.conversation as object), messageCount: 0 });
      if (!read || read.repaired || !isStampMap(value.stamps) || !CONVERSATION_FIELDS.every((f) => isStamp((value.stamps as Record<string, unknown>)[f])))
        return undefined;
      const { messageCount: _count, ...conversation } = read.conversation as Conversation;
      const payload: ConversationPayload = { kind: 'conversation', conversation, stamps: value.stamps as Record<ConversationField, Stamp> };
      const deleted = value.deleted;
      if (deleted !== undefined) {
        if (!isObject(deleted) || !isStamp(deleted.stamp) || !Array.isArray(deleted.known) || !deleted.known.every(isString)) return undefined;
        payload.deleted = { stamp: deleted.stamp, known: deleted.known };
      }
      return payload;
    }
    case 'attachment': {
      const a = value.attachment;
      if (!isObject(a) || !isString(a.id) || !isString(a.conversationId) || !isString(a.name) || !isString(a.text) || typeof a.createdAt !== 'number')
        return undefined;
      return { kind: 'attachment', attachment: { id: a.id, conversationId: a.conversationId, name: a.name, text: a.text, createdAt: a.createdAt } };
    }
    case 'file': {
      const f = value.file;
      if (!isObject(f) || !isString(f.id) || !isString(f.conversationId) || !isString(f.name) || !isString(f.mediaType)) return undefined;
      if (typeof f.bytes !== 'number' || typeof f.createdAt !== 'number' || !Array.isArray(value.chunks) || !value.chunks.every(isString)) return undefined;
      if (f.pageTexts !== undefined && !(Array.isArray(f.pageTexts) && f.pageTexts.every(isString))) return undefined;
      const file: FilePayload['file'] = {
        id: f.id,
        conversationId: f.conversationId,
        name: f.name,
        mediaType: f.mediaType,
        bytes: f.bytes,
        createdAt: f.createdAt,
      };
      if (f.pageTexts) file.pageTexts = f.pageTexts as string[];
      return { kind: 'file', file, chunks: value.chunks as string[] };
    }
    case 'settings':
      if (!isObject(value.settings) || !isStampMap(value.stamps)) return undefined;
      return { kind: 'settings', settings: value.settings, stamps: value.stamps };
    default:
      return undefined;
  }
}
