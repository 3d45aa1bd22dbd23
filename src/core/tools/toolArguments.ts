/**
 * A tool call's arguments, read one way for everyone who reads them: the dispatcher that
 * runs the call, the tools themselves, the summary that lists what was done and the
 * transcript that shows the call. Anthropic sends an `input` object; OpenAI sends JSON
 * text, which arrives here still as text when it did not parse (or came from an import).
 */

/** The arguments as an object, or why they are not one. */
export type ToolArguments =
  | { ok: true; args: Record<string, unknown> }
  /** `not-json`: text that does not parse; `not-object`: JSON that is an array, a string, a number... (`found` says which). */
  | { ok: false; problem: 'not-json' | 'not-object'; found: string };

/**
 * Reads `input` as an object of arguments. No arguments at all (absent, null, blank text)
 * read as `{}`, as the OpenAI API sends an empty string for a call without arguments.
 */
export function parseToolArguments(input: unknown): ToolArguments {
  let value: unknown = input ?? {};
  if (typeof value === 'string') {
    if (value.trim() === '') return { ok: true, args: {} };
    try {
      value = JSON.parse(value) as unknown;
    } catch {
      return { ok: false, problem: 'not-json', found: 'text that is not JSON' };
    }
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    return { ok: false, problem: 'not-object', found: value === null ? 'null' : Array.isArray(value) ? 'an array' : typeof value };
  }
  return { ok: true, args: value as Record<string, unknown> };
}

/** The arguments as the text the model sent (OpenAI) or the JSON of the input (Anthropic), cut to `max` characters with an ellipsis. */
export function toolArgumentsText(input: unknown, max = Infinity): string {
  const text = typeof input === 'string' ? input : (JSON.stringify(input ?? {}) ?? '');
  return text.length <= max ? text : `${text.slice(0, max)}…`;
}
