/**
 * The full-text search index: one MiniSearch document per stored message (every branch,
 * tool results included) and one per conversation title, kept in step with storage
 * through the same change notices the tabs exchange, and saved to IndexedDB so a reload
 * does not rebuild it. The app runs it in a Worker (searchWorker.ts); tests and the
 * in-memory fallback run the same code in the page.
 *
 * It reads messages and writes only its own store (`searchIndex`): a lost or unreadable
 * index is rebuilt from the messages, never the other way round.
 */
import MiniSearch, { type Options } from 'minisearch';
import type { Conversation, StoredMessage } from '../core';
import { foldText, searchSnippet, searchTerms, searchTokens, storedMessageProblem } from '../core';
import { withTransaction, type SearchIndexRecord, type WindowpaneDb } from './db';
import { createSearchBuildReporter, type ReportsSearchBuilds } from './searchBuild';
import { bestMatches, matchingConversations } from './searchQuery';
import type { StorageChange } from './sync';

export interface SearchHit {
  conversationId: string;
  title: string;
  /**
   * Where the best match is: the title, or the message `messageId`. `pending`: the
   * conversation matches, but its best match and snippet (empty until then) are not read
   * yet; `SearchClient.details` reads them, for the rows a list shows.
   */
  matchedIn: 'title' | 'message' | 'pending';
  messageId?: string;
  /** The matching text with some context, whitespace collapsed, at most ~160 characters. */
  snippet: string;
  /** Where the first matching word is in `snippet` (UTF-16 offsets), to highlight it. */
  matchStart?: number;
  matchLength?: number;
  /** Epoch ms: when the message was written, or the conversation created for a title hit. */
  createdAt?: number;
}

/** What the index answers to; the same in the page and behind the Worker. */
export interface SearchClient {
  /**
   * Conversations with a title or message holding every word of `query` (each as a word
   * prefix, case and accents ignored), one hit per conversation (its best match), most
   * recently updated first. Only the first `DETAILED_HITS` come with their best match and
   * snippet; the rest are `pending` (see `details`), so a query costs what a screen shows.
   */
  search(query: string, limit: number): Promise<SearchHit[]>;
  /**
   * The hits of `query` in the conversations `conversationIds`, in that order, each with
   * its best match and snippet (their messages read in one transaction); a conversation
   * that no longer matches has none.
   */
  details(query: string, conversationIds: readonly string[]): Promise<SearchHit[]>;
  /** A committed change, from this tab or another: the index re-reads what it names. */
  notify(change: StorageChange): void;
  close(): void;
}

export interface SearchEngine extends SearchClient, ReportsSearchBuilds {
  /**
   * As `SearchClient.search`; `superseded`, asked when the query's turn comes, says a newer
   * query has been typed since: it is then answered with no hits at once, rather than making
   * the newer one wait behind it (what is typed letter by letter asks once per letter).
   */
  search(query: string, limit: number, superseded?: () => boolean): Promise<SearchHit[]>;
  /** Loads the saved index (or rebuilds it) and catches up with storage; later calls wait for the same load. */
  start(): Promise<void>;
  /** Saves the index now if it changed since it was last saved. */
  flush(): Promise<void>;
}

/**
 * Bumped whenever what is indexed or how it is tokenized changes: a saved index of
 * another format is dropped and rebuilt.
 */
export const SEARCH_INDEX_FORMAT = 1;
/** The one record of the `searchIndex` store. */
export const SEARCH_INDEX_KEY = 'messages';
/** How many hits `search` gives in full, about what the sidebar shows at once; the rest wait for `details`. */
export const DETAILED_HITS = 20;
const SAVE_DELAY_MS = 2000;
const READ_BATCH = 500;
const TITLE_PREFIX = 'title\u0000';

interface IndexedDocument {
  id: string;
  conversationId: string;
  text: string;
  createdAt: number;
}

interface ConversationEntry {
  title: string;
  createdAt: number;
  updatedAt: number;
  messageIds: Set<string>;
}

const INDEX_OPTIONS: Options<IndexedDocument> = {
  fields: ['text'],
  storeFields: ['conversationId', 'createdAt'],
  tokenize: (text) => searchTokens(text),
  processTerm: (term) => foldText(term) || null,
  searchOptions: { prefix: true, combineWith: 'AND' },
};

/** What is searched of a message: its text and its tool results. */
function documentText(message: StoredMessage): string {
  const parts: string[] = [];
  for (const block of message.content) {
    if (block.type === 'text') parts.push(block.text);
    else if (block.type === 'tool_result' && typeof block.content === 'string') parts.push(block.content);
  }
  return parts.join('\n');
}

/**
 * Where the last query's time went, as a performance measure (`search: lookup`, `search:
 * snippets read`, `search: snippets cut`) in the timeline of the thread it ran on, and the
 * last load's and save's (`search: load read`, `… load parse`, `… load catch up`, `… save
 * serialize`, `… save write`): the benchmarks read them, and so does a profiler. Only the
 * latest of each is kept.
 */
function timed(phase: string, start: number, end = performance.now()): number {
  const name = `search: ${phase}`;
  performance.clearMeasures(name);
  performance.measure(name, { start, end });
  return end;
}

export interface SearchEngineOptions {
  /** How long after a change the index is saved; several changes in that time are saved once. */
  saveDelayMs?: number;
  /** Epoch ms; defaults to `Date.now`. */
  now?: () => number;
  /** Messages read per transaction; a build reports its progress after each read. */
  readBatch?: number;
}

/** The index over `db`. Nothing is read until `start` (or the first search). */
export function createSearchEngine(db: WindowpaneDb, options: SearchEngineOptions = {}): SearchEngine {
  const saveDelayMs = options.saveDelayMs ?? SAVE_DELAY_MS;
  const now = options.now ?? (() => Date.now());
  const readBatch = options.readBatch ?? READ_BATCH;
  const builds = createSearchBuildReporter();
  // Set while the load builds the index: searches then answer at once from what is indexed so far.
  let building = false;
  let buildBegan: () => void = () => undefined;
  const buildBegun = new Promise<void>((resolve) => (buildBegan = resolve));
  let index = new MiniSearch<IndexedDocument>(INDEX_OPTIONS);
  let conversations = new Map<string, ConversationEntry>();
  let started: Promise<void> | undefined;
  // Every read and change runs in order, after the load.
  let queue: Promise<unknown> = Promise.resolve();
  let dirty = false;
  let saveTimer: ReturnType<typeof setTimeout> | undefined;
  let closed = false;

  function enqueue<T>(work: () => Promise<T>): Promise<T> {
    const next = queue.then(work);
    queue = next.catch(() => undefined);
    return next;
  }

  function changed(): void {
    dirty = true;
    if (saveTimer !== undefined || closed) return;
    saveTimer = setTimeout(() => {
      saveTimer = undefined;
      void enqueue(save).catch(() => undefined); // the next load catches up from the messages
    }, saveDelayMs);
  }

  function putDocument(doc: IndexedDocument): void {
    if (index.has(doc.id)) index.replace(doc);
    else index.add(doc);
    changed();
  }

  function removeDocument(id: string): void {
    if (!index.has(id)) return;
    index.discard(id);
    changed();
  }

  function putConversation(c: Conversation): ConversationEntry {
    let entry = conversations.get(c.id);
    if (!entry) {
      entry = { title: c.title, createdAt: c.createdAt, updatedAt: c.updatedAt, messageIds: new Set() };
      conversations.set(c.id, entry);
      putDocument({ id: TITLE_PREFIX + c.id, conversationId: c.id, text: c.title, createdAt: c.createdAt });
      return entry;
    }
    if (entry.updatedAt !== c.updatedAt) {
      entry.updatedAt = c.updatedAt;
      changed();
    }
    if (entry.title !== c.title) {
      entry.title = c.title;
      putDocument({ id: TITLE_PREFIX + c.id, conversationId: c.id, text: c.title, createdAt: c.createdAt });
    }
    return entry;
  }

  function removeConversation(id: string): void {
    const entry = conversations.get(id);
    if (!entry) return;
    for (const messageId of entry.messageIds) removeDocument(messageId);
    removeDocument(TITLE_PREFIX + id);
    conversations.delete(id);
    changed();
  }

  /** Indexes a message once it is written complete; a stream in progress waits for its last write. */
  function putMessage(message: StoredMessage): void {
    const entry = conversations.get(message.conversationId);
    if (!entry || message.status === 'streaming' || storedMessageProblem(message) !== undefined) return;
    entry.messageIds.add(message.id);
    putDocument({ id: message.id, conversationId: message.conversationId, text: documentText(message), createdAt: message.createdAt });
  }

  function removeMessage(id: string): void {
    const conversationId = index.getStoredFields(id)?.conversationId;
    if (typeof conversationId === 'string') conversations.get(conversationId)?.messageIds.delete(id);
    removeDocument(id);
  }

  async function load(): Promise<void> {
    const began = performance.now();
    const saved = withTransaction(db, ['searchIndex'], 'readonly', 'read the search index', (tx) => tx.store.get(SEARCH_INDEX_KEY));
    // Storage is read while the index is parsed, asked second (reads are served in turn); later changes come as notices.
    const storage = readStorage();
    storage.then(() => timed('load keys', began)).catch(() => undefined);
    const record = await saved;
    const read = timed('load read', began);
    if (record?.format === SEARCH_INDEX_FORMAT) {
      try {
        index = MiniSearch.loadJSON(record.index, INDEX_OPTIONS);
        conversations = new Map(Object.entries(record.conversations).map(([id, c]) => [id, { ...c, messageIds: new Set(c.messageIds) }]));
      } catch {
        // Unreadable: rebuilt below from the messages.
        index = new MiniSearch<IndexedDocument>(INDEX_OPTIONS);
        conversations = new Map();
      }
    }
    if (record?.format !== SEARCH_INDEX_FORMAT) dirty = true;
    const parsed = timed('load parse', read);
    await catchUp(true, storage);
    timed('load catch up', parsed);
    if (dirty) changed();
  }

  /** What the index is compared with: every conversation, every message's key, and which messages are streaming. */
  function readStorage() {
    return withTransaction(db, ['conversations', 'messages'], 'readonly', 'read messages to search', async (tx) => ({
      records: await tx.objectStore('conversations').getAll(),
      keys: await tx.objectStore('messages').getAllKeys(),
      streaming: await tx.objectStore('messages').index('byStatus').getAllKeys('streaming'),
    }));
  }

  /**
   * Makes the index match storage (as `storage` read it): titles of every conversation, every message not
   * streaming, nothing else. Reads only keys and the messages it lacks, so a saved index a
   * few changes behind (a tab closed before it saved) costs little to bring up to date.
   * `load` says it is the load's: reading more than one batch is then a build, reported.
   */
  async function catchUp(load = false, storage = readStorage()): Promise<void> {
    const { records, keys, streaming } = await storage;
    const present = new Set(records.map((c) => c.id));
    for (const id of [...conversations.keys()]) if (!present.has(id)) removeConversation(id);
    for (const c of records) putConversation(c);
    const wanted = new Set(keys);
    for (const key of streaming) wanted.delete(key);
    for (const entry of conversations.values()) {
      for (const id of [...entry.messageIds]) if (!wanted.has(id)) removeMessage(id);
    }
    const missing = keys.filter((key) => wanted.has(key) && !index.has(key));
    if (missing.length === 0) return;
    // None indexed yet: the store is read whole, in key order.
    const everyOf = missing.length === keys.length ? wanted : undefined;
    if (!load || missing.length <= readBatch) return readMissing(missing, everyOf, () => undefined);
    const total = missing.length;
    let done = 0;
    building = true;
    builds.report({ done, total });
    buildBegan();
    try {
      await readMissing(missing, everyOf, (read) => {
        done = Math.min(total, done + read);
        builds.report({ done, total });
      });
    } finally {
      building = false;
      builds.report(null);
    }
  }

  /**
   * Indexes the messages `missing` names, a batch per transaction, telling `step` how many
   * each batch read. `everyOf` (the messages wanted) says the index holds none yet: the
   * store is then read whole in key order, which is quicker than by key.
   */
  async function readMissing(missing: string[], everyOf: Set<string> | undefined, step: (read: number) => void): Promise<void> {
    if (everyOf) {
      let after: string | undefined;
      for (;;) {
        const batch = await withTransaction(db, ['messages'], 'readonly', 'read messages to search', (tx) =>
          tx.store.getAll(after === undefined ? undefined : IDBKeyRange.lowerBound(after, true), readBatch),
        );
        let read = 0;
        for (const message of batch) {
          if (!everyOf.has(message.id)) continue;
          putMessage(message);
          read++;
        }
        step(read);
        if (batch.length < readBatch) return;
        after = batch.at(-1)!.id;
      }
    }
    for (let i = 0; i < missing.length; i += readBatch) {
      const batch = await withTransaction(db, ['messages'], 'readonly', 'read messages to search', (tx) =>
        Promise.all(missing.slice(i, i + readBatch).map((key) => tx.store.get(key))),
      );
      for (const message of batch) if (message) putMessage(message);
      step(batch.length);
    }
  }

  async function apply(change: StorageChange): Promise<void> {
    if (change.type === 'conversation-changed') {
      if (change.conversationId === undefined) return catchUp(); // an import: several at once
      const c = await withTransaction(db, ['conversations'], 'readonly', 'read the conversation', (tx) => tx.store.get(change.conversationId!));
      if (c) putConversation(c);
      else removeConversation(change.conversationId);
    } else if (change.type === 'messages-changed' && change.messageId !== undefined) {
      const message = await withTransaction(db, ['messages'], 'readonly', 'read the message', (tx) => tx.store.get(change.messageId!));
      if (!message) removeMessage(change.messageId);
      else putMessage(message);
    } else if (change.type === 'messages-changed' && change.conversationId !== undefined) {
      // A conversation put back (Undo): its record and every message.
      const id = change.conversationId;
      const { c, messages } = await withTransaction(db, ['conversations', 'messages'], 'readonly', 'read the messages', async (tx) => ({
        c: await tx.objectStore('conversations').get(id),
        messages: await tx
          .objectStore('messages')
          .index('byConversation')
          .getAll(IDBKeyRange.bound([id, -Infinity], [id, Infinity])),
      }));
      if (!c) return removeConversation(id);
      const entry = putConversation(c);
      const present = new Set(messages.map((m) => m.id));
      for (const old of [...entry.messageIds]) if (!present.has(old)) removeMessage(old);
      for (const message of messages) putMessage(message);
    }
  }

  async function save(): Promise<void> {
    if (!dirty || closed) return;
    dirty = false;
    let messageCount = 0;
    const saved: SearchIndexRecord['conversations'] = {};
    for (const [id, c] of conversations) {
      messageCount += c.messageIds.size;
      saved[id] = { title: c.title, createdAt: c.createdAt, updatedAt: c.updatedAt, messageIds: [...c.messageIds] };
    }
    const began = performance.now();
    const record: SearchIndexRecord = { format: SEARCH_INDEX_FORMAT, savedAt: now(), messageCount, conversations: saved, index: JSON.stringify(index) };
    const serialized = timed('save serialize', began);
    try {
      await withTransaction(db, ['searchIndex'], 'readwrite', 'save the search index', (tx) => tx.store.put(record, SEARCH_INDEX_KEY));
      timed('save write', serialized);
    } catch (error) {
      dirty = true;
      throw error;
    }
  }

  /** The hits for `chosen` (conversation and its best document), with snippets, their messages read in one transaction. */
  async function withSnippets(chosen: Array<[string, string]>, terms: readonly string[], began: number): Promise<SearchHit[]> {
    const messageIds = chosen.map(([, id]) => id).filter((id) => !id.startsWith(TITLE_PREFIX));
    const looked = performance.now();
    const messages =
      messageIds.length === 0
        ? []
        : await withTransaction(db, ['messages'], 'readonly', 'search conversations', (tx) => Promise.all(messageIds.map((id) => tx.store.get(id))));
    const read = performance.now();
    const byId = new Map(messages.filter((m) => m !== undefined).map((m) => [m.id, m]));
    const out: SearchHit[] = [];
    for (const [conversationId, id] of chosen) {
      const entry = conversations.get(conversationId);
      if (!entry) continue;
      if (id.startsWith(TITLE_PREFIX)) {
        out.push({ conversationId, title: entry.title, matchedIn: 'title', ...searchSnippet(entry.title, terms), createdAt: entry.createdAt });
        continue;
      }
      const message = byId.get(id);
      if (!message) continue; // deleted since: its notice is on its way
      out.push({
        conversationId,
        title: entry.title,
        matchedIn: 'message',
        messageId: id,
        ...searchSnippet(documentText(message), terms),
        createdAt: message.createdAt,
      });
    }
    timed('lookup', began, looked);
    timed('snippets read', looked, read);
    timed('snippets cut', read);
    return out;
  }

  async function hits(query: string, limit: number): Promise<SearchHit[]> {
    const terms = [...new Set(searchTerms(query))].filter((term) => term !== '');
    if (terms.length === 0) return [];
    const began = performance.now();
    const byRecency = (a: string, b: string) => conversations.get(b)!.updatedAt - conversations.get(a)!.updatedAt;
    // The most recent conversations are scored first, before anything else asks the index: a
    // search drops the postings of replaced documents it meets, which moves later scores a
    // little, and this keeps the best match the one a single search always chose.
    const recent = new Set([...conversations.keys()].sort(byRecency).slice(0, DETAILED_HITS));
    // One word: the walk that scores the recent conversations also finds every one it is in.
    const seen = terms.length === 1 ? new Set<string>() : undefined;
    const best = bestMatches(index, query, recent, seen);
    const matching = [...(seen ?? matchingConversations(index, terms))].filter((id) => conversations.has(id));
    const chosen = matching.sort(byRecency).slice(0, limit);
    const shown = chosen.slice(0, DETAILED_HITS);
    const unscored = shown.filter((id) => !best.has(id));
    if (unscored.length > 0) for (const [id, doc] of bestMatches(index, query, new Set(unscored))) best.set(id, doc);
    const detailed = await withSnippets(
      shown.flatMap((id) => (best.has(id) ? [[id, best.get(id)!] as [string, string]] : [])),
      terms,
      began,
    );
    const pending = chosen
      .slice(DETAILED_HITS)
      .flatMap((id): SearchHit[] =>
        conversations.has(id) ? [{ conversationId: id, title: conversations.get(id)!.title, matchedIn: 'pending', snippet: '' }] : [],
      );
    return [...detailed, ...pending];
  }

  async function details(query: string, conversationIds: readonly string[]): Promise<SearchHit[]> {
    const terms = [...new Set(searchTerms(query))].filter((term) => term !== '');
    if (terms.length === 0 || conversationIds.length === 0) return [];
    const began = performance.now();
    const best = bestMatches(index, query, new Set(conversationIds));
    return withSnippets(
      conversationIds.flatMap((id) => (best.has(id) ? [[id, best.get(id)!] as [string, string]] : [])),
      terms,
      began,
    );
  }

  const engine: SearchEngine = {
    start() {
      // A load that failed (storage closing, say) is tried again by the next search.
      started ??= enqueue(load).catch((error: unknown) => {
        started = undefined;
        throw error;
      });
      return started;
    },
    notify(change) {
      // Before the load nothing needs telling: the load reads storage as it is then.
      if (started && !closed) void enqueue(() => apply(change)).catch(() => undefined);
    },
    async search(query, limit, superseded = () => false) {
      const loaded = engine.start();
      await Promise.race([loaded, buildBegun]);
      // The load is building the index: answer from what it holds so far rather than wait minutes.
      if (building) return superseded() ? [] : hits(query, limit);
      await loaded;
      return enqueue(async () => (superseded() ? [] : hits(query, limit)));
    },
    async details(query, conversationIds) {
      const loaded = engine.start();
      await Promise.race([loaded, buildBegun]);
      if (building) return details(query, conversationIds);
      await loaded;
      return enqueue(() => details(query, conversationIds));
    },
    watchBuild(listener) {
      return builds.watch(listener);
    },
    async flush() {
      if (saveTimer !== undefined) clearTimeout(saveTimer);
      saveTimer = undefined;
      await enqueue(save);
    },
    close() {
      closed = true;
      builds.end();
      if (saveTimer !== undefined) clearTimeout(saveTimer);
      saveTimer = undefined;
    },
  };
  return engine;
}
