import type { ContentBlock, ProviderId } from './conversation';

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
  | 'conversation_gone'
  | 'import_invalid'
  | 'import_too_large';

/** What a provider's error carries: the request's facts, redacted of any key. */
export interface ProviderErrorDetails {
  provider?: ProviderId;
  /** HTTP status, when the provider answered. */
  status?: number;
  /** The provider's own message, redacted. */
  apiMessage?: string;
  requestId?: string;
  /** What arrived before a mid-stream failure, to keep as the partial answer. */
  partialContent?: ContentBlock[];
}

/** What a storage error carries: the browser's error, and where it happened. */
export interface StorageErrorDetails {
  /** The DOMException's name and message. */
  cause?: string;
  causeMessage?: string;
  /** The migration that failed, for a failed upgrade. */
  migration?: string;
  conversationId?: string;
}

/**
 * What a write refused with `conversation_gone` was storing: a message, one attachment, the
 * images or files sent with a message, or attachments being put back (Undo).
 */
export type RefusedWrite = 'message' | 'attachment' | 'images' | 'files' | 'restored attachments';

/** The details each code carries; every field is optional, as not every failure knows it. */
export interface ErrorDetailsByCode {
  invalid_config: { field?: string };
  auth: ProviderErrorDetails;
  /** `retryAfterSeconds`: the wait the provider asked for (Retry-After). */
  rate_limit: ProviderErrorDetails & { retryAfterSeconds?: number };
  overloaded: ProviderErrorDetails;
  network: ProviderErrorDetails;
  unknown_model: ProviderErrorDetails;
  /** The real count and the limit, when the provider states them (tokens). */
  context_length: ProviderErrorDetails & { promptTokens?: number; limit?: number; requestedOutputTokens?: number };
  /** `toolsUnsupported`: the model or server cannot take tool definitions. */
  bad_request: ProviderErrorDetails & { toolsUnsupported?: boolean; imagesUnsupported?: boolean };
  provider: ProviderErrorDetails;
  aborted: ProviderErrorDetails;
  quota_exceeded: StorageErrorDetails;
  storage_blocked: { currentVersion?: number; wantedVersion?: number };
  storage: StorageErrorDetails;
  /** The conversation a write went to was deleted (in another tab, say), so nothing of it was written; `name`: the attachment's. */
  conversation_gone: { conversationId?: string; refused?: RefusedWrite; name?: string };
  import_invalid: Record<never, never>;
  import_too_large: Record<never, never>;
}

type UnionToIntersection<U> = (U extends unknown ? (u: U) => void : never) extends (i: infer I) => void ? I : never;

/** The details of an error of code `C`; for an error whose code is not known yet, every field any code may carry. */
export type ErrorDetails<C extends ErrorCode = ErrorCode> = [ErrorCode] extends [C]
  ? Partial<UnionToIntersection<ErrorDetailsByCode[ErrorCode]>>
  : ErrorDetailsByCode[C];

/** An error with a machine-readable `code` and a message a user can act on. */
export class WindowpaneError<C extends ErrorCode = ErrorCode> extends Error {
  readonly code: C;
  readonly details: Readonly<ErrorDetails<C>>;

  constructor(code: C, message: string, details: ErrorDetails<C> = {} as ErrorDetails<C>) {
    super(message);
    this.name = 'WindowpaneError';
    this.code = code;
    this.details = details;
  }
}

/** Thrown for a configuration value outside its documented range; names the field. */
export class ConfigError extends WindowpaneError<'invalid_config'> {
  readonly field: string;

  constructor(field: string, message: string) {
    super('invalid_config', message, { field });
    this.name = 'ConfigError';
    this.field = field;
  }
}

/** True when `value` is a WindowpaneError, optionally with the given code (and then its details' shape). */
export function isWindowpaneError<C extends ErrorCode = ErrorCode>(value: unknown, code?: C): value is WindowpaneError<C> {
  return value instanceof WindowpaneError && (code === undefined || value.code === code);
}
