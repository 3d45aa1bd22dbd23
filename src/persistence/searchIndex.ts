/**
 * The full-text search index: one MiniSearch document per stored message (every branch,
 * tool results included) and one per conversation title, kept in step with storage
 * through the same change notices the tabs exchange, and saved to IndexedDB so a reload
 * does not rebuild it. The app runs it in a Worker (searchWorker.ts); tests and the
 * in-memory fallback run the same code in the page.
 *
 * It is kept in parts, each a MiniSearch index of a group of conversations: a change
 * saves only its conversation's part, and a reload loads the parts newest first,
 * answering from those loaded while the rest load.
 *
 * It reads messages and writes only its own store (`searchIndex`): a lost or unreadable
 * index is rebuilt from the messages, never the other way round.
 */
import { withTransaction, type SearchIndexPartRecord, type SearchIndexRecord, type WindowpaneDb } from './db';
import { createQueriesFirst, createSearchAnswers, timed, type SearchHit } from './searchAnswers';
import { createSearchBuildReporter, type ReportsSearchBuilds } from './searchBuild';
import { createIndexParts, type Part } from './searchParts';
import type { StorageChange } from './sync';

export { DETAILED_HITS, type SearchHit } from './searchAnswers';

/** What a search answers. */
export interface SearchAnswer {
  hits: SearchHit[];
  /**
   * Set while the saved index is still loading after a start: `loaded` of its `total` parts
   * are, the most recently updated conversations' first. Hits in the conversations not
   * loaded yet are missing; asking again with `after: loaded` answers once more of it is
   * loaded, and in full once all is and it has caught up with storage.
   */
  loading?: { loaded: number; total: number };
}

export interface SearchOptions {
  /** The `loaded` of an answer that said the index was loading: wait until more of it is. */
  after?: number;
}

/** What the index answers to; the same in the page and behind the Worker. */
export interface SearchClient {
  /**
   * Conversations with a title or message holding every word of `query` (each as a word
   * prefix, case and accents ignored), one hit per conversation (its best match), most
   * recently updated first. Only the first `DETAILED_HITS` come with their best match and
   * snippet; the rest are `pending` (see `details`), so a query costs what a screen shows.
   */
  search(query: string, limit: number, options?: SearchOptions): Promise<SearchAnswer>;
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
  search(query: string, limit: number, options?: SearchOptions & { superseded?: () => boolean }): Promise<SearchAnswer>;
  /** Loads the saved index (or rebuilds it) and catches up with storage; later calls wait for the same load. */
  start(): Promise<void>;
  /** Saves the index now if it changed since it was last saved. */
  flush(): Promise<void>;
}

/**
 * Bumped whenever what is indexed, how it is tokenized or how it is saved changes: a saved
 * index of another format is dropped and rebuilt (format 1 saved it as one record).
 */
export const SEARCH_INDEX_FORMAT = 2;
/** The record of the `searchIndex` store that lists the parts (each saved under its own key). */
export const SEARCH_INDEX_KEY = 'messages';
/**
 * About how many documents (messages and titles) a part holds: a part is loaded in one
 * task, which a query waits for (about 0.1 to 0.3 s for this many), and saved whole after
 * a change. A conversation is never split, so one larger than this is a part of its own.
 */
export const PART_DOCUMENTS = 2500;
/** While the index loads, a search asked with `after` is answered again after about this share of its parts. */
const LOADING_ANSWERS = 8;
const SAVE_DELAY_MS = 2000;
const READ_BATCH = 500;
/** Message keys the catch-up reads per transaction: one read of 200,000 would hold up a query's read for seconds. */
const KEY_BATCH = 10_000;

export interface SearchEngineOptions {
  /** How long after a change the index is saved; several changes in that time are saved once. */
  saveDelayMs?: number;
  /** About how many documents a part holds (`PART_DOCUMENTS`); `Infinity` keeps one part. */
  partDocuments?: number;
  /** Epoch ms; defaults to `Date.now`. */
  now?: () => number;
  /** Messages read per transaction; a build reports its progress after each read. */
  readBatch?: number;
  /** Message keys read per transaction by the catch-up (`KEY_BATCH`). */
  keyBatch?: number;
}

/** Whether `record` is a list of parts this version saved. */
function isPartList(record: SearchIndexRecord | SearchIndexPartRecord | undefined): record is SearchIndexRecord {
  return record !== undefined && 'format' in record && record.format === SEARCH_INDEX_FORMAT && Array.isArray(record.parts);
}

/** The index over `db`. Nothing is read until `start` (or the first search). */
export function createSearchEngine(db: WindowpaneDb, options: SearchEngineOptions = {}): SearchEngine {
  const saveDelayMs = options.saveDelayMs ?? SAVE_DELAY_MS;
  const partDocuments = options.partDocuments ?? PART_DOCUMENTS;
  const now = options.now ?? (() => Date.now());
  const readBatch = options.readBatch ?? READ_BATCH;
  const keyBatch = options.keyBatch ?? KEY_BATCH;
  const builds = createSearchBuildReporter();
  // Set while the load builds the index: searches then answer at once from what is indexed so far.
  let building = false;
  let buildBegan: () => void = () => undefined;
  const buildBegun = new Promise<void>((resolve) => (buildBegan = resolve));
  // Set while the load reads the saved parts (then catches up): searches answer from the parts loaded.
  let loading: { loaded: number; total: number } | undefined;
  let loadEnded = false;
  let wakeWaiting: Array<() => void> = [];
  const index = createIndexParts(partDocuments, () => changed());
  const { parts, conversations, removedKeys, putConversation, removeConversation, putMessage, removeMessage } = index;
  const { hits, details } = createSearchAnswers(db, index);
  // The store holds no list of parts this version can use: the next save clears it first.
  let resetStore = false;
  let started: Promise<void> | undefined;
  // Every read and change runs in order, after the load.
  let queue: Promise<unknown> = Promise.resolve();
  let dirty = false;
  let saveTimer: ReturnType<typeof setTimeout> | undefined;
  let saving: Promise<void> | undefined;
  let closed = false;
  // The load and a build wait for the queries being answered before their next read.
  const { quiet, answer } = createQueriesFirst();

  function enqueue<T>(work: () => Promise<T>): Promise<T> {
    const next = queue.then(work);
    queue = next.catch(() => undefined);
    return next;
  }

  /** Resolves at the next step of the load (a part loaded, the load's end). */
  function loadStep(): Promise<void> {
    return new Promise((resolve) => wakeWaiting.push(resolve));
  }

  function stepped(): void {
    const waiting = wakeWaiting;
    wakeWaiting = [];
    for (const wake of waiting) wake();
  }

  function changed(): void {
    dirty = true;
    if (saveTimer !== undefined || closed) return;
    saveTimer = setTimeout(() => {
      saveTimer = undefined;
      void saveInTurns().catch(() => undefined); // the next load catches up from the messages
    }, saveDelayMs);
  }

  async function load(): Promise<void> {
    const began = performance.now();
    const list = await withTransaction(db, ['searchIndex'], 'readonly', 'read the search index', (tx) => tx.store.get(SEARCH_INDEX_KEY));
    let storage: ReturnType<typeof readStorage> | undefined;
    let reading = 0;
    let parsing = 0;
    if (isPartList(list)) {
      // The most recently updated first: what a search lists first is answered first.
      const order = [...list.parts].sort((a, b) => b.newest - a.newest);
      loading = { loaded: 0, total: order.length };
      for (const meta of order) {
        // Loaded by an earlier try of a load that then failed.
        if (parts.some((p) => p.key === meta.key)) {
          loading = { loaded: loading.loaded + 1, total: loading.total };
          continue;
        }
        await quiet();
        const asked = performance.now();
        const record = withTransaction(db, ['searchIndex'], 'readonly', 'read the search index', (tx) => tx.store.get(meta.key));
        // Storage is read while the parts are, asked after the first (reads are served in turn); later changes come as notices.
        storage ??= askStorage(began);
        // A read that fails (Chromium cannot always read a large value back) is a part missing.
        const got = await record.catch(() => undefined);
        const read = performance.now();
        reading += read - asked;
        try {
          index.loadPart(meta, got);
          removedKeys.delete(meta.key); // read after all, by a later try of the load
        } catch {
          // Missing or unreadable: its conversations are read again from the messages by the catch-up below (a build, said so, if many).
          removedKeys.add(meta.key);
        }
        parsing += performance.now() - read;
        if (loading.loaded === 0) timed('load first part', began);
        loading = { loaded: loading.loaded + 1, total: loading.total };
        stepped();
      }
      // Conversations new to the index join the last part made.
      index.loaded();
    } else {
      // None (parts without their list are orphans), of an older format (one record), or unreadable: rebuilt, and the store cleared when it is next saved.
      resetStore = true;
      dirty = true;
    }
    const parsed = performance.now();
    performance.clearMeasures('search: load read');
    performance.measure('search: load read', { start: began, duration: reading });
    performance.clearMeasures('search: load parse');
    performance.measure('search: load parse', { start: began, duration: parsing });
    await catchUp(true, storage ?? askStorage(began));
    timed('load catch up', parsed);
    timed('load', began);
    if (dirty) changed();
  }

  /** `readStorage` for the load begun at `began`, timed. */
  function askStorage(began: number): ReturnType<typeof readStorage> {
    const storage = readStorage();
    storage.then(() => timed('load keys', began)).catch(() => undefined);
    return storage;
  }

  /** What the index is compared with: conversations, message keys (`keyBatch` a read, after the queries; a change meanwhile comes as a notice), those streaming. */
  async function readStorage() {
    const { records, streaming } = await withTransaction(db, ['conversations', 'messages'], 'readonly', 'read messages to search', async (tx) => ({
      records: await tx.objectStore('conversations').getAll(),
      streaming: await tx.objectStore('messages').index('byStatus').getAllKeys('streaming'),
    }));
    const keys: string[] = [];
    for (let after: string | undefined; ;) {
      await quiet();
      const batch = await withTransaction(db, ['messages'], 'readonly', 'read messages to search', (tx) =>
        tx.store.getAllKeys(after === undefined ? undefined : IDBKeyRange.lowerBound(after, true), keyBatch),
      );
      for (const key of batch) keys.push(key);
      if (batch.length < keyBatch) return { records, keys, streaming };
      after = batch.at(-1);
    }
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
    // Conversations new to the index join parts oldest first, so the newest end up in the part loaded first.
    const byAge = [...records].sort((a, b) => a.updatedAt - b.updatedAt);
    for (const c of byAge) putConversation(c, conversations.has(c.id) ? 1 : 1 + (c.messageCount ?? 0));
    const wanted = new Set(keys);
    for (const key of streaming) wanted.delete(key);
    // Each message's part, so telling what is missing costs a lookup a key, not one a part (a second's task at a year).
    const holder = new Map<string, Part>();
    for (const entry of conversations.values()) {
      for (const id of [...entry.messageIds]) if (!wanted.has(id)) removeMessage(id);
      for (const id of entry.messageIds) holder.set(id, entry.part);
    }
    const missing = keys.filter((key) => wanted.has(key) && holder.get(key)?.index.has(key) !== true);
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
        await quiet();
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
      await quiet();
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
      const entry = putConversation(c, 1 + messages.length);
      const present = new Set(messages.map((m) => m.id));
      for (const old of [...entry.messageIds]) if (!present.has(old)) removeMessage(old);
      for (const message of messages) putMessage(message);
    }
  }

  /**
   * Saves the parts changed since their last save, one serialized per turn of the queue (a
   * query or change waits for one part, not all), then writes them and the list of parts
   * in one transaction.
   */
  function saveInTurns(): Promise<void> {
    saving ??= (async () => {
      await started;
      if (!dirty || closed) return;
      dirty = false;
      const written: Array<{ part: Part; record: SearchIndexPartRecord; meta: SearchIndexRecord['parts'][number] }> = [];
      const began = performance.now();
      let serializing = 0;
      for (const part of [...parts]) {
        if (!part.dirty) continue;
        await enqueue(async () => {
          if (!parts.includes(part)) return;
          const from = performance.now();
          part.dirty = false;
          written.push({ part, ...index.partRecord(part) });
          serializing += performance.now() - from;
        });
      }
      performance.clearMeasures('search: save serialize');
      performance.measure('search: save serialize', { start: began, duration: serializing });
      await enqueue(async () => {
        const wrote = performance.now();
        const fresh = new Map(written.map((w) => [w.part, w.meta]));
        const listed = parts.flatMap((p) => {
          const meta = fresh.get(p) ?? p.saved;
          return meta ? [meta] : [];
        });
        const record: SearchIndexRecord = {
          format: SEARCH_INDEX_FORMAT,
          savedAt: now(),
          messageCount: listed.reduce((sum, p) => sum + p.messageCount, 0),
          parts: listed,
        };
        const removed = [...removedKeys];
        const reset = resetStore;
        try {
          await withTransaction(db, ['searchIndex'], 'readwrite', 'save the search index', async (tx) => {
            if (reset) await tx.store.clear();
            for (const key of removed) await tx.store.delete(key);
            for (const w of written) if (parts.includes(w.part)) await tx.store.put(w.record, w.part.key);
            await tx.store.put(record, SEARCH_INDEX_KEY);
          });
        } catch (error) {
          dirty = true;
          for (const w of written) w.part.dirty = true;
          throw error;
        }
        for (const w of written) w.part.saved = w.meta;
        for (const key of removed) removedKeys.delete(key);
        if (reset) resetStore = false;
        timed('save write', wrote);
      });
    })().then(
      () => {
        saving = undefined;
        // Changed while it was saved: saved again after the delay.
        if (dirty) changed();
      },
      (error: unknown) => {
        saving = undefined;
        throw error;
      },
    );
    return saving;
  }

  /**
   * Waits until a query can be answered: the load has ended, or is building the index, or
   * has loaded a part of those it reads (with `after`, about an eighth of them more than
   * `after`), with some still to come. Once all are loaded, the rest of the load (the
   * catch-up with storage, read meanwhile) is waited for. Says what it found: `building`,
   * `loading` (answer from the parts loaded) or `loaded`.
   */
  async function answerable(after?: number): Promise<'building' | 'loading' | 'loaded'> {
    const loaded = engine.start();
    const wanted = after === undefined ? 1 : after + Math.max(1, Math.ceil((loading?.total ?? 0) / LOADING_ANSWERS));
    for (;;) {
      if (building) return 'building';
      if (loadEnded) return 'loaded';
      if (loading && loading.loaded < loading.total && loading.loaded >= wanted) return 'loading';
      await Promise.race([loaded, buildBegun, loadStep()]);
    }
  }

  const engine: SearchEngine = {
    start() {
      // A load that failed (storage closing, say) is tried again by the next search.
      started ??= enqueue(load).then(
        () => {
          loading = undefined;
          loadEnded = true;
          stepped();
        },
        (error: unknown) => {
          started = undefined;
          stepped();
          throw error;
        },
      );
      return started;
    },
    notify(change) {
      // Before the load nothing needs telling: the load reads storage as it is then.
      if (started && !closed) void enqueue(() => apply(change)).catch(() => undefined);
    },
    async search(query, limit, { after, superseded = () => false } = {}) {
      const asked = performance.now();
      const state = await answerable(after);
      timed('wait', asked);
      const answered = () => answer(async () => (superseded() ? [] : hits(query, limit)));
      // The load is building the index: answer from what it holds so far rather than wait minutes.
      if (state === 'building') return { hits: await answered() };
      // Loading the saved parts: answer from those loaded, newest first, and say so.
      if (state === 'loading' && loading) {
        const progress = { ...loading };
        return { hits: await answered(), loading: progress };
      }
      await engine.start();
      return enqueue(async () => ({ hits: await answered() }));
    },
    async details(query, conversationIds) {
      if ((await answerable()) !== 'loaded') return answer(() => details(query, conversationIds));
      await engine.start();
      return enqueue(() => answer(() => details(query, conversationIds)));
    },
    watchBuild(listener) {
      return builds.watch(listener);
    },
    async flush() {
      if (saveTimer !== undefined) clearTimeout(saveTimer);
      saveTimer = undefined;
      await saving?.catch(() => undefined);
      await saveInTurns();
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
