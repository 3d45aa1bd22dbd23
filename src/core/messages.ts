/**
 * Wire-shaped messages: what is actually sent to a provider. The windowing code reads
 * both shapes through the helpers here, so it never depends on either SDK.
 */

/** An Anthropic Messages API content block, as sent on the wire. */
export interface AnthropicWireBlock {
  type: string;
  [key: string]: unknown;
}

/** An Anthropic Messages API message: string content or an array of blocks. */
export interface AnthropicWireMessage {
  role: 'user' | 'assistant';
  content: string | AnthropicWireBlock[];
}

/** An OpenAI Chat Completions function tool call. */
export interface OpenAIToolCall {
  id: string;
  type: 'function';
  function: { name: string; arguments: string };
}

/** An OpenAI Chat Completions message (system, user, assistant with tool_calls, tool). */
export interface OpenAIWireMessage {
  role: 'system' | 'developer' | 'user' | 'assistant' | 'tool';
  content: string | null | Array<{ type: string; [key: string]: unknown }>;
  tool_calls?: OpenAIToolCall[];
  tool_call_id?: string;
  name?: string;
  /**
   * Responses API only (never sent to Chat Completions): the reasoning items an answer inside
   * the current tool loop goes back with, before its text and calls (see `toResponsesInput`).
   */
  reasoning?: OpenAIReasoningWire[];
  /**
   * Responses API only (never sent to Chat Completions): this message stands for the
   * provider's compaction item, which goes in its place (see `toResponsesInput`); its own
   * content is there for the planner, which wants a user message to open a request.
   */
  compaction?: OpenAICompactionWire;
}

/** OpenAI's compaction item to send back through the Responses API, with what it counts. */
export interface OpenAICompactionWire {
  /** The item's fields as returned (`id`, `encrypted_content`), sent unchanged. */
  item: Record<string, unknown>;
  /** Input tokens it costs: the summary's output tokens where reported (the API counts the summary, not the ciphertext). */
  tokens: number;
}

/** A reasoning item to send back through the Responses API, with what it counts. */
export interface OpenAIReasoningWire {
  id: string;
  encrypted_content: string;
  /** The summary the answer showed ('' when none was asked or given). */
  summary: string;
  /** Input tokens it costs: the reasoning tokens the answer reported (the API counts the reasoning, not the ciphertext). */
  tokens: number;
}

/**
 * The provider-agnostic shape the window works on: a role and opaque content,
 * plus OpenAI's tool fields when present.
 */
export interface WindowMessage {
  role: string;
  content: unknown;
  tool_calls?: unknown;
  tool_call_id?: string;
  /** OpenAI's Responses API: reasoning items sent back (see `OpenAIReasoningWire`). */
  reasoning?: unknown;
  /** OpenAI's Responses API: the compaction item the message stands for (see `OpenAICompactionWire`). */
  compaction?: unknown;
}

/**
 * Characters counted for one message (the basis of the chars/4 estimate): string content as is, any other content
 * (content blocks, multi-part arrays) by its JSON length, plus the JSON length of OpenAI
 * `tool_calls`. Null or missing content counts as 0.
 */
export function contentChars(message: WindowMessage): number {
  const { content } = message;
  let chars = typeof content === 'string' ? content.length : content == null ? 0 : JSON.stringify(content).length;
  if (message.tool_calls != null) chars += JSON.stringify(message.tool_calls).length;
  return chars;
}

// ---------------------------------------------------------------------------
// Reading both wire shapes: tool calls, tool results, text, and the API's rules.

type Block = Record<string, unknown>;

function isRecord(value: unknown): value is Block {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

function blocksOf(content: unknown): Block[] {
  if (!Array.isArray(content)) return [];
  const blocks: Block[] = [];
  for (const block of content as unknown[]) if (isRecord(block)) blocks.push(block);
  return blocks;
}

const NON_BLANK = /\S/;

/** One tool call a message makes, read from an Anthropic `tool_use` block or an OpenAI `tool_calls` entry. */
export interface ToolCallInfo {
  id: string;
  name: string;
  /** Anthropic: the `input` object. OpenAI: the raw `arguments` string. */
  input: unknown;
}

/** Every role either API accepts in its message list (Anthropic: user and assistant only). */
export const WIRE_ROLES: readonly string[] = ['system', 'developer', 'user', 'assistant', 'tool'];

/**
 * What the windowing code needs to know about one wire message, in either shape. Read
 * once per message object and cached by identity (wire messages are treated as
 * immutable), so planning the same history again costs a lookup per message.
 */
export interface MessageShape {
  readonly role: string;
  /** `system` or `developer`: instructions rather than a conversation turn. */
  readonly system: boolean;
  /** Ids of the tool calls this message makes (in order). */
  readonly callIds: readonly string[];
  /** Ids of the tool calls this message answers (in order). */
  readonly resultIds: readonly string[];
  /** Carries tool results: an OpenAI `role:"tool"` message or a message with `tool_result` blocks. */
  readonly toolResult: boolean;
  /** Results are Anthropic blocks, so they must sit in the message right after their calls. */
  readonly blockResults: boolean;
  /** Content the APIs reject as empty (blank string, no blocks, a blank text block, null without tool calls). */
  readonly empty: boolean;
  /** Why a tool block is in the wrong place (tool_use on a user turn, results after text...), or null. */
  readonly misplaced: string | null;
  /** A role either API knows, non-empty content and no misplaced tool block (tool pairing aside). */
  readonly ok: boolean;
}

const shapeCache = new WeakMap<object, MessageShape>();

const NO_IDS: readonly string[] = Object.freeze([]);

function plainShape(role: string, empty: boolean): MessageShape {
  return Object.freeze({
    role,
    system: role === 'system' || role === 'developer',
    callIds: NO_IDS,
    resultIds: NO_IDS,
    toolResult: false,
    blockResults: false,
    empty,
    misplaced: null,
    ok: !empty,
  });
}

// Plain text messages, the bulk of any chat, share these: no cache lookup needed.
const PLAIN_USER = plainShape('user', false);
const PLAIN_ASSISTANT = plainShape('assistant', false);
const PLAIN_SYSTEM = plainShape('system', false);

function hasNonBlank(text: string): boolean {
  const first = text.charCodeAt(0);
  // Printable ASCII first: settled without the regular expression.
  return (first > 32 && first < 127) || NON_BLANK.test(text);
}

/** Reads (and caches by object identity) the {@link MessageShape} of a wire message. */
export function messageShape(message: WindowMessage): MessageShape {
  const { role, content } = message;
  if (typeof content === 'string' && message.tool_calls == null && hasNonBlank(content)) {
    if (role === 'user') return PLAIN_USER;
    if (role === 'assistant') return PLAIN_ASSISTANT;
    if (role === 'system') return PLAIN_SYSTEM;
  }
  const cached = shapeCache.get(message);
  if (cached) return cached;
  const shape = readShape(message);
  shapeCache.set(message, shape);
  return shape;
}

function readShape(message: WindowMessage): MessageShape {
  const { role, content } = message;
  const callIds: string[] = [];
  const resultIds: string[] = [];
  let misplaced: string | null = null;
  let blockResults = false;
  let empty: boolean;
  let sawNonResult = false;
  if (typeof content === 'string') {
    empty = !NON_BLANK.test(content);
  } else if (Array.isArray(content)) {
    empty = content.length === 0;
    for (const block of content as unknown[]) {
      if (!isRecord(block)) continue;
      const type = block.type;
      if (type === 'text') {
        if (typeof block.text !== 'string' || !NON_BLANK.test(block.text)) empty = true;
        sawNonResult = true;
      } else if (type === 'tool_use') {
        callIds.push(typeof block.id === 'string' ? block.id : '');
        if (role !== 'assistant') misplaced ??= 'tool_use blocks belong to assistant messages';
        sawNonResult = true;
      } else if (type === 'tool_result') {
        resultIds.push(typeof block.tool_use_id === 'string' ? block.tool_use_id : '');
        blockResults = true;
        if (role !== 'user') misplaced ??= 'tool_result blocks belong to user messages';
        else if (sawNonResult) misplaced ??= 'tool_result blocks must come before any other content';
      } else {
        sawNonResult = true;
      }
    }
  } else {
    empty = content == null;
  }
  if (Array.isArray(message.tool_calls)) {
    for (const call of message.tool_calls as unknown[]) callIds.push(isRecord(call) && typeof call.id === 'string' ? call.id : '');
    if (role !== 'assistant') misplaced ??= 'tool_calls belong to assistant messages';
  }
  const isTool = role === 'tool';
  if (isTool) resultIds.push(typeof message.tool_call_id === 'string' ? message.tool_call_id : '');
  // An assistant turn that only calls tools may carry null or blank content (OpenAI's shape);
  // a tool's own output may legitimately be empty.
  if (isTool || (role === 'assistant' && callIds.length > 0 && content == null)) empty = false;
  if (role === 'assistant' && typeof content === 'string' && callIds.length > 0) empty = false;
  return {
    role,
    system: role === 'system' || role === 'developer',
    callIds,
    resultIds,
    toolResult: isTool || blockResults,
    blockResults,
    empty,
    misplaced,
    ok: !empty && misplaced === null && WIRE_ROLES.includes(role),
  };
}

/** The tool calls a message makes (Anthropic `tool_use` blocks, OpenAI `tool_calls`), in order. */
export function toolCallsOf(message: WindowMessage): ToolCallInfo[] {
  const calls: ToolCallInfo[] = [];
  for (const block of blocksOf(message.content)) {
    if (block.type === 'tool_use' && typeof block.id === 'string') {
      calls.push({ id: block.id, name: typeof block.name === 'string' ? block.name : '', input: block.input });
    }
  }
  if (Array.isArray(message.tool_calls)) {
    for (const call of message.tool_calls as unknown[]) {
      if (!isRecord(call) || typeof call.id !== 'string') continue;
      const fn = isRecord(call.function) ? call.function : {};
      calls.push({ id: call.id, name: typeof fn.name === 'string' ? fn.name : '', input: fn.arguments });
    }
  }
  return calls;
}

/**
 * The prose of a message: string content, or its text blocks / text parts joined by
 * newlines. Tool calls, tool results (including OpenAI `role:"tool"` messages),
 * thinking and attachments are not prose and are left out.
 */
export function wireText(message: WindowMessage): string {
  if (message.role === 'tool') return '';
  const { content } = message;
  if (typeof content === 'string') return content;
  let out = '';
  for (const block of blocksOf(content)) {
    if (block.type === 'text' && typeof block.text === 'string' && block.text.length > 0) {
      out += (out ? '\n' : '') + block.text;
    }
  }
  return out;
}

/** A half-open range `[start, end)` of indexes into a message list. */
export interface MessageRange {
  start: number;
  end: number;
}

/**
 * Splits messages into units that can only be kept or evicted whole: a message that
 * calls tools together with the tool-result messages right after it (OpenAI: every
 * `role:"tool"` answer; Anthropic: the next user message). Any other message is a unit
 * of its own. `joinWithPrevious(i)` may glue more messages on (the planner glues wire
 * messages that came from one stored message). Linear in the number of messages.
 */
export function groupUnits(messages: readonly WindowMessage[], joinWithPrevious?: (index: number) => boolean): MessageRange[] {
  const units: MessageRange[] = [];
  let start = 0;
  let acceptsResults = false;
  for (let i = 0; i < messages.length; i++) {
    const shape = messageShape(messages[i] as WindowMessage);
    const join = i > 0 && ((shape.toolResult && acceptsResults) || (joinWithPrevious?.(i) ?? false));
    if (i > 0 && !join) {
      units.push({ start, end: i });
      start = i;
    }
    acceptsResults = shape.callIds.length > 0 || shape.toolResult;
  }
  if (messages.length > 0) units.push({ start, end: messages.length });
  return units;
}

/** Codes of the rules a request must keep to be accepted by the APIs (see {@link RequestViolation}). */
export type RequestViolationCode =
  | 'empty-request'
  | 'invalid-role'
  | 'first-not-user'
  | 'empty-content'
  | 'misplaced-tool-block'
  | 'unanswered-tool-call'
  | 'duplicate-tool-call'
  | 'orphan-tool-result'
  | 'duplicate-tool-result';

/** One way a request breaks an API rule. */
export interface RequestViolation {
  code: RequestViolationCode;
  /** Index of the offending message (-1 for the request as a whole). */
  index: number;
  /** The tool call id concerned, for tool pairing violations. */
  toolCallId?: string;
  detail: string;
}

/**
 * Tool pairing over `shapes[from, to)`: pushes a violation for each unanswered call,
 * duplicate answer, and result without its call right before it. Linear.
 */
export function collectPairingViolations(shapes: readonly MessageShape[], from: number, to: number, out: RequestViolation[]): void {
  let callerIndex = -1;
  let pending: Map<string, number> | null = null;
  const close = () => {
    if (pending) {
      for (const [id, answers] of pending) {
        if (answers === 0) {
          out.push({ code: 'unanswered-tool-call', index: callerIndex, toolCallId: id, detail: `tool call ${id} has no result right after it` });
        } else if (answers > 1) {
          out.push({ code: 'duplicate-tool-result', index: callerIndex, toolCallId: id, detail: `tool call ${id} is answered ${answers} times` });
        }
      }
    }
    pending = null;
    callerIndex = -1;
  };
  for (let i = from; i < to; i++) {
    const shape = shapes[i] as MessageShape;
    if (shape.toolResult) {
      for (const id of shape.resultIds) {
        const answers = pending?.get(id);
        if (answers === undefined) {
          out.push({ code: 'orphan-tool-result', index: i, toolCallId: id, detail: `tool result ${id} does not answer a call in the message before it` });
        } else if (shape.blockResults && i !== callerIndex + 1) {
          out.push({ code: 'orphan-tool-result', index: i, toolCallId: id, detail: `tool_result ${id} must be in the message right after its tool_use` });
        } else {
          (pending as Map<string, number>).set(id, answers + 1);
        }
      }
      if (shape.callIds.length === 0) continue;
    }
    close();
    if (shape.callIds.length > 0) {
      callerIndex = i;
      pending = new Map();
      for (const id of shape.callIds) {
        if (pending.has(id)) out.push({ code: 'duplicate-tool-call', index: i, toolCallId: id, detail: `tool call id ${id} is used twice` });
        pending.set(id, 0);
      }
    }
  }
  close();
}
