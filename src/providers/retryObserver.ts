/**
 * Makes the SDKs' own retries visible. Both SDKs retry 408/409/429/5xx and connection
 * failures themselves (honouring `retry-after-ms` / `retry-after`), but expose no retry
 * event. Every attempt, retries included, goes through the `fetch` the SDK was given and
 * carries the attempt number in the `X-Stainless-Retry-Count` request header, so a
 * wrapping `fetch` sees each failed attempt and can tell — with the SDK's own rules,
 * mirrored below from its client sources — whether and how long it will wait before
 * retrying. The wrapper only observes: it never changes a request or a response.
 */
import type { RetryInfo } from './types';

export type SdkFamily = 'anthropic' | 'openai';

export interface RetryPolicy {
  sdk: SdkFamily;
  maxRetries: number;
}

/** The SDKs' `shouldRetry`: an explicit `x-should-retry` wins, else 408, 409, 429 and 5xx. */
export function sdkWillRetryStatus(status: number, headers: Headers): boolean {
  const explicit = headers.get('x-should-retry');
  if (explicit === 'true') return true;
  if (explicit === 'false') return false;
  return status === 408 || status === 409 || status === 429 || status >= 500;
}

/** The SDKs' backoff without jitter (jitter only shortens it by up to 25 %): 0.5 s doubling, at most 8 s. */
function backoffMs(attemptIndex: number): number {
  return Math.min(0.5 * 2 ** attemptIndex, 8) * 1000;
}

/**
 * How long the SDK will sleep before retrying after a response with these headers.
 * Anthropic honours any positive `retry-after` a timer can hold; OpenAI only 0–60 s
 * and falls back to its backoff beyond that.
 */
export function sdkRetryDelayMs(headers: Headers, attemptIndex: number, sdk: SdkFamily, nowMs: number): number {
  let ms: number | undefined;
  const msHeader = headers.get('retry-after-ms');
  if (msHeader) {
    const value = parseFloat(msHeader);
    if (!Number.isNaN(value)) ms = value;
  }
  const retryAfter = headers.get('retry-after');
  if (retryAfter && (sdk === 'anthropic' ? !ms : ms === undefined)) {
    const seconds = parseFloat(retryAfter);
    ms = Number.isNaN(seconds) ? Date.parse(retryAfter) - nowMs : seconds * 1000;
  }
  const honoured = ms !== undefined && (sdk === 'anthropic' ? ms > 0 && ms <= 2 ** 31 - 1 : Number.isFinite(ms) && ms >= 0 && ms <= 60_000);
  return honoured ? (ms as number) : backoffMs(attemptIndex);
}

function retryReason(status: number): string {
  if (status === 429) return 'rate_limit';
  if (status === 529 || status === 503) return 'overloaded';
  if (status === 408) return 'timeout';
  if (status === 409) return 'conflict';
  return 'server_error';
}

function attemptIndexOf(init: RequestInit | undefined): number {
  const value = new Headers(init?.headers).get('x-stainless-retry-count');
  const parsed = value === null ? 0 : Number.parseInt(value, 10);
  return Number.isFinite(parsed) && parsed >= 0 ? parsed : 0;
}

/**
 * Wraps `baseFetch` so `onRetry` is called each time the SDK is about to retry, before
 * it waits. `userSignal` tells a user abort (never retried) from the SDK's own timeout
 * abort (retried).
 */
export function observeRetries(
  baseFetch: typeof fetch,
  policy: RetryPolicy,
  onRetry: ((info: RetryInfo) => void) | undefined,
  userSignal?: AbortSignal,
): typeof fetch {
  if (!onRetry) return baseFetch;
  return async (input, init) => {
    const attemptIndex = attemptIndexOf(init);
    const retriesLeft = attemptIndex < policy.maxRetries;
    let response: Response;
    try {
      response = await baseFetch(input, init);
    } catch (error) {
      if (retriesLeft && !userSignal?.aborted) {
        const timedOut = error instanceof Error && error.name === 'AbortError';
        onRetry({
          attempt: attemptIndex + 1,
          maxRetries: policy.maxRetries,
          delayMs: backoffMs(attemptIndex),
          reason: timedOut ? 'timeout' : 'network',
        });
      }
      throw error;
    }
    if (!response.ok && retriesLeft && sdkWillRetryStatus(response.status, response.headers)) {
      onRetry({
        attempt: attemptIndex + 1,
        maxRetries: policy.maxRetries,
        delayMs: sdkRetryDelayMs(response.headers, attemptIndex, policy.sdk, Date.now()),
        reason: retryReason(response.status),
        status: response.status,
      });
    }
    return response;
  };
}
