/**
 * What the count endpoints refuse that their chat endpoints take, and the beta headers a body
 * needs on both. Anthropic `POST /v1/messages/count_tokens` takes the Messages body without
 * `max_tokens` and `stream` (“Count tokens in a Message”); OpenAI `POST /v1/responses/input_tokens`
 * takes the Responses body without what only an answer needs (“Get input token counts”): a
 * field the count does not define is refused as the APIs refuse unknown fields.
 */
import { THINKING_BINDING_BETA } from '../../src/core';
import type { ApiFailure } from './types';

const invalidAnthropic = (message: string): ApiFailure => ({ status: 400, type: 'invalid_request_error', message });

/** Fields of a Messages body that count_tokens does not take. */
const ANTHROPIC_ANSWER_ONLY = ['max_tokens', 'stream'];

/** Fields of a Responses body that input_tokens does not take. */
const RESPONSES_ANSWER_ONLY = ['max_output_tokens', 'store', 'include', 'stream', 'stream_options', 'background'];

/** A count_tokens body with a field only an answer takes. */
export function anthropicCountFailure(body: unknown): ApiFailure | null {
  const fields = typeof body === 'object' && body !== null ? Object.keys(body) : [];
  const extra = ANTHROPIC_ANSWER_ONLY.find((field) => fields.includes(field));
  return extra ? invalidAnthropic(`${extra}: Extra inputs are not permitted`) : null;
}

/**
 * A field that exists only under a beta, sent without its header: the API reads the body as if
 * the field were unknown. `thinking.block_binding` needs `thinking-binding-controls-2026-08-01`.
 */
export function anthropicBetaFailure(body: unknown, betaHeader: string | string[] | undefined): ApiFailure | null {
  const betas = new Set(
    (Array.isArray(betaHeader) ? betaHeader.join(',') : (betaHeader ?? ''))
      .split(',')
      .map((beta) => beta.trim())
      .filter(Boolean),
  );
  const thinking = typeof body === 'object' && body !== null ? (body as { thinking?: unknown }).thinking : undefined;
  const binds = typeof thinking === 'object' && thinking !== null && 'block_binding' in thinking;
  if (binds && !betas.has(THINKING_BINDING_BETA)) return invalidAnthropic('thinking.block_binding: Extra inputs are not permitted');
  return null;
}

/** An input_tokens body with a field only a response takes (OpenAI's unknown-parameter error). */
export function responsesCountFailure(body: unknown): ApiFailure | null {
  const fields = typeof body === 'object' && body !== null ? Object.keys(body) : [];
  const extra = RESPONSES_ANSWER_ONLY.find((field) => fields.includes(field));
  return extra ? { status: 400, type: 'invalid_request_error', message: `Unknown parameter: '${extra}'.`, param: extra, code: 'unknown_parameter' } : null;
}
