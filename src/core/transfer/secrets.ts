/**
 * API keys must never leave the browser in a file. Exports are built field by field from
 * the canonical records, so the only free-form place a key could hide is a conversation's
 * `overrides` (a partial copy of the settings); this strips it there.
 */

const SECRET_KEY_NAME = /^(api[-_]?keys?|authorization|x[-_]api[-_]key|secret|client[-_]?secret|password|access[-_]?token|bearer)$/i;

/** Deepest nesting kept in an overrides object; anything deeper is not a setting. */
const MAX_DEPTH = 32;

/**
 * A deep copy of a JSON-like value without any property whose name is a credential
 * (`apiKey`, `apiKeys`, `api_key`, `authorization`, …). Values nested deeper than 32
 * levels are dropped. Never mutates its input.
 */
export function withoutSecrets(value: unknown, depth = 0): unknown {
  if (value === null || typeof value !== 'object') return value;
  if (depth >= MAX_DEPTH) return undefined;
  if (Array.isArray(value)) return value.map((item) => withoutSecrets(item, depth + 1) ?? null);
  const kept: Array<[string, unknown]> = [];
  for (const [key, item] of Object.entries(value)) {
    if (SECRET_KEY_NAME.test(key)) continue;
    const copy = withoutSecrets(item, depth + 1);
    if (copy !== undefined) kept.push([key, copy]);
  }
  // fromEntries defines own properties, so a key named "__proto__" stays data, never a prototype.
  return Object.fromEntries(kept);
}
