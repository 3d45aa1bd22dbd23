/**
 * SDK and HTTP failures → WindowpaneError with a message a user can act on. Both SDKs
 * throw errors with `status`, `headers` and the parsed JSON body in `error` (Anthropic:
 * the whole `{ type: 'error', error: { type, message } }`; OpenAI: the inner
 * `{ message, type, param, code }`); connection failures and aborts have no status.
 * Errors are read by shape, not class, so this file does not load an SDK.
 */
import { WindowpaneError, parseContextLengthError } from '../core';
import type { ContentBlock, ErrorCode, ErrorDetails, ProviderId } from '../core';

export interface ErrorContext {
  provider: ProviderId;
  model: string;
  /** Shown in network and 404 messages, so the user can check it. */
  baseUrl: string;
  /** Redacted from every message and detail. */
  apiKey?: string;
  /** The caller's signal: an abort it caused is `aborted`, not `network`. */
  signal?: AbortSignal;
  /** Text that arrived before a mid-stream failure; kept in `details.partialContent`. */
  partialContent?: ContentBlock[];
}

interface ApiBody {
  message?: string;
  type?: string;
  code?: string | null;
}

/** Anthropic error `type` → the HTTP status it comes with, for errors sent inside a stream. */
const STATUS_OF_TYPE: Record<string, number> = {
  invalid_request_error: 400,
  authentication_error: 401,
  billing_error: 402,
  permission_error: 403,
  not_found_error: 404,
  request_too_large: 413,
  rate_limit_error: 429,
  api_error: 500,
  timeout_error: 504,
  overloaded_error: 529,
};

function providerName(ctx: ErrorContext): string {
  switch (ctx.provider) {
    case 'anthropic':
      return 'Anthropic';
    case 'openai':
      return 'OpenAI';
    case 'demo':
      return 'the demo model';
    default:
      return `the server at ${ctx.baseUrl}`;
  }
}

function isCustomEndpoint(ctx: ErrorContext): boolean {
  if (ctx.provider === 'openai-compatible') return true;
  const host = safeHost(ctx.baseUrl);
  return ctx.provider === 'anthropic' ? host !== 'api.anthropic.com' : ctx.provider === 'openai' ? host !== 'api.openai.com' : false;
}

function safeHost(url: string): string {
  try {
    return new URL(url).host;
  } catch {
    return '';
  }
}

/** Removes the API key, and anything shaped like one, from text shown or logged. */
export function redactSecrets(text: string, apiKey?: string): string {
  let out = text;
  if (apiKey && apiKey.length >= 4) out = out.split(apiKey).join('[redacted]');
  return out.replace(/\b(sk-(?:ant-)?)[A-Za-z0-9_*-]{4,}/g, '$1[redacted]');
}

function apiBodyOf(error: Record<string, unknown>): ApiBody {
  const raw = error.error;
  if (!raw || typeof raw !== 'object') return {};
  const outer = raw as Record<string, unknown>;
  // Anthropic nests the error object; OpenAI's SDK already unwrapped it.
  const inner = outer.type === 'error' && outer.error && typeof outer.error === 'object' ? (outer.error as Record<string, unknown>) : outer;
  return {
    message: typeof inner.message === 'string' ? inner.message : undefined,
    type: typeof inner.type === 'string' ? inner.type : undefined,
    code: typeof inner.code === 'string' ? inner.code : undefined,
  };
}

function retryAfterSeconds(headers: unknown): number | undefined {
  if (!headers || typeof (headers as Headers).get !== 'function') return undefined;
  const h = headers as Headers;
  const ms = parseFloat(h.get('retry-after-ms') ?? '');
  if (Number.isFinite(ms) && ms > 0) return Math.ceil(ms / 1000);
  const value = h.get('retry-after');
  if (!value) return undefined;
  const seconds = parseFloat(value);
  if (Number.isFinite(seconds)) return Math.max(0, Math.ceil(seconds));
  const date = Date.parse(value);
  return Number.isFinite(date) ? Math.max(0, Math.ceil((date - Date.now()) / 1000)) : undefined;
}

function isAbort(error: unknown, ctx: ErrorContext): boolean {
  if (ctx.signal?.aborted) return true;
  return error instanceof Error && (error.name === 'AbortError' || error.name === 'APIUserAbortError');
}

function mentionsModel(body: ApiBody): boolean {
  return body.code === 'model_not_found' || /\bmodel\b/i.test(body.message ?? '');
}

/**
 * How servers say a model cannot take `tools`: Ollama ("… does not support tools"),
 * vLLM without a tool parser ("\"auto\" tool choice requires --enable-auto-tool-choice"),
 * and the wordings of other OpenAI-compatible servers.
 */
/** What OpenAI, Ollama, vLLM and LM Studio answer when the model is sent an image it cannot read. */
const IMAGES_UNSUPPORTED =
  /(?:image_url|input_image) is only supported by certain models|does not support (?:image|vision)|not a multimodal model|images? (?:input )?(?:is|are) not supported|model does not support images/i;

/** What Anthropic answers when the model is sent a PDF it cannot read, and other servers' wordings for files. */
const PDFS_UNSUPPORTED =
  /\b(?:input_)?file is only supported by certain models|does not support PDFs?|PDFs? (?:input )?(?:is|are) not supported|file inputs? (?:is|are) not supported/i;

const TOOLS_UNSUPPORTED =
  /does not support (?:tools|tool use|function calling)|tools? (?:is|are) not supported|(?:tool|function) calling is not supported|enable-auto-tool-choice/i;

function formatCount(n: number): string {
  return n.toLocaleString('en-US');
}

/**
 * Translates any error an adapter meets into a WindowpaneError (returned unchanged when it
 * already is one). Codes: `auth` (401/403), `rate_limit` (429, with `retryAfterSeconds`),
 * `overloaded` (529/503), `provider` (other 5xx, 402, a 404 that is not about the model), `bad_request` with
 * `details.toolsUnsupported` (a model or server that cannot take tools), `bad_request` with
 * `details.imagesUnsupported` (a model that cannot read images),
 * `unknown_model` (404 naming the model), `context_length` (with `promptTokens` and
 * `limit` when the message states them), `bad_request` (other 4xx), `network`
 * (connection, CORS, timeout), `aborted`. Details carry `status`, the redacted
 * `apiMessage` and `requestId` when known. The API key never appears.
 */
export function toWindowpaneError(error: unknown, ctx: ErrorContext): WindowpaneError {
  if (error instanceof WindowpaneError) return error;
  const details: ErrorDetails = { provider: ctx.provider };
  if (ctx.partialContent && ctx.partialContent.length > 0) details.partialContent = ctx.partialContent;
  const make = (code: ErrorCode, message: string) => new WindowpaneError(code, redactSecrets(message, ctx.apiKey), details);

  if (isAbort(error, ctx)) return make('aborted', 'Stopped.');

  const record = error !== null && typeof error === 'object' ? (error as Record<string, unknown>) : {};
  const body = apiBodyOf(record);
  let status = typeof record.status === 'number' ? record.status : undefined;
  // An error the API sent inside a stream has a type but no status; whatever its type
  // (OpenAI's is `server_error`), it came from the server, so it is never a network failure.
  if (status === undefined && body.type) status = STATUS_OF_TYPE[body.type] ?? 500;
  const name = providerName(ctx);
  const rawMessage = error instanceof Error ? error.message : String(error);
  const apiMessage = redactSecrets(body.message ?? rawMessage, ctx.apiKey);
  if (status !== undefined) details.status = status;
  details.apiMessage = apiMessage;
  const requestId = record.requestID;
  if (typeof requestId === 'string') details.requestId = requestId;

  if (status === undefined) {
    const timedOut = /timed? ?out/i.test(rawMessage);
    const where = `${name}${ctx.provider === 'openai-compatible' ? '' : ` at ${ctx.baseUrl}`}`;
    let message = timedOut
      ? `${capitalize(where)} did not answer in time. Check your connection and try again.`
      : `Could not reach ${where}: the connection failed, so this device may be offline. Check your internet connection and try again.`;
    if (!timedOut && isCustomEndpoint(ctx)) {
      message +=
        ' For a custom endpoint, check that the base URL in Settings is right, that the server is running, and that it allows requests from this page (CORS; for Ollama, set OLLAMA_ORIGINS).';
    }
    return make('network', message);
  }

  const context = body.message ? parseContextLengthError(body.message) : null;
  if (context) {
    details.promptTokens = context.promptTokens;
    details.limit = context.limit;
    if (context.requestedOutputTokens !== undefined) details.requestedOutputTokens = context.requestedOutputTokens;
    return make(
      'context_length',
      `The conversation is too long for ${ctx.model}: ${formatCount(context.promptTokens)} tokens, limit ${formatCount(context.limit)}.`,
    );
  }
  if (
    body.code === 'context_length_exceeded' ||
    /prompt is too long|maximum context length|exceeds? (?:the )?(?:context|configured limit|available context)|context window/i.test(body.message ?? '')
  ) {
    return make('context_length', `The conversation is too long for ${ctx.model}. ${apiMessage}`);
  }

  if (IMAGES_UNSUPPORTED.test(body.message ?? '')) {
    details.imagesUnsupported = true;
    return make('bad_request', `${ctx.model} cannot read images (${name} said: ${apiMessage})`);
  }
  // Recovered the same way: the files are left out and the PDFs' text is sent instead.
  if (PDFS_UNSUPPORTED.test(body.message ?? '')) {
    details.imagesUnsupported = true;
    return make('bad_request', `${ctx.model} cannot read PDFs (${name} said: ${apiMessage})`);
  }
  if (TOOLS_UNSUPPORTED.test(body.message ?? '')) {
    details.toolsUnsupported = true;
    return make('bad_request', `${capitalize(name)} cannot use tools with ${ctx.model}: ${apiMessage}`);
  }

  switch (status) {
    case 401:
      return make('auth', `The API key was rejected by ${name}. Check it in Settings.`);
    case 403:
      return make('auth', `${capitalize(name)} refused this request (permission denied): ${apiMessage} Check that your API key may use ${ctx.model}.`);
    case 402:
      return make('provider', `${capitalize(name)} refused the request for a billing reason: ${apiMessage}`);
    case 404:
      if (body.type === 'not_found_error' || mentionsModel(body)) {
        return make('unknown_model', `The model “${ctx.model}” was not found at ${name}. Choose another model in Settings.`);
      }
      return make(
        'provider',
        `${capitalize(name)} answered 404 Not Found at ${ctx.baseUrl}. Check the base URL in Settings${
          ctx.provider === 'anthropic' ? '' : ' (OpenAI-compatible servers usually end in /v1)'
        }.`,
      );
    case 413:
      return make('bad_request', `The request is too large for ${name}: ${apiMessage}`);
    case 429: {
      if (body.code === 'insufficient_quota') {
        return make('rate_limit', `${capitalize(name)} says this key has no quota left: ${apiMessage} Check your plan and billing.`);
      }
      const seconds = retryAfterSeconds(record.headers);
      if (seconds !== undefined) details.retryAfterSeconds = seconds;
      return make(
        'rate_limit',
        `${capitalize(name)} is rate limiting this key.${seconds !== undefined ? ` Try again in ${seconds} s.` : ' Wait a moment and try again.'}`,
      );
    }
    case 503:
    case 529:
      return make('overloaded', `${capitalize(name)} is overloaded right now. Your message is kept; try again in a moment.`);
  }
  if (status >= 500) {
    return make('provider', `${capitalize(name)} had an internal error (HTTP ${status}). Try again in a moment.`);
  }
  return make('bad_request', `${capitalize(name)} rejected the request: ${apiMessage}`);
}

function capitalize(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}
