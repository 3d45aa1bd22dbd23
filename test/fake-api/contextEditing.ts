/**
 * Anthropic context editing (build-with-claude/context-editing, read 2026-11-29), as the fake
 * serves it. Under the beta header `context-management-2025-06-27`, `context_management.edits`
 * is applied to an accepted request before the model reads it:
 * - `clear_thinking_20251015` (thinking must be on; listed before tool clearing): the thinking
 *   blocks of all but the newest `keep` assistant turns are removed (`keep` default
 *   `{type: "thinking_turns", value: 1}`; `"all"` or `{type: "all"}` keeps every one).
 * - `clear_tool_uses_20250919`: once `trigger` is passed (default `{type: "input_tokens",
 *   value: 100000}`, or `{type: "tool_uses", value}`), every tool result older than the newest
 *   `keep` tool uses (default 3) is replaced by placeholder text, except those of tools in
 *   `exclude_tools`; `clear_tool_inputs` (true, or a list of tool names) empties the calls'
 *   inputs too. Nothing is cleared when fewer than `clear_at_least` input tokens would go.
 * The usage's `input_tokens`, the window check and the prompt cache see the edited request
 * (the prefix changes where the first result was cleared), while thinking is checked against,
 * and bound to, the request as the client sent it; the answer reports the edits
 * applied in `context_management.applied_edits`, and a stream in its `message_delta`. The
 * documentation does not publish the placeholder's text (only that it tells the model the
 * result was removed), nor the wording of the errors below, which follow the documented rules.
 */
import type { AnthropicAnswer, AnthropicRequest } from './anthropic';
import { ANTHROPIC_COMPACTION_BETA } from './compaction';
import type { ApiFailure } from './types';

export const CONTEXT_MANAGEMENT_BETA = 'context-management-2025-06-27';
/** What a cleared tool result's content becomes. */
export const CLEARED_RESULT_PLACEHOLDER = '[Tool result cleared to save context]';

const CLEAR_TOOL_USES = 'clear_tool_uses_20250919';
const CLEAR_THINKING = 'clear_thinking_20251015';
const DEFAULT_TRIGGER = { type: 'input_tokens', value: 100_000 } as const;
const DEFAULT_KEEP_TOOL_USES = 3;
const DEFAULT_KEEP_THINKING_TURNS = 1;

type Json = Record<string, unknown>;
const isRecord = (value: unknown): value is Json => typeof value === 'object' && value !== null && !Array.isArray(value);
const isCount = (value: unknown, min = 0): value is number => typeof value === 'number' && Number.isInteger(value) && value >= min;

interface ToolClearing {
  trigger: { type: 'input_tokens' | 'tool_uses'; value: number };
  keep: number;
  clearAtLeast: number;
  excludeTools: ReadonlySet<string>;
  /** Tool names whose calls' inputs are cleared too; `true`: every one. */
  clearInputs: true | ReadonlySet<string>;
}

interface Edits {
  thinking: { keep: number | 'all' } | null;
  tools: ToolClearing | null;
}

type Parsed = { ok: true; edits: Edits | null } | { ok: false; failure: ApiFailure };

function invalid(message: string): { ok: false; failure: ApiFailure } {
  return { ok: false, failure: { status: 400, type: 'invalid_request_error', message } };
}

/** The `anthropic-beta` header's features. */
export function betasOf(header: string | string[] | undefined): string[] {
  const values = Array.isArray(header) ? header : header === undefined ? [] : [header];
  return values.flatMap((value) => value.split(',')).map((beta) => beta.trim());
}

function parseToolClearing(edit: Json, path: string): ToolClearing | string {
  const trigger = edit.trigger ?? DEFAULT_TRIGGER;
  if (!isRecord(trigger) || (trigger.type !== 'input_tokens' && trigger.type !== 'tool_uses') || !isCount(trigger.value, 1)) {
    return `${path}.trigger: Input should be {"type": "input_tokens" or "tool_uses", "value": a whole number of at least 1}`;
  }
  const keep = edit.keep ?? { type: 'tool_uses', value: DEFAULT_KEEP_TOOL_USES };
  if (!isRecord(keep) || keep.type !== 'tool_uses' || !isCount(keep.value))
    return `${path}.keep: Input should be {"type": "tool_uses", "value": a whole number}`;
  const atLeast = edit.clear_at_least ?? null;
  if (atLeast !== null && (!isRecord(atLeast) || atLeast.type !== 'input_tokens' || !isCount(atLeast.value))) {
    return `${path}.clear_at_least: Input should be {"type": "input_tokens", "value": a whole number}`;
  }
  const exclude = edit.exclude_tools ?? [];
  if (!Array.isArray(exclude) || !exclude.every((name) => typeof name === 'string')) return `${path}.exclude_tools: Input should be a valid list of strings`;
  const inputs = edit.clear_tool_inputs ?? false;
  if (typeof inputs !== 'boolean' && !(Array.isArray(inputs) && inputs.every((name) => typeof name === 'string'))) {
    return `${path}.clear_tool_inputs: Input should be a valid boolean or a valid list of strings`;
  }
  return {
    trigger: { type: trigger.type, value: trigger.value },
    keep: keep.value,
    clearAtLeast: atLeast === null ? 0 : (atLeast.value as number),
    excludeTools: new Set(exclude as string[]),
    clearInputs: inputs === true ? true : new Set(Array.isArray(inputs) ? (inputs as string[]) : []),
  };
}

function parseThinkingClearing(edit: Json, path: string): { keep: number | 'all' } | string {
  const keep = edit.keep ?? { type: 'thinking_turns', value: DEFAULT_KEEP_THINKING_TURNS };
  if (keep === 'all' || (isRecord(keep) && keep.type === 'all')) return { keep: 'all' };
  if (isRecord(keep) && keep.type === 'thinking_turns' && isCount(keep.value, 1)) return { keep: keep.value };
  return `${path}.keep: Input should be 'all', {"type": "all"} or {"type": "thinking_turns", "value": a whole number of at least 1}`;
}

/**
 * Reads the request's `context_management` (null edits when it has none). Edits of other
 * types (server-side compaction) are left to the code that serves them.
 */
export function parseContextManagement(body: Json, betas: readonly string[], thinkingOn: boolean): Parsed {
  const management = body.context_management;
  if (management === undefined || management === null) return { ok: true, edits: null };
  // The field needs a beta that uses it: context editing's, or compaction's (its edit is served elsewhere).
  if (!betas.includes(CONTEXT_MANAGEMENT_BETA) && !betas.includes(ANTHROPIC_COMPACTION_BETA))
    return invalid('context_management: Extra inputs are not permitted');
  if (!isRecord(management)) return invalid('context_management: Input should be a valid dictionary');
  const list = management.edits ?? [];
  if (!Array.isArray(list)) return invalid('context_management.edits: Input should be a valid list');
  const edits: Edits = { thinking: null, tools: null };
  for (const [index, edit] of (list as unknown[]).entries()) {
    const path = `context_management.edits.${index}`;
    if (!isRecord(edit)) return invalid(`${path}: Input should be a valid dictionary`);
    if ((edit.type === CLEAR_TOOL_USES || edit.type === CLEAR_THINKING) && !betas.includes(CONTEXT_MANAGEMENT_BETA)) {
      return invalid(`${path}: ${String(edit.type)} requires the beta header "${CONTEXT_MANAGEMENT_BETA}"`);
    }
    if (edit.type === CLEAR_TOOL_USES) {
      if (edits.tools) return invalid(`${path}: ${CLEAR_TOOL_USES} may be given once`);
      const parsed = parseToolClearing(edit, path);
      if (typeof parsed === 'string') return invalid(parsed);
      edits.tools = parsed;
    } else if (edit.type === CLEAR_THINKING) {
      if (edits.thinking) return invalid(`${path}: ${CLEAR_THINKING} may be given once`);
      if (edits.tools) return invalid(`${path}: ${CLEAR_THINKING} must come before ${CLEAR_TOOL_USES} in context_management.edits`);
      if (!thinkingOn) return invalid(`${path}: ${CLEAR_THINKING} requires thinking to be enabled`);
      const parsed = parseThinkingClearing(edit, path);
      if (typeof parsed === 'string') return invalid(parsed);
      edits.thinking = parsed;
    }
  }
  return { ok: true, edits: edits.thinking || edits.tools ? edits : null };
}

type Message = { role: unknown; content: unknown };

/** Each message with its content as a list of blocks (copies: the request as sent is kept as it came). */
function blockMessages(body: Json): Array<Json & { content: Json[] }> {
  const messages = Array.isArray(body.messages) ? (body.messages as Message[]) : [];
  return messages.map((message) => ({
    ...message,
    content: typeof message.content === 'string' ? [{ type: 'text', text: message.content }] : [...(message.content as Json[])],
  }));
}

const isThought = (block: Json) => block.type === 'thinking' || block.type === 'redacted_thinking';

/** The thinking of all but the newest `keep` assistant turns removed; the number of turns that lost it. */
function clearThinking(body: Json, keep: number | 'all'): { body: Json; turns: number } {
  if (keep === 'all') return { body, turns: 0 };
  const messages = blockMessages(body);
  const thinking = messages.flatMap((message, index) => (message.role === 'assistant' && message.content.some(isThought) ? [index] : []));
  const cleared = new Set(thinking.slice(0, Math.max(0, thinking.length - keep)));
  if (cleared.size === 0) return { body, turns: 0 };
  const edited = messages.map((message, index) =>
    cleared.has(index) ? { ...message, content: message.content.filter((block) => !isThought(block)) } : message,
  );
  return { body: { ...body, messages: edited }, turns: cleared.size };
}

/** The tool results (and, where asked, inputs) older than the newest `keep` tool uses cleared; the number of tool uses cleared. */
function clearToolUses(body: Json, clearing: ToolClearing): { body: Json; uses: number } {
  const messages = blockMessages(body);
  const calls: Array<{ id: string; name: string }> = [];
  for (const message of messages) {
    if (message.role !== 'assistant') continue;
    for (const block of message.content) if (block.type === 'tool_use') calls.push({ id: String(block.id), name: String(block.name) });
  }
  const older = calls.slice(0, Math.max(0, calls.length - clearing.keep)).filter((call) => !clearing.excludeTools.has(call.name));
  const ids = new Map(older.map((call) => [call.id, call.name]));
  let uses = 0;
  const edited = messages.map((message) => ({
    ...message,
    content: message.content.map((block) => {
      if (block.type === 'tool_result' && ids.has(String(block.tool_use_id)) && block.content !== CLEARED_RESULT_PLACEHOLDER) {
        uses++;
        return { ...block, content: CLEARED_RESULT_PLACEHOLDER };
      }
      const name = ids.get(String(block.id));
      if (block.type === 'tool_use' && name !== undefined && (clearing.clearInputs === true || clearing.clearInputs.has(name))) return { ...block, input: {} };
      return block;
    }),
  }));
  return { body: { ...body, messages: edited }, uses };
}

function toolUsesIn(body: Json): number {
  return blockMessages(body).reduce(
    (sum, message) => sum + (message.role === 'assistant' ? message.content.filter((b) => b.type === 'tool_use').length : 0),
    0,
  );
}

export interface EditedRequest {
  /** The request as the model reads it (the request itself when nothing was cleared). */
  request: AnthropicRequest;
  /** `context_management.applied_edits`, or null when the request asked for no context editing. */
  applied: Json[] | null;
}

/**
 * Applies the request's edits. `recount` checks and counts an edited body (the fake's
 * tokenizer, the prompt cache's units) without the checks that bind thinking to what was sent.
 */
export function applyContextEdits(request: AnthropicRequest, edits: Edits | null, recount: (body: Json) => AnthropicRequest): EditedRequest {
  if (!edits) return { request, applied: null };
  let current = request;
  const applied: Json[] = [];
  if (edits.thinking) {
    const { body, turns } = clearThinking(current.body, edits.thinking.keep);
    if (turns > 0) {
      const next = recount(body);
      applied.push({ type: CLEAR_THINKING, cleared_thinking_turns: turns, cleared_input_tokens: current.inputTokens - next.inputTokens });
      current = next;
    }
  }
  const tools = edits.tools;
  if (tools) {
    const passed = tools.trigger.type === 'input_tokens' ? current.inputTokens > tools.trigger.value : toolUsesIn(current.body) > tools.trigger.value;
    const { body, uses } = passed ? clearToolUses(current.body, tools) : { body: current.body, uses: 0 };
    if (uses > 0) {
      const next = recount(body);
      const cleared = current.inputTokens - next.inputTokens;
      if (cleared >= tools.clearAtLeast) {
        applied.push({ type: CLEAR_TOOL_USES, cleared_tool_uses: uses, cleared_input_tokens: cleared });
        current = next;
      }
    }
  }
  // Counted, cached and read as edited; the thinking it writes is bound to the request as sent,
  // which is what the client sends again and what the prefix check compares.
  return { request: current === request ? request : { ...current, body: request.body }, applied };
}

/** The answer reporting the edits: `context_management` on the message, null on `message_start` and the edits on `message_delta` of a stream. */
export function withAppliedEdits(answer: AnthropicAnswer, applied: Json[] | null): AnthropicAnswer {
  if (applied === null) return answer;
  const management = { applied_edits: applied };
  const events = answer.events.map((event) => {
    if (event.event === 'message_start') {
      const data = event.data as Json;
      return { ...event, data: { ...data, message: { ...(data.message as Json), context_management: null } } };
    }
    if (event.event === 'message_delta') return { ...event, data: { ...(event.data as Json), context_management: management } };
    return event;
  });
  return { ...answer, message: { ...answer.message, context_management: management }, events };
}
