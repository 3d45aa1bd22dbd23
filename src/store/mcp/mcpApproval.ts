/**
 * The user's say before an MCP tool runs: the call (server, tool, arguments) is put in the
 * state for the chat to show, and the turn waits for Allow, Always allow or Refuse. Stop
 * ends the wait. "Always allow" is saved on the tool, so later calls run without asking.
 */
import { readMcpServers } from '../../core';
import { saveSettings } from '../conversationActions';
import type { Runtime } from '../runtime';
import type { McpApproval } from './types';

export type ApprovalAnswer = 'allow' | 'always' | 'refuse';

const waiting = new WeakMap<Runtime, (answer: ApprovalAnswer) => void>();

/** Shows `approval` and resolves with the user's answer, or 'stopped' when the turn is stopped first. */
export function askApproval(rt: Runtime, approval: McpApproval, signal: AbortSignal): Promise<ApprovalAnswer | 'stopped'> {
  if (signal.aborted) return Promise.resolve('stopped');
  return new Promise((resolve) => {
    const done = (answer: ApprovalAnswer | 'stopped') => {
      signal.removeEventListener('abort', stopped);
      waiting.delete(rt);
      rt.store.setState((s) => (s.mcpApproval?.callId === approval.callId ? { mcpApproval: null } : {}));
      resolve(answer);
    };
    const stopped = () => done('stopped');
    signal.addEventListener('abort', stopped);
    waiting.set(rt, (answer) => {
      if (answer === 'always') void alwaysAllow(rt, approval);
      done(answer);
    });
    rt.store.setState({ mcpApproval: approval });
  });
}

/** The user's answer to the call shown. */
export function answerMcpApproval(rt: Runtime, answer: ApprovalAnswer): void {
  waiting.get(rt)?.(answer);
}

async function alwaysAllow(rt: Runtime, approval: McpApproval): Promise<void> {
  const { settings } = rt.store.getState();
  const servers = readMcpServers(settings.tools.mcpServers, []).map((server) =>
    server.id === approval.serverId
      ? { ...server, tools: server.tools.map((tool) => (tool.name === approval.tool ? { ...tool, alwaysAllow: true } : tool)) }
      : server,
  );
  await saveSettings(rt, { ...settings, tools: { ...settings.tools, mcpServers: servers } }, 'global');
}
