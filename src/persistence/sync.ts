/**
 * Cross-tab change notices. After each committed write the repositories announce what
 * changed on a BroadcastChannel; other tabs of the app re-read just that from IndexedDB
 * (the notice carries ids, never data, so storage stays the one source of truth).
 */

/**
 * - `conversation-changed`: a conversation's metadata was created, changed or deleted
 *   (re-read it with `getConversation`; undefined means deleted). Without
 *   `conversationId`: several changed at once (an import) — re-list them.
 * - `messages-changed`: a message was added or updated (re-read it with `getMessage`);
 *   without `messageId`, re-read the conversation's messages.
 * - `settings-changed`: the setting `settingKey` changed.
 * - `attachments-changed`: a file was attached to or removed from the conversation (re-list them).
 */
export interface StorageChange {
  type: 'conversation-changed' | 'messages-changed' | 'settings-changed' | 'attachments-changed';
  conversationId?: string;
  messageId?: string;
  settingKey?: string;
}

export type StorageChangeListener = (change: StorageChange) => void;

export interface SyncChannel {
  /** Tells the other tabs about a committed change. Never delivered to this channel's own listeners. */
  announce(change: StorageChange): void;
  /** Calls `listener` for each change another tab announces; returns the unsubscribe function. */
  subscribe(listener: StorageChangeListener): () => void;
  /**
   * Tells this channel's own listeners of a change as if another tab had announced it: for
   * writes this tab makes outside the paths that keep its state in step (an import run in the
   * page, which the tab follows as it follows one run by a Worker).
   */
  echo(change: StorageChange): void;
  close(): void;
}

/** The channel every tab of the app listens on. */
export const SYNC_CHANNEL_NAME = 'windowpane-sync';

export interface SyncChannelOptions {
  name?: string;
  /** Defaults to the global BroadcastChannel; without one, no other tab is heard or told (one tab only). */
  BroadcastChannel?: typeof BroadcastChannel;
}

const TYPES = new Set<StorageChange['type']>(['conversation-changed', 'messages-changed', 'settings-changed', 'attachments-changed']);

/** A notice from another tab, or undefined for anything else posted on the channel. */
function readChange(data: unknown): StorageChange | undefined {
  if (typeof data !== 'object' || data === null) return undefined;
  const { type, conversationId, messageId, settingKey } = data as Record<string, unknown>;
  if (!TYPES.has(type as StorageChange['type'])) return undefined;
  const change: StorageChange = { type: type as StorageChange['type'] };
  if (typeof conversationId === 'string') change.conversationId = conversationId;
  if (typeof messageId === 'string') change.messageId = messageId;
  if (typeof settingKey === 'string') change.settingKey = settingKey;
  return change;
}

export function createSyncChannel(options: SyncChannelOptions = {}): SyncChannel {
  const Channel = options.BroadcastChannel ?? globalThis.BroadcastChannel;
  const listeners = new Set<StorageChangeListener>();
  let closed = false;
  const channel = Channel ? new Channel(options.name ?? SYNC_CHANNEL_NAME) : undefined;
  const deliver = (change: StorageChange) => {
    if (!closed) for (const listener of listeners) listener(change);
  };
  channel?.addEventListener('message', (event: MessageEvent) => {
    const change = readChange(event.data);
    if (change) deliver(change);
  });
  return {
    announce(change) {
      if (!closed) channel?.postMessage({ ...change });
    },
    subscribe(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    echo: deliver,
    close() {
      closed = true;
      listeners.clear();
      channel?.close();
    },
  };
}
