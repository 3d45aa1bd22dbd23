/**
 * Browsers may evict IndexedDB data of sites under storage pressure unless the site is
 * granted persistent storage. Windowpane asks once it holds something worth keeping.
 */

export type PersistenceOutcome = 'granted' | 'denied' | 'unsupported';

/**
 * Asks the browser not to evict Windowpane's storage (`navigator.storage.persist()`).
 * Resolves `granted` when storage is (or already was) persistent, `denied` when the
 * browser declined, `unsupported` without the Storage API. Never rejects.
 */
export async function requestPersistentStorage(
  storage: Pick<StorageManager, 'persist' | 'persisted'> | undefined = typeof navigator !== 'undefined' ? navigator.storage : undefined,
): Promise<PersistenceOutcome> {
  if (!storage || typeof storage.persist !== 'function') return 'unsupported';
  try {
    if (typeof storage.persisted === 'function' && (await storage.persisted())) return 'granted';
    return (await storage.persist()) ? 'granted' : 'denied';
  } catch {
    return 'denied';
  }
}
