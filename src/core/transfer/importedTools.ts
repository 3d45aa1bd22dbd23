/**
 * Tool calls and results from ChatGPT and Claude exports, as Windowpane's own tool
 * exchanges: an assistant message with `tool_use` blocks followed by a user message whose
 * `tool_result` blocks answer each of them. The transcript then shows each as one
 * collapsed tool row, and a conversation continued after the import still plans to a
 * valid request: the APIs refuse a call without its result, a result without its call, a
 * tool name with a dot (`web.run`) and, for OpenAI, a call id over 40 characters.
 *
 * The exports do not always hold that shape. Claude keeps calls and results inside one
 * answer; a ChatGPT output may follow another output, or its call may be hidden, and a
 * call may have no output at all. Such messages are split, and a result or call the export
 * lacks is added with a placeholder, so every branch holds whole exchanges.
 */
import type { ContentBlock, StoredMessage, ToolResultBlock, ToolUseBlock } from '../conversation';
import { hashString } from '../hash';

/** What stands in for a tool's output that is not in the export file. */
export const MISSING_TOOL_OUTPUT = '[Tool output — not included in the export file]';

/** A tool name both APIs accept: letters, digits, `_` and `-`, at most 64 characters. */
export function importedToolName(name: string | undefined): string {
  const clean = (name ?? '').replace(/[^A-Za-z0-9_-]/g, '_').slice(0, 64);
  return clean || 'tool';
}

/** A call id both APIs accept, derived from where the call was found so that importing twice gives the same id. */
export function importedToolId(source: unknown, where: string): string {
  if (typeof source === 'string' && /^[A-Za-z0-9_-]{1,40}$/.test(source)) return source;
  return `imported_${hashString(where)}`;
}

/** The tool each imported result came from, for a call added in front of a result that has none. */
export type ResultTools = WeakMap<ToolResultBlock, string>;

const isResult = (block: ContentBlock): block is ToolResultBlock => block.type === 'tool_result';
const isCall = (block: ContentBlock): block is ToolUseBlock => block.type === 'tool_use';
const isCarrier = (m: StoredMessage) => m.role === 'user' && m.content.length > 0 && m.content.every(isResult);
const callsOf = (m: StoredMessage | undefined) => (m?.role === 'assistant' ? m.content.filter(isCall) : []);

/** The nearest assistant message above `message`, whose model made the call added in front of it. */
function nearestAnswer(message: StoredMessage, byId: ReadonlyMap<string, StoredMessage>): StoredMessage | undefined {
  let at = message.parentId == null ? undefined : byId.get(message.parentId);
  for (let steps = 0; at && steps < byId.size; steps++) {
    if (at.role === 'assistant') return at;
    at = at.parentId == null ? undefined : byId.get(at.parentId);
  }
  return undefined;
}

/**
 * An answer that holds results as well as calls (Claude's) cut into assistant messages and
 * result-carrying user messages, in order. The last part keeps the message's id, so the
 * messages after it still follow it; the others get ids derived from it.
 */
function splitAnswer(message: StoredMessage): StoredMessage[] {
  if (message.role !== 'assistant' || !message.content.some(isResult)) return [message];
  const runs: ContentBlock[][] = [];
  for (const block of message.content) {
    const last = runs[runs.length - 1];
    if (last && isResult(last[0]!) === isResult(block)) last.push(block);
    else runs.push([block]);
  }
  let parentId = message.parentId ?? null;
  return runs.map((content, i) => {
    const id = i === runs.length - 1 ? message.id : `${message.id}#${i}`;
    const part: StoredMessage = { ...message, id, parentId, role: isResult(content[0]!) ? 'user' : 'assistant', content };
    if (part.role === 'user') {
      delete part.model;
      delete part.provider;
    }
    parentId = id;
    return part;
  });
}

/**
 * The results a carrier holds for `calls`: its own in order, each given the id of the call
 * it answers (by id when it names one of them, else by position), and a placeholder for a
 * call it does not answer. A result left over answers nothing here and is dropped.
 */
function answer(calls: readonly ToolUseBlock[], results: readonly ToolResultBlock[]): ToolResultBlock[] {
  const byId = new Map(results.filter((r) => r.tool_use_id !== '').map((r) => [r.tool_use_id, r]));
  const unnamed = results.filter((r) => r.tool_use_id === '' || !calls.some((c) => c.id === r.tool_use_id));
  return calls.map((call) => {
    const result = byId.get(call.id) ?? unnamed.shift();
    return result ? { ...result, tool_use_id: call.id } : { type: 'tool_result', tool_use_id: call.id, content: MISSING_TOOL_OUTPUT };
  });
}

/**
 * Imported messages (parents before children) with whole tool exchanges on every branch:
 * answers holding results are split; a result carrier after a call answers it (results
 * without an id take the call's); a call followed by anything else gets a carrier with a
 * placeholder in between; a carrier after no call gets a call in front (named from
 * `tools`, with no arguments). Messages are numbered again, in the same order.
 */
export function wholeToolExchanges(messages: readonly StoredMessage[], tools: ResultTools): StoredMessage[] {
  const split = messages.flatMap(splitAnswer);
  const byId = new Map(split.map((m) => [m.id, m]));
  const out: StoredMessage[] = [];
  const added = new Map<string, StoredMessage>();
  /** The message a child of `parent` should follow: a placeholder carrier when `parent` ends in calls. */
  const followerOf = (parent: StoredMessage): string => {
    const calls = callsOf(parent);
    if (calls.length === 0) return parent.id;
    let carrier = added.get(parent.id);
    if (!carrier) {
      carrier = { ...parent, id: `${parent.id}#results`, parentId: parent.id, role: 'user', content: answer(calls, []) };
      delete carrier.model;
      delete carrier.provider;
      added.set(parent.id, carrier);
      out.push(carrier);
    }
    return carrier.id;
  };
  for (const message of split) {
    const parent = message.parentId == null ? undefined : byId.get(message.parentId);
    if (!isCarrier(message)) {
      out.push(parent && callsOf(parent).length > 0 ? { ...message, parentId: followerOf(parent) } : message);
      continue;
    }
    const results = message.content as ToolResultBlock[];
    const calls = callsOf(parent);
    if (calls.length > 0) {
      out.push({ ...message, content: answer(calls, results) });
      continue;
    }
    // Output whose call the export does not hold: a call is added in front of it.
    const callContent: ToolUseBlock[] = results.map((result, i) => ({
      type: 'tool_use',
      id: importedToolId(result.tool_use_id, `${message.id}#call${i}`),
      name: importedToolName(tools.get(result)),
      input: {},
    }));
    const call: StoredMessage = { ...message, id: `${message.id}#call`, role: 'assistant', content: callContent };
    const answerer = nearestAnswer(message, byId);
    if (answerer?.model) call.model = answerer.model;
    if (answerer?.provider) call.provider = answerer.provider;
    out.push(call, { ...message, parentId: call.id, content: answer(callContent, results) });
  }
  // A branch that ends on a call: its result is added after it.
  const followed = new Set(out.map((m) => m.parentId));
  for (const message of out.slice()) if (callsOf(message).length > 0 && !followed.has(message.id)) followerOf(message);
  // Every message was placed after its parent, so the order stands as it is.
  return out.map((m, seq) => (m.seq === seq ? m : { ...m, seq }));
}
