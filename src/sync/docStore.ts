/**
 * The replicated copy as the engine uses it: a PouchDB database on this device (IndexedDB),
 * which PouchDB's replication keeps in step with the server. Only this file and
 * replication.ts know PouchDB's API.
 */
import type { SyncDoc } from './documents';

/** The PouchDB calls the engine makes (a subset of PouchDB.Database). */
export interface PouchLike {
  allDocs(options: { keys: string[]; include_docs: true; conflicts: true }): Promise<{
    rows: Array<{ key: string; error?: string; value?: { rev: string; deleted?: boolean }; doc?: SyncDoc | null }>;
  }>;
  get(id: string, options?: { rev?: string; attachments?: boolean; conflicts?: boolean }): Promise<SyncDoc>;
  put(doc: object): Promise<{ rev: string }>;
  bulkDocs(docs: SyncDoc[]): Promise<Array<{ id?: string; rev?: string; ok?: boolean; error?: boolean | string; status?: number; message?: string }>>;
  changes(options: { since: number | string; limit: number; include_docs: true; conflicts: true }): Promise<{
    results: Array<{ id: string; seq: number | string; deleted?: boolean; changes: Array<{ rev: string }>; doc?: SyncDoc }>;
    last_seq: number | string;
  }>;
}

export interface StoredDoc {
  doc?: SyncDoc;
  /** The winning revision, also for a deleted document (which then has no `doc`). */
  rev?: string;
  deleted: boolean;
}

export interface DocStore {
  /** Each document by id, with its conflicting revisions listed. */
  getMany(ids: readonly string[]): Promise<Map<string, StoredDoc>>;
  getRevision(id: string, rev: string): Promise<SyncDoc | undefined>;
  /** A document with its attachments' data; undefined when it is not here (yet). */
  getWithAttachments(id: string): Promise<SyncDoc | undefined>;
  /** Writes documents; returns the new revision of each written (errors thrown as one). */
  write(docs: SyncDoc[]): Promise<Array<{ id: string; rev: string }>>;
  changes(since: number | string, limit: number): ReturnType<PouchLike['changes']>;
  /** A document of this device only (PouchDB `_local/`): never replicated. */
  getLocal<T>(name: string): Promise<T | undefined>;
  putLocal(name: string, value: unknown): Promise<void>;
}

/** A write PouchDB refused; `status` as PouchDB gives it (409 conflict, a quota error…). */
export class DocWriteFailed extends Error {
  constructor(
    message: string,
    readonly status: number | undefined,
  ) {
    super(message);
    this.name = 'DocWriteFailed';
  }
}

export function docStoreOver(db: PouchLike): DocStore {
  const isMissing = (error: unknown) => typeof error === 'object' && error !== null && (error as { status?: number }).status === 404;
  return {
    async getMany(ids) {
      const out = new Map<string, StoredDoc>();
      if (ids.length === 0) return out;
      const { rows } = await db.allDocs({ keys: [...ids], include_docs: true, conflicts: true });
      for (const row of rows) {
        if (row.error || !row.value) continue;
        out.set(row.key, { doc: row.doc ?? undefined, rev: row.value.rev, deleted: row.value.deleted === true });
      }
      return out;
    },
    async getRevision(id, rev) {
      try {
        return await db.get(id, { rev });
      } catch (error) {
        if (isMissing(error)) return undefined;
        throw error;
      }
    },
    async getWithAttachments(id) {
      try {
        return await db.get(id, { attachments: true });
      } catch (error) {
        if (isMissing(error)) return undefined;
        throw error;
      }
    },
    async write(docs) {
      if (docs.length === 0) return [];
      const results = await db.bulkDocs(docs);
      const failed = results.find((r) => r.error);
      if (failed) throw new DocWriteFailed(failed.message ?? String(failed.error), failed.status);
      return results.map((r) => ({ id: r.id!, rev: r.rev! }));
    },
    changes(since, limit) {
      return db.changes({ since, limit, include_docs: true, conflicts: true });
    },
    async getLocal<T>(name: string) {
      try {
        const doc = (await db.get(`_local/${name}`)) as unknown as { value: T };
        return doc.value;
      } catch (error) {
        if (isMissing(error)) return undefined;
        throw error;
      }
    },
    async putLocal(name, value) {
      let rev: string | undefined;
      try {
        rev = (await db.get(`_local/${name}`))._rev;
      } catch (error) {
        if (!isMissing(error)) throw error;
      }
      await db.put({ _id: `_local/${name}`, ...(rev ? { _rev: rev } : {}), value });
    },
  };
}
