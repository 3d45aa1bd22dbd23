/** What the page and the sync Worker post to each other (every message structured-cloned). */
import type { ConnectInput, ConnectResult, SyncConfig, SyncStatus } from './types';

export type SyncRequest =
  | { type: 'connect'; id: number; input: ConnectInput }
  | { type: 'start'; config: SyncConfig; dbName?: string; channelName?: string }
  | { type: 'syncNow' }
  | { type: 'pause' }
  | { type: 'resume' }
  /** The browser went offline or back online (the page hears it; the Worker is not told). */
  | { type: 'network'; online: boolean }
  | { type: 'stop'; forget: boolean };

export type SyncReply =
  { type: 'connected'; id: number; result: ConnectResult } | { type: 'status'; status: SyncStatus } | { type: 'notice'; text: string } | { type: 'stopped' };

/** The channel on which the tab running sync tells the other tabs its status. */
export const STATUS_CHANNEL = 'windowpane-sync-status';

/** The channel on which the tab running sync passes its notices (a conversation deleted or kept) to the other tabs. */
export const NOTICE_CHANNEL = 'windowpane-sync-notices';

/** The Web Lock the tab running sync holds: one replication per browser profile. */
export const SYNC_LOCK = 'windowpane-sync';

/** What another tab asks of the tab running sync (its buttons are the same in every tab). */
export type SyncControl = { type: 'syncNow' | 'pause' | 'resume' };

/** The channel on which the other tabs pass their Sync now, Pause and Resume to the tab running sync. */
export const CONTROL_CHANNEL = 'windowpane-sync-control';
