/** Which tools a request offers: every plan (the gauge's too) counts their definitions. */
import type { BuiltinToolDefinition, McpToolOffer, NamedToolDefinition } from '../../core';
import { BUILTIN_TOOLS, READ_ATTACHMENT } from '../../core';
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
 * keeps room for the conversation (core's McpToolOffer; `toolsNote` says what was given up).
 * `counted`: those and the tools the provider's MCP connector lists to the model itself, which
 * every plan counts but no request sends as tools.
 */
export function offeredTools(
  settings: Settings,
  hasAttachments: boolean,
  mcp: McpToolOffer | undefined,
  maxInput: number,
): { tools: NamedToolDefinition[]; counted: NamedToolDefinition[]; toolsNote?: string } {
  const builtin: NamedToolDefinition[] = enabledTools(settings.tools, hasAttachments);
  const provider = settings.provider;
  const onProvider = (provider === 'anthropic' || provider === 'openai' ? mcp?.onProvider?.[provider] : undefined) ?? [];
  if (!mcp || mcp.definitions.length === 0) return { tools: builtin, counted: [...builtin, ...onProvider] };
  const fitted = mcp.fit(maxInput);
  const tools = [...builtin, ...fitted.tools];
  return { tools, counted: [...tools, ...onProvider], ...(fitted.note ? { toolsNote: fitted.note } : {}) };
}
