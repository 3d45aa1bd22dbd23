/**
 * Anthropic context editing, as its documentation stated it when read on 2026-11-29
 * (build-with-claude/context-editing): under the beta header `context-management-2025-06-27`
 * a request may carry `context_management.edits`. `clear_tool_uses_20250919` clears the
 * oldest tool results once its `trigger` is passed (default 100,000 input tokens; or a
 * count of tool uses), keeping the newest `keep` tool uses (default 3) and every tool named
 * in `exclude_tools`, and only when at least `clear_at_least` tokens go (default: no
 * minimum); each result is replaced by placeholder text. `clear_thinking_20251015` keeps the
 * thinking of the newest `keep` assistant turns (default 1; `"all"` keeps every block, which
 * the documentation advises to keep cache hits); listed with the other, it comes first. The
 * edit is made on the server before the model reads the request: the client keeps and sends
 * the full history, and the answer says what was cleared in `context_management.applied_edits`
 * (a stream: in `message_delta`). Clearing a tool result changes the cached prefix from that
 * point on.
 *
 * Windowpane hands its own clearing step to the server: the plan is made as in the browser,
 * and the request asks the server to clear exactly the results the plan cleared
 * ({@link providerClearing}).
 */
import { messageShape, toolCallsOf } from './messages';
import type { AppliedContextEdit, ProviderContextManagement } from './providerContext';
import { readStoredContextEdits } from './storedContextEdits';
import type { PlanItem } from './window/types';

export const CONTEXT_MANAGEMENT_BETA = 'context-management-2025-06-27';

/**
 * Tokens the planner allows for each placeholder the provider puts in place of a result it
 * clears. The documentation does not publish its text, only that it is a placeholder telling
 * the model the result was removed; a line of text is far below this.
 */
export const PROVIDER_PLACEHOLDER_TOKENS = 32;

/** A request whose clearing the provider makes. */
export interface ProviderClearing {
  /** The plan's items with every cleared tool result sent whole, for the provider to clear. */
  items: PlanItem[];
  clearToolUses: NonNullable<ProviderContextManagement['clearToolUses']>;
  /** Tool results the provider will clear (the plan's, and any shorter than a placeholder among them). */
  results: number;
}

/**
 * The request that asks the provider to clear what the plan cleared, or null when the
 * browser must clear (nothing cleared, or the provider could not be relied on to clear
 * exactly that). The provider clears every result older than the newest `keep` tool uses,
 * so the edit is chosen to make it clear the same ones:
 * - `keep`: the tool uses after the newest one the plan cleared. The plan clears in bulk at
 *   its high-water mark, so between two clearings the same results are cleared on every
 *   request and the edited prefix, which the provider caches, does not change.
 * - `trigger`: one tool use fewer than the request holds, counted exactly, so the edit
 *   always applies; when to clear is the planner's decision, not the provider's count.
 * - `clear_at_least`: half of what the plan's estimate says the clearing saves, so the
 *   edit is never refused for an estimate a few percent high, and a small clearing is.
 * Null too when a pinned result would be cleared. Whether the request then fits is
 * {@link fitsWithProviderClearing}.
 */
export function providerClearing(items: readonly PlanItem[]): ProviderClearing | null {
  const cleared = new Set<string>();
  let saved = 0;
  for (const item of items) {
    if (!item.cleared) continue;
    for (const id of item.cleared.toolCallIds) cleared.add(id);
    saved += item.cleared.savedTokens;
  }
  if (cleared.size === 0) return null;
  const calls: string[] = [];
  for (const item of items) if (item.message.role === 'assistant') for (const call of toolCallsOf(item.message)) calls.push(call.id);
  const newestCleared = calls.findLastIndex((id) => cleared.has(id));
  if (newestCleared < 0) return null;
  const results = newestCleared + 1;
  const extra = new Set(calls.slice(0, results).filter((id) => !cleared.has(id)));
  if (extra.size > 0 && items.some((item) => item.pinned && messageShape(item.message).resultIds.some((id) => extra.has(id)))) return null;
  if (calls.length - 1 < 1) return null;
  return {
    items: items.map((item) => (item.cleared ? { ...item, message: item.cleared.original } : item)),
    clearToolUses: { triggerToolUses: calls.length - 1, keepToolUses: calls.length - results, clearAtLeastTokens: Math.floor(saved / 2) },
    results,
  };
}

/**
 * Whether a request the provider clears is sure to fit: `inputTokens` counts each result the
 * plan cleared as the browser's placeholder, and every result the provider clears (a result
 * the plan kept whole because it was shorter than its placeholder too) is allowed
 * {@link PROVIDER_PLACEHOLDER_TOKENS} more.
 */
export function fitsWithProviderClearing(inputTokens: number, clearing: ProviderClearing, maxInputTokens: number): boolean {
  return inputTokens + clearing.results * PROVIDER_PLACEHOLDER_TOKENS <= maxInputTokens;
}

/** What an answer's `context_management` says the provider cleared (its `applied_edits`), with the same checks. */
export function readAppliedEdits(value: unknown): AppliedContextEdit[] | undefined {
  const applied = typeof value === 'object' && value !== null ? (value as { applied_edits?: unknown }).applied_edits : undefined;
  if (!Array.isArray(applied)) return undefined;
  return readStoredContextEdits(
    applied.map((raw: unknown) => {
      const edit = (typeof raw === 'object' && raw !== null ? raw : {}) as Record<string, unknown>;
      const clearedInputTokens = edit.cleared_input_tokens;
      if (edit.type === 'clear_tool_uses_20250919') return { kind: 'clear_tool_uses', clearedInputTokens, clearedToolUses: edit.cleared_tool_uses };
      if (edit.type === 'clear_thinking_20251015') return { kind: 'clear_thinking', clearedInputTokens, clearedThinkingTurns: edit.cleared_thinking_turns };
      return null;
    }),
  );
}
