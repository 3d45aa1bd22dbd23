/**
 * The user's say before an MCP tool runs: the call (server, tool, arguments) is put in the
 * state for the chat to show, and the turn waits for Allow, Always allow or Refuse. Stop
 * ends the wait. "Always allow" is saved on the tool, so later calls run without asking.
 */
import { readMcpServers } from '../../core';
import { saveSettings } from '../conversationActions';
import type { Runtime } from '../runtime';
import type { McpApproval } from './types';

export type ApprovalAnswer = McpApproval extends { answer: (answer: infer A) => void } ? A : never;

/** Shows the call and resolves with the user's answer, or 'stopped' when the turn is stopped first. */
export function askApproval(rt: Runtime, approval: Omit<McpApproval, 'answer'>, signal: AbortSignal): Promise<ApprovalAnswer | 'stopped'> {
  if (signal.aborted) return Promise.resolve('stopped');
  return new Promise((resolve) => {
    const done = (answer: ApprovalAnswer | 'stopped') => {
      signal.removeEventListener('abort', stopped);
      rt.store.setState((s) => (s.mcpApproval?.callId === approval.callId ? { mcpApproval: null } : {}));
      resolve(answer);
    };
    const stopped = () => done('stopped');
    signal.addEventListener('abort', stopped);
    const answer = (given: ApprovalAnswer) => {
      if (given === 'always') void alwaysAllow(rt, approval);
      done(given);
    };
    rt.store.setState({ mcpApproval: { ...approval, answer } });
  });
}

async function alwaysAllow(rt: Runtime, approval: Pick<McpApproval, 'serverId' | 'tool'>): Promise<void> {
  const { settings } = rt.store.getState();
  const servers = readMcpServers(settings.tools.mcpServers, []).map((server) =>
    server.id === approval.serverId
      ? { ...server, tools: server.tools.map((tool) => (tool.name === approval.tool ? { ...tool, alwaysAllow: true } : tool)) }
      : server,
  );
  await saveSettings(rt, { ...settings, tools: { ...settings.tools, mcpServers: servers } }, 'global');
}
