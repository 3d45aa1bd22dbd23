/**
 * The files a conversation worked on last, for the `summarize` strategy: when it trims, the
 * newest tool exchange naming each of the last N distinct files stays in the request
 * (after the summary), so the model keeps what it last read or wrote of them and the
 * summary need not repeat it. A file is named by `read_attachment`'s `name` or by a file
 * argument of any tool (FILE_KEYS: `path`, `file_path`, `paths`...). Linear in the units;
 * the files of each tool-calling message are read once per message object.
 */
import { toolCallsOf, wireText, type ToolCallInfo, type WindowMessage } from '../messages';
import { FILE_KEYS } from '../summary';
import { READ_ATTACHMENT } from '../tools/definitions';
import { parseToolArguments } from '../tools/toolArguments';
import { isEvictable, newestSendable, type EvictList } from './strategyKit';
import { UnitFlag, type EvictionReason, type HistoryView, type PlanItem, type ToolResultClearing } from './types';

/** Distinct files whose newest exchange `summarize` keeps after its summary. */
export const PRESERVE_RECENT_FILES = 10;

// Read once (see historyView.ts): tested for every unit.
const { Sendable: SENDABLE, Summary: SUMMARY } = UnitFlag;

function pathsIn(value: unknown, out: string[]): void {
  const add = (path: unknown) => {
    if (typeof path !== 'string') return;
    const clean = path.trim();
    if (clean && !out.includes(clean)) out.push(clean);
  };
  if (Array.isArray(value)) for (const path of value as unknown[]) add(path);
  else add(value);
}

/** The files one tool call names, each once: `read_attachment`'s `name`, then the FILE_KEYS arguments in that list's order. */
export function filesNamedBy(call: Pick<ToolCallInfo, 'name' | 'input'>): string[] {
  const parsed = parseToolArguments(call.input);
  if (!parsed.ok) return [];
  const files: string[] = [];
  if (call.name === READ_ATTACHMENT) pathsIn(parsed.args.name, files);
  for (const key of FILE_KEYS) pathsIn(parsed.args[key], files);
  return files;
}

const NO_FILES: readonly string[] = Object.freeze([]);
const filesCache = new WeakMap<object, readonly string[]>();

/** The files a message's tool calls name, in call order (cached by message identity). */
function filesOfMessage(message: WindowMessage): readonly string[] {
  if (typeof message.content === 'string' && message.tool_calls == null) return NO_FILES;
  const cached = filesCache.get(message);
  if (cached) return cached;
  const files: string[] = [];
  for (const call of toolCallsOf(message)) for (const file of filesNamedBy(call)) if (!files.includes(file)) files.push(file);
  const result = files.length > 0 ? files : NO_FILES;
  filesCache.set(message, result);
  return result;
}

/** The text of the first user message (the goal), or undefined when there is none. */
export function goalText(view: HistoryView): string | undefined {
  if (view.firstUserUnit < 0) return undefined;
  const text = wireText((view.items[view.unitStart[view.firstUserUnit] as number] as PlanItem).message).trim();
  return text || undefined;
}

/**
 * The last `limit` distinct files named by tool calls in sendable units at or after `from`,
 * most recent first, each with the newest unit that names it. Stored summaries name none.
 */
export function recentFileUnits(view: HistoryView, from: number, limit: number): { file: string; unit: number }[] {
  const found: { file: string; unit: number }[] = [];
  const seen = new Set<string>();
  for (let u = view.unitCount - 1; u >= from && found.length < limit; u--) {
    if (((view.unitFlags[u] as number) & (SENDABLE | SUMMARY)) !== SENDABLE) continue;
    const end = view.unitEnd[u] as number;
    for (let i = view.unitStart[u] as number; i < end && found.length < limit; i++) {
      for (const file of filesOfMessage((view.items[i] as PlanItem).message)) {
        if (seen.has(file)) continue;
        seen.add(file);
        found.push({ file, unit: u });
        if (found.length >= limit) break;
      }
    }
  }
  return found;
}

/** Per unit: 1 when clearing replaced one of its tool results with a placeholder. */
function clearedUnits(view: HistoryView, clearing: ToolResultClearing | null): Uint8Array {
  const cleared = new Uint8Array(view.unitCount);
  if (!clearing) return cleared;
  let u = 0;
  for (const index of clearing.items) {
    while ((view.unitEnd[u] as number) <= index) u++;
    cleared[u] = 1;
  }
  return cleared;
}

/** What {@link evictKeepingRecentFiles} decided besides the evictions. */
export interface KeptFiles {
  /** Files whose newest tool exchange is sent with its results intact, in request order. */
  files: string[];
  /** The first unit kept inside the evicted range, when it comes before the first evicted one: the slot goes there. */
  slotBefore?: number;
}

/**
 * Evicts, as `newestThatFit` + `evictBetween` would (non-strict), the units at or after
 * `from` that do not fit `tokenRoom` and `messageRoom` — but first keeps the newest tool
 * exchange of each of the last `limit` files, most recent file first, while they fit (one
 * that does not is left out and older ones still tried). The newest units then take what
 * room is left, stopping at the first that does not fit; the newest sendable unit is always
 * kept. A file's exchange whose results clearing replaced is not kept for it (nothing of
 * the file is left to keep) and is left to the summary.
 */
export function evictKeepingRecentFiles(
  view: HistoryView,
  evict: EvictList,
  options: { from: number; tokenRoom: number; messageRoom: number; limit: number; clearing: ToolResultClearing | null; reason: EvictionReason },
): KeptFiles {
  const { from, limit, reason } = options;
  const newest = newestSendable(view);
  if (newest < from) return { files: [] };
  let tokensLeft = options.tokenRoom;
  let messagesLeft = options.messageRoom;
  const fits = (u: number) => tokensLeft - (view.unitTokens[u] as number) >= 0 && messagesLeft - (view.unitMessages[u] as number) >= 0;
  const take = (u: number) => {
    tokensLeft -= view.unitTokens[u] as number;
    messagesLeft -= view.unitMessages[u] as number;
  };
  // The newest unit is sent whatever the room; pinned ones are already counted by the caller.
  if (isEvictable(view, newest)) take(newest);

  const kept = new Uint8Array(view.unitCount);
  const cleared = clearedUnits(view, options.clearing);
  const files: { file: string; unit: number }[] = [];
  for (const entry of limit > 0 ? recentFileUnits(view, from, limit) : []) {
    const u = entry.unit;
    if (cleared[u]) continue;
    if (u !== newest && isEvictable(view, u) && !kept[u]) {
      if (!fits(u)) continue;
      take(u);
      kept[u] = 1;
    }
    files.push(entry);
  }

  // The newest units with what room is left, stopping at the first that does not fit.
  let stop = from - 1;
  for (let u = newest - 1; u >= from; u--) {
    if (!isEvictable(view, u) || kept[u]) continue;
    if (!fits(u)) {
      stop = u;
      break;
    }
    take(u);
  }
  // `stop` itself is evicted, so a unit kept before the first evicted one has a slot after it to move ahead of.
  let slotBefore: number | undefined;
  let evicted = false;
  for (let u = from; u <= stop; u++) {
    if (!isEvictable(view, u)) continue;
    if (!kept[u]) {
      evict[u] = reason;
      evicted = true;
    } else if (!evicted) slotBefore ??= u;
  }
  // In request order; a unit's own files in call order (the sort is stable).
  const names = files.sort((a, b) => a.unit - b.unit).map((entry) => entry.file);
  return slotBefore === undefined ? { files: names } : { files: names, slotBefore };
}
