/** Which built-in tools a request offers: every plan (the gauge's too) counts their definitions. */
import type { BuiltinToolDefinition } from '../../core';
import { BUILTIN_TOOLS, READ_ATTACHMENT } from '../../core';
import type { ToolSettings } from '../settings';

/**
 * The built-in tools to offer, in their fixed order: those switched on in settings, with
 * read_attachment only while the conversation has files to read (its definition costs
 * tokens in every request). None when both are off.
 */
export function enabledTools(settings: ToolSettings, hasAttachments: boolean): BuiltinToolDefinition[] {
  return BUILTIN_TOOLS.filter((tool) => (tool.name === READ_ATTACHMENT ? settings.readAttachment && hasAttachments : settings.runJavascript));
}
