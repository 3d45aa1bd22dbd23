/**
 * Persisting a streamed answer: not once per token (hundreds of writes a second) but at
 * most once per interval, plus a final write when the stream ends and a flush when the
 * page is hidden. While a stream runs its tab holds a Web Lock named after the message, so
 * another tab starting up can tell a live stream from one a closed tab left behind.
 */
import type { StoredMessage } from '../core';
import { isWindowpaneError, type WindowpaneError } from '../core';
import type { ConversationRepository, MessagePatch } from './conversationRepository';
import { toStorageError } from './storageErrors';

export interface Timers {
  setTimeout(callback: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
}

/** The part of the Web Locks API the stream writer uses (`navigator.locks`). */
export type StreamLocks = Pick<LockManager, 'request' | 'query'>;

export interface StreamWriterOptions {
  /** Least time between two throttled writes, in ms. Default 500. */
  intervalMs?: number;
  /** Defaults to the global setTimeout/clearTimeout. */
  timers?: Timers;
  /** Defaults to `navigator.locks` when the browser has it; `null` disables locking. */
  locks?: StreamLocks | null;
  /** Called when a throttled write fails; the unwritten state is kept and retried by the next write. */
  onError?: (error: WindowpaneError) => void;
  /** Where `flush` keeps a synchronous copy of the stream; defaults to `localStorage`, `null` disables it. */
  rescue?: RescueStore | null;
}

/**
 * Synchronous storage for the last copy of a stream (`localStorage`). Browsers drop
 * IndexedDB writes issued while a page unloads, so `flush` on `pagehide` cannot rely on
 * them; a synchronous write lands, and the next startup moves it into IndexedDB.
 */
export type RescueStore = Pick<Storage, 'getItem' | 'setItem' | 'removeItem' | 'key' | 'length'>;

export interface StreamWriter {
  readonly messageId: string;
  /**
   * Records the message's latest partial state — the whole content so far, not a delta —
   * to be written within `intervalMs`. Each throttled write also re-asserts
   * `status: 'streaming'`.
   */
  update(patch: MessagePatch): void;
  /**
   * Writes any pending state now (use on `pagehide`); rejects with the WindowpaneError if
   * that fails. First keeps a synchronous copy in the rescue store, which survives the page
   * unloading; `restoreRescuedStreams` applies it at the next start.
   */
  flush(): Promise<void>;
  /**
   * Writes the final state (content, status, usage…) at once and releases the stream's
   * lock. Rejects with a WindowpaneError if the write fails; the state stays pending, so
   * calling `finish` or `flush` again retries it.
   */
  finish(patch: MessagePatch): Promise<StoredMessage | undefined>;
}

const LOCK_PREFIX = 'windowpane-stream:';
const RESCUE_PREFIX = 'windowpane-rescue:';

/** The Web Lock a tab holds while it streams into `messageId`. */
export function streamLockName(messageId: string): string {
  return `${LOCK_PREFIX}${messageId}`;
}

function defaultLocks(): StreamLocks | null {
  return typeof navigator !== 'undefined' && navigator.locks ? navigator.locks : null;
}

function defaultRescue(): RescueStore | null {
  try {
    return typeof localStorage !== 'undefined' ? localStorage : null;
  } catch {
    return null; // storage blocked for this origin: reading `localStorage` throws
  }
}

const defaultTimers: Timers = {
  setTimeout: (callback, ms) => globalThis.setTimeout(callback, ms),
  clearTimeout: (handle) => globalThis.clearTimeout(handle as ReturnType<typeof globalThis.setTimeout>),
};

/** Starts persisting the stream into the stored message `messageId` (appended as `streaming`). */
export function createStreamWriter(
  repository: Pick<ConversationRepository, 'updateMessage'>,
  messageId: string,
  options: StreamWriterOptions = {},
): StreamWriter {
  const intervalMs = options.intervalMs ?? 500;
  const timers = options.timers ?? defaultTimers;
  const locks = options.locks === undefined ? defaultLocks() : options.locks;
  const rescue = options.rescue === undefined ? defaultRescue() : options.rescue;

  let pending: MessagePatch | undefined;
  /** Everything `update` was given, merged: the stream's latest state. */
  let state: MessagePatch = {};
  let timer: unknown;
  let finished = false;
  let chain: Promise<unknown> = Promise.resolve();
  let latest: StoredMessage | undefined;

  let releaseLock: () => void = () => undefined;
  if (locks) {
    const held = new Promise<void>((resolve) => (releaseLock = resolve));
    locks.request(streamLockName(messageId), () => held).catch(() => undefined);
  }

  /** Queues one write of everything pending; writes never overlap, so they land in order. */
  function write(): Promise<void> {
    if (timer !== undefined) {
      timers.clearTimeout(timer);
      timer = undefined;
    }
    const patch = pending;
    pending = undefined;
    const run = chain.then(async () => {
      if (!patch) return;
      try {
        latest = await repository.updateMessage(messageId, patch);
      } catch (error) {
        pending = { ...patch, ...pending };
        throw isWindowpaneError(error) ? error : toStorageError(error, 'save the answer');
      }
    });
    chain = run.catch(() => undefined);
    return run;
  }

  return {
    messageId,
    update(patch) {
      state = { ...state, ...patch };
      pending = { ...pending, ...patch, ...(finished ? {} : { status: 'streaming' as const }) };
      if (timer === undefined && !finished) {
        timer = timers.setTimeout(() => {
          timer = undefined;
          write().catch((error: WindowpaneError) => options.onError?.(error));
        }, intervalMs);
      }
    },
    flush() {
      if (!finished && Object.keys(state).length > 0) {
        try {
          rescue?.setItem(RESCUE_PREFIX + messageId, JSON.stringify(state));
        } catch {
          // Full or blocked: the IndexedDB write below is still attempted.
        }
      }
      return write();
    },
    async finish(patch) {
      finished = true;
      pending = { ...pending, ...patch };
      try {
        await write();
        try {
          rescue?.removeItem(RESCUE_PREFIX + messageId);
        } catch {
          // A leftover copy is ignored at startup once the message is no longer streaming.
        }
        return latest;
      } finally {
        releaseLock();
      }
    },
  };
}

/**
 * True for each message some tab is streaming into right now: its lock is held or
 * requested. Pass to `markInterruptedStreams` at startup. Without Web Locks every stream
 * counts as dead, which is right for a single tab.
 */
export async function liveStreamChecker(locks: StreamLocks | null = defaultLocks()): Promise<(messageId: string) => boolean> {
  if (!locks) return () => false;
  const snapshot = await locks.query();
  const names = new Set([...(snapshot.held ?? []), ...(snapshot.pending ?? [])].map((lock) => lock.name));
  return (messageId) => names.has(streamLockName(messageId));
}

/**
 * At startup, before `markInterruptedStreams`: puts the copies `flush` kept while a page
 * unloaded into the messages they belong to, when those are still `streaming` and no tab
 * is streaming into them (`isStreamAlive`). Then forgets the copies it handled.
 */
export async function restoreRescuedStreams(
  repository: Pick<ConversationRepository, 'getMessage' | 'updateMessage'>,
  isStreamAlive: (messageId: string) => boolean,
  rescue: RescueStore | null = defaultRescue(),
): Promise<void> {
  if (!rescue) return;
  const keys: string[] = [];
  for (let i = 0; i < rescue.length; i++) {
    const key = rescue.key(i);
    if (key?.startsWith(RESCUE_PREFIX)) keys.push(key);
  }
  for (const key of keys) {
    const messageId = key.slice(RESCUE_PREFIX.length);
    if (isStreamAlive(messageId)) continue;
    try {
      const saved = JSON.parse(rescue.getItem(key) ?? 'null') as MessagePatch | null;
      const message = await repository.getMessage(messageId);
      if (saved && typeof saved === 'object' && message?.status === 'streaming') {
        await repository.updateMessage(messageId, { ...saved, status: 'streaming' });
      }
      rescue.removeItem(key);
    } catch {
      // Unreadable copy or a failed write: what IndexedDB holds stands.
    }
  }
}

/**
 * Calls `flush` when the page is being hidden or unloaded (`pagehide`, or
 * `visibilitychange` to hidden) — the last moment a closing tab can still write. Returns
 * the function that removes the listeners.
 */
export function registerFlushOnHide(
  flush: () => unknown,
  target: {
    window: Pick<Window, 'addEventListener' | 'removeEventListener'>;
    document: Pick<Document, 'addEventListener' | 'removeEventListener' | 'visibilityState'>;
  } = {
    window,
    document,
  },
): () => void {
  // Nobody is left to show an error while the page goes away; a write that fails here is
  // still pending in the writer, and the next startup marks the stream interrupted.
  const run = () =>
    void Promise.resolve()
      .then(flush)
      .catch(() => undefined);
  const onPageHide = () => run();
  const onVisibilityChange = () => {
    if (target.document.visibilityState === 'hidden') run();
  };
  target.window.addEventListener('pagehide', onPageHide);
  target.document.addEventListener('visibilitychange', onVisibilityChange);
  return () => {
    target.window.removeEventListener('pagehide', onPageHide);
    target.document.removeEventListener('visibilitychange', onVisibilityChange);
  };
}
