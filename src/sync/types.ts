/**
 * What the page and the sync Worker say to each other, and what the store sees of sync:
 * the settings a device keeps (never synced, never exported), the status the sidebar
 * shows, and the problems that stop a sync, each with a code the store words.
 */

/** Why sync stopped or refused something; the store words each for the user. */
export type SyncProblemCode =
  | 'offline'
  | 'wrong_passphrase'
  | 'unauthorized'
  | 'forbidden'
  | 'server_full'
  | 'too_large'
  | 'server_error'
  | 'not_found'
  | 'quota_exceeded'
  | 'tampered'
  | 'bad_server';

export interface SyncProblem {
  code: SyncProblemCode;
  /** What happened, in the server's or the browser's words (shown after the app's own sentence). */
  detail?: string;
}

/**
 * - `starting`: opening the local copy, deriving nothing (keys are stored), checking the server.
 * - `sending` / `receiving`: replication is moving records; `progress` counts them.
 * - `synced`: everything this device has is on the server and everything there is here.
 * - `paused`: the user paused it.
 * - `stopped`: a problem stopped it; it retries by itself for `offline` and `server_error`.
 */
export type SyncPhase = 'starting' | 'sending' | 'receiving' | 'synced' | 'paused' | 'stopped';

export interface SyncStatus {
  phase: SyncPhase;
  /** Records moved so far in this run and, when known, how many there are in all. */
  progress?: { done: number; total?: number };
  /** When this device last had nothing left to send or receive (epoch ms). */
  lastSyncedAt?: number;
  problem?: SyncProblem;
  /** A record that arrived but failed its check (wrong key or changed on the server): never applied. */
  refused?: { count: number; lastId: string };
}

/** What a device keeps to sync (in its settings store, beside the API keys; never exported). */
export interface SyncConfig {
  /** The database's URL, e.g. https://couch.example.com/windowpane. */
  serverUrl: string;
  username: string;
  password: string;
  /** AES-GCM and HMAC keys derived from the passphrase; non-extractable. */
  keys: SyncKeys;
  /** This device's random id: breaks ties between equal times in the merge rules. */
  deviceId: string;
  /** API keys travel too (inside the encryption) when the user turned this on for this server. */
  syncApiKeys: boolean;
}

export interface SyncKeys {
  /** Encrypts every record (AES-GCM, 256 bits). */
  encrypt: CryptoKey;
  /** Makes each record's document id (HMAC-SHA-256), so ids say nothing of what they hold. */
  ids: CryptoKey;
}

/** What `connect` found: keys for this server, or why not. */
export type ConnectResult = { ok: true; keys: SyncKeys; created: boolean } | { ok: false; problem: SyncProblem };

export interface ConnectInput {
  serverUrl: string;
  username: string;
  password: string;
  passphrase: string;
}

export interface SyncEvents {
  status(status: SyncStatus): void;
  /** Something the user should hear (a conversation deleted on another device, or kept against a deletion). */
  notice(text: string): void;
}

/**
 * The page's side of sync: one replication per browser (the tab holding the lock runs it,
 * the others show its status).
 */
export interface SyncService {
  /** Checks the server and the passphrase (creating the passphrase check on an empty database). */
  connect(input: ConnectInput): Promise<ConnectResult>;
  /** Starts (or restarts with new settings) syncing; `events` hears every change of status and what to tell the user. */
  start(config: SyncConfig, events: SyncEvents): void;
  /** Sends and receives now, without waiting for the next retry. */
  syncNow(): void;
  pause(): void;
  resume(): void;
  /** Stops syncing; `forget` also removes this device's replicated copy (local records stay). */
  stop(options?: { forget?: boolean }): Promise<void>;
}
