/**
 * The one tool the demo uses: asked to compute an arithmetic expression ("compute 12 * 34")
 * with run_javascript offered, it calls the tool, so the tool loop can be seen without a key.
 */
import type { AnthropicWireMessage } from '../../core';
import { messageText } from './model';

export const DEMO_TOOL = 'run_javascript';
/** "compute 12 * (3 + 4), please", "calculate 2^10", "what is 17 % 5?": the expression, digits and operators only. */
const COMPUTE = /\b(?:compute|calculate|evaluate|what(?:'s|\s+is))\s*:?\s*([-+*/%^().\d\s]+)/i;

/** The code to run when the user asks the demo to compute something and the tool is offered. */
export function computeRequest(toolNames: readonly string[], messages: readonly AnthropicWireMessage[]): string | null {
  if (!toolNames.includes(DEMO_TOOL)) return null;
  const last = messages[messages.length - 1];
  if (!last || last.role !== 'user' || (Array.isArray(last.content) && last.content.some((b) => b.type === 'tool_result'))) return null;
  const expression = COMPUTE.exec(messageText(last))?.[1]?.trim().replace(/\.+$/, '');
  if (!expression || !/\d/.test(expression) || !/[-+*/%^]/.test(expression)) return null;
  return expression.replace(/\^/g, '**');
}

/** What the demo says before its tool call. */
export function toolCallText(code: string): string {
  return `I can work that out in the sandbox: I'll ask Windowpane to run \`${code}\` with the run_javascript tool.`;
}

/** The result of the demo's own tool call, when the request ends with it. */
export function toolResultText(messages: readonly AnthropicWireMessage[]): string | null {
  const last = messages[messages.length - 1];
  if (!last || last.role !== 'user' || !Array.isArray(last.content)) return null;
  const result = last.content.find((b) => b.type === 'tool_result');
  if (!result) return null;
  const content = result.content;
  return typeof content === 'string' ? content : Array.isArray(content) ? content.map((b) => (b && typeof b.text === 'string' ? b.text : '')).join('\n') : '';
}

/** The answer once the tool's result came back. */
export function toolAnswer(result: string): string {
  return (
    `The sandbox answered:\n\n${result.trim() || '(nothing)'}\n\n` +
    'That was a tool call: I asked for run_javascript, Windowpane ran the code in a Web Worker in your browser (no network, no page access, a time limit) and sent me what it returned. ' +
    'Open the tool call and its result above to see exactly what went back and forth.'
  );
}
