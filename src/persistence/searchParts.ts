/**
 * The search index's documents, kept in parts: each part a MiniSearch index of a group of
 * conversations (every message of one conversation in the same part), saved as one record,
 * so that a change saves its part alone and a reload can answer from the parts it has
 * loaded while it loads the others. searchIndex.ts loads, saves and queries them.
 */
import MiniSearch, { type Options } from 'minisearch';
import type { Conversation, StoredMessage } from '../core';
import { foldText, searchTokens, storedMessageProblem } from '../core';
import type { SearchIndexPartRecord, SearchIndexRecord } from './db';
import { bestMatches, matchingConversations } from './searchQuery';

export const TITLE_PREFIX = 'title\u0000';

export interface IndexedDocument {
  id: string;
  conversationId: string;
  text: string;
  createdAt: number;
}

export interface ConversationEntry {
  title: string;
  createdAt: number;
  updatedAt: number;
  messageIds: Set<string>;
  part: Part;
}

/** A part of the index: some conversations' documents, saved as one record under `key`. */
export interface Part {
  key: string;
  index: MiniSearch<IndexedDocument>;
  conversations: Set<string>;
  /** Documents it holds, or is expected to hold once its conversations' messages are read. */
  size: number;
  /** Changed since it was last saved. */
  dirty: boolean;
  /** What the list of parts says of it, as it was last saved. */
  saved?: SearchIndexRecord['parts'][number];
}

const INDEX_OPTIONS: Options<IndexedDocument> = {
  fields: ['text'],
  storeFields: ['conversationId', 'createdAt'],
  tokenize: (text) => searchTokens(text),
  processTerm: (term) => foldText(term) || null,
  searchOptions: { prefix: true, combineWith: 'AND' },
};

/** What is searched of a message: its text and its tool results. */
export function documentText(message: StoredMessage): string {
  const parts: string[] = [];
  for (const block of message.content) {
    if (block.type === 'text') parts.push(block.text);
    else if (block.type === 'tool_result' && typeof block.content === 'string') parts.push(block.content);
  }
  return parts.join('\n');
}

/** The parts and what they hold; `changed` is told of every change (the part is marked changed already). */
export interface IndexParts {
  /** In the order they were made: a conversation new to the index joins the last. */
  readonly parts: readonly Part[];
  /** Every conversation indexed, by id. */
  readonly conversations: ReadonlyMap<string, ConversationEntry>;
  /** Keys of saved parts dropped since (emptied or unreadable), for the next save to delete. */
  readonly removedKeys: Set<string>;
  /** `documents`: about how many documents a conversation new to the index will have (its messages and title). */
  putConversation(c: Conversation, documents?: number): ConversationEntry;
  removeConversation(id: string): void;
  putMessage(message: StoredMessage): void;
  removeMessage(id: string): void;
  /** Whether a part holds the document `id`. */
  has(id: string): boolean;
  /** Adds a saved part (`meta` as the list of parts has it); throws if it cannot be read. */
  loadPart(meta: SearchIndexRecord['parts'][number], record: SearchIndexPartRecord | SearchIndexRecord | undefined): void;
  /** Puts the parts loaded in the order they were made, once all are. */
  loaded(): void;
  partRecord(part: Part): { record: SearchIndexPartRecord; meta: SearchIndexRecord['parts'][number] };
  /** The best match of `query` in each of the conversations `wanted`, from the parts holding them (`seen`: see `bestMatches`). */
  bestOf(query: string, wanted: ReadonlySet<string>, seen?: Set<string>): Map<string, string>;
  /**
   * The conversations a list of `limit` shows of those matching `query` (every term of `terms`
   * in one document: see `matchingConversations`), with others perhaps, and the best match of
   * those of `recent` among them (see `bestMatches`). Walks the parts holding the most recently
   * updated conversations first, and stops once `limit` found are more recent than any
   * conversation of the parts left: a word in every conversation costs the parts of the newest
   * `limit`, not every part.
   */
  newestMatches(query: string, terms: readonly string[], recent: ReadonlySet<string>, limit: number): { matching: Set<string>; best: Map<string, string> };
}

const partNumber = (key: string) => Number(key.slice('part:'.length)) || 0;

/** Parts of about `partDocuments` documents each (a conversation is never split). */
export function createIndexParts(partDocuments: number, changed: () => void): IndexParts {
  const parts: Part[] = [];
  let nextPart = 0;
  const conversations = new Map<string, ConversationEntry>();
  const removedKeys = new Set<string>();

  function changedPart(part: Part): void {
    part.dirty = true;
    changed();
  }

  function addPart(key = `part:${nextPart++}`, index = new MiniSearch<IndexedDocument>(INDEX_OPTIONS)): Part {
    const part: Part = { key, index, conversations: new Set(), size: index.documentCount, dirty: false };
    parts.push(part);
    return part;
  }

  /** The part a new conversation of about `documents` documents goes in: the newest part, or a new one once that is full. */
  function partFor(documents: number): Part {
    const open = parts.at(-1);
    if (open && (open.size === 0 || open.size + documents <= partDocuments)) return open;
    return addPart();
  }

  function putDocument(part: Part, doc: IndexedDocument): void {
    if (part.index.has(doc.id)) part.index.replace(doc);
    else {
      part.index.add(doc);
      part.size = Math.max(part.size, part.index.documentCount);
    }
    changedPart(part);
  }

  function removeDocument(part: Part, id: string): void {
    if (!part.index.has(id)) return;
    part.index.discard(id);
    changedPart(part);
  }

  /** `documents`: about how many documents a conversation new to the index will have (its messages and title). */
  function putConversation(c: Conversation, documents = 1): ConversationEntry {
    let entry = conversations.get(c.id);
    if (!entry) {
      const part = partFor(documents);
      part.conversations.add(c.id);
      part.size += documents;
      entry = { title: c.title, createdAt: c.createdAt, updatedAt: c.updatedAt, messageIds: new Set(), part };
      conversations.set(c.id, entry);
      putDocument(part, { id: TITLE_PREFIX + c.id, conversationId: c.id, text: c.title, createdAt: c.createdAt });
      return entry;
    }
    if (entry.updatedAt !== c.updatedAt) {
      entry.updatedAt = c.updatedAt;
      changedPart(entry.part);
    }
    if (entry.title !== c.title) {
      entry.title = c.title;
      putDocument(entry.part, { id: TITLE_PREFIX + c.id, conversationId: c.id, text: c.title, createdAt: c.createdAt });
    }
    return entry;
  }

  function removeConversation(id: string): void {
    const entry = conversations.get(id);
    if (!entry) return;
    const { part } = entry;
    for (const messageId of entry.messageIds) removeDocument(part, messageId);
    removeDocument(part, TITLE_PREFIX + id);
    conversations.delete(id);
    part.conversations.delete(id);
    changedPart(part);
    if (part.conversations.size > 0) return;
    // Empty: dropped, and its record deleted by the next save.
    parts.splice(parts.indexOf(part), 1);
    if (part.saved) removedKeys.add(part.key);
  }

  /** Indexes a message once it is written complete; a stream in progress waits for its last write. */
  function putMessage(message: StoredMessage): void {
    const entry = conversations.get(message.conversationId);
    if (!entry || message.status === 'streaming' || storedMessageProblem(message) !== undefined) return;
    entry.messageIds.add(message.id);
    putDocument(entry.part, { id: message.id, conversationId: message.conversationId, text: documentText(message), createdAt: message.createdAt });
  }

  function removeMessage(id: string): void {
    const part = parts.find((p) => p.index.has(id));
    if (!part) return;
    const conversationId = part.index.getStoredFields(id)?.conversationId;
    if (typeof conversationId === 'string') conversations.get(conversationId)?.messageIds.delete(id);
    removeDocument(part, id);
  }

  function loadPart(meta: SearchIndexRecord['parts'][number], record: SearchIndexPartRecord | SearchIndexRecord | undefined): void {
    nextPart = Math.max(nextPart, partNumber(meta.key) + 1);
    if (!record || !('index' in record)) throw new Error(`The search index's part ${meta.key} is missing.`);
    const index = MiniSearch.loadJSON<IndexedDocument>(record.index, INDEX_OPTIONS);
    const saved = Object.entries(record.conversations);
    const part = addPart(meta.key, index);
    part.saved = meta;
    for (const [id, c] of saved) {
      conversations.set(id, { title: c.title, createdAt: c.createdAt, updatedAt: c.updatedAt, messageIds: new Set(c.messageIds), part });
      part.conversations.add(id);
    }
  }

  /** The saved form of `part`, and what the list of parts says of it. */
  function partRecord(part: Part): { record: SearchIndexPartRecord; meta: SearchIndexRecord['parts'][number] } {
    const saved: SearchIndexPartRecord['conversations'] = {};
    let messageCount = 0;
    let newest = 0;
    for (const id of part.conversations) {
      const c = conversations.get(id)!;
      messageCount += c.messageIds.size;
      newest = Math.max(newest, c.updatedAt);
      saved[id] = { title: c.title, createdAt: c.createdAt, updatedAt: c.updatedAt, messageIds: [...c.messageIds] };
    }
    return { record: { conversations: saved, index: JSON.stringify(part.index) }, meta: { key: part.key, newest, messageCount } };
  }

  /** The best match of `query` in each of the conversations `wanted`, from the parts holding them (`seen`: see `bestMatches`). */
  function bestOf(query: string, wanted: ReadonlySet<string>, seen?: Set<string>): Map<string, string> {
    const best = new Map<string, string>();
    for (const part of parts) {
      // A part holding none of them is walked only to tell `seen` what it holds.
      if (!seen && ![...part.conversations].some((id) => wanted.has(id))) continue;
      for (const [id, doc] of bestMatches(part.index, query, wanted, seen)) best.set(id, doc);
    }
    return best;
  }

  function newestMatches(query: string, terms: readonly string[], recent: ReadonlySet<string>, limit: number) {
    const updated = (id: string) => conversations.get(id)?.updatedAt ?? -Infinity;
    const walk = parts.map((part) => ({ part, newest: Math.max(-Infinity, ...[...part.conversations].map(updated)) })).sort((a, b) => b.newest - a.newest);
    const matching = new Set<string>();
    const best = new Map<string, string>();
    for (const { part, newest } of walk) {
      if (matching.size >= limit && limit > 0 && [...matching].map(updated).sort((a, b) => b - a)[limit - 1]! > newest) break;
      // One word: the walk that scores the recent conversations also finds every one it is in.
      if (terms.length === 1) {
        for (const [id, doc] of bestMatches(part.index, query, recent, matching)) best.set(id, doc);
        continue;
      }
      if ([...part.conversations].some((id) => recent.has(id))) for (const [id, doc] of bestMatches(part.index, query, recent)) best.set(id, doc);
      for (const id of matchingConversations(part.index, terms)) matching.add(id);
    }
    return { matching, best };
  }

  return {
    parts,
    conversations,
    removedKeys,
    putConversation,
    removeConversation,
    putMessage,
    removeMessage,
    has: (id) => parts.some((p) => p.index.has(id)),
    loadPart,
    loaded() {
      parts.sort((a, b) => partNumber(a.key) - partNumber(b.key));
    },
    partRecord,
    bestOf,
    newestMatches,
  };
}
