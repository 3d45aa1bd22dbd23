/**
 * OpenAI's own endpoint through the Responses API (`POST /v1/responses`, streaming), the API
 * OpenAI serves reasoning models best on: reasoning effort and summaries, and reasoning items
 * carried across a tool loop as encrypted content with `store: false`, so nothing of the
 * conversation is kept on OpenAI's side. OpenAI-compatible servers keep Chat Completions
 * (openai.ts). Read on 2026-11-29: OpenAI API reference “Create a model response” and
 * “Streaming events”, and the reasoning guide.
 */
import type OpenAI from 'openai';
import { fromResponsesOutput, fromResponsesUsage, jsonFields, toResponsesInput } from '../core';
import type { ProviderToolCallWire, ResponsesOutputItem, ResponsesUsageWire, OpenAIWireMessage } from '../core';
import { emit } from './callbacks';
import type { ChatRequest, ChatResult, StreamCallbacks } from './types';

/** The request body the adapter sends to `POST /responses`; exported so tests can check it. */
export function responsesRequestBody(request: ChatRequest, stream: boolean): OpenAI.Responses.ResponseCreateParams {
  const body: Record<string, unknown> = {
    model: request.model,
    input: toResponsesInput(request.messages as OpenAIWireMessage[]),
    max_output_tokens: request.maxTokens,
    // Nothing is kept on OpenAI's side: every request carries the whole context it needs.
    store: false,
  };
  if (request.system?.trim()) body.instructions = request.system;
  const thinking = request.thinking;
  if (thinking?.reasoningEffort || thinking?.reasons) {
    const reasoning: Record<string, unknown> = {};
    if (thinking.reasoningEffort) reasoning.effort = thinking.reasoningEffort;
    if (thinking.reasons) {
      reasoning.summary = 'auto';
      // With `store: false`, the only way a reasoning item can go back in a tool loop.
      body.include = ['reasoning.encrypted_content'];
    }
    body.reasoning = reasoning;
  }
  if (stream) body.stream = true;
  const compaction = request.contextManagement?.compaction;
  if (compaction) body.context_management = [{ type: 'compaction', compact_threshold: compaction.triggerTokens }];
  const tools: unknown[] = (request.tools ?? []).map((tool) => ({
    type: 'function',
    name: tool.name,
    ...(tool.description ? { description: tool.description } : {}),
    parameters: tool.inputSchema,
    strict: false,
  }));
  // The provider calls these servers itself; it is given only tools the user always allows, so it never asks.
  for (const server of request.mcpConnectors ?? []) {
    tools.push({
      type: 'mcp',
      server_label: server.name,
      server_url: server.url,
      allowed_tools: server.tools,
      require_approval: 'never',
      ...(server.authorization ? { authorization: server.authorization } : {}),
    });
  }
  if (tools.length > 0) body.tools = tools;
  return body as unknown as OpenAI.Responses.ResponseCreateParams;
}

/**
 * The body `POST /responses/input_tokens` takes: the request's own, without what only an
 * answer needs (`max_output_tokens`, `store`, `include`, `stream`), which the count refuses.
 */
export function responsesCountBody(request: ChatRequest): OpenAI.Responses.InputTokenCountParams {
  const {
    max_output_tokens: _max,
    store: _store,
    include: _include,
    stream: _stream,
    ...body
  } = responsesRequestBody(request, false) as unknown as Record<string, unknown>;
  return body as OpenAI.Responses.InputTokenCountParams;
}

/** An output item being streamed; `summaryPart` is the reasoning summary part its last delta belonged to. */
type Slot = ResponsesOutputItem & { itemId?: string; summaryPart?: number };

const str = (value: unknown): string => (typeof value === 'string' ? value : '');

/** The text of a finished output item's content parts (output_text, refusal). */
function partsText(content: unknown): string {
  if (!Array.isArray(content)) return '';
  return content.map((part) => str((part as { text?: unknown }).text) || str((part as { refusal?: unknown }).refusal)).join('');
}

function summaryText(summary: unknown): string {
  if (!Array.isArray(summary)) return '';
  return summary
    .map((part) => str((part as { text?: unknown }).text))
    .filter(Boolean)
    .join('\n\n');
}

/**
 * A finished connector item as the call it stands for. Requests say `require_approval: "never"`
 * (the provider is given only tools the user always allows), so an approval request is kept as a
 * call that did not run; a listing is kept only when it failed, since it is not a call.
 */
function connectorItem(item: Record<string, unknown>): { wire: ProviderToolCallWire; answered: boolean } {
  const base = { id: item.id, server: item.server_label };
  if (item.type === 'mcp_call') {
    return { wire: { ...base, name: item.name, input: parsedArguments(item.arguments), output: item.output, error: item.error }, answered: true };
  }
  if (item.type === 'mcp_approval_request') {
    const refused = 'OpenAI asked for approval of this call, which Windowpane does not give: it did not run.';
    return { wire: { ...base, name: item.name, input: parsedArguments(item.arguments), output: refused, isError: true }, answered: true };
  }
  return item.error ? { wire: { ...base, name: 'tools/list', input: {}, error: item.error }, answered: true } : { wire: {}, answered: false };
}

function parsedArguments(value: unknown): unknown {
  if (typeof value !== 'string') return {};
  try {
    return JSON.parse(value) as unknown;
  } catch {
    return value;
  }
}

/** A failure the API reported inside the stream (`response.failed`), shaped as an SDK error body. */
export class ResponseFailed extends Error {
  readonly error: { message: string; code?: string; type: string };
  constructor(error: unknown) {
    const raw = (error ?? {}) as { message?: unknown; code?: unknown };
    const message = str(raw.message) || 'The response failed.';
    super(message);
    const code = str(raw.code) || undefined;
    this.error = {
      message,
      code,
      type: code === 'rate_limit_exceeded' ? 'rate_limit_error' : code === 'server_error' || !code ? 'api_error' : 'invalid_request_error',
    };
  }
}

/**
 * Builds the answer from Responses stream events, item by item as `output_index` orders
 * them, so a stopped stream still yields what arrived. Events are read defensively: a field
 * of the wrong type is ignored, never thrown on.
 */
export class ResponsesStreamAccumulator {
  model: string;
  slots: Array<Slot | undefined> = [];
  usage: ResponsesUsageWire | undefined;
  /** `completed`, `incomplete` (with `incompleteReason`) once the response ended; null before. */
  status: string | null = null;
  incompleteReason: string | null = null;

  constructor(requestedModel: string) {
    this.model = requestedModel;
  }

  private slot(index: unknown, item?: { type?: unknown; id?: unknown; call_id?: unknown; name?: unknown }): Slot | undefined {
    if (typeof index !== 'number' || !Number.isInteger(index) || index < 0 || index > 10_000) return undefined;
    const existing = this.slots[index];
    if (existing || !item) return existing;
    const id = str(item.id);
    let made: Slot | undefined;
    if (item.type === 'reasoning') made = { type: 'reasoning', id, summary: '' };
    else if (item.type === 'message') made = { type: 'message', text: '', itemId: id };
    else if (item.type === 'function_call')
      made = { type: 'function_call', callId: str(item.call_id), name: str(item.name), arguments: '', done: false, itemId: id };
    else if (item.type === 'compaction') made = { type: 'compaction', fields: {} };
    else if (item.type === 'mcp_call' || item.type === 'mcp_approval_request' || item.type === 'mcp_list_tools')
      made = { type: 'mcp_call', wire: {}, answered: false };
    if (made) this.slots[index] = made;
    return made;
  }

  apply(event: OpenAI.Responses.ResponseStreamEvent, callbacks: StreamCallbacks): void {
    const e = event as unknown as Record<string, unknown> & { type?: unknown };
    switch (e.type) {
      case 'response.created':
      case 'response.in_progress': {
        const model = str((e.response as { model?: unknown } | undefined)?.model);
        if (model) this.model = model;
        return;
      }
      case 'response.output_item.added': {
        const slot = this.slot(e.output_index, e.item as never);
        // The model starts reasoning here; its summary comes later, if at all. An empty delta
        // starts the thinking clock, so the time shown is the reasoning's, not the summary's.
        if (slot?.type === 'reasoning') emit(callbacks.onThinking && (() => callbacks.onThinking?.('')));
        return;
      }
      case 'response.reasoning_summary_text.delta':
      case 'response.reasoning_text.delta': {
        const slot = this.slot(e.output_index);
        const delta = str(e.delta);
        if (slot?.type !== 'reasoning' || !delta) return;
        // Summary parts are separate paragraphs.
        const part = typeof e.summary_index === 'number' ? e.summary_index : 0;
        const text = slot.summary && part > 0 && !slot.summary.endsWith('\n\n') && slot.summaryPart !== part ? `\n\n${delta}` : delta;
        slot.summaryPart = part;
        slot.summary += text;
        emit(callbacks.onThinking && (() => callbacks.onThinking?.(text)));
        return;
      }
      case 'response.output_text.delta':
      case 'response.refusal.delta': {
        const slot = this.slot(e.output_index);
        const delta = str(e.delta);
        if (slot?.type !== 'message' || !delta) return;
        slot.text += delta;
        emit(callbacks.onText && (() => callbacks.onText?.(delta)));
        return;
      }
      case 'response.function_call_arguments.delta': {
        const slot = this.slot(e.output_index);
        if (slot?.type === 'function_call') slot.arguments += str(e.delta);
        return;
      }
      case 'response.output_item.done':
        this.finish(e.output_index, e.item as Record<string, unknown> | undefined);
        return;
      case 'response.completed':
      case 'response.incomplete':
        this.end(e.response as Record<string, unknown> | undefined, e.type === 'response.completed' ? 'completed' : 'incomplete');
        return;
      case 'response.failed':
        throw new ResponseFailed((e.response as { error?: unknown } | undefined)?.error);
    }
  }

  /** The item as it ended: its full text, arguments and, for reasoning, the encrypted content. */
  private finish(index: unknown, item: Record<string, unknown> | undefined): void {
    if (!item) return;
    const slot = this.slot(index, item);
    if (!slot) return;
    if (slot.type === 'reasoning') {
      const summary = summaryText(item.summary);
      if (summary) slot.summary = summary;
      const encrypted = str(item.encrypted_content);
      if (encrypted) slot.encryptedContent = encrypted;
    } else if (slot.type === 'message') {
      const text = partsText(item.content);
      if (text) slot.text = text;
    } else if (slot.type === 'compaction') {
      // Opaque: kept as it came, to go back in the next request's input.
      const { type: _type, ...fields } = item;
      slot.fields = jsonFields(fields);
    } else if (slot.type === 'mcp_call') {
      const done = connectorItem(item);
      slot.wire = done.wire;
      slot.answered = done.answered;
    } else {
      if (typeof item.arguments === 'string') slot.arguments = item.arguments;
      if (str(item.call_id)) slot.callId = str(item.call_id);
      if (str(item.name)) slot.name = str(item.name);
      slot.done = true;
    }
  }

  private end(response: Record<string, unknown> | undefined, status: 'completed' | 'incomplete'): void {
    this.status = status;
    if (!response) return;
    if (str(response.model)) this.model = str(response.model);
    if (response.usage && typeof response.usage === 'object') this.usage = response.usage as ResponsesUsageWire;
    this.incompleteReason = str((response.incomplete_details as { reason?: unknown } | undefined)?.reason) || null;
    if (Array.isArray(response.output)) response.output.forEach((item, index) => this.finish(index, item as Record<string, unknown>));
  }

  private stopReason(): string {
    if (this.status === 'incomplete') return this.incompleteReason === 'max_output_tokens' ? 'max_tokens' : (this.incompleteReason ?? 'max_tokens');
    return this.slots.some((slot) => slot?.type === 'function_call' && slot.done) ? 'tool_use' : 'end_turn';
  }

  /** The response said how it ended (`response.completed` or `response.incomplete`). */
  finished(): boolean {
    return this.status !== null;
  }

  result(stopReason?: string): ChatResult {
    const items = this.slots.filter((slot): slot is Slot => slot !== undefined);
    return {
      content: fromResponsesOutput(items, { complete: stopReason === undefined }),
      usage: fromResponsesUsage(this.usage),
      usageReported: this.usage !== undefined,
      stopReason: stopReason ?? this.stopReason(),
      model: this.model,
    };
  }
}
