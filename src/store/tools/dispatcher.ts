/**
 * Runs the tool calls a model makes. Whatever the model sends — an unknown or switched-off
 * tool, arguments that are not JSON or do not match the schema — becomes a tool_result
 * with `is_error` that tells it what to do instead; nothing here throws at the send loop.
 */
import type { BuiltinToolDefinition, ToolResultBlock, ToolUseBlock } from '../../core';
import { BUILTIN_TOOLS, READ_ATTACHMENT, READ_MAX_CHARS, READ_MAX_LINES, RUN_JAVASCRIPT, RUN_MAX_OUTPUT_CHARS, RUN_TIME_LIMIT_MS } from '../../core';
import type { ToolSettings } from '../settings';
import type { JavascriptRun, JavascriptRunner } from './javascriptRunner';

/** An attached text file as read_attachment sees it. */
export interface AttachedFile {
  name: string;
  text: string;
}

/** What running a call may use; read at call time, so a file attached mid-turn is seen. */
export interface ToolEnvironment {
  /** Names of the tools switched on in settings. */
  enabled: ReadonlySet<string>;
  listAttachments(): Promise<AttachedFile[]>;
  runJavascript: JavascriptRunner;
  /** Stop: a running snippet is terminated. */
  signal: AbortSignal;
}

/** The built-in tools switched on in settings, in their fixed order (none when both are off). */
export function enabledTools(settings: ToolSettings): BuiltinToolDefinition[] {
  return BUILTIN_TOOLS.filter((tool) => (tool.name === READ_ATTACHMENT ? settings.readAttachment : settings.runJavascript));
}

function failure(call: ToolUseBlock, content: string): ToolResultBlock {
  return { type: 'tool_result', tool_use_id: call.id, content, is_error: true };
}

/** Results for calls that will not run, saying why, so the history stays valid for the next request. */
export function unansweredResults(calls: readonly ToolUseBlock[], reason: string): ToolResultBlock[] {
  return calls.map((call) => failure(call, reason));
}

export const STOPPED_BY_USER = 'The user pressed Stop, so this tool call did not finish. Wait for the user.';

/** Runs one call; always resolves with its result. */
export async function runToolCall(call: ToolUseBlock, env: ToolEnvironment): Promise<ToolResultBlock> {
  if (env.signal.aborted) return failure(call, STOPPED_BY_USER);
  const known = BUILTIN_TOOLS.some((tool) => tool.name === call.name);
  if (!known || !env.enabled.has(call.name)) {
    const available = [...env.enabled].join(', ') || 'none';
    return failure(call, `${known ? `The tool ${call.name} is switched off in Settings` : `There is no tool named "${call.name}"`}. Tools available: ${available}.`);
  }
  const args = readArguments(call);
  if (typeof args === 'string') return failure(call, args);
  try {
    if (call.name === RUN_JAVASCRIPT) return await runJavascript(call, args, env);
    return await readAttachment(call, args, env);
  } catch (error) {
    return failure(call, `${call.name} failed: ${error instanceof Error ? error.message : String(error)}`);
  }
}

const ARGUMENTS: Record<string, readonly string[]> = {
  [RUN_JAVASCRIPT]: ['code'],
  [READ_ATTACHMENT]: ['name', 'start_line', 'end_line'],
};

/** The call's arguments as an object, or the error message to answer with. */
function readArguments(call: ToolUseBlock): Record<string, unknown> | string {
  const allowed = ARGUMENTS[call.name] ?? [];
  const example = call.name === RUN_JAVASCRIPT ? '{"code": "1 + 1"}' : '{"name": "notes.md", "start_line": 1, "end_line": 50}';
  // A string input is the arguments text the model sent when it was not valid JSON.
  if (typeof call.input === 'string') {
    return `The arguments of ${call.name} were not valid JSON, so it did not run. Send one JSON object, for example ${example}.`;
  }
  if (call.input === null || typeof call.input !== 'object' || Array.isArray(call.input)) {
    return `The arguments of ${call.name} must be a JSON object, for example ${example}.`;
  }
  const args = call.input as Record<string, unknown>;
  const unknown = Object.keys(args).filter((key) => !allowed.includes(key));
  if (unknown.length > 0) return `${call.name} has no argument ${unknown.map((k) => `"${k}"`).join(', ')}; it takes ${allowed.join(', ')}.`;
  return args;
}

// ---------------------------------------------------------------------------
// run_javascript

async function runJavascript(call: ToolUseBlock, args: Record<string, unknown>, env: ToolEnvironment): Promise<ToolResultBlock> {
  if (typeof args.code !== 'string' || !args.code.trim()) return failure(call, 'run_javascript needs "code": the JavaScript to run, as a string.');
  const run = await env.runJavascript(args.code, env.signal);
  if (run.ended === 'stopped') return failure(call, `${STOPPED_BY_USER}${run.output ? `\nOutput before it was stopped:\n${run.output}` : ''}`);
  const failed = run.error !== undefined || run.ended === 'time_limit';
  return { type: 'tool_result', tool_use_id: call.id, content: formatRun(run), ...(failed ? { is_error: true } : {}) };
}

/** A run as the model reads it: output, result, error, and why it ended early. Cut to the output cap. */
export function formatRun(run: JavascriptRun): string {
  const parts: string[] = [];
  if (run.output) parts.push(`Output:\n${run.output}${run.truncated ? `\n[output cut at ${RUN_MAX_OUTPUT_CHARS.toLocaleString('en-US')} characters]` : ''}`);
  if (run.result !== undefined) parts.push(`Result: ${run.result}`);
  if (run.error !== undefined) parts.push(`Error: ${run.error}`);
  if (run.ended === 'time_limit') parts.push(`Error: stopped after ${RUN_TIME_LIMIT_MS / 1000} s, the time limit. Make the code faster or do less per call.`);
  if (parts.length === 0) parts.push('No output, and the last expression was undefined.');
  const text = parts.join('\n');
  return text.length > RUN_MAX_OUTPUT_CHARS + 200 ? `${text.slice(0, RUN_MAX_OUTPUT_CHARS)}\n[cut]` : text;
}

// ---------------------------------------------------------------------------
// read_attachment

function positive(value: unknown, name: string): number | string | undefined {
  if (value === undefined) return undefined;
  return Number.isInteger(value) && (value as number) >= 1 ? (value as number) : `"${name}" must be a whole number of at least 1.`;
}

async function readAttachment(call: ToolUseBlock, args: Record<string, unknown>, env: ToolEnvironment): Promise<ToolResultBlock> {
  const files = await env.listAttachments();
  const ok = (content: string): ToolResultBlock => ({ type: 'tool_result', tool_use_id: call.id, content });
  if (args.name === undefined) {
    if (files.length === 0) return ok('No files are attached to this conversation. The user can attach text files with the Attach button.');
    const rows = files.map((f) => `- ${f.name} (${f.text.length.toLocaleString('en-US')} characters, ${lineCount(f.text).toLocaleString('en-US')} lines)`);
    return ok(`${files.length} file${files.length === 1 ? '' : 's'} attached:\n${rows.join('\n')}`);
  }
  if (typeof args.name !== 'string') return failure(call, '"name" must be the file name as a string, exactly as listed.');
  const file = files.find((f) => f.name === args.name);
  if (!file) {
    return failure(call, `No file named "${args.name}" is attached.${files.length ? ` Attached: ${files.map((f) => f.name).join(', ')}.` : ' No files are attached.'}`);
  }
  const start = positive(args.start_line, 'start_line') ?? 1;
  const requestedEnd = positive(args.end_line, 'end_line');
  if (typeof start === 'string') return failure(call, start);
  if (typeof requestedEnd === 'string') return failure(call, requestedEnd);
  const lines = file.text.split(/\r?\n/);
  if (lines.at(-1) === '') lines.pop();
  if (requestedEnd !== undefined && requestedEnd < start) return failure(call, '"end_line" must not be before "start_line".');
  if (start > Math.max(1, lines.length)) return failure(call, `${file.name} has ${lines.length} lines; start_line ${start} is past its end.`);
  const end = Math.min(requestedEnd ?? start + READ_MAX_LINES - 1, start + READ_MAX_LINES - 1, lines.length);
  let text = '';
  let last = start - 1;
  for (let n = start; n <= end; n++) {
    const line = lines[n - 1] ?? '';
    if (text.length + line.length + 1 > READ_MAX_CHARS && n > start) break;
    text += `${line.slice(0, READ_MAX_CHARS)}\n`;
    last = n;
  }
  const more = last < lines.length ? ` Read on with start_line ${last + 1}.` : '';
  return ok(`${file.name}, lines ${start}–${last} of ${lines.length}:${more}\n${text}`);
}

function lineCount(text: string): number {
  if (!text) return 0;
  const lines = text.split(/\r?\n/);
  return lines.at(-1) === '' ? lines.length - 1 : lines.length;
}
