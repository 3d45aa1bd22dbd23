/** Which tools a request offers: every plan (the gauge's too) counts their definitions. */
import type { BuiltinToolDefinition, NamedToolDefinition } from '../../core';
import { BUILTIN_TOOLS, fitMcpDefinitions, fittedDefinitionsNote, MCP_DEFINITIONS_SHARE, READ_ATTACHMENT } from '../../core';
import type { Settings, ToolSettings } from '../settings';

/**
 * The built-in tools to offer, in their fixed order: those switched on in settings, with
 * read_attachment only while the conversation has files to read (its definition costs
 * tokens in every request). None when both are off.
 */
export function enabledTools(settings: ToolSettings, hasAttachments: boolean): BuiltinToolDefinition[] {
  return BUILTIN_TOOLS.filter((tool) => (tool.name === READ_ATTACHMENT ? settings.readAttachment && hasAttachments : settings.runJavascript));
}

/**
 * The tools a request offers: the built-in ones switched on, then the MCP servers' tools, whose
 * definitions get at most a share of the `maxInput` tokens a request may hold, so a small window
 * keeps room for the conversation (core's fitMcpDefinitions; `toolsNote` says what was given up).
 */
export function offeredTools(
  settings: Settings,
  hasAttachments: boolean,
  mcpTools: readonly NamedToolDefinition[],
  maxInput: number,
): { tools: NamedToolDefinition[]; toolsNote?: string } {
  const fitted = fitMcpDefinitions(mcpTools, Math.floor(MCP_DEFINITIONS_SHARE * maxInput));
  const toolsNote = fittedDefinitionsNote(fitted);
  return { tools: [...enabledTools(settings.tools, hasAttachments), ...fitted.tools], ...(toolsNote ? { toolsNote } : {}) };
}
