/**
 * The message-count window's cut (`max_messages`, `preserve_first_n`, `preserve_last_n`),
 * shared by `ConversationWindow.trim` and the `count` strategy. Apart from the window, so the
 * planner on the first screen does not load the window's summary on trim with it.
 */

/**
 * The count cut as index arithmetic over `total` messages: keep `[0, headEnd)` and
 * `[tailStart, total)`. Null when nothing is trimmed (at or under the cap, or `max_messages`
 * 0). When head and tail overlap they merge, so no message is kept twice. `trim` is this cut
 * with tool exchanges kept whole; the `count` strategy makes the same cut over the planner's
 * units. `config` holds whole numbers ≥ 0, as `resolveConversationHistoryConfig` gives them.
 */
export function countKeptRanges(
  config: { readonly max_messages: number; readonly preserve_first_n: number; readonly preserve_last_n: number },
  total: number,
): { headEnd: number; tailStart: number } | null {
  const { max_messages: max, preserve_first_n: first, preserve_last_n: last } = config;
  if (max === 0 || total <= max) return null;
  const headEnd = Math.min(first, total);
  // When head and tail fill the cap, keep only them; otherwise also keep the newest max - first - last of the middle.
  const keptAfterHead = first + last >= max ? last : max - first;
  return { headEnd, tailStart: Math.max(headEnd, total - keptAfterHead) };
}
