/** What the sync engine is made with (see engine.ts), shared by the modules it is built from. */
import type { SyncRepositories } from '../persistence';
import type { DocStore } from './docStore';
import type { SyncKeys } from './types';

export interface EngineEvents {
  /**
   * Sending: records sealed into the replicated copy in this pass, of how many it sends.
   * Receiving: `applied` more records that came from other devices were applied here.
   */
  progress(progress: { phase: 'sending'; done: number; total: number } | { phase: 'receiving'; applied: number }): void;
  /** A document failed its check (another passphrase, or changed on the server): never applied. */
  refused(docId: string): void;
  /** Something the user should hear: a conversation deleted or kept against a deletion. */
  notice(text: string): void;
}

export interface EngineOptions {
  keys: SyncKeys;
  deviceId: string;
  /** API keys travel inside the settings record (off: each device keeps its own). */
  syncApiKeys: boolean;
  docs: DocStore;
  repositories: Pick<SyncRepositories, 'conversations' | 'files' | 'settings' | 'sync'>;
  now: () => number;
  events: EngineEvents;
  /** True while the user has paused sync: a pass stops after the batch it is in. */
  paused?: () => boolean;
}
