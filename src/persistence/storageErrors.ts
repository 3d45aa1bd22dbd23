/**
 * IndexedDB failures become WindowpaneErrors here, at the edge that meets them, with a
 * message that tells the user what happened to their data and what to do.
 */
import { WindowpaneError, isWindowpaneError } from '../core';

/** Browser names for "storage is full" (Firefox used its own before adopting the standard one). */
const QUOTA_NAMES = new Set(['QuotaExceededError', 'NS_ERROR_DOM_QUOTA_REACHED']);

function errorName(error: unknown): string {
  return typeof error === 'object' && error !== null && 'name' in error && typeof error.name === 'string' ? error.name : '';
}

function errorMessage(error: unknown): string {
  return error instanceof Error || (typeof error === 'object' && error !== null && 'message' in error)
    ? String((error as { message: unknown }).message)
    : String(error);
}

/** True for a browser "storage is full" error, whether thrown by a request or aborting a transaction. */
export function isQuotaError(error: unknown): boolean {
  return QUOTA_NAMES.has(errorName(error));
}

/**
 * `error` as a WindowpaneError: `quota_exceeded` when storage is full, `storage` for
 * anything else. `action` completes "couldn't …", e.g. "save the message". A
 * WindowpaneError passes through unchanged.
 */
export function toStorageError(error: unknown, action: string): WindowpaneError {
  if (isWindowpaneError(error)) return error;
  const name = errorName(error);
  const details = { cause: name || 'Error', causeMessage: errorMessage(error) };
  if (isQuotaError(error)) {
    return new WindowpaneError(
      'quota_exceeded',
      `Browser storage is full, so Windowpane couldn't ${action}. What is on screen is kept and nothing saved earlier ` +
        'was lost. Export and delete old conversations (or free disk space), then try again.',
      details,
    );
  }
  if (name === 'VersionError') {
    return new WindowpaneError(
      'storage',
      `A newer version of Windowpane has upgraded its storage in another tab, so this tab couldn't ${action}. ` +
        'Reload the page to use the new version; nothing saved was lost.',
      details,
    );
  }
  if (name === 'InvalidStateError') {
    return new WindowpaneError(
      'storage',
      `Windowpane lost its connection to browser storage (another tab may be upgrading it), so it couldn't ${action}. ` +
        'Reload the page; what was saved before is safe.',
      details,
    );
  }
  return new WindowpaneError(
    'storage',
    `Windowpane couldn't ${action} in browser storage (${details.cause}: ${details.causeMessage}). ` +
      'What is on screen is kept; try again, or reload the page.',
    details,
  );
}

/** The error for an upgrade that waits on another tab still holding the old version open. */
export function storageBlockedError(currentVersion: number, wantedVersion: number): WindowpaneError {
  return new WindowpaneError(
    'storage_blocked',
    'Windowpane needs to upgrade its storage, but another Windowpane tab is still using the old version. ' +
      'Close or reload the other Windowpane tabs; this tab continues as soon as they do.',
    { currentVersion, wantedVersion },
  );
}
