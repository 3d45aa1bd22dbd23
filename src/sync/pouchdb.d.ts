// The part of PouchDB's API Windowpane uses (pouchdb-browser ships no types of its own).
declare module 'pouchdb-browser' {
  export interface ReplicationInfo {
    direction?: 'push' | 'pull';
    change?: { docs_read?: number; docs_written?: number; doc_write_failures?: number; pending?: number; last_seq?: number | string };
  }
  export interface Replication {
    on(event: 'change', listener: (info: ReplicationInfo) => void): Replication;
    on(event: 'paused', listener: (error?: unknown) => void): Replication;
    on(event: 'active', listener: (info?: { direction?: 'push' | 'pull' }) => void): Replication;
    on(event: 'denied' | 'error' | 'requestError', listener: (error: unknown) => void): Replication;
    on(event: 'complete', listener: (info: unknown) => void): Replication;
    cancel(): void;
  }
  /** A two-way sync: its events, and each way's own replication. */
  export interface Sync extends Replication {
    push: Replication;
    pull: Replication;
  }
  export interface Database {
    info(): Promise<Record<string, unknown>>;
    get(id: string, options?: Record<string, unknown>): Promise<never>;
    put(doc: object): Promise<{ rev: string }>;
    close(): Promise<void>;
    destroy(): Promise<void>;
    sync(remote: Database, options: Record<string, unknown>): Sync;
  }
  export interface PouchDBConstructor {
    new (name: string, options?: Record<string, unknown>): Database;
  }
  const PouchDB: PouchDBConstructor;
  export default PouchDB;
}
