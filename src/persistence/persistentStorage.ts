/**
 * Browsers may evict IndexedDB data of sites under storage pressure unless the site is
 * granted persistent storage. Windowpane asks once it holds something worth keeping, and
 * the Settings dialog shows what the browser says about its storage.
 */

export type PersistenceOutcome = 'granted' | 'denied' | 'unsupported';

/** The parts of `navigator.storage` Windowpane reads; any of them may be missing. */
export type BrowserStorage = Partial<Pick<StorageManager, 'estimate' | 'persist' | 'persisted'>>;

/** `navigator.storage`, or undefined where the browser has none (older browsers, plain http in some). */
function pageStorage(): BrowserStorage | undefined {
  return typeof navigator !== 'undefined' ? navigator.storage : undefined;
}

/**
 * Asks the browser not to evict Windowpane's storage (`navigator.storage.persist()`).
 * Resolves `granted` when storage is (or already was) persistent, `denied` when the
 * browser declined, `unsupported` without the Storage API. Never rejects.
 */
export async function requestPersistentStorage(storage: BrowserStorage | undefined = pageStorage()): Promise<PersistenceOutcome> {
  if (!storage || typeof storage.persist !== 'function') return 'unsupported';
  try {
    if (typeof storage.persisted === 'function' && (await storage.persisted())) return 'granted';
    return (await storage.persist()) ? 'granted' : 'denied';
  } catch {
    return 'denied';
  }
}

/** What the browser says about this site's storage; a fact it does not report is undefined. */
export interface BrowserStorageFacts {
  /** Bytes this site uses, all its storage together, as the browser estimates them. */
  usage?: number;
  /** Bytes this site may use at most, as the browser estimates them. */
  quota?: number;
  /** Whether the browser keeps this site's data under storage pressure. */
  persisted?: boolean;
  /** Whether this browser lets the site ask for persistent storage (`navigator.storage.persist`). */
  canPersist: boolean;
}

/**
 * Reads `navigator.storage.estimate()` and `persisted()`. Each is asked on its own, so one
 * missing or failing leaves the other reported. Never rejects.
 */
export async function readBrowserStorage(storage: BrowserStorage | undefined = pageStorage()): Promise<BrowserStorageFacts> {
  const [estimate, persisted] = await Promise.all([answer(() => storage?.estimate?.()), answer(() => storage?.persisted?.())]);
  const facts: BrowserStorageFacts = { canPersist: typeof storage?.persist === 'function' };
  if (isBytes(estimate?.usage)) facts.usage = estimate.usage;
  if (isBytes(estimate?.quota)) facts.quota = estimate.quota;
  if (typeof persisted === 'boolean') facts.persisted = persisted;
  return facts;
}

/** What `ask` resolves to; undefined when it throws or rejects. */
async function answer<T>(ask: () => Promise<T> | undefined): Promise<T | undefined> {
  try {
    return await ask();
  } catch {
    return undefined;
  }
}

function isBytes(value: unknown): value is number {
  return typeof value === 'number' && Number.isFinite(value) && value >= 0;
}
