/**
 * What the provider said it cleared from a request (Anthropic's context editing), in words for
 * the notice and the gauge. The edits were checked when they were read (`readAppliedEdits`).
 */
import type { AppliedContextEdit } from '../core';

/** Input tokens the provider's edits took out of a request. */
export function clearedInputTokens(edits: readonly AppliedContextEdit[] | undefined): number {
  return (edits ?? []).reduce((sum, edit) => sum + edit.clearedInputTokens, 0);
}

/** "The provider cleared 12 old tool results (8,400 tokens)", or undefined when it cleared none. */
export function providerClearedText(edits: readonly AppliedContextEdit[] | undefined): string | undefined {
  let results = 0;
  let tokens = 0;
  for (const edit of edits ?? []) {
    if (edit.kind !== 'clear_tool_uses') continue;
    results += edit.clearedToolUses ?? 0;
    tokens += edit.clearedInputTokens;
  }
  if (results === 0) return undefined;
  return `The provider cleared ${results === 1 ? '1 old tool result' : `${results.toLocaleString('en-US')} old tool results`} (${tokens.toLocaleString('en-US')} tokens)`;
}
