/**
 * The one interface the store calls to talk to a model. Adapters translate it to each
 * SDK; nothing outside src/providers sees an SDK type.
 */
import type {
  AnthropicWireMessage,
  AppliedContextEdit,
  ContentBlock,
  McpConnectorServer,
  OpenAIWireMessage,
  ProviderContextManagement,
  ProviderId,
  ThinkingRequest,
  ToolUseBlock,
  Usage,
} from '../core';

export interface ProviderSettings {
  provider: ProviderId;
  /** Required for `anthropic` and `openai`; optional for `openai-compatible`; ignored by `demo`. */
  apiKey: string;
  /**
   * Anthropic: the host without `/v1` (a trailing `/v1` is removed). OpenAI and compatible
   * endpoints: the URL that ends in `/v1` (e.g. `http://localhost:11434/v1` for Ollama).
   * Required for `openai-compatible`.
   */
  baseUrl?: string;
  /** The origin the user agreed to send the key to over plain http (see keyTravelsSafely). */
  keyConfirmedFor?: string;
  /** Default model; every request names its own. */
  model: string;
}

/** Things tests and the demo inject; the app passes none of them. */
export interface ProviderOptions {
  /** The `fetch` the SDK uses (default: the global one). */
  fetch?: typeof fetch;
  /** SDK retries for 408/409/429/5xx and connection failures (default 2). */
  maxRetries?: number;
}

/** A tool the model may call (JSON Schema input), mapped to each API's tool shape. */
export interface ToolDefinition {
  name: string;
  description?: string;
  inputSchema: Record<string, unknown>;
}

export interface ChatRequest {
  model: string;
  /**
   * Anthropic shape: sent as the top-level `system`. OpenAI shape: prepended as a
   * `role:"system"` message unless `messages` already starts with one (as
   * `toOpenAIWire(…, system)` produces).
   */
  system?: string;
  /** Must match the provider's `wireShape`. */
  messages: AnthropicWireMessage[] | OpenAIWireMessage[];
  /** Output cap; sent as `max_tokens` (Anthropic, compatible endpoints) or `max_output_tokens` (OpenAI's Responses API). */
  maxTokens: number;
  /** Stop: aborting resolves `send()` with the partial answer and `stopReason: 'stopped'`. */
  signal?: AbortSignal;
  /**
   * Anthropic only (ignored by OpenAI, whose caching is automatic): indexes into
   * `messages` from `placeCacheBreakpoints`. When present (even empty) the system
   * prompt gets a breakpoint too; beyond 4 in all, the newest indexes are kept.
   */
  cacheBreakpoints?: number[];
  tools?: ToolDefinition[];
  /** Thinking or reasoning, as `thinkingRequest` gives it for the model (valid for it); absent: nothing is sent. */
  thinking?: ThinkingRequest;
  /** MCP servers the provider connects to itself (its MCP connector); only Anthropic's and OpenAI's own APIs take them. */
  mcpConnectors?: McpConnectorServer[];
  /** Context the provider manages on its side; absent: none is asked for. Only where the model supports it. */
  contextManagement?: ProviderContextManagement;
}

export interface RetryInfo {
  /** 1 for the first retry. */
  attempt: number;
  /** Of `maxRetries`. */
  maxRetries: number;
  /** How long the SDK waits before the retry: from `retry-after-ms` / `retry-after`, else its backoff (upper bound). */
  delayMs: number;
  /** `rate_limit` (429), `overloaded` (529/503), `server_error` (other 5xx), `timeout` (408), `conflict` (409), `network`. */
  reason: string;
  /** HTTP status of the failed attempt; absent for a connection failure. */
  status?: number;
}

export interface StreamCallbacks {
  onText?(delta: string): void;
  /** Thinking as it streams; an empty delta says the model started thinking before any of it shows (OpenAI's reasoning). */
  onThinking?(delta: string): void;
  /** Once per tool call, when its input is complete. */
  onToolUse?(block: ToolUseBlock): void;
  /** Before each SDK retry, while the SDK waits. */
  onRetry?(info: RetryInfo): void;
}

export interface ChatResult {
  content: ContentBlock[];
  usage: Usage;
  /**
   * False when the provider reported no usage (a stream stopped before any usage event,
   * or a compatible server that ignores `stream_options.include_usage`): the numbers are
   * then 0 and must not calibrate the estimator.
   */
  usageReported: boolean;
  stopReason: 'end_turn' | 'max_tokens' | 'tool_use' | 'stop_sequence' | 'stopped' | (string & {});
  /** The model that answered, as the provider named it. */
  model: string;
  /** What the provider said it cleared from the request before the model read it; absent: nothing. */
  contextEdits?: AppliedContextEdit[];
}

export interface CompleteOptions {
  model: string;
  maxTokens: number;
  signal?: AbortSignal;
  system?: string;
}

export interface ChatProvider {
  readonly id: ProviderId;
  readonly wireShape: 'anthropic' | 'openai';
  /**
   * Streams one answer. Resolves with the final (or, after Stop, the partial) content;
   * rejects only with a `WindowpaneError` (code auth, rate_limit, overloaded, network,
   * unknown_model, context_length, bad_request or provider). A failure after some text
   * arrived carries that text in `error.details.partialContent`.
   */
  send(request: ChatRequest, callbacks?: StreamCallbacks): Promise<ChatResult>;
  /** One non-streaming answer as plain text (summaries). Rejects with a `WindowpaneError`, `aborted` on abort. */
  complete(prompt: string, options: CompleteOptions): Promise<string>;
  /**
   * The input tokens the provider counts for `request` as `send` would send it (its count
   * endpoint; nothing is generated). Absent where the endpoint has no such count (compatible
   * servers). Rejects with a `WindowpaneError`, `provider` when the answer holds no count.
   */
  countTokens?(request: ChatRequest, signal?: AbortSignal): Promise<number>;
}
