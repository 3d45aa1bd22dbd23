/**
 * The demo model: its limits, how it counts tokens, and how it reads the text of a request.
 * The limits come from the model registry, so the planner and the demo's "API" can never disagree.
 */
import { DEMO_MODEL_ID, contentChars, findModelInfo, tokensForChars } from '../../core';
import type { AnthropicWireMessage } from '../../core';
import type { CacheUnit } from './promptCache';

const DEMO_INFO = findModelInfo(DEMO_MODEL_ID)?.info;
/** Tokens, estimated as characters / 4. */
export const DEMO_CONTEXT_WINDOW = DEMO_INFO?.contextWindow ?? 4000;
export const DEMO_MAX_OUTPUT_TOKENS = DEMO_INFO?.maxOutputTokens ?? 512;
/** Shortest prefix the demo caches, like Anthropic's per-model minimum. */
export const DEMO_CACHE_MIN_TOKENS = DEMO_INFO?.cacheMinTokens ?? 1024;

/** The demo counts `chars` characters as the core's chars/4 rule does. */
export const estimateTokens = tokensForChars;

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

function withoutCacheControl(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withoutCacheControl);
  if (value && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const [key, inner] of Object.entries(value)) if (key !== 'cache_control') out[key] = withoutCacheControl(inner);
    return out;
  }
  return value;
}

/**
 * A message as the API reads it: breakpoints removed, and one text block read as the
 * plain string it is shorthand for, so marking a message for caching changes neither
 * its count nor its cache key.
 */
export function normalized(message: AnthropicWireMessage): AnthropicWireMessage {
  const content = withoutCacheControl(message.content) as AnthropicWireMessage['content'];
  const only = Array.isArray(content) && content.length === 1 ? content[0] : undefined;
  if (only && only.type === 'text' && typeof only.text === 'string' && Object.keys(only).length === 2) {
    return { role: message.role, content: only.text };
  }
  return { role: message.role, content };
}

/** What the Demo counts an image as, whatever its size (its bytes are not text to count). */
const DEMO_IMAGE_TOKENS = 1600;

function isImageBlock(block: unknown): boolean {
  return typeof block === 'object' && block !== null && (block as { type?: unknown }).type === 'image';
}

function imagesIn(message: AnthropicWireMessage): number {
  return Array.isArray(message.content) ? message.content.filter(isImageBlock).length : 0;
}

function withoutImageBytes(message: AnthropicWireMessage): AnthropicWireMessage {
  if (!Array.isArray(message.content) || !message.content.some(isImageBlock)) return message;
  return { ...message, content: message.content.filter((block) => !isImageBlock(block)) };
}

/** Characters the Demo counts for a normalized message: its content, with each image as a fixed count. */
export function countedChars(message: AnthropicWireMessage): number {
  return contentChars(withoutImageBytes(message)) + imagesIn(message) * DEMO_IMAGE_TOKENS * 4;
}

/** The breakpoint a system prompt or message content carries: any block with `cache_control`. */
function breakpointOf(value: unknown): CacheUnit['breakpoint'] {
  if (!Array.isArray(value)) return null;
  const marked = value.find((b) => b && typeof b === 'object' && 'cache_control' in b && b.cache_control != null);
  return marked ? { ttl: marked.cache_control.ttl === '1h' ? '1h' : '5m' } : null;
}

/**
 * The request as the prompt cache reads it. The Demo's units are the system prompt and then
 * each message, and a prefix counts its characters / 4, rounded up once for the whole prefix:
 * each unit's tokens are what it adds to that count.
 */
export function demoCacheUnits(system: unknown, messages: readonly AnthropicWireMessage[]): CacheUnit[] {
  const text = systemText(system);
  let chars = text.length;
  let counted = estimateTokens(chars);
  const units: CacheUnit[] = [{ tokens: counted, material: text, breakpoint: breakpointOf(system) }];
  for (const message of messages) {
    const stripped = normalized(message);
    chars += countedChars(stripped);
    const next = estimateTokens(chars);
    units.push({ tokens: next - counted, material: JSON.stringify(stripped), breakpoint: breakpointOf(message.content) });
    counted = next;
  }
  return units;
}
