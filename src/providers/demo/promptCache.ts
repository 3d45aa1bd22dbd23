/**
 * The demo's prompt cache, simulated the way Anthropic reports it: prefixes ending at a
 * `cache_control` breakpoint are written, and a later request that repeats one reads it.
 */
import { contentChars } from '../../core';
import type { AnthropicWireMessage } from '../../core';
import { DEMO_CACHE_MIN_TOKENS, estimateTokens, systemText } from './model';

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

function hasCacheControl(value: unknown): boolean {
  return Array.isArray(value) && value.some((b) => b && typeof b === 'object' && 'cache_control' in b && b.cache_control != null);
}

/** FNV-1a over a string, continuing from `hash`: prefix keys for the simulated cache. */
function fnv1a(text: string, hash = 0x811c9dc5): number {
  let h = hash;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h;
}

export interface CacheAccount {
  totalTokens: number;
  readTokens: number;
  writeTokens: number;
}

/**
 * Prefixes ending at a `cache_control` breakpoint are "written"; a later request whose
 * prefix up to one of its block boundaries matches a written one "reads" it (the API's
 * lookback). Prefixes under {@link DEMO_CACHE_MIN_TOKENS} are never cached.
 */
export class DemoPromptCache {
  private readonly written = new Map<string, number>();

  account(system: unknown, messages: readonly AnthropicWireMessage[]): CacheAccount {
    // Positions: 0 = the system prompt, i + 1 = message i. Keys and sizes are of the whole prefix.
    const keys: string[] = [];
    const tokens: number[] = [];
    const breakpoints: number[] = [];
    const sys = systemText(system);
    let chars = sys.length;
    let hash = fnv1a(sys);
    keys.push(`${hash}:${chars}`);
    tokens.push(estimateTokens(chars));
    if (hasCacheControl(system)) breakpoints.push(0);
    messages.forEach((message, i) => {
      const stripped = normalized(message);
      chars += countedChars(stripped);
      hash = fnv1a(JSON.stringify(stripped), hash);
      keys.push(`${hash}:${chars}`);
      tokens.push(estimateTokens(chars));
      if (hasCacheControl(message.content)) breakpoints.push(i + 1);
    });
    const totalTokens = tokens[tokens.length - 1] ?? 0;
    const lastBreakpoint = breakpoints.length > 0 ? Math.max(...breakpoints) : -1;

    let readAt = -1;
    for (let p = lastBreakpoint; p >= 0; p--) {
      if (this.written.has(keys[p] as string)) {
        readAt = p;
        break;
      }
    }
    const readTokens = readAt >= 0 ? (tokens[readAt] as number) : 0;
    let writeEnd = -1;
    for (const p of breakpoints) {
      if (p > readAt && (tokens[p] as number) >= DEMO_CACHE_MIN_TOKENS) {
        this.remember(keys[p] as string, tokens[p] as number);
        writeEnd = Math.max(writeEnd, p);
      }
    }
    const writeTokens = writeEnd >= 0 ? (tokens[writeEnd] as number) - readTokens : 0;
    if (readAt >= 0) this.remember(keys[readAt] as string, readTokens);
    return { totalTokens, readTokens, writeTokens };
  }

  private remember(key: string, size: number): void {
    this.written.delete(key);
    this.written.set(key, size);
    if (this.written.size > 256) {
      const oldest = this.written.keys().next().value;
      if (oldest !== undefined) this.written.delete(oldest);
    }
  }
}
