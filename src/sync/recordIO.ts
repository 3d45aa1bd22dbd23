/**
 * Reading and writing records in the replicated copy: each record's document id, its
 * version there (conflicting versions merged, losers listed for removal), sealing a new
 * version, and what this device last synced of each record (kept in the app's database,
 * so a restart sends only what changed).
 */
import type { SyncedRecord } from '../persistence';
import { docIdOf, SealBroken } from './crypto';
import type { StoredDoc } from './docStore';
import { openRecord, PartMissing, sealRecord, type SyncDoc } from './documents';
import type { EngineOptions } from './engineOptions';
import { mergePayloads, readPayload, type RecordPayload } from './records';

/** A document as the engine sees it: the merged record, or why it cannot be used now. */
export type Decoded = { payload?: RecordPayload; rev?: string; losers: string[] } | 'refused' | 'pending';

export function createRecordIO({ keys, docs, repositories: repos, events }: EngineOptions) {
  const docIds = new Map<string, string>();
  /** Document id → record key, for documents that arrive deleted (they carry nothing to decrypt). */
  const keyOfDoc = new Map<string, string>();
  /** Revisions this device wrote in this visit: the pass over arrived changes skips them. */
  const ownRevs = new Set<string>();
  let synced: Map<string, SyncedRecord> | undefined;

  async function state(): Promise<Map<string, SyncedRecord>> {
    if (!synced) {
      synced = await repos.sync.syncedRecords();
      for (const record of synced.values()) keyOfDoc.set(record.docId, record.key);
    }
    return synced;
  }

  async function docIdFor(key: string): Promise<string> {
    let id = docIds.get(key);
    if (!id) {
      id = await docIdOf(keys, key);
      docIds.set(key, id);
      keyOfDoc.set(id, key);
    }
    return id;
  }

  async function remember(records: SyncedRecord[]): Promise<void> {
    if (records.length === 0) return;
    const map = await state();
    for (const record of records) map.set(record.key, record);
    await repos.sync.markSynced(records);
  }

  async function forget(keysToForget: string[]): Promise<void> {
    const map = await state();
    for (const key of keysToForget) map.delete(key);
    await repos.sync.forgetSynced(keysToForget);
  }

  const open = async (doc: SyncDoc) => readPayload(await openRecord(keys, doc, (id) => docs.getWithAttachments(id)));

  /**
   * What each arrived document decoded to: a batch is decoded once to sort it by kind, and its
   * records are settled from the same documents, so each is opened (decrypted and inflated) once.
   */
  const decoded = new WeakMap<StoredDoc, Promise<Decoded>>();

  /** The record a stored document holds, its conflicting versions merged in; losing versions are listed for removal. */
  function decode(stored: StoredDoc | undefined): Promise<Decoded> {
    if (!stored) return decodeNow(undefined);
    let once = decoded.get(stored);
    if (!once) {
      once = decodeNow(stored);
      decoded.set(stored, once);
    }
    return once;
  }

  async function decodeNow(stored: StoredDoc | undefined): Promise<Decoded> {
    if (!stored?.doc || stored.deleted) return { rev: stored?.rev, losers: [] };
    let payload: RecordPayload | undefined;
    try {
      payload = await open(stored.doc);
    } catch (error) {
      if (error instanceof PartMissing) return 'pending';
      if (error instanceof SealBroken) {
        events.refused(stored.doc._id);
        return 'refused';
      }
      throw error;
    }
    if (!payload) return 'refused';
    const losers = stored.doc._conflicts ?? [];
    for (const rev of losers) {
      const version = await docs.getRevision(stored.doc._id, rev);
      try {
        const other = version ? await open(version) : undefined;
        if (other && other.kind === payload.kind) payload = mergePayloads(payload, other);
      } catch (error) {
        // A losing version that fails its check is removed with the others, never merged.
        if (!(error instanceof SealBroken || error instanceof PartMissing)) throw error;
      }
    }
    return { payload, rev: stored.rev, losers };
  }

  /** Writes each payload as its document's one live version (on top of `rev`, its conflicts removed), in one write; `extra` documents go first. */
  async function publishMany(
    items: ReadonlyArray<{ key: string; payload: RecordPayload; rev: string | undefined; losers: readonly string[]; extra?: SyncDoc[] }>,
  ): Promise<void> {
    if (items.length === 0) return;
    const batch: SyncDoc[] = [];
    for (const { key, payload, rev, losers, extra } of items) {
      const docId = await docIdFor(key);
      const { doc, parts } = await sealRecord(keys, docId, key, payload);
      batch.push(
        ...(extra ?? []),
        ...parts,
        { ...doc, ...(rev ? { _rev: rev } : {}) },
        ...losers.map((loser) => ({ _id: docId, _rev: loser, _deleted: true })),
      );
    }
    const written = await docs.write(batch);
    for (const w of written) ownRevs.add(`${w.id}@${w.rev}`);
  }

  const publish = (key: string, payload: RecordPayload, rev: string | undefined, losers: readonly string[], extra: SyncDoc[] = []) =>
    publishMany([{ key, payload, rev, losers, extra }]);

  /** Removes documents (a deleted conversation's records) from the replicated copy, and so from the server. */
  async function unpublish(docIdsToRemove: string[]): Promise<void> {
    const stored = await docs.getMany(docIdsToRemove);
    const removals: SyncDoc[] = [];
    for (const [id, s] of stored) if (!s.deleted && s.rev) removals.push({ _id: id, _rev: s.rev, _deleted: true });
    const written = await docs.write(removals);
    for (const w of written) ownRevs.add(`${w.id}@${w.rev}`);
  }

  /** The messages this device synced for a conversation (what its deletion knew). */
  async function knownMessages(conversationId: string): Promise<string[]> {
    const out: string[] = [];
    for (const record of (await state()).values()) {
      if (record.conversationId === conversationId && record.key.startsWith('m:')) out.push(record.key.slice(2));
    }
    return out;
  }

  /** Removes a deleted conversation's records from the replicated copy (`batchSize` at a time) and forgets them. */
  async function cascadeDeletion(conversationId: string, batchSize: number): Promise<void> {
    const owned = [...(await state()).values()].filter((r) => r.conversationId === conversationId && !r.key.startsWith('c:'));
    for (let i = 0; i < owned.length; i += batchSize) {
      const slice = owned.slice(i, i + batchSize);
      await unpublish(slice.map((r) => r.docId));
      await forget(slice.map((r) => r.key));
    }
  }

  return { state, docIdFor, remember, forget, decode, publish, publishMany, unpublish, ownRevs, keyOfDoc, knownMessages, cascadeDeletion };
}
