/** Shared shapes of the fake provider API (see server.ts for the whole picture). */

export type Provider = 'anthropic' | 'openai';

/**
 * Failures `failNext` can inject. '529' answers Anthropic's overloaded_error; on the OpenAI
 * side, which has no 529, it answers 503 like OpenAI's own "overloaded" response. 'network'
 * drops the connection mid-answer; 'cors' answers without CORS headers, which a browser
 * reports as a network error (Node clients do not check CORS and see a normal answer).
 */
export type FailureKind = '401' | '429' | '529' | '500' | '503' | 'context' | 'network' | 'cors' | 'unknown_model';

export interface FailureOptions {
  /** Value of the `retry-after` header on a 429 or 529/503, in seconds (default 1). */
  retryAfterSeconds?: number;
  /** How many consecutive chat requests fail this way (default 1). */
  times?: number;
  /** Only requests to this provider consume the failure (default: either). */
  provider?: Provider;
  /** For 'context': the maximum the error reports (default: 90 % of the counted input). */
  maximumTokens?: number;
}

/** An API error as the fake answers it, before it is put into a provider's body shape. */
export interface ApiFailure {
  status: number;
  /** Anthropic `error.type`, or OpenAI `error.type`. */
  type: string;
  message: string;
  /** OpenAI only: `error.param` and `error.code`. */
  param?: string | null;
  code?: string | null;
  headers?: Record<string, string>;
  /** OpenAI-compatible servers only: a whole body in the server's own shape (vLLM's), instead of `{ error }`. */
  body?: Record<string, unknown>;
}

export type ValidationResult = { ok: true } | ({ ok: false } & ApiFailure);

export interface RecordedRequest {
  /** The request id the fake issued (`request-id` / `x-request-id` header). */
  id: string;
  provider: Provider | null;
  /** Which OpenAI API a chat request used: Chat Completions or Responses (null for every other request). */
  api: 'chat' | 'responses' | null;
  method: string;
  path: string;
  /** Request headers, lower-case names; `authorization` and `x-api-key` values are redacted. */
  headers: Record<string, string>;
  /** Which credential header carried the key, if any. */
  authForm: 'x-api-key' | 'bearer' | null;
  /** Parsed JSON body (undefined for bodiless requests, the raw text if it was not JSON). */
  body: unknown;
  /** Outcome of the wire-rule checks; `{ ok: true }` when the request was accepted. */
  validation: ValidationResult;
  /** Input tokens the fake counted for the request (o200k), or null when it never got that far. */
  inputTokens: number | null;
  /** Usage the fake reported back (provider wire shape), when it answered successfully. */
  usage: Record<string, unknown> | null;
  /** HTTP status sent, or 0 when the socket was destroyed without an answer. */
  status: number;
  stream: boolean;
  /** The failure consumed from `failNext`, if any. */
  injectedFailure: FailureKind | null;
  /** The provider compacted this request on its side: the input it read and the summary it wrote. */
  compacted?: { inputTokens: number; summary: string };
  /** The client went away before the answer was complete (e.g. Stop during a stream). */
  aborted: boolean;
  /** The answer was written to the end. */
  completed: boolean;
  /** The assistant text the fake answered with (possibly cut by an abort or max tokens). */
  replyText: string | null;
  /** The calls the fake, as the provider, made to MCP servers through its connector while answering. */
  connectorCalls?: { server: string; name: string; isError: boolean; awaitingApproval: boolean }[];
}

export interface ToolCallSpec {
  name: string;
  input: Record<string, unknown>;
  /** Defaults to a fresh `toolu_…` / `call_…` id. */
  id?: string;
}

/** What the fake answers to one chat request. */
export interface ReplySpec {
  text?: string;
  /**
   * Calls to the tools of MCP servers the request gives the provider's connector (Anthropic's
   * `mcp_servers`, OpenAI's `mcp` tools), by the server's name in the request: the fake connects
   * to the server, calls the tool and answers with the documented blocks or items before the text.
   * A call to a server or tool the request does not give is not made.
   */
  connectorCalls?: { server: string; name: string; input: Record<string, unknown> }[];
  /** Tool calls after the text: Anthropic tool_use blocks, OpenAI tool_calls (parallel when several). */
  toolCalls?: ToolCallSpec[];
  /**
   * Anthropic: a thinking block (with a signature the fake will verify when it comes back), with
   * empty text where the request's `thinking.display` is omitted, and none when it turns thinking
   * off. OpenAI Chat Completions: never shown; its length is the `reasoning_tokens` reported when
   * the request sets a `reasoning_effort` other than `none`. OpenAI Responses: when the model
   * reasons, the `reasoning` item's summary text (if `reasoning.summary` is set), sealed in its
   * `encrypted_content`, and its length the `reasoning_tokens`.
   */
  thinking?: string;
  /**
   * Anthropic: a `redacted_thinking` block after the thinking (as the API returns when its
   * safety systems encrypt part of the thinking), whose `data` the fake sealed and verifies when
   * it comes back. None when the request turns up-front thinking off.
   */
  redactedThinking?: boolean;
  /** Pause between streamed deltas, in ms (default: the server's `deltaDelayMs`). */
  deltaDelayMs?: number;
  /** Number of text deltas to stream the text in (default: one per ~3 words, at least 3). */
  deltas?: number;
  /**
   * Streams only: after this many deltas the stream ends with an error event, as the real APIs do
   * when a failure happens after the 200 (Anthropic: `event: error` with overloaded_error; OpenAI:
   * a `data:` chunk carrying `error`, and no `[DONE]`).
   */
  streamErrorAfterDeltas?: number;
}

/** What a reply function is told about the request it answers. */
export interface ReplyContext {
  provider: Provider;
  model: string;
  body: Record<string, unknown>;
  /** 1-based count of chat requests this fake has answered (since start or reset). */
  turn: number;
  /** Entries in the request's `messages` array (Responses: items in `input`, 1 for a string). */
  messageCount: number;
  /** Text of the top-level `system` (Anthropic) or of system/developer messages (OpenAI; Responses: `instructions` first). */
  systemText: string;
  /** Text of the last user message (empty when it carries only tool results). */
  lastUserText: string;
  /** The request asks for a summary (its system prompt or last user text mentions summariz/summaris). */
  isSummaryRequest: boolean;
  /** The request ends with tool results the model is expected to read. */
  answersToolResults: boolean;
  /** Names of the tools the request offers. */
  toolNames: string[];
  inputTokens: number;
  /** `max_tokens` / `max_completion_tokens` / `max_output_tokens`, or null when the request set none. */
  maxTokens: number | null;
}

/** Answers one request; return undefined to fall back to the default reply. */
export type ReplyFunction = (context: ReplyContext) => ReplySpec | undefined;
