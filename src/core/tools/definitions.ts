/**
 * The built-in tools the model may call, as provider-neutral definitions (JSON Schema
 * input). Providers map them to each API's tool shape; the store runs them.
 */

export interface BuiltinToolDefinition {
  name: BuiltinToolName;
  description: string;
  inputSchema: Record<string, unknown>;
}

export const READ_ATTACHMENT = 'read_attachment';
export const RUN_JAVASCRIPT = 'run_javascript';
export type BuiltinToolName = typeof READ_ATTACHMENT | typeof RUN_JAVASCRIPT;

/** read_attachment returns at most this many lines, and at most READ_MAX_CHARS characters, per call. */
export const READ_MAX_LINES = 400;
export const READ_MAX_CHARS = 20_000;
/** run_javascript stops a snippet after this long, and cuts what it returns to RUN_MAX_OUTPUT_CHARS. */
export const RUN_TIME_LIMIT_MS = 5_000;
export const RUN_MAX_OUTPUT_CHARS = 10_000;

export const READ_ATTACHMENT_TOOL: BuiltinToolDefinition = {
  name: READ_ATTACHMENT,
  description:
    'Lists the files the user attached to this conversation (text files and PDFs), or reads from one. ' +
    'Call it without `name` to list the files (name, size and line count, or page count for a PDF). ' +
    'Call it with `name`, and optionally `start_line` and `end_line` (1-based, inclusive), to read those lines of a text file; ' +
    'for a PDF, give `pages` (such as "3" or "3-5") to read the text of those pages. ' +
    `One call returns at most ${READ_MAX_LINES} lines or ${READ_MAX_CHARS.toLocaleString('en-US')} characters, so read long files in ranges.`,
  inputSchema: {
    type: 'object',
    properties: {
      name: { type: 'string', description: 'The attached file to read, exactly as listed. Omit it to list the files.' },
      start_line: { type: 'integer', minimum: 1, description: 'First line to read (1-based). Default 1.' },
      end_line: { type: 'integer', minimum: 1, description: `Last line to read, inclusive. Default start_line + ${READ_MAX_LINES - 1}.` },
      pages: {
        type: 'string',
        description: 'PDFs only: the page or pages to read, 1-based and inclusive ("3", "3-5", or "3-" to the end). Default: from page 1.',
      },
    },
    additionalProperties: false,
  },
};

export const RUN_JAVASCRIPT_TOOL: BuiltinToolDefinition = {
  name: RUN_JAVASCRIPT,
  description:
    "Runs a JavaScript snippet in a sandboxed Web Worker in the user's browser: no network, no DOM, no storage. " +
    'Returns what it printed with console.log (and console.error), the value of its last expression (awaited if it is a promise), or the error it threw. ' +
    `It is stopped after ${RUN_TIME_LIMIT_MS / 1000} seconds and its output is cut to ${RUN_MAX_OUTPUT_CHARS.toLocaleString('en-US')} characters. ` +
    'Use it for calculations, data transformations and checking code.',
  inputSchema: {
    type: 'object',
    properties: {
      code: { type: 'string', description: 'The JavaScript to run (an ES2022 script; top-level await is allowed).' },
    },
    required: ['code'],
    additionalProperties: false,
  },
};

export const BUILTIN_TOOLS: readonly BuiltinToolDefinition[] = [READ_ATTACHMENT_TOOL, RUN_JAVASCRIPT_TOOL];

/** A tool definition of any name, in the same provider-neutral shape. */
export interface NamedToolDefinition {
  name: string;
  description: string;
  inputSchema: Record<string, unknown>;
}

/** The description of a {@link standInToolDefinitions} entry. */
export const STAND_IN_TOOL_DESCRIPTION = 'Not available in this conversation now.';

/**
 * Anthropic refuses a request whose messages hold tool_use or tool_result blocks unless it
 * defines tools. When no tool is offered (the user switched them off after using them),
 * the request names the tools its history calls with these definitions, sent with
 * tool_choice none so none can be called. The planner counts them like any definitions.
 */
export function standInToolDefinitions(names: readonly string[]): NamedToolDefinition[] {
  return names.map((name) => ({ name, description: STAND_IN_TOOL_DESCRIPTION, inputSchema: { type: 'object', properties: {} } }));
}

/**
 * The names of the tools that messages call (`tool_use` blocks, canonical or Anthropic
 * wire), in first-seen order; a `tool_result` whose call is not among them (it was
 * summarized away) adds `earlier_tool`, since some tool must still be defined.
 */
export function toolNamesCalled(messages: readonly { content: unknown }[]): string[] {
  const names = new Set<string>();
  let results = false;
  for (const message of messages) {
    if (!Array.isArray(message.content)) continue;
    for (const block of message.content as { type?: unknown; name?: unknown }[]) {
      if (block?.type === 'tool_use' && typeof block.name === 'string') names.add(block.name);
      else if (block?.type === 'tool_result') results = true;
    }
  }
  if (results && names.size === 0) names.add('earlier_tool');
  return [...names];
}
