/**
 * Context the provider manages on its side: what a request asks of it and what the answer
 * says it did. The planner still plans every request; these are the provider's own tools
 * that a strategy or the clearing step may hand work to (Anthropic's `context_management`
 * under its beta headers, OpenAI's Responses API `context_management`).
 */

/** What one request asks the provider to do with its context. Every number is in input tokens. */
export interface ProviderContextManagement {
  /**
   * Server-side compaction: once the request's input passes `triggerTokens`, the provider
   * summarizes what came before and answers from the summary (Anthropic `compact_20260112`,
   * OpenAI `compaction` with `compact_threshold`).
   */
  compaction?: { triggerTokens: number };
  /**
   * Anthropic context editing (`clear_tool_uses_20250919`): past its trigger (`triggerToolUses`
   * tool uses when set, else `triggerTokens` input tokens), the oldest tool results are
   * cleared on the server, keeping the newest `keepToolUses` calls and any tool named in
   * `excludeTools`, provided at least `clearAtLeastTokens` go.
   */
  clearToolUses?: { triggerTokens?: number; triggerToolUses?: number; keepToolUses: number; clearAtLeastTokens: number; excludeTools?: string[] };
  /** Anthropic context editing (`clear_thinking_20251015`): the thinking of all but the newest `keepTurns` answers is cleared. */
  clearThinking?: { keepTurns: number | 'all' };
}

/** What the provider said it cleared before the model read a request (Anthropic `context_management.applied_edits`). */
export interface AppliedContextEdit {
  kind: 'clear_tool_uses' | 'clear_thinking';
  /** Input tokens the edit took out of the request. */
  clearedInputTokens: number;
  /** Tool calls whose results were cleared (`clear_tool_uses`). */
  clearedToolUses?: number;
  /** Answers whose thinking was cleared (`clear_thinking`). */
  clearedThinkingTurns?: number;
}
