/**
 * Tool calls and their results shown together. Each result goes under the call it
 * answers (matched by tool_use id), so a user message that only carries results is not
 * shown as a turn of its own; results the plan sends as a placeholder are marked cleared.
 */
import type { ContextPlan, StoredMessage, ToolResultBlock } from '../core';
import type { ToolResultView, TranscriptRow } from './transcript';

type MessageRow = Extract<TranscriptRow, { kind: 'message' }>;

const memo = new WeakMap<StoredMessage, Readonly<Record<string, ToolResultView>>>();

/**
 * The same results object for a call message as long as its results are the same ones,
 * so the memoized message view re-renders only when a result arrives or is cleared.
 */
function stableResults(message: StoredMessage, results: Record<string, ToolResultView>): Readonly<Record<string, ToolResultView>> {
  const known = memo.get(message);
  const ids = Object.keys(results);
  const same =
    known !== undefined &&
    Object.keys(known).length === ids.length &&
    ids.every(
      (id) =>
        known[id]?.block === results[id]!.block &&
        known[id]?.cleared === results[id]!.cleared &&
        known[id]?.byProvider === results[id]!.byProvider &&
        String(known[id]?.imagesNotSent) === String(results[id]!.imagesNotSent),
    );
  if (same) return known;
  memo.set(message, results);
  return results;
}

/** Ids of the tool calls whose results the plan sends as a placeholder instead of their content. */
export function clearedToolCalls(plan: ContextPlan): ReadonlySet<string> {
  const ids = new Set<string>();
  for (const item of plan.messages) for (const id of item.cleared?.toolCallIds ?? []) ids.add(id);
  return ids;
}

function isResultCarrier(message: StoredMessage): boolean {
  return message.role === 'user' && message.content.length > 0 && message.content.every((b) => b.type === 'tool_result');
}

/**
 * Rows with each tool result under its call. `cleared` holds the tool_use ids whose
 * results the plan replaced by a placeholder; `byProvider`: the provider clears them instead.
 * A result-only message is left out when every result in it found its call; one with an
 * unmatched result stays as it was.
 */
export function pairToolResults(rows: readonly TranscriptRow[], cleared: ReadonlySet<string> = new Set(), byProvider = false): TranscriptRow[] {
  const calls = new Set<string>();
  for (const row of rows) {
    if (row.kind !== 'message' || row.message.role !== 'assistant') continue;
    for (const block of row.message.content) if (block.type === 'tool_use') calls.add(block.id);
  }
  if (calls.size === 0) return rows as TranscriptRow[];

  const results = new Map<string, ToolResultBlock>();
  /** The images of each result the next request leaves out (the carrier row's, by result). */
  const unsent = new Map<string, string[]>();
  const absorbed = new Set<MessageRow>();
  for (const row of rows) {
    if (row.kind !== 'message' || !isResultCarrier(row.message)) continue;
    const blocks = row.message.content as ToolResultBlock[];
    if (!blocks.every((b) => calls.has(b.tool_use_id))) continue;
    for (const block of blocks) {
      results.set(block.tool_use_id, block);
      const left = (block.images ?? []).map((image) => image.fileId).filter((id) => row.imagesNotSent?.includes(id));
      if (left.length > 0) unsent.set(block.tool_use_id, left);
    }
    absorbed.add(row);
  }

  const out: TranscriptRow[] = [];
  for (const row of rows) {
    if (row.kind === 'message' && absorbed.has(row)) continue;
    if (row.kind !== 'message' || row.message.role !== 'assistant') {
      out.push(row);
      continue;
    }
    const mine: Record<string, ToolResultView> = {};
    let any = false;
    for (const block of row.message.content) {
      if (block.type !== 'tool_use') continue;
      const result = results.get(block.id);
      if (!result) continue;
      const view: ToolResultView =
        cleared.has(block.id) && byProvider ? { block: result, cleared: true, byProvider } : { block: result, cleared: cleared.has(block.id) };
      const left = unsent.get(block.id);
      mine[block.id] = left ? { ...view, imagesNotSent: left } : view;
      any = true;
    }
    out.push(any ? { ...row, toolResults: stableResults(row.message, mine) } : row);
  }
  return out;
}
