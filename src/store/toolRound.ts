/**
 * One round of tool calls between two answers of a turn: run the answer's calls in order
 * and store their results as the message that must follow it. A stopped turn, or one at
 * its limit of rounds, answers the calls without running them, so the next request is valid.
 */
import { readablePdfs } from './pdfActions';
import type { StoredMessage, ToolResultBlock, ToolUseBlock } from '../core';
import { mcpResultMaxTokens } from '../core';
import { appendToolResults } from './messageWrites';
import { runToolCall, STOPPED_BY_USER, unansweredResults, type ToolEnvironment } from './tools/dispatcher';
import { enabledTools } from './tools/enabledTools';
import type { Turn, TurnContext } from './turn';

/** Runs the tool calls of `answer` (round `round`, 0-based) and says whether the turn asks the model again. */
export async function toolRound(turn: Turn, answer: StoredMessage, ctx: TurnContext, round: number): Promise<boolean> {
  const { rt, conversationId, maxRounds, signal } = turn;
  const calls = answer.content.filter((b): b is ToolUseBlock => b.type === 'tool_use');
  if (calls.length === 0) return false;
  if (signal.aborted || answer.status === 'stopped') {
    await appendToolResults(rt, conversationId, unansweredResults(calls, STOPPED_BY_USER));
    return false;
  }
  if (round >= maxRounds) {
    await appendToolResults(
      rt,
      conversationId,
      unansweredResults(
        calls,
        `Not run: this turn reached its limit of ${maxRounds} tool rounds. Tell the user what you have done so far; they can ask you to continue.`,
      ),
    );
    rt.notifier.notify({
      id: `tool-limit-${conversationId}`,
      tone: 'warning',
      text: `Stopped after ${maxRounds} tool rounds in one answer, the limit set by “Tool rounds per turn” in Settings. Send “continue” to let the model go on, or raise the limit.`,
    });
    return false;
  }
  rt.store.setState({ toolRun: { conversationId, round: round + 1, maxRounds, running: null } });
  await appendToolResults(rt, conversationId, await runTools(turn, ctx, calls));
  return !signal.aborted;
}

/** Runs the calls of one answer in order; after Stop the rest are answered as stopped. */
async function runTools(turn: Turn, ctx: TurnContext, calls: readonly ToolUseBlock[]): Promise<ToolResultBlock[]> {
  const { rt, conversationId, signal } = turn;
  const enabled = new Set<string>(enabledTools(ctx.settings.tools, true).map((tool) => tool.name));
  const mcpNames = ctx.tools.map((tool) => tool.name).filter((name) => !enabled.has(name));
  const env: ToolEnvironment = {
    enabled,
    listAttachments: async () => [...(await rt.repositories.files.listAttachments(conversationId)), ...(await readablePdfs(rt, conversationId))],
    runJavascript: rt.deps.runJavascript,
    signal,
    mcpNames,
    // The MCP chunk is loaded only for a request that offered MCP tools.
    ...(mcpNames.length > 0
      ? {
          runMcp: (await import('./mcp/mcpTools')).mcpRunner(
            rt,
            conversationId,
            new Set(mcpNames),
            signal,
            mcpResultMaxTokens(ctx.model.maxInputTokens ?? ctx.model.contextWindow - ctx.outputReserve),
          ),
        }
      : {}),
  };
  const results: ToolResultBlock[] = [];
  for (const call of calls) {
    rt.store.setState((s) => (s.toolRun?.conversationId === conversationId ? { toolRun: { ...s.toolRun, running: { id: call.id, name: call.name } } } : {}));
    results.push(await runToolCall(call, env));
  }
  rt.store.setState((s) => (s.toolRun?.conversationId === conversationId ? { toolRun: { ...s.toolRun, running: null } } : {}));
  return results;
}
