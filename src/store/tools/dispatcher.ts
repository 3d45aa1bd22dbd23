/**
 * Runs the tool calls a model makes. Whatever the model sends — an unknown or switched-off
 * tool, arguments that are not JSON or do not match the schema — becomes a tool_result
 * with `is_error` that tells it what to do instead; nothing here throws at the send loop.
 */
import type { AttachmentText, ToolOutcome, ToolResultBlock, ToolUseBlock } from '../../core';
import { BUILTIN_TOOLS, formatRunResult, parseToolArguments, READ_ATTACHMENT, RUN_MAX_OUTPUT_CHARS } from '../../core';
import type { JavascriptRunner } from '../../sandbox/javascriptRunner';

/** What running a call may use; read at call time, so a file attached mid-turn is seen. */
export interface ToolEnvironment {
  /** Names of the tools switched on in settings (a call to any other is refused). */
  enabled: ReadonlySet<string>;
  listAttachments(): Promise<AttachmentText[]>;
  runJavascript: JavascriptRunner;
  /** Stop: a running snippet is terminated. */
  signal: AbortSignal;
  /** Runs a call to an MCP tool the request offered (store/mcp/mcpTools.ts), or gives undefined for any other name. */
  runMcp?: (call: ToolUseBlock) => Promise<ToolResultBlock> | undefined;
  /** The MCP tools' names the request offered, for the list of tools available. */
  mcpNames?: readonly string[];
}

function failure(call: ToolUseBlock, content: string): ToolResultBlock {
  return { type: 'tool_result', tool_use_id: call.id, content, is_error: true };
}

/** Results for calls that will not run, saying why, so the history stays valid for the next request. */
export function unansweredResults(calls: readonly ToolUseBlock[], reason: string): ToolResultBlock[] {
  return calls.map((call) => failure(call, reason));
}

export const STOPPED_BY_USER = 'The user pressed Stop, so this tool call did not finish. Wait for the user.';

/** read_attachment's reader: a chunk of its own, loaded with the first call a model makes to it. */
const readerOfAttachments = () => import('../../core/tools/readAttachment');

/** Runs one call; always resolves with its result. */
export async function runToolCall(call: ToolUseBlock, env: ToolEnvironment): Promise<ToolResultBlock> {
  if (env.signal.aborted) return failure(call, STOPPED_BY_USER);
  const mcp = env.runMcp?.(call);
  if (mcp) return mcp;
  const known = BUILTIN_TOOLS.some((tool) => tool.name === call.name);
  if (!known || !env.enabled.has(call.name)) {
    const available = [...env.enabled, ...(env.mcpNames ?? [])].join(', ') || 'none';
    return failure(
      call,
      `${known ? `The tool ${call.name} is switched off in Settings` : `There is no tool named "${call.name}"`}. Tools available: ${available}.`,
    );
  }
  try {
    if (call.name === READ_ATTACHMENT) return resultOf(call, (await readerOfAttachments()).readAttachment(call.input, await env.listAttachments()));
    return await runJavascript(call, env);
  } catch (error) {
    return failure(call, `${call.name} failed: ${error instanceof Error ? error.message : String(error)}`);
  }
}

/** Runs a run_javascript call in the sandbox; arguments that do not fit its schema get an error saying so. */
async function runJavascript(call: ToolUseBlock, env: ToolEnvironment): Promise<ToolResultBlock> {
  const example = 'for example {"code": "1 + 1"}';
  const parsed = parseToolArguments(call.input);
  if (!parsed.ok && parsed.problem === 'not-json')
    return failure(call, `The arguments of run_javascript were not valid JSON, so it did not run. Send one JSON object, ${example}.`);
  if (!parsed.ok) return failure(call, `The arguments of run_javascript must be a JSON object, ${example}.`);
  const { code, ...rest } = parsed.args;
  const unknown = Object.keys(rest);
  if (unknown.length > 0) return failure(call, `run_javascript has no argument ${unknown.map((k) => `"${k}"`).join(', ')}; it takes only "code".`);
  if (typeof code !== 'string' || !code.trim()) return failure(call, `run_javascript needs "code": the JavaScript to run, as a string, ${example}.`);
  const run = await env.runJavascript(code, env.signal);
  if (run.stopped) return failure(call, `${STOPPED_BY_USER}${run.logs.length ? `\nOutput before it was stopped:\n${run.logs.join('\n')}` : ''}`);
  const logs = run.truncated
    ? [...run.logs, `[It printed more than ${RUN_MAX_OUTPUT_CHARS.toLocaleString('en-US')} characters; the rest was not kept.]`]
    : run.logs;
  return resultOf(call, formatRunResult({ ...run, logs }));
}

function resultOf(call: ToolUseBlock, outcome: ToolOutcome): ToolResultBlock {
  return { type: 'tool_result', tool_use_id: call.id, content: outcome.content, ...(outcome.isError ? { is_error: true } : {}) };
}
