/**
 * Every failure the app can explain to a user has a code. Foreign errors (SDK, HTTP,
 * IndexedDB) are translated into one of these at the edge that meets them.
 */
export type ErrorCode =
  | 'invalid_config'
  | 'auth'
  | 'rate_limit'
  | 'overloaded'
  | 'network'
  | 'unknown_model'
  | 'context_length'
  | 'bad_request'
  | 'provider'
  | 'aborted'
  | 'quota_exceeded'
  | 'storage_blocked'
  | 'storage'
  | 'import_invalid'
  | 'import_too_large';

/** An error with a machine-readable `code` and a message a user can act on. */
export class WindowpaneError extends Error {
  readonly code: ErrorCode;
  readonly details: Readonly<Record<string, unknown>>;

  constructor(code: ErrorCode, message: string, details: Record<string, unknown> = {}) {
    super(message);
    this.name = 'WindowpaneError';
    this.code = code;
    this.details = details;
  }
}

/** Thrown for a configuration value outside its documented range; names the field. */
export class ConfigError extends WindowpaneError {
  readonly field: string;

  constructor(field: string, message: string) {
    super('invalid_config', message, { field });
    this.name = 'ConfigError';
    this.field = field;
  }
}

/** True when `value` is a WindowpaneError, optionally with the given code. */
export function isWindowpaneError(value: unknown, code?: ErrorCode): value is WindowpaneError {
  return value instanceof WindowpaneError && (code === undefined || value.code === code);
}
