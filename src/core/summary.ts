/**
 * Summaries that stand in for evicted messages, as the planner places them: the heuristic
 * summary that needs no model call (two-tier's first tier), the "[Conversation Summary]"
 * message, the truncation marker, and the limits a summary is asked with. What asking a
 * model for a summary takes, the prompts, is `summaryPrompt.ts`, loaded only when one is
 * asked for. Pure.
 */
import { toolCallsOf, wireText, type WindowMessage } from './messages';
import { READ_ATTACHMENT, READ_MAX_LINES, RUN_JAVASCRIPT } from './tools/definitions';
import { parseToolArguments } from './tools/toolArguments';

/** Every summary message's text starts with this. */
export const SUMMARY_PREFIX = '[Conversation Summary]';

/** Concise summaries are requested with this `max_tokens`. */
export const SUMMARY_MAX_TOKENS = 1024;

/** Structured (two-tier) AI summaries may use up to this many output tokens. */
export const STRUCTURED_SUMMARY_MAX_TOKENS = 2000;

/** The summary rate limit: a new summary only once at least this many messages were evicted since the last one. */
export const MIN_EVICTED_FOR_SUMMARY = 10;

function toolResultText(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return content == null ? '' : JSON.stringify(content);
  const parts: string[] = [];
  for (const block of content as unknown[]) {
    if (block !== null && typeof block === 'object' && (block as { type?: unknown }).type === 'text') {
      const text = (block as { text?: unknown }).text;
      if (typeof text === 'string') parts.push(text);
    }
  }
  return parts.join('\n');
}

/** The text of each tool result a message carries (a `tool` message's own, or its `tool_result` blocks'). */
export function toolResultTexts(message: WindowMessage): string[] {
  if (message.role === 'tool') return [toolResultText(message.content)];
  if (!Array.isArray(message.content)) return [];
  const results: string[] = [];
  for (const block of message.content as unknown[]) {
    if (block !== null && typeof block === 'object' && (block as { type?: unknown }).type === 'tool_result') {
      results.push(toolResultText((block as { content?: unknown }).content));
    }
  }
  return results;
}

/**
 * True when some message carries prose (user or assistant text). Evicted messages that
 * are only tool calls and results are not worth a summary call.
 */
export function hasSummarizableText(messages: readonly WindowMessage[]): boolean {
  for (const message of messages) if (/\S/.test(wireText(message))) return true;
  return false;
}

/** The text of a summary without its "[Conversation Summary]" prefix. */
export function summaryBody(text: string): string {
  return text.startsWith(SUMMARY_PREFIX) ? text.slice(SUMMARY_PREFIX.length).trim() : text.trim();
}

/** A synthetic message whose string content is a summary or a marker; valid in both wire shapes. */
export interface SyntheticMessage {
  role: 'user' | 'assistant';
  content: string;
}

/**
 * The message that replaces evicted messages: `"[Conversation Summary]\n" + summary`
 * (the prefix is not doubled if `summary` already has it). It is an assistant message
 * by default; `role: 'user'` is for a view that would otherwise not start with a
 * user message.
 */
export function summaryMessage(summary: string, role: 'user' | 'assistant' = 'assistant'): SyntheticMessage {
  const trimmed = summary.trim();
  const content = trimmed.startsWith(SUMMARY_PREFIX) ? trimmed : `${SUMMARY_PREFIX}\n${trimmed}`;
  return { role, content };
}

/** The truncation marker's text, verbatim: `[N earlier messages truncated to fit context window]`. */
export function truncationMarkerText(count: number): string {
  return `[${count} earlier messages truncated to fit context window]`;
}

/** The marker as a message (by default in the model's role, assistant). */
export function truncationMarker(count: number, role: 'user' | 'assistant' = 'assistant'): SyntheticMessage {
  return { role, content: truncationMarkerText(count) };
}

/** Lines of an attached file that `read_attachment` read, 1-based and inclusive. */
export interface LineRange {
  start: number;
  end: number;
}

/** What a stretch of conversation did, found without a model call. */
export interface ActivityDigest {
  /** Tool names with how often each was called, in order of first call. */
  tools: { name: string; calls: number }[];
  /** Paths that were read, written or mentioned, in order of first mention (at most 20). */
  files: string[];
  /** Shell commands that were run, in order (at most 10, each cut to 120 characters). */
  commands: string[];
  /**
   * Attached files read with `read_attachment`, in order of first read (at most 20), each
   * with the line ranges asked for, sorted and merged where they overlap or touch (at most 8).
   */
  filesRead: { name: string; lines: LineRange[] }[];
  /** The code `run_javascript` ran: the first non-blank line of each snippet, in order (at most 10, each cut to 120 characters). */
  codeRun: string[];
}

const MAX_FILES = 20;
const MAX_COMMANDS = 10;
const MAX_COMMAND_CHARS = 120;
const MAX_RANGES = 8;
/** Characters of each text scanned for paths: enough for what a message is about, cheap on file dumps. */
const MAX_SCANNED_CHARS = 4000;
/** Tool arguments that name files (a path or a list of paths), whatever the tool. */
export const FILE_KEYS: readonly string[] = ['path', 'file', 'file_path', 'filePath', 'filename', 'target_file', 'paths', 'files'];
const COMMAND_KEYS = ['command', 'cmd'];
const PATH_PATTERN =
  /(?:^|[\s"'`([])((?:~|\.{1,2})?\/?(?:[\w@.-]+\/)+[\w@.-]+\.[A-Za-z][\w]{0,7}|[\w@-][\w@.-]*\.(?:tsx?|jsx?|mjs|cjs|json|md|py|go|rs|java|kt|rb|php|c|h|cpp|hpp|cs|css|scss|html|ya?ml|toml|sh|sql|txt|lock))(?=$|[\s"'`),:;\]]|\.(?:\s|$))/g;
const COMMAND_LINE = /^\s*\$ (.+)$/gm;

function positiveInteger(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isInteger(value) && value >= 1 ? value : undefined;
}

/** Adds `range` to sorted, disjoint ranges, merging it with those it overlaps or touches. */
function addRange(ranges: LineRange[], range: LineRange): LineRange[] {
  const merged: LineRange[] = [];
  let next = { ...range };
  for (const r of ranges) {
    if (r.end + 1 < next.start) merged.push(r);
    else if (next.end + 1 < r.start) {
      merged.push(next);
      next = r;
    } else next = { start: Math.min(r.start, next.start), end: Math.max(r.end, next.end) };
  }
  merged.push(next);
  return merged;
}

function firstLine(code: string): string {
  return (
    code
      .split('\n')
      .find((line) => line.trim() !== '')
      ?.trim() ?? ''
  );
}

function stringsOf(value: unknown): string[] {
  if (typeof value === 'string') return [value];
  if (Array.isArray(value)) return value.filter((v): v is string => typeof v === 'string');
  return [];
}

/**
 * The heuristic extraction over both wire shapes: tool names from tool calls,
 * paths from tool arguments (`path`, `file_path`, ...) and from text by pattern, commands
 * from `command` / `cmd` arguments and `$ ` lines, files read from `read_attachment` calls
 * (name and line range; a listing call reads no file) and code from `run_javascript`
 * calls. Deterministic; linear in the text read.
 */
export function extractActivity(messages: readonly WindowMessage[]): ActivityDigest {
  const tools = new Map<string, number>();
  const files = new Set<string>();
  const commands: string[] = [];
  const filesRead = new Map<string, LineRange[]>();
  const codeRun: string[] = [];
  const addRead = (args: Record<string, unknown>) => {
    const name = args.name;
    if (typeof name !== 'string' || !name.trim()) return;
    const known = filesRead.get(name);
    if (!known && filesRead.size >= MAX_FILES) return;
    // The tool's own defaults: from line 1, READ_MAX_LINES lines.
    const start = positiveInteger(args.start_line) ?? 1;
    const end = Math.max(start, positiveInteger(args.end_line) ?? start + READ_MAX_LINES - 1);
    filesRead.set(name, addRange(known ?? [], { start, end }));
  };
  const addCode = (code: unknown) => {
    if (typeof code !== 'string' || codeRun.length >= MAX_COMMANDS) return;
    const line = firstLine(code);
    if (line) codeRun.push(line.length > MAX_COMMAND_CHARS ? `${line.slice(0, MAX_COMMAND_CHARS)}…` : line);
  };
  const addFile = (path: string) => {
    const clean = path.trim();
    if (clean && files.size < MAX_FILES) files.add(clean);
  };
  const addCommand = (command: string) => {
    const clean = command.trim().replace(/\s+/g, ' ');
    if (clean && commands.length < MAX_COMMANDS && !commands.includes(clean)) {
      commands.push(clean.length > MAX_COMMAND_CHARS ? `${clean.slice(0, MAX_COMMAND_CHARS)}…` : clean);
    }
  };
  const scan = (text: string) => {
    const head = text.slice(0, MAX_SCANNED_CHARS);
    for (const match of head.matchAll(PATH_PATTERN)) if (match[1]) addFile(match[1]);
    for (const match of head.matchAll(COMMAND_LINE)) if (match[1]) addCommand(match[1]);
  };
  for (const message of messages) {
    for (const call of toolCallsOf(message)) {
      const name = call.name || 'unnamed tool';
      tools.set(name, (tools.get(name) ?? 0) + 1);
      const parsed = parseToolArguments(call.input);
      if (!parsed.ok) continue;
      const args = parsed.args;
      if (call.name === READ_ATTACHMENT) addRead(args);
      if (call.name === RUN_JAVASCRIPT) addCode(args.code);
      for (const key of FILE_KEYS) for (const path of stringsOf(args[key])) addFile(path);
      for (const key of COMMAND_KEYS) {
        const value = args[key];
        if (typeof value === 'string') addCommand(value);
        else if (Array.isArray(value)) addCommand(stringsOf(value).join(' '));
      }
    }
    scan(wireText(message));
    for (const result of toolResultTexts(message)) scan(result);
  }
  return {
    tools: [...tools].map(([name, calls]) => ({ name, calls })),
    files: [...files],
    commands,
    filesRead: [...filesRead].map(([name, lines]) => ({ name, lines: lines.length > MAX_RANGES ? lines.slice(0, MAX_RANGES) : lines })),
    codeRun,
  };
}

function rangesText(lines: readonly LineRange[]): string {
  return lines.map((r) => (r.start === r.end ? `line ${r.start}` : `lines ${r.start}–${r.end}`)).join(', ');
}

/**
 * Two-tier's first-tier summary, built without a model call: how many messages it
 * condenses, tools used, files explored, commands run, and — when the built-in tools were
 * used — the attached files read (with line ranges) and the code run (first line of each
 * snippet). A previous summary in the condensed range is carried over verbatim, so an AI
 * summary is never lost to a heuristic one. Returns the body; wrap it with {@link summaryMessage}.
 */
export function heuristicSummary(messages: readonly WindowMessage[], options: { previous?: string; condensed?: number } = {}): string {
  const activity = extractActivity(messages);
  const condensed = options.condensed ?? messages.length;
  const lines = [`Condensed ${condensed} earlier messages without an AI call.`];
  if (options.previous) lines.push(`Earlier summary:\n${summaryBody(options.previous)}`);
  lines.push(`Tools used: ${activity.tools.length ? activity.tools.map((t) => `${t.name} (${t.calls})`).join(', ') : 'none'}`);
  lines.push(`Files explored: ${activity.files.length ? activity.files.join(', ') : 'none'}`);
  lines.push(`Commands run: ${activity.commands.length ? activity.commands.join('; ') : 'none'}`);
  if (activity.filesRead.length) lines.push(`Files read: ${activity.filesRead.map((file) => `${file.name} (${rangesText(file.lines)})`).join('; ')}`);
  if (activity.codeRun.length) lines.push(`Code run: ${activity.codeRun.map((line) => `\`${line}\``).join('; ')}`);
  return lines.join('\n');
}
