/**
 * The OpenAI adapter over `openai`, loaded on first use: OpenAI's own endpoint through the
 * Responses API (openaiResponses.ts), OpenAI-compatible endpoints (Ollama, LM Studio,
 * OpenRouter, vLLM, a company proxy) through Chat Completions.
 * Streams with `stream_options.include_usage` and accumulates the deltas itself, so a
 * stopped stream still yields what arrived.
 */
import type OpenAI from 'openai';
import { ConfigError, fromOpenAIAccumulated, fromOpenAIFinishReason, fromOpenAIUsage, WindowpaneError } from '../core';
import type { OpenAIToolCallAccumulated, OpenAIUsageWire, OpenAIWireMessage } from '../core';
import { CallbackFailure, emit } from './callbacks';
import { toWindowpaneError } from './errors';
import type { ErrorContext } from './errors';
import { countedTokens } from './countedTokens';
import { ResponseFailed, responsesCountBody, responsesRequestBody, ResponsesStreamAccumulator } from './openaiResponses';
import { observeRetries } from './retryObserver';
import type { ChatProvider, ChatRequest, ChatResult, CompleteOptions, ProviderOptions, ProviderSettings, StreamCallbacks } from './types';

export const OPENAI_DEFAULT_BASE_URL = 'https://api.openai.com/v1';

/**
 * Sent as the bearer token when an OpenAI-compatible endpoint needs no key (Ollama,
 * LM Studio): the SDK requires one, and such servers ignore it.
 */
export const NO_KEY_PLACEHOLDER = 'not-needed';

type Delta = OpenAI.Chat.Completions.ChatCompletionChunk.Choice.Delta & {
  /** Reasoning text some compatible servers stream (DeepSeek, Ollama, OpenRouter). */
  reasoning_content?: string | null;
  reasoning?: string | null;
};

/** Builds the answer from stream chunks; tool calls are keyed by the deltas' `index`. */
export class OpenAIStreamAccumulator {
  model: string;
  content = '';
  reasoning = '';
  toolCalls: Array<OpenAIToolCallAccumulated | undefined> = [];
  finishReason: string | null = null;
  usage: OpenAIUsageWire | undefined;

  constructor(requestedModel: string) {
    this.model = requestedModel;
  }

  apply(chunk: OpenAI.Chat.Completions.ChatCompletionChunk, callbacks: StreamCallbacks): void {
    if (chunk.model) this.model = chunk.model;
    if (chunk.usage) this.usage = chunk.usage;
    const choice = chunk.choices?.[0];
    if (!choice) return;
    const delta = (choice.delta ?? {}) as Delta;
    const reasoning = delta.reasoning_content ?? delta.reasoning;
    if (typeof reasoning === 'string' && reasoning) {
      this.reasoning += reasoning;
      emit(callbacks.onThinking && (() => callbacks.onThinking?.(reasoning)));
    }
    if (typeof delta.content === 'string' && delta.content) {
      const text = delta.content;
      this.content += text;
      emit(callbacks.onText && (() => callbacks.onText?.(text)));
    }
    delta.tool_calls?.forEach((piece, position) => {
      const index = typeof piece.index === 'number' ? piece.index : position;
      const call = (this.toolCalls[index] ??= { id: '', name: '', arguments: '' });
      if (piece.id) call.id = piece.id;
      if (piece.function?.name) call.name = piece.function.name;
      if (piece.function?.arguments) call.arguments += piece.function.arguments;
    });
    if (choice.finish_reason) this.finishReason = choice.finish_reason;
  }

  /** The stream said how it ended. */
  finished(): boolean {
    return this.finishReason !== null;
  }

  result(stopReason?: string): ChatResult {
    const complete = stopReason === undefined;
    return {
      content: fromOpenAIAccumulated({ content: this.content, toolCalls: this.toolCalls, reasoning: this.reasoning }, { complete }),
      usage: fromOpenAIUsage(this.usage),
      usageReported: this.usage !== undefined,
      stopReason: stopReason ?? fromOpenAIFinishReason(this.finishReason),
      model: this.model,
    };
  }
}

/** `system` becomes a first system message unless the messages already start with one. */
function withSystem(messages: readonly OpenAIWireMessage[], system: string | undefined): OpenAIWireMessage[] {
  const first = messages[0]?.role;
  if (!system || !system.trim() || first === 'system' || first === 'developer') return [...messages];
  return [{ role: 'system', content: system }, ...messages];
}

/** Reasoning and compaction items are the Responses API's; Chat Completions has no place for them. */
function withoutReasoning(message: OpenAIWireMessage): OpenAIWireMessage {
  if (message.reasoning === undefined && message.compaction === undefined) return message;
  const { reasoning: _reasoning, compaction: _compaction, ...rest } = message;
  return rest;
}

/** The request body the adapter sends; exported so tests can check the token field and system placement. */
export function openAIRequestBody(request: ChatRequest, stream: boolean): OpenAI.Chat.Completions.ChatCompletionCreateParams {
  const body: Record<string, unknown> = {
    model: request.model,
    messages: withSystem(request.messages as OpenAIWireMessage[], request.system).map(withoutReasoning),
    // What Ollama, LM Studio, vLLM, OpenRouter and most proxies take.
    max_tokens: request.maxTokens,
  };
  if (request.thinking?.reasoningEffort) body.reasoning_effort = request.thinking.reasoningEffort;
  if (stream) {
    body.stream = true;
    body.stream_options = { include_usage: true };
  }
  if (request.tools && request.tools.length > 0) {
    body.tools = request.tools.map((tool) => ({
      type: 'function',
      function: { name: tool.name, ...(tool.description ? { description: tool.description } : {}), parameters: tool.inputSchema },
    }));
  }
  return body as unknown as OpenAI.Chat.Completions.ChatCompletionCreateParams;
}

function defaultFetch(): typeof fetch {
  return (input, init) => fetch(input, init);
}

/**
 * Creates the adapter for `openai` (key required; the Responses API) or
 * `openai-compatible` (base URL required, key optional; Chat Completions with
 * `max_tokens`, which Ollama, LM Studio and most proxies accept). Throws `auth` without a key for OpenAI and
 * `invalid_config` without a base URL for a compatible endpoint.
 */
export async function createOpenAIProvider(settings: ProviderSettings, options: ProviderOptions = {}): Promise<ChatProvider> {
  const compatible = settings.provider === 'openai-compatible';
  const id = compatible ? 'openai-compatible' : 'openai';
  const typedKey = settings.apiKey.trim();
  if (!compatible && !typedKey) throw new WindowpaneError('auth', 'Add your OpenAI API key in Settings to use OpenAI models.');
  const baseUrl = (settings.baseUrl ?? '').trim().replace(/\/+$/, '') || (compatible ? '' : OPENAI_DEFAULT_BASE_URL);
  if (!baseUrl) throw new ConfigError('baseUrl', 'Enter the base URL of your OpenAI-compatible endpoint in Settings (for Ollama: http://localhost:11434/v1).');
  const apiKey = typedKey || NO_KEY_PLACEHOLDER;
  const { default: OpenAIClient } = await import('openai');
  const maxRetries = options.maxRetries ?? 2;
  const baseFetch = options.fetch ?? defaultFetch();
  const client = (fetchImpl: typeof fetch, retries = maxRetries) =>
    new OpenAIClient({
      apiKey,
      adminAPIKey: null,
      organization: null,
      project: null,
      baseURL: baseUrl,
      dangerouslyAllowBrowser: true,
      maxRetries: retries,
      fetch: fetchImpl,
    });
  const errorContext = (model: string, signal?: AbortSignal): ErrorContext => ({
    provider: id,
    model,
    baseUrl,
    apiKey: typedKey || undefined,
    signal,
  });

  /**
   * Streams one answer into `acc` (`stream` feeds it the events), resolving with what it
   * built once the stream said it finished, or with what arrived when Stop ended it.
   */
  const streamAnswer = async (
    request: ChatRequest,
    callbacks: StreamCallbacks,
    acc: { result(stopReason?: string): ChatResult; finished(): boolean },
    stream: (sdk: OpenAI) => Promise<void>,
  ): Promise<ChatResult> => {
    const { signal } = request;
    if (signal?.aborted) return acc.result('stopped');
    try {
      await stream(client(observeRetries(baseFetch, { sdk: 'openai', maxRetries }, callbacks.onRetry, signal)));
    } catch (error) {
      if (error instanceof CallbackFailure) throw error.cause;
      if (signal?.aborted) return acc.result('stopped');
      throw toWindowpaneError(error, { ...errorContext(request.model, signal), partialContent: acc.result('stopped').content });
    }
    if (acc.finished()) {
      const result = acc.result();
      for (const block of result.content) {
        if (block.type === 'tool_use') emit(callbacks.onToolUse && (() => callbacks.onToolUse?.(block)));
      }
      return result;
    }
    if (signal?.aborted) return acc.result('stopped');
    throw new WindowpaneError('network', `The connection to ${baseUrl} closed before the answer was complete. Try again.`, {
      provider: id,
      partialContent: acc.result('stopped').content,
    });
  };

  return {
    id,
    wireShape: 'openai',

    async send(request: ChatRequest, callbacks: StreamCallbacks = {}): Promise<ChatResult> {
      const { signal } = request;
      if (!compatible) {
        const acc = new ResponsesStreamAccumulator(request.model);
        return streamAnswer(request, callbacks, acc, async (sdk) => {
          const body = responsesRequestBody(request, true) as OpenAI.Responses.ResponseCreateParamsStreaming;
          for await (const event of await sdk.responses.create(body, { signal })) acc.apply(event, callbacks);
        });
      }
      const acc = new OpenAIStreamAccumulator(request.model);
      return streamAnswer(request, callbacks, acc, async (sdk) => {
        const body = openAIRequestBody(request, true) as OpenAI.Chat.Completions.ChatCompletionCreateParamsStreaming;
        for await (const chunk of await sdk.chat.completions.create(body, { signal })) acc.apply(chunk, callbacks);
      });
    },

    async complete(prompt: string, opts: CompleteOptions): Promise<string> {
      try {
        if (!compatible) {
          const body = responsesRequestBody(
            { model: opts.model, maxTokens: opts.maxTokens, system: opts.system, messages: [{ role: 'user', content: prompt }] },
            false,
          ) as OpenAI.Responses.ResponseCreateParamsNonStreaming;
          const response = await client(baseFetch).responses.create(body, { signal: opts.signal });
          if (response.status === 'failed') throw new ResponseFailed(response.error);
          return response.output_text ?? '';
        }
        const body = openAIRequestBody(
          { model: opts.model, maxTokens: opts.maxTokens, system: opts.system, messages: [{ role: 'user', content: prompt }] },
          false,
        ) as OpenAI.Chat.Completions.ChatCompletionCreateParamsNonStreaming;
        const completion = await client(baseFetch).chat.completions.create(body, { signal: opts.signal });
        return completion.choices[0]?.message?.content ?? '';
      } catch (error) {
        throw toWindowpaneError(error, errorContext(opts.model, opts.signal));
      }
    },

    // Chat Completions has no count endpoint: compatible servers keep the estimate.
    ...(compatible ? {} : { countTokens }),
  };

  /** The Responses API's count of the request; no retry: the caller backs off a 429 itself. */
  async function countTokens(request: ChatRequest, signal?: AbortSignal): Promise<number> {
    try {
      return countedTokens(await client(baseFetch, 0).responses.inputTokens.count(responsesCountBody(request), { signal }), id);
    } catch (error) {
      throw toWindowpaneError(error, errorContext(request.model, signal));
    }
  }
}
