/** Request validation, in the API's words: the status, error type and message the Messages API answers with. */
import { DEMO_MODEL_ID } from '../../core';
import type { AnthropicWireBlock, AnthropicWireMessage } from '../../core';
import { badToolName, isToolName } from './messagesWire';
import { DEMO_MAX_OUTPUT_TOKENS } from './model';

export interface DemoRequest {
  model: string;
  maxTokens: number;
  messages: AnthropicWireMessage[];
  system: unknown;
  stream: boolean;
  /** Names of the tools offered. */
  toolNames: string[];
  /** Characters of the tool definitions, counted against the window as the API counts them. */
  toolChars: number;
}

/** The request's fields, or the first rule it breaks. */
export function validate(body: Record<string, unknown>): { ok: true; request: DemoRequest } | { ok: false; status: number; type: string; message: string } {
  const bad = (message: string) => ({ ok: false as const, status: 400, type: 'invalid_request_error', message });
  if (typeof body.model !== 'string' || !body.model) return bad('model: Field required');
  if (body.model !== DEMO_MODEL_ID) return { ok: false, status: 404, type: 'not_found_error', message: `model: ${body.model}` };
  if (typeof body.max_tokens !== 'number') return bad('max_tokens: Field required');
  if (!Number.isInteger(body.max_tokens) || body.max_tokens < 1) return bad('max_tokens: Input should be greater than or equal to 1');
  if (body.max_tokens > DEMO_MAX_OUTPUT_TOKENS) {
    return bad(`max_tokens: ${body.max_tokens} > ${DEMO_MAX_OUTPUT_TOKENS}, which is the maximum allowed number of output tokens for ${DEMO_MODEL_ID}`);
  }
  if (!Array.isArray(body.messages)) return bad('messages: Field required');
  if (body.messages.length === 0) return bad('messages: at least one message is required');
  const messages = body.messages as AnthropicWireMessage[];
  for (let i = 0; i < messages.length; i++) {
    const message = messages[i] as AnthropicWireMessage;
    if (message.role !== 'user' && message.role !== 'assistant') return bad(`messages.${i}.role: Input should be 'user' or 'assistant'`);
    const content = message.content;
    const isLast = i === messages.length - 1;
    if ((typeof content === 'string' && content.length === 0) || (Array.isArray(content) && content.length === 0)) {
      if (!(isLast && message.role === 'assistant')) {
        return bad(`messages.${i}: all messages must have non-empty content except for the optional final assistant message`);
      }
    }
    if (Array.isArray(content)) {
      for (const block of content as AnthropicWireBlock[]) {
        if (block.type === 'text' && (typeof block.text !== 'string' || block.text.trim() === '')) {
          return bad('messages: text content blocks must contain non-whitespace text');
        }
      }
    }
  }
  const tools = body.tools === undefined ? [] : body.tools;
  if (!Array.isArray(tools)) return bad('tools: Input should be a valid list');
  const toolNames: string[] = [];
  for (const [i, tool] of (tools as unknown[]).entries()) {
    const named = tool && typeof tool === 'object' ? (tool as Record<string, unknown>) : {};
    if (!isToolName(named.name)) return bad(badToolName(i));
    toolNames.push(named.name);
  }
  const choice = body.tool_choice as { type?: unknown } | undefined;
  // tool_choice none: the tools are defined (the history calls them) but must not be called.
  if (choice?.type === 'none') toolNames.length = 0;
  return {
    ok: true,
    request: {
      model: body.model,
      maxTokens: body.max_tokens,
      messages,
      system: body.system,
      stream: body.stream === true,
      toolNames,
      toolChars: tools.length > 0 ? JSON.stringify(tools).length : 0,
    },
  };
}
