/**
 * The demo model: its limits, how it counts tokens, and how it reads the text of a request.
 * The limits come from the model registry, so the planner and the demo's "API" can never disagree.
 */
import { DEMO_MODEL_ID, findModelInfo } from '../../core';
import type { AnthropicWireMessage } from '../../core';

const DEMO_INFO = findModelInfo(DEMO_MODEL_ID)?.info;
/** Tokens, estimated as characters / 4. */
export const DEMO_CONTEXT_WINDOW = DEMO_INFO?.contextWindow ?? 4000;
export const DEMO_MAX_OUTPUT_TOKENS = DEMO_INFO?.maxOutputTokens ?? 512;
/** Shortest prefix the demo caches, like Anthropic's per-model minimum. */
export const DEMO_CACHE_MIN_TOKENS = DEMO_INFO?.cacheMinTokens ?? 1024;

export const estimateTokens = (chars: number): number => Math.ceil(chars / 4);

/** The system prompt's text, whether sent as a string or as text blocks. */
export function systemText(system: unknown): string {
  if (typeof system === 'string') return system;
  if (Array.isArray(system)) return system.map((b) => (b && typeof b === 'object' && typeof b.text === 'string' ? b.text : '')).join('\n');
  return '';
}

/** A message's text blocks and string tool results, one per line. */
export function messageText(message: AnthropicWireMessage): string {
  if (typeof message.content === 'string') return message.content;
  return message.content
    .map((block) =>
      block.type === 'text' && typeof block.text === 'string'
        ? block.text
        : block.type === 'tool_result' && typeof block.content === 'string'
          ? block.content
          : '',
    )
    .filter(Boolean)
    .join('\n');
}
