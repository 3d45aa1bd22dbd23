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
}

/**
 * The provider-agnostic shape the window works on (seed 001): a role and opaque content,
 * plus OpenAI's tool fields when present.
 */
export interface WindowMessage {
  role: string;
  content: unknown;
  tool_calls?: unknown;
  tool_call_id?: string;
}

/**
 * Characters the seeds count for one message: string content as is, any other content
 * (content blocks, multi-part arrays) by its JSON length, plus the JSON length of OpenAI
 * `tool_calls`. Null or missing content counts as 0.
 */
export function contentChars(message: WindowMessage): number {
  const { content } = message;
  let chars = typeof content === 'string' ? content.length : content == null ? 0 : JSON.stringify(content).length;
  if (message.tool_calls != null) chars += JSON.stringify(message.tool_calls).length;
  return chars;
}
