/**
 * Anthropic's prompt cache breakpoints: which items of a planned request carry
 * `cache_control`, and the marked copies of its messages. Used only when a request is built
 * and sent, so it loads with the steps of a turn and the provider. Pure.
 */
import type { AnthropicWireBlock, AnthropicWireMessage } from './messages';
import type { WirePlanItem } from './wire';

/** Anthropic accepts at most this many `cache_control` blocks per request, system included. */
export const MAX_CACHE_BREAKPOINTS = 4;

/**
 * Chooses which plan items carry an Anthropic `cache_control` breakpoint. Returns item
 * indexes, ascending and unique, at most {@link MAX_CACHE_BREAKPOINTS} minus one when the
 * system prompt takes a breakpoint. In order of priority:
 * 1. the newest item, so the whole prefix is cached for the next request;
 * 2. summary items (the edge of the trimmed region; stable until the next trim), newest first;
 * 3. the caller's `stableBoundaries` (e.g. the end of the pinned head, an eviction
 *    marker), newest first;
 * 4. the end of the previous request (the last user item before the newest item), where
 *    that request wrote the cache: an exact read point even when the newest breakpoint's
 *    lookback (about 20 blocks) cannot reach it.
 * Out-of-range boundaries are ignored. Deterministic; the prefix before each chosen index
 * does not depend on anything after it, so between trims the early breakpoints repeat.
 */
export function placeCacheBreakpoints(
  items: readonly WirePlanItem<unknown>[],
  stableBoundaries: readonly number[] = [],
  options: { system?: boolean } = {},
): number[] {
  const budget = MAX_CACHE_BREAKPOINTS - (options.system ? 1 : 0);
  const last = items.length - 1;
  if (last < 0 || budget <= 0) return [];
  const chosen = new Set<number>([last]);
  const take = (index: number) => {
    if (chosen.size < budget && Number.isInteger(index) && index >= 0 && index <= last) chosen.add(index);
  };
  for (let i = last - 1; i >= 0; i--) if (items[i]?.kind === 'summary') take(i);
  for (const index of [...stableBoundaries].sort((a, b) => b - a)) take(index);
  for (let i = last - 1; i >= 0; i--) {
    if (roleOf(items[i]?.message) === 'user' && items[i]?.kind !== 'summary') {
      take(i);
      break;
    }
  }
  return [...chosen].sort((a, b) => a - b);
}

function roleOf(message: unknown): unknown {
  return message !== null && typeof message === 'object' ? (message as { role?: unknown }).role : undefined;
}

const CACHEABLE_TYPES = new Set(['text', 'tool_use', 'tool_result', 'image', 'document']);

/**
 * Returns copies of `messages` with `cache_control: { type: 'ephemeral' }` on the last
 * cacheable block of each message at `indexes` (thinking blocks cannot carry it; a
 * string content becomes one text block). The input is not modified.
 */
export function applyCacheBreakpoints(messages: readonly AnthropicWireMessage[], indexes: readonly number[]): AnthropicWireMessage[] {
  const marked = new Set(indexes);
  return messages.map((message, index) => {
    if (!marked.has(index)) return message;
    const blocks: AnthropicWireBlock[] =
      typeof message.content === 'string' ? [{ type: 'text', text: message.content }] : message.content.map((b) => ({ ...b }));
    for (let i = blocks.length - 1; i >= 0; i--) {
      const block = blocks[i];
      if (block && CACHEABLE_TYPES.has(block.type)) {
        blocks[i] = { ...block, cache_control: { type: 'ephemeral' } };
        return { role: message.role, content: blocks };
      }
    }
    return message;
  });
}
