/**
 * Anthropic Messages API adapter over `@anthropic-ai/sdk`, loaded on first use so the SDK
 * stays out of the initial bundle. Streams with `messages.create({ stream: true })` and
 * accumulates the raw events itself, so a stopped stream still yields what arrived.
 */
import type Anthropic from '@anthropic-ai/sdk';
import {
  applyCacheBreakpoints,
  CONTEXT_MANAGEMENT_BETA,
  fromAnthropicContent,
  fromAnthropicUsage,
  mergeAnthropicUsage,
  COMPACTION_BETA,
  MAX_CACHE_BREAKPOINTS,
  MCP_CONNECTOR_BETA,
  standInToolDefinitions,
  THINKING_BINDING_BETA,
  toolNamesCalled,
  readAppliedEdits,
  WindowpaneError,
} from '../core';
import type {
  AppliedContextEdit,
  ProviderContextManagement,
  AnthropicUsageWire,
  AnthropicWireBlock,
  AnthropicWireMessage,
  ContentBlock,
  ProviderId,
  Usage,
} from '../core';
import { CallbackFailure, emit } from './callbacks';
import { countedTokens } from './countedTokens';
import { toWindowpaneError } from './errors';
import type { ErrorContext } from './errors';
import { observeRetries } from './retryObserver';
import type { ChatProvider, ChatRequest, ChatResult, CompleteOptions, ProviderOptions, ProviderSettings, StreamCallbacks } from './types';

export const ANTHROPIC_DEFAULT_BASE_URL = 'https://api.anthropic.com';

/** The SDK appends `/v1/messages` itself, so a base URL typed with `/v1` is trimmed back to the host. */
export function normalizeAnthropicBaseUrl(baseUrl: string | undefined): string {
  const trimmed = (baseUrl ?? '').trim().replace(/\/+$/, '');
  if (!trimmed) return ANTHROPIC_DEFAULT_BASE_URL;
  return trimmed.replace(/\/v1$/, '');
}

interface BlockState {
  block: AnthropicWireBlock;
  /** Raw `input_json_delta` text of a tool_use block. */
  json?: string;
  done: boolean;
}

/** Builds the answer from raw stream events, as the SDK's MessageStream does, but keeps it on abort. */
export class AnthropicStreamAccumulator {
  model: string;
  usage: AnthropicUsageWire | undefined;
  stopReason: string | null = null;
  /** `message_stop` arrived: the answer is complete. */
  finished = false;
  /** What the provider said it cleared (`context_management` of `message_start` or `message_delta`). */
  contextEdits: AppliedContextEdit[] | undefined;
  private readonly blocks: Array<BlockState | undefined> = [];

  constructor(requestedModel: string) {
    this.model = requestedModel;
  }

  apply(event: Anthropic.RawMessageStreamEvent, callbacks: StreamCallbacks): void {
    switch (event.type) {
      case 'message_start':
        this.model = event.message.model || this.model;
        this.usage = mergeAnthropicUsage(undefined, event.message.usage);
        this.readContextEdits(event.message);
        break;
      case 'content_block_start': {
        const block = { ...(event.content_block as unknown as AnthropicWireBlock) };
        this.blocks[event.index] = { block, json: block.type === 'tool_use' || block.type === 'mcp_tool_use' ? '' : undefined, done: false };
        break;
      }
      case 'content_block_delta': {
        const state = this.blocks[event.index];
        if (!state) break;
        const delta = event.delta;
        if (delta.type === 'text_delta') {
          state.block.text = String(state.block.text ?? '') + delta.text;
          emit(callbacks.onText && (() => callbacks.onText?.(delta.text)));
        } else if (delta.type === 'thinking_delta') {
          state.block.thinking = String(state.block.thinking ?? '') + delta.thinking;
          emit(callbacks.onThinking && (() => callbacks.onThinking?.(delta.thinking)));
        } else if (delta.type === 'signature_delta') {
          state.block.signature = delta.signature;
        } else if (delta.type === 'input_json_delta') {
          state.json = (state.json ?? '') + delta.partial_json;
        } else if ((delta as { type: string }).type === 'compaction_delta') {
          // The whole summary arrives in one delta, with the opaque fields that go back with it.
          const { type: _type, ...fields } = delta as unknown as Record<string, unknown>;
          Object.assign(state.block, fields);
        }
        break;
      }
      case 'content_block_stop': {
        const state = this.blocks[event.index];
        if (!state) break;
        state.done = true;
        // A connector's call may come whole in its start event, or its input in deltas like a tool_use's.
        if (state.block.type === 'mcp_tool_use' && state.json) state.block.input = parseToolInput(state.json);
        if (state.block.type === 'tool_use') {
          state.block.input = parseToolInput(state.json ?? '');
          const [toolUse] = fromAnthropicContent([state.block]);
          if (toolUse?.type === 'tool_use') emit(callbacks.onToolUse && (() => callbacks.onToolUse?.(toolUse)));
        }
        break;
      }
      case 'message_delta':
        this.stopReason = event.delta.stop_reason ?? this.stopReason;
        this.usage = mergeAnthropicUsage(this.usage, event.usage);
        this.readContextEdits(event);
        break;
      case 'message_stop':
        this.finished = true;
        break;
    }
  }

  /** Context editing's report (beta: not in the SDK's non-beta event types), read as untrusted; a later valid one replaces an earlier. */
  private readContextEdits(carrier: object): void {
    this.contextEdits = readAppliedEdits((carrier as { context_management?: unknown }).context_management) ?? this.contextEdits;
  }

  /** Canonical content so far; a tool call whose input never finished is left out. */
  content(): ContentBlock[] {
    const blocks: AnthropicWireBlock[] = [];
    for (const state of this.blocks) {
      if (!state || (state.block.type === 'tool_use' && !state.done)) continue;
      blocks.push(state.block);
    }
    return fromAnthropicContent(blocks);
  }

  result(stopReason?: string): ChatResult {
    const usage = fromAnthropicUsage(this.usage);
    return {
      content: withCompactionUsage(this.content(), usage),
      usage,
      usageReported: this.usage !== undefined,
      stopReason: stopReason ?? this.stopReason ?? 'end_turn',
      model: this.model,
      ...(this.contextEdits ? { contextEdits: this.contextEdits } : {}),
    };
  }
}

/** A compaction made for this answer, with what the usage says it read and wrote. */
function withCompactionUsage(content: ContentBlock[], usage: Usage): ContentBlock[] {
  const spent = usage.compaction;
  if (!spent) return content;
  return content.map((block) =>
    block.type === 'compaction'
      ? { ...block, compactedTokens: spent.inputTokens + spent.cacheReadTokens + spent.cacheWriteTokens, summaryTokens: spent.outputTokens }
      : block,
  );
}

function parseToolInput(json: string): unknown {
  if (!json.trim()) return {};
  try {
    return JSON.parse(json);
  } catch {
    return json;
  }
}

/**
 * Breakpoint indexes the request may use: valid, unique, and with the system prompt's
 * breakpoint at most {@link MAX_CACHE_BREAKPOINTS} in all (the newest are kept).
 */
function usableBreakpoints(indexes: readonly number[], messageCount: number, systemTakesOne: boolean): number[] {
  const valid = [...new Set(indexes)].filter((i) => Number.isInteger(i) && i >= 0 && i < messageCount).sort((a, b) => a - b);
  const budget = MAX_CACHE_BREAKPOINTS - (systemTakesOne ? 1 : 0);
  return valid.slice(Math.max(0, valid.length - budget));
}

/** The request body the adapter sends; exported so tests can check breakpoints and system placement. */
export function anthropicRequestBody(request: ChatRequest, stream: boolean): Anthropic.MessageCreateParams {
  const messages = request.messages as AnthropicWireMessage[];
  const system = request.system && request.system.trim() ? request.system : undefined;
  const caching = request.cacheBreakpoints !== undefined;
  const breakpoints = caching ? usableBreakpoints(request.cacheBreakpoints ?? [], messages.length, system !== undefined) : [];
  const body: Record<string, unknown> = {
    model: request.model,
    max_tokens: request.maxTokens,
    messages: applyCacheBreakpoints(messages, breakpoints),
    stream,
  };
  if (request.thinking?.thinking) {
    body.thinking = request.thinking.dropMismatched
      ? { ...request.thinking.thinking, block_binding: { prefix_mismatch_behavior: 'drop_block' } }
      : request.thinking.thinking;
  }
  if (request.thinking?.effort) body.output_config = { effort: request.thinking.effort };
  const edits = [...contextEditsOf(request.contextManagement), ...compactionEdits(request)];
  if (edits.length > 0) body.context_management = { edits };
  if (system !== undefined) {
    body.system = caching ? [{ type: 'text', text: system, cache_control: { type: 'ephemeral' } }] : system;
  }
  if (request.tools && request.tools.length > 0) {
    body.tools = request.tools.map((tool) => ({
      name: tool.name,
      ...(tool.description ? { description: tool.description } : {}),
      input_schema: tool.inputSchema,
    }));
  } else {
    // With the tools switched off after they were used the history still holds calls:
    // name those tools again (the API requires it) and forbid calling them.
    const standIns = standInToolDefinitions(toolNamesCalled(messages));
    if (standIns.length > 0) {
      body.tools = standIns.map((tool) => ({ name: tool.name, description: tool.description, input_schema: tool.inputSchema }));
      // The connector's tools are in `tools` too: forbidding every call would forbid theirs.
      if (!request.mcpConnectors?.length) body.tool_choice = { type: 'none' };
    }
  }
  const connectors = request.mcpConnectors ?? [];
  if (connectors.length > 0) {
    body.mcp_servers = connectors.map((server) => ({
      type: 'url',
      url: server.url,
      name: server.name,
      ...(server.authorization ? { authorization_token: server.authorization } : {}),
    }));
    // One toolset per server, an allowlist: every tool off by default, the user's on.
    const toolsets = connectors.map((server) => ({
      type: 'mcp_toolset',
      mcp_server_name: server.name,
      default_config: { enabled: false },
      configs: Object.fromEntries(server.tools.map((tool) => [tool, { enabled: true }])),
    }));
    body.tools = [...((body.tools as unknown[] | undefined) ?? []), ...toolsets];
  }
  return body as unknown as Anthropic.MessageCreateParams;
}

/**
 * Context editing's `context_management.edits`: thinking clearing first (the API requires it
 * before tool-result clearing), then tool-result clearing.
 */
function contextEditsOf(management: ProviderContextManagement | undefined): Record<string, unknown>[] {
  const edits: Record<string, unknown>[] = [];
  const thinking = management?.clearThinking;
  if (thinking) {
    edits.push({
      type: 'clear_thinking_20251015',
      keep: thinking.keepTurns === 'all' ? 'all' : { type: 'thinking_turns', value: thinking.keepTurns },
    });
  }
  const tools = management?.clearToolUses;
  if (tools) {
    const trigger =
      tools.triggerToolUses !== undefined
        ? { type: 'tool_uses', value: tools.triggerToolUses }
        : tools.triggerTokens !== undefined
          ? { type: 'input_tokens', value: tools.triggerTokens }
          : undefined;
    edits.push({
      type: 'clear_tool_uses_20250919',
      ...(trigger ? { trigger } : {}),
      keep: { type: 'tool_uses', value: tools.keepToolUses },
      ...(tools.clearAtLeastTokens > 0 ? { clear_at_least: { type: 'input_tokens', value: tools.clearAtLeastTokens } } : {}),
      ...(tools.excludeTools && tools.excludeTools.length > 0 ? { exclude_tools: tools.excludeTools } : {}),
    });
  }
  return edits;
}

/** The beta features a request uses, for its `anthropic-beta` header (comma-separated when several). */
export function anthropicBetas(request: ChatRequest): string[] {
  const betas: string[] = [];
  if (request.thinking?.dropMismatched) betas.push(THINKING_BINDING_BETA);
  if (request.contextManagement?.clearToolUses || request.contextManagement?.clearThinking) betas.push(CONTEXT_MANAGEMENT_BETA);
  if (request.contextManagement?.compaction || sendsCompaction(request.messages as AnthropicWireMessage[])) betas.push(COMPACTION_BETA);
  if (request.mcpConnectors?.length) betas.push(MCP_CONNECTOR_BETA);
  return betas;
}

function sendsCompaction(messages: readonly AnthropicWireMessage[]): boolean {
  return messages.some((m) => m.role === 'assistant' && Array.isArray(m.content) && m.content.some((block) => block.type === 'compaction'));
}

/**
 * What the summarizing step is told when the request offers tools: the documentation warns
 * that it may call one instead of writing, which leaves an empty compaction.
 */
const COMPACTION_INSTRUCTIONS =
  'Write a summary of the conversation so far inside <summary></summary> tags, with everything needed to continue it: ' +
  'the goal, decisions made, facts and numbers given, files and tool results still relevant, and what comes next. ' +
  'Respond with text only: do not call any tool while writing this summary.';

/** The compaction edit of `context_management.edits`, after any clearing (the request asks the API to compact on its side). */
function compactionEdits(request: ChatRequest): Record<string, unknown>[] {
  const edits: Record<string, unknown>[] = [];
  const compaction = request.contextManagement?.compaction;
  if (compaction) {
    const edit: Record<string, unknown> = { type: 'compact_20260112', trigger: { type: 'input_tokens', value: compaction.triggerTokens } };
    // With tools defined the summarizing step may call one instead of writing (“Current limitations”).
    if (request.tools && request.tools.length > 0) edit.instructions = COMPACTION_INSTRUCTIONS;
    edits.push(edit);
  }
  return edits;
}

/** The body `POST /v1/messages/count_tokens` takes: the request's own, without `max_tokens` and `stream`. */
export function anthropicCountBody(request: ChatRequest): Anthropic.MessageCountTokensParams {
  const { max_tokens: _max, stream: _stream, ...body } = anthropicRequestBody(request, false) as unknown as Record<string, unknown>;
  return body as unknown as Anthropic.MessageCountTokensParams;
}

function defaultFetch(): typeof fetch {
  // Resolved at call time so the page's fetch (or a test's) is the one used.
  return (input, init) => fetch(input, init);
}

/**
 * Creates the Anthropic adapter. `id` lets the demo reuse this path under its own id.
 * Throws `auth` when there is no key.
 */
export async function createAnthropicProvider(settings: ProviderSettings, options: ProviderOptions & { id?: ProviderId } = {}): Promise<ChatProvider> {
  const id = options.id ?? 'anthropic';
  const apiKey = settings.apiKey.trim();
  if (!apiKey) throw new WindowpaneError('auth', 'Add your Anthropic API key in Settings to use Anthropic models.');
  const { default: AnthropicClient } = await import('@anthropic-ai/sdk');
  const baseUrl = normalizeAnthropicBaseUrl(settings.baseUrl);
  const maxRetries = options.maxRetries ?? 2;
  const baseFetch = options.fetch ?? defaultFetch();
  const client = (fetchImpl: typeof fetch, retries = maxRetries) =>
    new AnthropicClient({
      apiKey,
      baseURL: baseUrl,
      dangerouslyAllowBrowser: true,
      maxRetries: retries,
      fetch: fetchImpl,
      // No trace headers: they would need a CORS allowance from custom endpoints.
      openTelemetry: false,
    });
  const errorContext = (model: string, signal?: AbortSignal): ErrorContext => ({ provider: id, model, baseUrl, apiKey, signal });

  return {
    id,
    wireShape: 'anthropic',

    async send(request: ChatRequest, callbacks: StreamCallbacks = {}): Promise<ChatResult> {
      const { signal } = request;
      const acc = new AnthropicStreamAccumulator(request.model);
      if (signal?.aborted) return acc.result('stopped');
      try {
        const sdk = client(observeRetries(baseFetch, { sdk: 'anthropic', maxRetries }, callbacks.onRetry, signal));
        const betas = anthropicBetas(request);
        const headers = betas.length > 0 ? { 'anthropic-beta': betas.join(',') } : undefined;
        const stream = await sdk.messages.create(anthropicRequestBody(request, true) as Anthropic.MessageCreateParamsStreaming, { signal, headers });
        for await (const event of stream) acc.apply(event, callbacks);
      } catch (error) {
        if (error instanceof CallbackFailure) throw error.cause;
        if (signal?.aborted) return acc.result('stopped');
        throw toWindowpaneError(error, { ...errorContext(request.model, signal), partialContent: acc.content() });
      }
      if (acc.finished) return acc.result();
      // The SDK ends the iteration quietly when the request is aborted.
      if (signal?.aborted) return acc.result('stopped');
      throw new WindowpaneError('network', `The connection to ${baseUrl} closed before the answer was complete. Try again.`, {
        provider: id,
        partialContent: acc.content(),
      });
    },

    async complete(prompt: string, opts: CompleteOptions): Promise<string> {
      try {
        const message = await client(baseFetch).messages.create(
          anthropicRequestBody(
            { model: opts.model, maxTokens: opts.maxTokens, system: opts.system, messages: [{ role: 'user', content: prompt }] },
            false,
          ) as Anthropic.MessageCreateParamsNonStreaming,
          { signal: opts.signal },
        );
        return message.content
          .filter((block): block is Anthropic.TextBlock => block.type === 'text')
          .map((block) => block.text)
          .join('');
      } catch (error) {
        throw toWindowpaneError(error, errorContext(opts.model, opts.signal));
      }
    },

    // The Demo's in-page API has no count endpoint.
    ...(id === 'anthropic' ? { countTokens } : {}),
  };

  /** Counted under the same beta headers the request would go with; no retry: the caller backs off a 429 itself. */
  async function countTokens(request: ChatRequest, signal?: AbortSignal): Promise<number> {
    try {
      const betas = anthropicBetas(request);
      const headers = betas.length > 0 ? { 'anthropic-beta': betas.join(',') } : undefined;
      return countedTokens(await client(baseFetch, 0).messages.countTokens(anthropicCountBody(request), { signal, headers }), id);
    } catch (error) {
      throw toWindowpaneError(error, errorContext(request.model, signal));
    }
  }
}
