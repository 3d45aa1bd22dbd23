/**
 * # Fake provider API
 *
 * A local HTTP server (Node `http`, no framework) that answers like the Anthropic Messages API,
 * the OpenAI Chat Completions API and OpenAI's Responses API closely enough that the official SDKs
 * cannot tell. Browser tests point the app's base URL setting at it; the unit tests in this folder
 * drive it with the real SDKs. It binds to 127.0.0.1 only, on a random free port unless one is given.
 *
 * ```ts
 * const fake = await startFakeApi({ contextWindow: 8_000 });
 * new Anthropic({ apiKey, baseURL: fake.url });          // POST {url}/v1/messages
 * new OpenAI({ apiKey, baseURL: `${fake.url}/v1` });     // POST {url}/v1/chat/completions, /v1/responses
 * fake.failNext('429', { retryAfterSeconds: 1 });
 * fake.setReply((request) => ({ toolCalls: [{ name: 'lookup', input: { q: 'x' } }] }));
 * await fake.close();
 * ```
 * From a shell: `npx tsx test/fake-api/server.ts --port 8787 [--context-window 8000] [--delay 30]`.
 *
 * ## Routes (everything else is a 404 in the provider's error shape)
 * - `OPTIONS *`: CORS preflight, 204; echoes `Origin` and `Access-Control-Request-Headers`, allows
 *   GET/POST/OPTIONS, answers Chromium's private-network preflight. Every other response carries
 *   `Access-Control-Allow-Origin` (the Origin echoed) and exposes retry-after, request ids and the
 *   rate-limit headers.
 * - Anthropic: `POST /v1/messages`, `POST /v1/messages/count_tokens`, `GET /v1/models[/{id}]`.
 *   The key goes in `x-api-key` or (what SDK 1.x sends) `Authorization: Bearer`; `anthropic-version`
 *   must be `2023-06-01` or `2026-10-21` (SDK 1.12 sends the latter). A request with an `Origin`
 *   header must also send `anthropic-dangerous-direct-browser-access: true`, as the real API demands.
 * - OpenAI: `POST /v1/chat/completions`, `POST /v1/responses`, `POST /v1/responses/input_tokens`
 *   and `GET /v1/models[/{id}]`, also without the `/v1` prefix (`POST /chat/completions`,
 *   `POST /responses`, `POST /responses/input_tokens`, `GET /models`) for
 *   OpenAI-compatible base URLs that already end in `/v1` or have none. `Authorization: Bearer` is
 *   required. `GET /v1/models` answers in Anthropic's shape when the request carries
 *   `anthropic-version`: paged (`limit` 1–1000, default 20, `after_id`, `before_id`), each model
 *   with `max_input_tokens` (its `contextWindow`) and `max_tokens`, under the same key, version and
 *   browser-access checks as `/v1/messages`.
 * - OpenRouter-style: `GET /api/v1/models` (public, as OpenRouter's is) with `context_length` and
 *   `top_provider.max_completion_tokens`, and `POST /api/v1/chat/completions` as OpenAI's.
 * - Ollama: `GET /api/tags` and `POST /api/show` (no key, as Ollama asks none). With `ollama` set,
 *   the OpenAI-shaped `GET /v1/models` lists those models, as Ollama's own `/v1/models` does.
 *   See models.ts for the shapes.
 *
 * ## What is validated (400 `invalid_request_error` with the real message unless noted)
 * Anthropic: `model`, `max_tokens` (integer >= 0; 0 is the documented cache pre-warm) and
 * non-empty `messages` required; roles user/assistant, plus `system` messages mid-conversation only
 * right after a user turn; first message from the user; no empty content except the optional final
 * assistant message; no empty or whitespace-only text blocks; no trailing whitespace in a final
 * assistant prefill; `system` a string or text blocks; consecutive same-role messages merged into
 * one turn (as the API documents) before tool pairing: every `tool_use` answered by `tool_result`
 * blocks at the start of the next user turn, every `tool_result` pointing at a `tool_use` of the
 * previous assistant turn, tool_use ids unique and `^[a-zA-Z0-9_-]+$`; thinking blocks must come back
 * with the signature the fake gave them (whole, or with empty text when their display was omitted),
 * and redacted_thinking blocks with the data it gave them;
 * `thinking` and `output_config.effort` per model as thinkingRules.ts tabulates (models it does not
 * list take any type and level); in a tool loop with thinking on, the assistant turn that made the
 * calls must start with a thinking block when the fake's reply that made them had one, and carry
 * every thinking and redacted_thinking block of that reply; at most 4
 * `cache_control` breakpoints (top-level automatic caching counts as one); then 404
 * `not_found_error` for an unknown model; then the context window:
 * input > window gives "prompt is too long: N tokens > M maximum", input + max_tokens > window gives
 * "input length and `max_tokens` exceed context limit: N + K > M, decrease input length or
 * `max_tokens` and try again" (both real API texts).
 * OpenAI: `model`, non-empty `messages`; roles system/developer/user/assistant/tool/function;
 * content required except on an assistant message with `tool_calls`; no empty content arrays; every
 * assistant `tool_calls` answered by `role: "tool"` messages for each id before the next non-tool
 * message; every tool message answering a call of the assistant message just before it;
 * `stream_options` only with `stream`; `reasoning_effort` one of the documented levels (see
 * openai.ts), reported back as `reasoning_tokens` in the usage; `max_completion_tokens`/`max_tokens`
 * >= 1; 404 `model_not_found`; `context_length_exceeded` ("This model's maximum context length is N tokens.
 * However, your messages resulted in M tokens. Please reduce the length of the messages." and, when
 * the completion budget is what overflows, the "you requested T tokens (M in the messages, K in the
 * completion)" variant).
 * OpenAI Responses (responses.ts; the rules' sources and reading date are there): `model`; `input` a
 * string or a non-empty array of items: messages (roles user/assistant/system/developer; content a
 * string, or `input_text`/`input_image`/`input_file` parts, assistant `output_text`/`refusal`),
 * `function_call`, `function_call_output` ("No tool call found for function call output with call_id
 * X." when no earlier call has that id; a call still unanswered at the next user message or the end
 * is "No tool output found for function call X."), `reasoning` (refused by a model that does not
 * reason, see openaiReasoning.ts; a `summary` array, followed by the assistant message or call it
 * led to; `encrypted_content` must be one the fake sealed, else
 * `invalid_encrypted_content` "The encrypted content gAAA...XXXX could not be verified."; an item
 * sent by id alone is found only if the fake issued it with `store` on, else a 404 "Item with id
 * 'rs_…' not found. Items are not persisted when `store` is set to false. …"); `instructions` a
 * string; `max_output_tokens` >= 16; function tools flat (`{type, name, parameters}`; the Chat
 * Completions shape gets "Missing required parameter: 'tools[0].name'."); `reasoning.effort` per
 * model (openaiReasoning.ts), `reasoning.summary` auto/concise/detailed; `include` values; `store`
 * and `stream` booleans; `stream_options` only with `stream`; `previous_response_id` always a 404
 * (the fake keeps no conversations); 404 `model_not_found`; input over the window is
 * `context_length_exceeded` ("Your input exceeds the context window of this model. Please adjust
 * your input and try again."), a 400, or for a stream an `error` event after response.created and
 * response.in_progress.
 * Images and PDFs (anthropicMedia.ts, openaiMedia.ts; the header reader is media.ts): Anthropic
 * `image` blocks (base64 or url) and `document` blocks (base64 PDF, text, url) in user turns and
 * tool results only; JPEG, PNG, GIF or WebP whose bytes match `media_type`; strict base64 of at most
 * 10 MB; sides up to 8000 px, 2000 px once a request holds more than 20 images; at most 100 images
 * and documents and 100 PDF pages under a 1M-token window (600 from 1M); PDFs refused by the models
 * in `noPdfModels`; a body over 32 MB is a 413 `request_too_large`. OpenAI `image_url` parts on user
 * messages only (a data URL of PNG, JPEG, WebP or non-animated GIF, or an https URL; `detail` low,
 * high, auto or original), `file` parts with a PDF data URL and a filename, or a `file_id`; at most
 * 1500 images; a model in `textOnlyModels` (or one the core lists as text-only) refuses them with
 * OpenAI's, Ollama's or vLLM's error. The Responses API's `input_image` and `input_file` parts are
 * checked alike (on system and developer messages and tool outputs too).
 * The count endpoints (Anthropic `count_tokens`, OpenAI `responses/input_tokens`) check a body as
 * their chat endpoint does and answer its input tokens, counted the same way; they refuse the
 * fields only an answer takes (`max_tokens`, `stream`; `max_output_tokens`, `store`, `include`,
 * `stream`), and on both Anthropic endpoints `thinking.block_binding` needs its beta header
 * (countChecks.ts). Injected failures never reach them.
 * Input tokens are counted with gpt-tokenizer's o200k for both providers, plus a few framing tokens
 * per message, tool and system prompt, identically on every endpoint; images and PDF pages count
 * what the documented formulas (src/core/tokens/imageTokens.ts) give, as the real usage reports.
 *
 * ## Prompt caching
 * Anthropic: per API key and model, a breakpoint's prefix (tools, system, messages, byte-identical,
 * `cache_control` markers ignored) of at least `minCacheableTokens` (default 1024) is written on
 * first use (`cache_creation_input_tokens`) and read later (`cache_read_input_tokens`), looking back
 * up to 20 blocks from each breakpoint; `input_tokens` counts only the rest, as documented.
 * OpenAI: automatic; prompts of 1024+ tokens are remembered in 128-token steps and a repeated prefix
 * is reported in `usage.prompt_tokens_details.cached_tokens` (`prompt_tokens` includes it), or on
 * the Responses API in `usage.input_tokens_details.cached_tokens`; both APIs share the cache.
 *
 * ## Replies
 * By default: "Answer {turn}: I received {n} message(s). Your last message began "…"." where turn
 * counts the chat requests answered since start/reset and n is the length of the request's `messages`.
 * Requests whose system prompt or last user text asks to summarize get a short "Summary: …" text.
 * Streams send several deltas `deltaDelayMs` apart (default 15 ms) so a test can press Stop; an abort
 * is recorded (`aborted: true`). Output stops at max_tokens (stop_reason `max_tokens` / finish_reason
 * `length`). `options.script` (a reply function or a list of replies used in order) and `setReply`
 * script tool calls, parallel calls, thinking or long answers, and `streamErrorAfterDeltas` ends a
 * stream with the provider's in-stream error after some deltas (a failure after the 200). Scripted
 * Anthropic thinking comes back with empty text (its signature still carrying it) where `display` is
 * omitted, the default on the models thinkingRules.ts lists so, and not at all when the request sets
 * `thinking` to `disabled` or `between_tools`.
 * Responses (responsesAnswer.ts): the text is a `message` item with one `output_text` part, tool
 * calls `function_call` items (`fc_…` ids, `call_…` call ids); when the model reasons (an effort
 * other than `none`, asked or the model's default) a `reasoning` item comes first, its summary the
 * scripted thinking when `reasoning.summary` is set, its `encrypted_content` (the hidden token count
 * and text, sealed) only when `include` has `reasoning.encrypted_content`; the thinking's tokens (or
 * a per-effort amount) are `output_tokens_details.reasoning_tokens`. Streams send response.created,
 * response.in_progress, per item output_item.added, its reasoning_summary_part/_text,
 * content_part/output_text or function_call_arguments events, output_item.done, then
 * response.completed, or response.incomplete (`incomplete_details.reason` `max_output_tokens`) when
 * max_output_tokens cut the text; `streamErrorAfterDeltas` ends with an `error` event.
 *
 * ## Failures
 * `failNext(kind)` makes the next chat request(s) fail (POST /v1/messages, chat/completions or
 * responses; never a preflight, count_tokens or models call): '401' (bad key), '429' (with
 * `retry-after`), '529' (Anthropic overloaded_error; OpenAI answers 503), '500', '503', 'context'
 * (the provider's context-length error with the real counted input and a smaller maximum; the
 * Responses API's text names no numbers, and a stream gets it as an event), 'unknown_model' (404),
 * 'network' (the connection drops before a full answer), 'cors' (an answer without CORS headers, a
 * network error to a browser). Keys containing "invalid" are rejected as the real APIs reject a
 * wrong key (401), unless `isValidKey` says otherwise.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { pathToFileURL } from 'node:url';
import { anthropicErrorBody, promptTooLong, sseFrame } from '../../src/providers/demo/messagesWire';
import {
  ANTHROPIC_VERSIONS,
  buildAnthropicAnswer,
  checkAnthropicRequest,
  type AnthropicCompactionOutcome,
  type AnthropicModelFacts,
  type AnthropicRequest,
} from './anthropic';
import {
  checkAnthropicCompaction,
  checkResponsesCompaction,
  compactedAnthropicRequest,
  fakeSummary,
  sealAnthropicSummary,
  sealOpenAISummary,
  summaryTokens,
} from './compaction';
import { applyContextEdits, betasOf, parseContextManagement, withAppliedEdits } from './contextEditing';
import { anthropicBetaFailure, anthropicCountFailure, responsesCountFailure } from './countChecks';
import { preflightHeaders, readBody, sendJson, sleep, startEventStream } from './http';
import { IMAGE_LIMITS } from '../../src/core';
import { buildOpenAIAnswer, checkOpenAIRequest, openAIErrorBody } from './openai';
import type { TextOnlyStyle } from './openaiMedia';
import { checkResponsesRequest, compactedResponsesRequest } from './responses';
import { anthropicConnectorBlocks, checkAnthropicConnector, checkResponsesConnector, responsesConnectorItems, runConnectorCalls } from './mcpConnector';
import type { ConnectorOutcome, ConnectorServer } from './mcpConnector';
import { buildResponsesAnswer, contextFailureEvents, INPUT_TOO_LONG, STREAM_SERVER_ERROR, streamErrorEvent } from './responsesAnswer';
import {
  anthropicModel,
  anthropicModelPage,
  DEFAULT_OLLAMA_MODELS,
  DEFAULT_OPENROUTER_MODELS,
  ollamaShow,
  ollamaTags,
  openAIModel,
  openRouterModels,
} from './models';
import type { OllamaModelSpec, OpenRouterModelSpec } from './models';
import { AnthropicPromptCache } from '../../src/providers/demo/promptCache';
import { OpenAIPromptCache } from './promptCache';
import { asksForSummary, defaultReply, IdSource } from './replies';
import type { ApiFailure, FailureKind, FailureOptions, Provider, RecordedRequest, ReplyContext, ReplyFunction, ReplySpec } from './types';

export type {
  ApiFailure,
  FailureKind,
  FailureOptions,
  Provider,
  RecordedRequest,
  ReplyContext,
  ReplyFunction,
  ReplySpec,
  ToolCallSpec,
  ValidationResult,
} from './types';

export interface FakeApiOptions {
  /** Port on 127.0.0.1; 0 (default) picks a free one. */
  port?: number;
  /**
   * Context window in tokens: one number for every model, or per model id. A record is looked up
   * by exact id, then by the longest key the id starts with, then by key '*'; default 200 000.
   */
  contextWindow?: number | Record<string, number>;
  /** Anthropic's minimum cacheable prefix, in tokens, looked up like `contextWindow`; default 1024. */
  minCacheableTokens?: number | Record<string, number>;
  /** Pause between streamed deltas, in ms; default 15. */
  deltaDelayMs?: number;
  /** Replies for chat requests: a function, or a list used one per request (then the default). */
  script?: ReplyFunction | ReplySpec[];
  /** Which keys authenticate; default: any non-empty key that does not contain "invalid". */
  isValidKey?: (key: string, provider: Provider) => boolean;
  /** Which model ids exist; default: Anthropic ids start with "claude-", and no id contains "unknown" or "nonexistent". */
  isKnownModel?: (model: string, provider: Provider) => boolean;
  /** Ids listed by `GET /v1/models` (models seen in requests are listed too). */
  models?: Partial<Record<Provider, string[]>>;
  /** Anthropic's `max_tokens` in the models list, looked up like `contextWindow` (never above the window); default 64 000. */
  maxOutputTokens?: number | Record<string, number>;
  /**
   * Anthropic's `capabilities.context_management` in the models list, by model id: whether the
   * model compacts and clears tool results. A model not named is listed without `capabilities`,
   * as older API versions and proxies list it.
   */
  contextManagement?: Record<string, { compaction: boolean; contextEditing: boolean }>;
  /** The models an Ollama server has pulled (`/api/tags`, `/api/show`); default two. */
  ollama?: Record<string, OllamaModelSpec>;
  /** The models `GET /api/v1/models` lists, OpenRouter-style; default two. */
  openRouter?: OpenRouterModelSpec[];
  /**
   * Models on the OpenAI-shaped endpoint that refuse images and PDF files, and whose error they
   * answer with: OpenAI's own, Ollama's or vLLM's (see openaiMedia.ts). Ids the core's image table
   * calls text-only (gpt-3.5-turbo, gpt-4, o1-mini, o3-mini) refuse with OpenAI's error anyway.
   */
  textOnlyModels?: Record<string, TextOnlyStyle>;
  /** Anthropic models that refuse document blocks; default none (every active model reads PDFs). */
  noPdfModels?: string[];
  /**
   * Where the provider's MCP connector finds a server, by the public URL a request names: the
   * test's DNS, so a request can name an https address while the test server listens on
   * 127.0.0.1. A URL not listed is connected to as it is.
   */
  connectorHosts?: Record<string, string>;
}

export type { OllamaModelSpec, OpenRouterModelSpec } from './models';
export type { TextOnlyStyle } from './openaiMedia';

export interface FakeApi {
  /** Origin of the server, e.g. http://127.0.0.1:41234 (no trailing slash, no /v1). */
  url: string;
  /** Every request received, in order, including preflights; entries are updated as answers finish. */
  requests: RecordedRequest[];
  /** Makes the next chat request(s) fail the given way. Calls queue up in order. */
  failNext(kind: FailureKind, options?: FailureOptions): void;
  /** Replaces the reply for chat requests; return undefined for the default reply, pass null to clear. */
  setReply(fn: ReplyFunction | null): void;
  /** Forgets requests, queued failures, the reply function, the prompt caches and the turn count. */
  reset(): void;
  close(): Promise<void>;
}

const DEFAULT_CONTEXT_WINDOW = 200_000;
const DEFAULT_MIN_CACHEABLE = 1024;
const DEFAULT_DELTA_DELAY_MS = 15;
const DEFAULT_MAX_OUTPUT_TOKENS = 64_000;
const DEFAULT_MODELS: Record<Provider, string[]> = {
  anthropic: ['claude-opus-4-8', 'claude-sonnet-4-6', 'claude-haiku-4-5'],
  openai: ['gpt-5.5', 'gpt-5.4-mini', 'gpt-4o-mini'],
};

function lookupByModel(setting: number | Record<string, number> | undefined, model: string, fallback: number): number {
  if (setting === undefined) return fallback;
  if (typeof setting === 'number') return setting;
  if (setting[model] !== undefined) return setting[model];
  const prefix = Object.keys(setting)
    .filter((key) => key !== '*' && model.startsWith(key))
    .sort((a, b) => b.length - a.length)[0];
  if (prefix !== undefined) return setting[prefix]!;
  return setting['*'] ?? fallback;
}

function defaultIsKnownModel(model: string, provider: Provider): boolean {
  if (model === '' || /unknown|nonexistent/i.test(model)) return false;
  return provider === 'openai' || model.startsWith('claude-');
}

function redactedHeaders(req: IncomingMessage): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(req.headers)) {
    if (value === undefined) continue;
    const text = Array.isArray(value) ? value.join(', ') : value;
    if (name === 'x-api-key') headers[name] = '[redacted]';
    else if (name === 'authorization') headers[name] = text.replace(/^(\w+)\s+.*$/s, '$1 [redacted]');
    else headers[name] = text;
  }
  return headers;
}

function isRecordBody(body: unknown): body is Record<string, unknown> {
  return typeof body === 'object' && body !== null && !Array.isArray(body);
}

function bearerToken(req: IncomingMessage): string | null {
  const match = /^Bearer\s+(.+)$/i.exec(req.headers.authorization ?? '');
  return match ? match[1]!.trim() : null;
}

/** How OpenAI shows a wrong key back: its first and last characters, the middle masked. */
function maskKey(key: string): string {
  if (key.length <= 8) return '*'.repeat(key.length);
  return `${key.slice(0, 3)}${'*'.repeat(key.length - 7)}${key.slice(-4)}`;
}

/** What every checked chat request tells its reply function about itself. */
type ReplyRequest = Omit<ReplyContext, 'provider' | 'turn' | 'isSummaryRequest'>;

interface QueuedFailure {
  kind: FailureKind;
  remaining: number;
  options: FailureOptions;
}

interface StreamFrame {
  frame: string;
  pause: boolean;
  text?: string;
}

/** The frames up to the `after`-th delta, then `errorFrame` (given the number of frames kept) in place of the rest. */
function cutStream(frames: StreamFrame[], after: number | undefined, errorFrame: string | ((kept: number) => string)): StreamFrame[] {
  if (after === undefined) return frames;
  const kept: StreamFrame[] = [];
  let deltas = 0;
  for (const frame of frames) {
    if (frame.pause && deltas === after) break;
    if (frame.pause) deltas += 1;
    kept.push(frame);
  }
  kept.push({ frame: typeof errorFrame === 'string' ? errorFrame : errorFrame(kept.length), pause: true });
  return kept;
}

export async function startFakeApi(options: FakeApiOptions = {}): Promise<FakeApi> {
  const requests: RecordedRequest[] = [];
  const failures: QueuedFailure[] = [];
  const ids = new IdSource();
  const anthropicCache = new AnthropicPromptCache();
  /** Tool calls the fake made in a reply that had thinking blocks, and how many: a tool loop must send them all back. */
  const callsAfterThinking = new Map<string, number>();
  const openAICache = new OpenAIPromptCache();
  /** Reasoning items the fake issued with `store` on, by id: their hidden reasoning tokens. */
  const storedReasoning = new Map<string, number>();
  const seenModels: Record<Provider, Set<string>> = { anthropic: new Set(), openai: new Set() };
  const isValidKey = options.isValidKey ?? ((key: string) => key.trim() !== '' && !/invalid/i.test(key));
  const isKnownModel = options.isKnownModel ?? defaultIsKnownModel;
  const scriptList = Array.isArray(options.script) ? [...options.script] : [];
  let replyFunction: ReplyFunction | null = typeof options.script === 'function' ? options.script : null;
  let turn = 0;
  const sockets = new Set<Socket>();

  const takeFailure = (provider: Provider): QueuedFailure | null => {
    const index = failures.findIndex((failure) => failure.options.provider === undefined || failure.options.provider === provider);
    if (index < 0) return null;
    const failure = failures[index]!;
    failure.remaining -= 1;
    if (failure.remaining <= 0) failures.splice(index, 1);
    return failure;
  };

  const chooseReply = (context: ReplyContext): ReplySpec => {
    const fromFunction = replyFunction?.(context);
    if (fromFunction) return fromFunction;
    const scripted = scriptList.shift();
    return scripted ?? defaultReply(context);
  };

  /** Counts the turn and picks the reply for an accepted chat request, whichever API it came by. */
  const replyFor = (provider: Provider, request: ReplyRequest): ReplySpec => {
    turn += 1;
    return chooseReply({
      provider,
      model: request.model,
      body: request.body,
      turn,
      messageCount: request.messageCount,
      systemText: request.systemText,
      lastUserText: request.lastUserText,
      isSummaryRequest: asksForSummary(request.systemText, request.lastUserText),
      answersToolResults: request.answersToolResults,
      toolNames: request.toolNames,
      inputTokens: request.inputTokens,
      maxTokens: request.maxTokens,
    });
  };

  /** The reply's calls to the connector's servers, made as the provider makes them, and recorded. */
  const connectorCalls = async (record: RecordedRequest, reply: ReplySpec, servers: ConnectorServer[]): Promise<ConnectorOutcome[]> => {
    if (!reply.connectorCalls?.length || servers.length === 0) return [];
    const outcomes = await runConnectorCalls(reply.connectorCalls, servers, (url) => options.connectorHosts?.[url] ?? url);
    record.connectorCalls = outcomes.map(({ server, name, isError, awaitingApproval }) => ({ server, name, isError, awaitingApproval }));
    return outcomes;
  };

  const anthropicHeaders = (requestId: string): Record<string, string> => {
    const reset = new Date(Date.now() + 60_000).toISOString().replace(/\.\d{3}Z$/, 'Z');
    return {
      'request-id': requestId,
      'anthropic-organization-id': 'fake-organization',
      'anthropic-ratelimit-requests-limit': '4000',
      'anthropic-ratelimit-requests-remaining': '3999',
      'anthropic-ratelimit-requests-reset': reset,
      'anthropic-ratelimit-input-tokens-limit': '2000000',
      'anthropic-ratelimit-input-tokens-remaining': '2000000',
      'anthropic-ratelimit-input-tokens-reset': reset,
      'anthropic-ratelimit-output-tokens-limit': '400000',
      'anthropic-ratelimit-output-tokens-remaining': '400000',
      'anthropic-ratelimit-output-tokens-reset': reset,
      'anthropic-ratelimit-tokens-limit': '2400000',
      'anthropic-ratelimit-tokens-remaining': '2400000',
      'anthropic-ratelimit-tokens-reset': reset,
    };
  };

  const openAIHeaders = (requestId: string): Record<string, string> => ({
    'x-request-id': requestId,
    'openai-organization': 'fake-organization',
    'openai-processing-ms': '12',
    'openai-version': '2020-10-01',
    'x-ratelimit-limit-requests': '10000',
    'x-ratelimit-limit-tokens': '30000000',
    'x-ratelimit-remaining-requests': '9999',
    'x-ratelimit-remaining-tokens': '29999000',
    'x-ratelimit-reset-requests': '6ms',
    'x-ratelimit-reset-tokens': '2ms',
  });

  const providerHeaders = (provider: Provider, requestId: string) => (provider === 'anthropic' ? anthropicHeaders(requestId) : openAIHeaders(requestId));

  const sendFailure = (req: IncomingMessage, res: ServerResponse, record: RecordedRequest, provider: Provider, failure: ApiFailure) => {
    record.status = failure.status;
    if (record.validation.ok && failure.status === 400) record.validation = { ok: false, ...failure };
    const body = provider === 'anthropic' ? anthropicErrorBody(failure, record.id) : openAIErrorBody(failure);
    sendJson(req, res, failure.status, body, { ...providerHeaders(provider, record.id), ...failure.headers });
    record.completed = true;
  };

  /** The error an injected failure answers with (null for 'network' and 'context', handled apart). */
  const injectedError = (provider: Provider, kind: FailureKind, failureOptions: FailureOptions, model: string): ApiFailure | null => {
    const retryAfter = { 'retry-after': String(failureOptions.retryAfterSeconds ?? 1) };
    const anthropic = provider === 'anthropic';
    switch (kind) {
      case '401':
        return anthropic
          ? { status: 401, type: 'authentication_error', message: 'invalid x-api-key' }
          : {
              status: 401,
              type: 'invalid_request_error',
              message: 'Incorrect API key provided: sk-pro*****************wxyz. You can find your API key at https://platform.openai.com/account/api-keys.',
              param: null,
              code: 'invalid_api_key',
            };
      case '429':
        return anthropic
          ? {
              status: 429,
              type: 'rate_limit_error',
              message:
                'This request would exceed the rate limit for your organization of 2,000,000 input tokens per minute. ' +
                'For details, refer to: https://docs.claude.com/en/api/rate-limits. You can see the response headers for current usage. ' +
                'Please reduce the prompt length or the maximum tokens requested, or try again later.',
              headers: retryAfter,
            }
          : {
              status: 429,
              type: 'requests',
              message: `Rate limit reached for ${model} in organization fake-organization on requests per min (RPM): Limit 3, Used 3, Requested 1. Please try again in ${failureOptions.retryAfterSeconds ?? 1}s. Visit https://platform.openai.com/account/rate-limits to learn more.`,
              param: null,
              code: 'rate_limit_exceeded',
              headers: retryAfter,
            };
      case '529':
      case '503':
        return anthropic && kind === '529'
          ? { status: 529, type: 'overloaded_error', message: 'Overloaded', headers: retryAfter }
          : anthropic
            ? { status: 503, type: 'api_error', message: 'Service unavailable', headers: retryAfter }
            : { status: 503, type: 'server_error', message: 'The server is overloaded or not ready yet.', param: null, code: null, headers: retryAfter };
      case '500':
        return anthropic
          ? { status: 500, type: 'api_error', message: 'Internal server error' }
          : { status: 500, type: 'server_error', message: 'The server had an error while processing your request. Sorry about that!', param: null, code: null };
      case 'unknown_model':
        return unknownModel(provider, model);
      default:
        return null;
    }
  };

  const unknownModel = (provider: Provider, model: string): ApiFailure =>
    provider === 'anthropic'
      ? { status: 404, type: 'not_found_error', message: `model: ${model}` }
      : {
          status: 404,
          type: 'invalid_request_error',
          message: `The model \`${model}\` does not exist or you do not have access to it.`,
          param: null,
          code: 'model_not_found',
        };

  const contextError = (provider: Provider, inputTokens: number, completionTokens: number | null, window: number): ApiFailure | null => {
    if (provider === 'anthropic') {
      if (inputTokens > window) return promptTooLong(inputTokens, window);
      if (completionTokens !== null && inputTokens + completionTokens > window) {
        return {
          status: 400,
          type: 'invalid_request_error',
          message: `input length and \`max_tokens\` exceed context limit: ${inputTokens} + ${completionTokens} > ${window}, decrease input length or \`max_tokens\` and try again`,
        };
      }
      return null;
    }
    if (inputTokens > window) {
      return {
        status: 400,
        type: 'invalid_request_error',
        message: `This model's maximum context length is ${window} tokens. However, your messages resulted in ${inputTokens} tokens. Please reduce the length of the messages.`,
        param: 'messages',
        code: 'context_length_exceeded',
      };
    }
    if (completionTokens !== null && inputTokens + completionTokens > window) {
      return {
        status: 400,
        type: 'invalid_request_error',
        message:
          `This model's maximum context length is ${window} tokens. However, you requested ${inputTokens + completionTokens} tokens ` +
          `(${inputTokens} in the messages, ${completionTokens} in the completion). Please reduce the length of the messages or completion.`,
        param: 'messages',
        code: 'context_length_exceeded',
      };
    }
    return null;
  };

  /**
   * 'network': the connection drops after the first bytes of a status line. Some bytes must go out:
   * Chromium silently retries a request whose reused keep-alive socket closes before any answer.
   * 'cors': a success body without CORS headers, which a browser refuses to hand to the page.
   */
  const dropOrBlock = (req: IncomingMessage, res: ServerResponse, record: RecordedRequest, provider: Provider, kind: 'network' | 'cors') => {
    if (kind === 'network') {
      const socket = req.socket;
      socket.end('HTTP/1.1 ', () => socket.destroy());
      return;
    }
    record.status = 200;
    const body =
      provider === 'anthropic'
        ? { type: 'message', content: [] }
        : record.api === 'responses'
          ? { object: 'response', output: [] }
          : { object: 'chat.completion', choices: [] };
    res.writeHead(200, { 'content-type': 'application/json', ...providerHeaders(provider, record.id) });
    res.end(JSON.stringify(body));
    record.completed = true;
  };

  /** Writes frames, pausing before deltas; stops (and records the abort) when the client goes away. */
  const writeStream = async (res: ServerResponse, record: RecordedRequest, frames: StreamFrame[], delayMs: number) => {
    let closed = false;
    res.on('close', () => {
      if (!res.writableFinished) closed = true;
    });
    let shown = '';
    for (const { frame, pause, text } of frames) {
      if (pause) await sleep(delayMs);
      if (closed || res.destroyed) break;
      res.write(frame);
      shown += text ?? '';
    }
    record.replyText = shown;
    if (closed || res.destroyed) {
      record.aborted = true;
      return;
    }
    res.end();
    record.completed = true;
  };

  /** Context editing (contextEditing.ts): the request as the model reads it, or the 400 its `context_management` earns. */
  const serverContextEdits = (req: IncomingMessage, checked: AnthropicRequest, facts: AnthropicModelFacts) => {
    const parsed = parseContextManagement(checked.body, betasOf(req.headers['anthropic-beta']), checked.thinking.on);
    if (!parsed.ok) return parsed;
    const recount = (body: Record<string, unknown>) => {
      const again = checkAnthropicRequest(body, 'messages', { ...facts, editedByServer: true });
      if (!again.ok) throw new Error(`The fake's own context edit broke the request: ${again.failure.message}`);
      return again.request;
    };
    return { ok: true as const, ...applyContextEdits(checked, parsed.edits, recount) };
  };

  const handleAnthropic = async (req: IncomingMessage, res: ServerResponse, record: RecordedRequest, endpoint: 'messages' | 'count_tokens') => {
    record.provider = 'anthropic';
    const raw = await readBody(req);
    const apiKeyHeader = req.headers['x-api-key'];
    const bearer = bearerToken(req);
    const key = typeof apiKeyHeader === 'string' ? apiKeyHeader : bearer;
    record.authForm = typeof apiKeyHeader === 'string' ? 'x-api-key' : bearer !== null ? 'bearer' : null;
    try {
      record.body = raw === '' ? undefined : JSON.parse(raw);
    } catch {
      record.body = raw;
    }

    const injected = endpoint === 'messages' ? takeFailure('anthropic') : null;
    record.injectedFailure = injected?.kind ?? null;
    if (injected?.kind === 'network' || injected?.kind === 'cors') return dropOrBlock(req, res, record, 'anthropic', injected.kind);

    if (key === null || key === '') {
      return sendFailure(req, res, record, 'anthropic', { status: 401, type: 'authentication_error', message: 'x-api-key header is required' });
    }
    if (req.headers.origin !== undefined && req.headers['anthropic-dangerous-direct-browser-access'] !== 'true') {
      return sendFailure(req, res, record, 'anthropic', {
        status: 401,
        type: 'authentication_error',
        message: "CORS requests must set 'anthropic-dangerous-direct-browser-access' header",
      });
    }
    if (!isValidKey(key, 'anthropic')) {
      return sendFailure(req, res, record, 'anthropic', {
        status: 401,
        type: 'authentication_error',
        message: record.authForm === 'x-api-key' ? 'invalid x-api-key' : 'Invalid bearer token',
      });
    }
    const version = req.headers['anthropic-version'];
    if (version === undefined) {
      return sendFailure(req, res, record, 'anthropic', { status: 400, type: 'invalid_request_error', message: 'anthropic-version: header is required' });
    }
    if (!ANTHROPIC_VERSIONS.has(String(version))) {
      return sendFailure(req, res, record, 'anthropic', {
        status: 400,
        type: 'invalid_request_error',
        message: `anthropic-version: "${String(version)}" is not a valid version`,
      });
    }
    if (Buffer.byteLength(raw) > IMAGE_LIMITS.anthropic.maxRequestBytes) {
      return sendFailure(req, res, record, 'anthropic', { status: 413, type: 'request_too_large', message: 'Request exceeds the maximum size' });
    }
    if (typeof record.body === 'string' || record.body === undefined) {
      return sendFailure(req, res, record, 'anthropic', {
        status: 400,
        type: 'invalid_request_error',
        message: 'There was an issue with the request body: it is not valid JSON.',
      });
    }

    const model = typeof (record.body as Record<string, unknown>).model === 'string' ? String((record.body as Record<string, unknown>).model) : '';
    if (injected && injected.kind !== 'context') {
      const failure = injectedError('anthropic', injected.kind, injected.options, model);
      if (failure) return sendFailure(req, res, record, 'anthropic', failure);
    }

    const countOrBeta =
      (endpoint === 'count_tokens' ? anthropicCountFailure(record.body) : null) ?? anthropicBetaFailure(record.body, req.headers['anthropic-beta']);
    if (countOrBeta) return sendFailure(req, res, record, 'anthropic', countOrBeta);

    const connector = isRecordBody(record.body) ? checkAnthropicConnector(record.body, betasOf(req.headers['anthropic-beta'])) : null;
    if (connector && !connector.ok) {
      record.validation = { ok: false, ...connector.failure };
      return sendFailure(req, res, record, 'anthropic', connector.failure);
    }
    const body = connector ? connector.body : record.body;
    const compaction =
      typeof body === 'object' && body !== null && !Array.isArray(body)
        ? checkAnthropicCompaction(body as Record<string, unknown>, betasOf(req.headers['anthropic-beta']))
        : null;
    if (compaction && !compaction.ok) {
      const failure = { status: 400, type: 'invalid_request_error', message: compaction.message };
      record.validation = { ok: false, ...failure };
      return sendFailure(req, res, record, 'anthropic', failure);
    }
    const facts = {
      contextWindow: lookupByModel(options.contextWindow, model, DEFAULT_CONTEXT_WINDOW),
      noPdfModels: new Set(options.noPdfModels ?? []),
      thinkingBlocksBefore: (id: string) => callsAfterThinking.get(id) ?? 0,
    };
    const check = checkAnthropicRequest(compaction?.ok ? compaction.body : body, endpoint, facts);
    if (!check.ok) {
      record.validation = { ok: false, ...check.failure };
      return sendFailure(req, res, record, 'anthropic', check.failure);
    }
    const editing = endpoint === 'messages' ? serverContextEdits(req, check.request, facts) : { ok: true as const, request: check.request, applied: null };
    if (!editing.ok) {
      record.validation = { ok: false, ...editing.failure };
      return sendFailure(req, res, record, 'anthropic', editing.failure);
    }
    const request = editing.request;
    record.inputTokens = request.inputTokens;
    record.stream = request.stream;
    if (!isKnownModel(request.model, 'anthropic')) return sendFailure(req, res, record, 'anthropic', unknownModel('anthropic', request.model));
    seenModels.anthropic.add(request.model);

    if (endpoint === 'count_tokens') {
      record.status = 200;
      sendJson(req, res, 200, { input_tokens: request.inputTokens }, anthropicHeaders(record.id));
      record.completed = true;
      return;
    }

    const window = lookupByModel(options.contextWindow, request.model, DEFAULT_CONTEXT_WINDOW);
    if (injected?.kind === 'context') {
      const maximum = injected.options.maximumTokens ?? Math.min(window, Math.floor(request.inputTokens * 0.9));
      return sendFailure(req, res, record, 'anthropic', contextError('anthropic', request.inputTokens, null, maximum)!);
    }
    const overflow = contextError('anthropic', request.inputTokens, request.maxTokens, window);
    if (overflow) return sendFailure(req, res, record, 'anthropic', overflow);

    // Past its trigger the model first summarizes what it was sent and answers from the summary.
    let answered = request;
    let compacted: AnthropicCompactionOutcome | undefined;
    if (compaction?.ok && compaction.beta) {
      compacted = {};
      if (compaction.ask && request.inputTokens >= compaction.ask.trigger) {
        const summary = fakeSummary((compaction.body.messages as unknown[]) ?? [], request.inputTokens, compaction.previous);
        answered = compactedAnthropicRequest(request, summary);
        compacted.block = { type: 'compaction', content: summary, encrypted_content: sealAnthropicSummary(summary) };
        compacted.iteration = {
          type: 'compaction',
          input_tokens: request.inputTokens,
          output_tokens: summaryTokens(summary),
          cache_read_input_tokens: 0,
          cache_creation_input_tokens: 0,
        };
        record.compacted = { inputTokens: request.inputTokens, summary };
      }
    }
    const scope = `${key}\u0000${request.model}`;
    const cache = anthropicCache.apply(scope, answered.units, lookupByModel(options.minCacheableTokens, request.model, DEFAULT_MIN_CACHEABLE));
    const reply = replyFor('anthropic', request);
    const calls = await connectorCalls(record, reply, connector?.ok ? connector.servers : []);
    const connectorBlocks = anthropicConnectorBlocks(calls, () => ids.next('mcptoolu_01', 22));
    const answer = withAppliedEdits(
      buildAnthropicAnswer(answered, reply, cache, { message: ids.next('msg_01', 22), toolUse: () => ids.next('toolu_01', 22) }, compacted, connectorBlocks),
      editing.applied,
    );
    const replied = answer.message.content as Array<Record<string, unknown>>;
    const thoughts = replied.filter((block) => block.type === 'thinking' || block.type === 'redacted_thinking').length;
    if (thoughts > 0) {
      for (const block of replied) if (block.type === 'tool_use') callsAfterThinking.set(block.id as string, thoughts);
    }
    record.usage = answer.usage;
    record.status = 200;
    if (!request.stream) return answerJson(req, res, record, 'anthropic', answer.text, answer.message);
    startEventStream(req, res, anthropicHeaders(record.id));
    const frames = answer.events.map((event) => ({ frame: sseFrame(event.event, event.data), pause: event.pause, text: event.text }));
    const overloaded = sseFrame('error', anthropicErrorBody({ type: 'overloaded_error', message: 'Overloaded' }, record.id));
    await writeStream(
      res,
      record,
      cutStream(frames, reply.streamErrorAfterDeltas, overloaded),
      reply.deltaDelayMs ?? options.deltaDelayMs ?? DEFAULT_DELTA_DELAY_MS,
    );
  };

  /**
   * What every OpenAI chat request (Chat Completions or Responses) goes through first: the body
   * recorded, the key checked, an injected failure consumed. Null when that already answered.
   */
  const openAIPreamble = async (req: IncomingMessage, res: ServerResponse, record: RecordedRequest, injectable = true) => {
    record.provider = 'openai';
    const raw = await readBody(req);
    const key = bearerToken(req);
    record.authForm = key !== null ? 'bearer' : null;
    try {
      record.body = raw === '' ? undefined : JSON.parse(raw);
    } catch {
      record.body = raw;
    }

    const injected = injectable ? takeFailure('openai') : null;
    record.injectedFailure = injected?.kind ?? null;
    if (injected?.kind === 'network' || injected?.kind === 'cors') {
      dropOrBlock(req, res, record, 'openai', injected.kind);
      return null;
    }

    if (key === null || key === '') {
      sendFailure(req, res, record, 'openai', {
        status: 401,
        type: 'invalid_request_error',
        message:
          "You didn't provide an API key. You need to provide your API key in an Authorization header using Bearer auth (i.e. Authorization: Bearer YOUR_KEY), " +
          "or as the password field (with blank username) if you're accessing the API from your browser and are prompted for a username and password. " +
          'You can obtain an API key from https://platform.openai.com/account/api-keys.',
        param: null,
        code: null,
      });
      return null;
    }
    if (!isValidKey(key, 'openai')) {
      sendFailure(req, res, record, 'openai', {
        status: 401,
        type: 'invalid_request_error',
        message: `Incorrect API key provided: ${maskKey(key)}. You can find your API key at https://platform.openai.com/account/api-keys.`,
        param: null,
        code: 'invalid_api_key',
      });
      return null;
    }

    const bodyObject = typeof record.body === 'object' && record.body !== null ? (record.body as Record<string, unknown>) : {};
    const model = typeof bodyObject.model === 'string' ? bodyObject.model : '';
    if (injected && injected.kind !== 'context') {
      const failure = injectedError('openai', injected.kind, injected.options, model);
      if (failure) {
        sendFailure(req, res, record, 'openai', failure);
        return null;
      }
    }
    return { key, injected };
  };

  /** Records a checked OpenAI request: the request, or null once its failure (invalid, unknown model) is answered. */
  const acceptOpenAI = <R extends { model: string; inputTokens: number; stream: boolean }>(
    req: IncomingMessage,
    res: ServerResponse,
    record: RecordedRequest,
    check: { ok: true; request: R } | { ok: false; failure: ApiFailure },
  ): R | null => {
    if (!check.ok) {
      record.validation = { ok: false, ...check.failure };
      sendFailure(req, res, record, 'openai', check.failure);
      return null;
    }
    const request = check.request;
    record.inputTokens = request.inputTokens;
    record.stream = request.stream;
    if (!isKnownModel(request.model, 'openai')) {
      sendFailure(req, res, record, 'openai', unknownModel('openai', request.model));
      return null;
    }
    seenModels.openai.add(request.model);
    return request;
  };

  /** A whole (non-streamed) answer. */
  const answerJson = (req: IncomingMessage, res: ServerResponse, record: RecordedRequest, provider: Provider, text: string, body: unknown) => {
    record.replyText = text;
    sendJson(req, res, 200, body, providerHeaders(provider, record.id));
    record.completed = true;
  };

  const handleOpenAI = async (req: IncomingMessage, res: ServerResponse, record: RecordedRequest) => {
    record.api = 'chat';
    const start = await openAIPreamble(req, res, record);
    if (!start) return;
    const { key, injected } = start;

    const request = acceptOpenAI(req, res, record, checkOpenAIRequest(record.body, options.textOnlyModels ?? {}));
    if (!request) return;

    const window = lookupByModel(options.contextWindow, request.model, DEFAULT_CONTEXT_WINDOW);
    if (injected?.kind === 'context') {
      const maximum = injected.options.maximumTokens ?? Math.min(window, Math.floor(request.inputTokens * 0.9));
      return sendFailure(req, res, record, 'openai', contextError('openai', request.inputTokens, null, maximum)!);
    }
    const overflow = contextError('openai', request.inputTokens, request.maxTokens, window);
    if (overflow) return sendFailure(req, res, record, 'openai', overflow);

    const cachedTokens = openAICache.apply(`${key}\u0000${request.model}`, request.tokens);
    const reply = replyFor('openai', request);
    const answer = buildOpenAIAnswer(
      request,
      reply,
      cachedTokens,
      { completion: ids.next('chatcmpl-', 29), toolCall: () => ids.next('call_', 24) },
      Math.floor(Date.now() / 1000),
    );
    record.usage = answer.usage;
    record.status = 200;
    if (!request.stream) return answerJson(req, res, record, 'openai', answer.text, answer.completion);
    startEventStream(req, res, openAIHeaders(record.id));
    const frames = answer.chunks.map((chunk) => ({ frame: `data: ${JSON.stringify(chunk.data)}\n\n`, pause: chunk.pause, text: chunk.text }));
    frames.push({ frame: 'data: [DONE]\n\n', pause: false, text: undefined });
    const serverError = {
      error: { message: 'The server had an error while processing your request. Sorry about that!', type: 'server_error', param: null, code: null },
    };
    await writeStream(
      res,
      record,
      cutStream(frames, reply.streamErrorAfterDeltas, `data: ${JSON.stringify(serverError)}\n\n`),
      reply.deltaDelayMs ?? options.deltaDelayMs ?? DEFAULT_DELTA_DELAY_MS,
    );
  };

  /** A Responses body checked and counted, the same for an answer and for a count. */
  const checkResponses = (body: unknown) => checkResponsesRequest(body, options.textOnlyModels ?? {}, (id) => storedReasoning.get(id));

  /** `POST /v1/responses`: the Responses API, answered from the same replies as Chat Completions. */
  const handleResponses = async (req: IncomingMessage, res: ServerResponse, record: RecordedRequest) => {
    record.api = 'responses';
    const start = await openAIPreamble(req, res, record);
    if (!start) return;
    const { key, injected } = start;
    const request = acceptOpenAI(req, res, record, checkResponses(record.body));
    if (!request) return;
    const connector = checkResponsesConnector(request.body);
    if (!connector.ok) return sendFailure(req, res, record, 'openai', connector.failure);

    const window = lookupByModel(options.contextWindow, request.model, DEFAULT_CONTEXT_WINDOW);
    const responseId = ids.next('resp_', 48);
    const created = Math.floor(Date.now() / 1000);
    if (injected?.kind === 'context' || request.inputTokens > window) {
      // A stream learns of it after response.created and response.in_progress, as an `error` event.
      if (!request.stream) return sendFailure(req, res, record, 'openai', INPUT_TOO_LONG);
      record.validation = { ok: false, ...INPUT_TOO_LONG };
      record.status = 200;
      startEventStream(req, res, openAIHeaders(record.id));
      const frames = contextFailureEvents(request, responseId, created).map((event) => ({ frame: sseFrame(event.type, event.data), pause: false }));
      return writeStream(res, record, frames, 0);
    }

    const management = checkResponsesCompaction(request.body);
    if (!management.ok) {
      return sendFailure(req, res, record, 'openai', {
        status: 400,
        type: 'invalid_request_error',
        message: management.message,
        param: management.param,
        code: null,
      });
    }
    // Past the threshold the model compacts what it was sent and answers from the summary.
    let answered = request;
    let compactionItem: Record<string, unknown> | undefined;
    if (management.threshold !== null && request.inputTokens >= management.threshold) {
      const items = Array.isArray(request.body.input) ? (request.body.input as unknown[]) : [];
      const newest = items.findLastIndex((item) => typeof item === 'object' && item !== null && (item as { type?: unknown }).type === 'compaction');
      const summary = fakeSummary(items.slice(newest + 1), request.inputTokens, request.compactedFrom);
      compactionItem = { id: ids.next('cmp_', 48), type: 'compaction', encrypted_content: sealOpenAISummary(summary) };
      answered = compactedResponsesRequest(request, summary);
      record.compacted = { inputTokens: request.inputTokens, summary };
    }
    const cachedTokens = openAICache.apply(`${key}\u0000${request.model}`, answered.tokens);
    const reply = replyFor('openai', request);
    const calls = await connectorCalls(record, reply, connector.servers);
    const answer = buildResponsesAnswer(
      answered,
      reply,
      cachedTokens,
      {
        response: responseId,
        message: ids.next('msg_', 48),
        reasoning: ids.next('rs_', 48),
        functionCall: () => ids.next('fc_', 48),
        callId: () => ids.next('call_', 24),
      },
      created,
      compactionItem,
      responsesConnectorItems(calls, (prefix) => ids.next(prefix, 48)),
    );
    if (answer.reasoning && request.store) storedReasoning.set(answer.reasoning.id, answer.reasoning.tokens);
    record.usage = answer.usage;
    record.status = 200;
    if (!request.stream) return answerJson(req, res, record, 'openai', answer.text, answer.response);
    startEventStream(req, res, openAIHeaders(record.id));
    const frames = answer.events.map((event) => ({ frame: sseFrame(event.type, event.data), pause: event.pause, text: event.text }));
    await writeStream(
      res,
      record,
      cutStream(frames, reply.streamErrorAfterDeltas, (sequence) => sseFrame('error', streamErrorEvent(sequence, STREAM_SERVER_ERROR))),
      reply.deltaDelayMs ?? options.deltaDelayMs ?? DEFAULT_DELTA_DELAY_MS,
    );
  };

  /** `POST /v1/responses/input_tokens`: the Responses body counted as `/v1/responses` counts it, nothing answered. */
  const handleResponsesInputTokens = async (req: IncomingMessage, res: ServerResponse, record: RecordedRequest) => {
    record.api = 'responses';
    if (!(await openAIPreamble(req, res, record, false))) return;
    const extra = responsesCountFailure(record.body);
    if (extra) return sendFailure(req, res, record, 'openai', extra);
    const request = acceptOpenAI(req, res, record, checkResponses(record.body));
    if (!request) return;
    const connector = checkResponsesConnector(request.body);
    if (!connector.ok) return sendFailure(req, res, record, 'openai', connector.failure);
    record.status = 200;
    sendJson(req, res, 200, { object: 'response.input_tokens', input_tokens: request.inputTokens }, openAIHeaders(record.id));
    record.completed = true;
  };

  /** Anthropic's checks before any answer: a browser's request must opt in, and the version must be one the API knows. */
  const anthropicHeaderFailure = (req: IncomingMessage): ApiFailure | null => {
    if (req.headers.origin !== undefined && req.headers['anthropic-dangerous-direct-browser-access'] !== 'true') {
      return { status: 401, type: 'authentication_error', message: "CORS requests must set 'anthropic-dangerous-direct-browser-access' header" };
    }
    const version = req.headers['anthropic-version'];
    if (version === undefined) return { status: 400, type: 'invalid_request_error', message: 'anthropic-version: header is required' };
    if (!ANTHROPIC_VERSIONS.has(String(version)))
      return { status: 400, type: 'invalid_request_error', message: `anthropic-version: "${String(version)}" is not a valid version` };
    return null;
  };

  const handleModels = (
    req: IncomingMessage,
    res: ServerResponse,
    record: RecordedRequest,
    provider: Provider,
    modelId: string | null,
    query: URLSearchParams,
  ) => {
    record.provider = provider;
    const key = provider === 'anthropic' ? ((req.headers['x-api-key'] as string | undefined) ?? bearerToken(req)) : bearerToken(req);
    record.authForm = typeof req.headers['x-api-key'] === 'string' ? 'x-api-key' : bearerToken(req) !== null ? 'bearer' : null;
    if (!key || !isValidKey(key, provider)) {
      const failure: ApiFailure =
        provider === 'anthropic'
          ? { status: 401, type: 'authentication_error', message: key ? 'invalid x-api-key' : 'x-api-key header is required' }
          : { status: 401, type: 'invalid_request_error', message: `Incorrect API key provided: ${maskKey(key ?? '')}.`, param: null, code: 'invalid_api_key' };
      return sendFailure(req, res, record, provider, failure);
    }
    const headerFailure = provider === 'anthropic' ? anthropicHeaderFailure(req) : null;
    if (headerFailure) return sendFailure(req, res, record, provider, headerFailure);
    const listed = options.models?.[provider] ?? (provider === 'openai' && options.ollama ? Object.keys(options.ollama) : DEFAULT_MODELS[provider]);
    const modelIds = [...new Set([...listed, ...seenModels[provider]])];
    const describe = (id: string) =>
      provider === 'anthropic'
        ? anthropicModel(
            id,
            lookupByModel(options.contextWindow, id, DEFAULT_CONTEXT_WINDOW),
            lookupByModel(options.maxOutputTokens, id, DEFAULT_MAX_OUTPUT_TOKENS),
            options.contextManagement && Object.hasOwn(options.contextManagement, id) ? options.contextManagement[id] : undefined,
          )
        : openAIModel(id, options.ollama && id in options.ollama ? 'library' : 'system');
    if (modelId !== null) {
      if (!isKnownModel(modelId, provider)) return sendFailure(req, res, record, provider, unknownModel(provider, modelId));
      record.status = 200;
      sendJson(req, res, 200, describe(modelId), providerHeaders(provider, record.id));
    } else if (provider === 'anthropic') {
      const page = anthropicModelPage(modelIds, query, describe);
      if ('failure' in page) return sendFailure(req, res, record, provider, page.failure);
      record.status = 200;
      sendJson(req, res, 200, page.body, anthropicHeaders(record.id));
    } else {
      record.status = 200;
      sendJson(req, res, 200, { object: 'list', data: modelIds.map(describe) }, openAIHeaders(record.id));
    }
    record.completed = true;
  };

  /** Ollama's own API and OpenRouter's models list: no key asked, answered in their shapes. */
  const handleLocalApis = async (req: IncomingMessage, res: ServerResponse, record: RecordedRequest, route: 'tags' | 'show' | 'openrouter') => {
    record.provider = 'openai';
    const raw = await readBody(req);
    if (raw !== '') {
      try {
        record.body = JSON.parse(raw);
      } catch {
        record.body = raw;
      }
    }
    const ollama = options.ollama ?? DEFAULT_OLLAMA_MODELS;
    const answer =
      route === 'tags'
        ? { status: 200, body: ollamaTags(ollama) }
        : route === 'show'
          ? ollamaShow(ollama, raw)
          : { status: 200, body: openRouterModels(options.openRouter ?? DEFAULT_OPENROUTER_MODELS) };
    record.status = answer.status;
    sendJson(req, res, answer.status, answer.body);
    record.completed = true;
  };

  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    const method = req.method ?? 'GET';
    const url = new URL(req.url ?? '/', 'http://fake');
    const path = url.pathname;
    const looksAnthropic = req.headers['anthropic-version'] !== undefined || req.headers['x-api-key'] !== undefined;
    const record: RecordedRequest = {
      id: looksAnthropic || path.startsWith('/v1/messages') ? ids.next('req_011C', 22) : `req_${(requests.length + 1).toString(16).padStart(32, '0')}`,
      provider: null,
      api: null,
      method,
      path,
      headers: redactedHeaders(req),
      authForm: null,
      body: undefined,
      validation: { ok: true },
      inputTokens: null,
      usage: null,
      status: 0,
      stream: false,
      injectedFailure: null,
      aborted: false,
      completed: false,
      replyText: null,
    };
    requests.push(record);

    if (method === 'OPTIONS') {
      record.status = 204;
      res.writeHead(204, preflightHeaders(req));
      res.end();
      record.completed = true;
      return;
    }
    if (method === 'POST' && path === '/v1/messages') return handleAnthropic(req, res, record, 'messages');
    if (method === 'POST' && path === '/v1/messages/count_tokens') return handleAnthropic(req, res, record, 'count_tokens');
    if (method === 'POST' && (path === '/v1/chat/completions' || path === '/chat/completions' || path === '/api/v1/chat/completions'))
      return handleOpenAI(req, res, record);
    if (method === 'POST' && (path === '/v1/responses' || path === '/responses')) return handleResponses(req, res, record);
    if (method === 'POST' && (path === '/v1/responses/input_tokens' || path === '/responses/input_tokens')) return handleResponsesInputTokens(req, res, record);
    if (method === 'GET' && path === '/api/tags') return handleLocalApis(req, res, record, 'tags');
    if (method === 'POST' && path === '/api/show') return handleLocalApis(req, res, record, 'show');
    if (method === 'GET' && path === '/api/v1/models') return handleLocalApis(req, res, record, 'openrouter');
    const modelsMatch = /^(?:\/v1)?\/models(?:\/([^/]+))?$/.exec(path);
    if (method === 'GET' && modelsMatch && (looksAnthropic ? path.startsWith('/v1/') : true)) {
      return handleModels(
        req,
        res,
        record,
        looksAnthropic ? 'anthropic' : 'openai',
        modelsMatch[1] ? decodeURIComponent(modelsMatch[1]) : null,
        url.searchParams,
      );
    }

    await readBody(req);
    const provider: Provider = looksAnthropic ? 'anthropic' : 'openai';
    record.provider = provider;
    sendFailure(
      req,
      res,
      record,
      provider,
      provider === 'anthropic'
        ? { status: 404, type: 'not_found_error', message: 'Not Found' }
        : { status: 404, type: 'invalid_request_error', message: `Invalid URL (${method} ${path})`, param: null, code: null },
    );
  };

  const server: Server = createServer((req, res) => {
    handle(req, res).catch((error: unknown) => {
      console.error('fake-api: request failed', error);
      if (!res.headersSent) {
        res.writeHead(500, { 'content-type': 'application/json', 'access-control-allow-origin': req.headers.origin ?? '*' });
        res.end(JSON.stringify({ type: 'error', error: { type: 'api_error', message: String(error) } }));
      } else {
        res.destroy();
      }
    });
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;

  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    failNext(kind, failureOptions = {}) {
      failures.push({ kind, remaining: Math.max(1, failureOptions.times ?? 1), options: failureOptions });
    },
    setReply(fn) {
      replyFunction = fn;
    },
    reset() {
      requests.length = 0;
      failures.length = 0;
      scriptList.length = 0;
      replyFunction = null;
      anthropicCache.clear();
      openAICache.clear();
      storedReasoning.clear();
      callsAfterThinking.clear();
      turn = 0;
    },
    close() {
      return new Promise<void>((resolve, reject) => {
        for (const socket of sockets) socket.destroy();
        server.close((error) => (error ? reject(error) : resolve()));
      });
    },
  };
}

function parseCliArgs(argv: string[]): FakeApiOptions {
  const options: FakeApiOptions = {};
  for (let index = 0; index < argv.length; index += 2) {
    const [flag, value] = [argv[index], Number(argv[index + 1])];
    if (!Number.isFinite(value)) throw new Error(`${flag} needs a number`);
    if (flag === '--port') options.port = value;
    else if (flag === '--context-window') options.contextWindow = value;
    else if (flag === '--delay') options.deltaDelayMs = value;
    else if (flag === '--min-cacheable') options.minCacheableTokens = value;
    else throw new Error(`unknown option ${flag} (known: --port, --context-window, --delay, --min-cacheable)`);
  }
  return options;
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const fake = await startFakeApi(parseCliArgs(process.argv.slice(2)));
  console.log(`Fake provider API on ${fake.url}`);
  console.log(`  Anthropic base URL: ${fake.url}    OpenAI base URL: ${fake.url}/v1`);
  const stop = () => void fake.close().then(() => process.exit(0));
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
}
