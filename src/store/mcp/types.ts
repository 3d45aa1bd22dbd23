/** Types the MCP modules of the store share. */
import type { McpServerConfig, McpToolInfo } from '../../core';

/** An MCP tool a request offers, by the name it gives it: its server and the tool as last listed. */
export interface McpToolEntry {
  server: McpServerConfig;
  info: McpToolInfo;
}

/** An MCP tool call shown to the user before it runs: the server, the tool's own name and the arguments as JSON text. */
export interface McpApproval {
  conversationId: string;
  callId: string;
  serverId: string;
  /** The server's label, as the user named it. */
  server: string;
  tool: string;
  args: string;
  /** Answers it: Allow, Always allow or Refuse. */
  answer: (answer: 'allow' | 'always' | 'refuse') => void;
}
