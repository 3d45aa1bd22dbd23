/**
 * Small readers for untrusted parsed JSON. They throw `MalformedImport` naming the exact
 * place and what was expected; the import parsers catch it at their boundary and return
 * it as an `ImportFailure`, so callers never see an exception for bad input.
 */

/** A shape problem at `path` (e.g. `conversations[2].messages[5].role`). */
export class MalformedImport extends Error {
  readonly path: string;

  constructor(path: string, message: string) {
    super(message);
    this.name = 'MalformedImport';
    this.path = path;
  }
}

export type JsonRecord = Record<string, unknown>;

export function isRecord(value: unknown): value is JsonRecord {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** How a value reads in an error message: `text "abc"`, `a number (3)`, `a list`, … */
export function describeValue(value: unknown): string {
  if (value === undefined) return 'missing';
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'a list';
  switch (typeof value) {
    case 'string':
      return `text ${JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}…` : value)}`;
    case 'number':
      return `a number (${value})`;
    case 'boolean':
      return `${value}`;
    default:
      return 'an object';
  }
}

export function malformed(path: string, expected: string, value: unknown): never {
  throw new MalformedImport(path, `${path} should be ${expected}, but is ${describeValue(value)}`);
}

export function readRecord(value: unknown, path: string): JsonRecord {
  return isRecord(value) ? value : malformed(path, 'an object', value);
}

export function readArray(value: unknown, path: string): unknown[] {
  return Array.isArray(value) ? value : malformed(path, 'a list', value);
}

export function readString(value: unknown, path: string): string {
  return typeof value === 'string' ? value : malformed(path, 'text', value);
}

export function readNonEmptyString(value: unknown, path: string): string {
  return typeof value === 'string' && value !== '' ? value : malformed(path, 'non-empty text', value);
}

export function readFiniteNumber(value: unknown, path: string): number {
  return typeof value === 'number' && Number.isFinite(value) ? value : malformed(path, 'a number', value);
}

export function readBoolean(value: unknown, path: string): boolean {
  return typeof value === 'boolean' ? value : malformed(path, 'true or false', value);
}

export function readOneOf<T extends string>(value: unknown, allowed: readonly T[], path: string): T {
  return typeof value === 'string' && (allowed as readonly string[]).includes(value)
    ? (value as T)
    : malformed(path, allowed.map((a) => JSON.stringify(a)).join(' or '), value);
}

/** `undefined` when absent or null, else `read(value)`. */
export function optional<T>(value: unknown, path: string, read: (value: unknown, path: string) => T): T | undefined {
  return value === undefined || value === null ? undefined : read(value, path);
}

/**
 * True when `value` nests no deeper than `maxDepth` objects/arrays. Iterative, so a
 * hostile file cannot overflow the stack here (or later, in storage's structured clone).
 */
export function withinDepth(value: unknown, maxDepth: number): boolean {
  const stack: Array<[unknown, number]> = [[value, 0]];
  while (stack.length > 0) {
    const [item, depth] = stack.pop()!;
    if (item === null || typeof item !== 'object') continue;
    if (depth >= maxDepth) return false;
    for (const child of Array.isArray(item) ? item : Object.values(item)) stack.push([child, depth + 1]);
  }
  return true;
}
