/**
 * The edits a provider said it made to a request, as stored with the answer, read back as
 * untrusted. Kept apart from `contextEditing.ts`, which only a turn needs: stored records
 * are read on the first screen.
 */
import { wholeCount } from './conversation';
import type { AppliedContextEdit } from './providerContext';

/**
 * Edits as stored with an answer, read as untrusted (a record another version, a sync or a
 * hand edit wrote, or an answer's report): at most 8, each of a known kind with whole,
 * non-negative counts; anything else is left out. Undefined when nothing valid remains.
 */
/** A whole count a provider could have reported: no larger than a safe integer. */
function countOf(value: unknown): number | undefined {
  const n = wholeCount(value);
  return n !== undefined && Number.isSafeInteger(n) ? n : undefined;
}

export function readStoredContextEdits(value: unknown): AppliedContextEdit[] | undefined {
  const edits: AppliedContextEdit[] = [];
  for (const raw of Array.isArray(value) ? (value.slice(0, 8) as unknown[]) : []) {
    const { kind, clearedInputTokens, clearedToolUses, clearedThinkingTurns } = (raw ?? {}) as AppliedContextEdit;
    const tokens = countOf(clearedInputTokens);
    if (tokens === undefined) continue;
    const count = countOf(kind === 'clear_tool_uses' ? clearedToolUses : kind === 'clear_thinking' ? clearedThinkingTurns : undefined);
    if (count === undefined) continue;
    edits.push(
      kind === 'clear_tool_uses'
        ? { kind, clearedInputTokens: tokens, clearedToolUses: count }
        : { kind, clearedInputTokens: tokens, clearedThinkingTurns: count },
    );
  }
  return edits.length > 0 ? edits : undefined;
}
