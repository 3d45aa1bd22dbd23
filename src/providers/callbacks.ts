/**
 * Callers' stream callbacks run inside the adapters' error handling. An exception a
 * callback throws is the caller's bug, not a provider failure, so it is marked here and
 * passed through untranslated.
 */

/** Wraps an exception thrown by a caller's callback. */
export class CallbackFailure {
  constructor(readonly cause: unknown) {}
}

/** Runs a callback; an exception it throws becomes a {@link CallbackFailure}. */
export function emit(fn: (() => void) | undefined): void {
  if (!fn) return;
  try {
    fn();
  } catch (error) {
    throw new CallbackFailure(error);
  }
}
