import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { estimateTextTokens, fitMcpDefinitions, fittedDefinitionsNote, SHORT_DESCRIPTION_CHARS, type NamedToolDefinition } from '../../../src/core';

const tool = (name: string, description: string, properties = 1): NamedToolDefinition => ({
  name,
  description,
  inputSchema: { type: 'object', properties: Object.fromEntries(Array.from({ length: properties }, (_, i) => [`field_${i}`, { type: 'string' }])) },
});
const tokens = (tools: readonly NamedToolDefinition[]) => (tools.length === 0 ? 0 : estimateTextTokens(JSON.stringify(tools)));
const LONG = 'Looks up the record and returns every field of it, with its history. '.repeat(12);

describe('MCP tool definitions on a small window', () => {
  it('offers every definition whole when they fit', () => {
    const tools = [tool('mcp_a__one', 'One.'), tool('mcp_a__two', 'Two.')];
    const fitted = fitMcpDefinitions(tools, tokens(tools));
    expect(fitted).toEqual({ tools, shortened: 0, left: [] });
    expect(fittedDefinitionsNote(fitted)).toBeUndefined();
  });

  it('cuts descriptions short first, and keeps every tool when that is enough', () => {
    const tools = Array.from({ length: 6 }, (_, i) => tool(`mcp_a__t${i}`, LONG));
    const short = tools.map((t) => ({ ...t, description: `${LONG.slice(0, SHORT_DESCRIPTION_CHARS - 1).trimEnd()}…` }));
    const fitted = fitMcpDefinitions(tools, tokens(short) + 10);
    expect(fitted).toEqual({ tools: short, shortened: 6, left: [] });
    expect(fittedDefinitionsNote(fitted)).toBe(
      "The MCP tools' definitions would take more than 20 % of what a request may hold, so 6 descriptions are cut short. Switch off tools you do not need in Settings → Tools, or choose a model with a larger window.",
    );
  });

  it('then leaves out the tools listed last, and names them', () => {
    const tools = Array.from({ length: 40 }, (_, i) => tool(`mcp_a__t${i}`, LONG, 8));
    const fitted = fitMcpDefinitions(tools, 1_000);
    expect(fitted.tools.length).toBeGreaterThan(0);
    expect(fitted.tools.length).toBeLessThan(40);
    expect(fitted.tools.map((t) => t.name)).toEqual(tools.slice(0, fitted.tools.length).map((t) => t.name));
    expect(fitted.left).toEqual(tools.slice(fitted.tools.length).map((t) => t.name));
    expect(fittedDefinitionsNote(fitted)).toMatch(
      new RegExp(
        `40 descriptions are cut short and ${fitted.left.length} tools are not offered \\(mcp_a__t${fitted.tools.length}, .* and ${fitted.left.length - 5} more\\)`,
      ),
    );
  });

  it('never exceeds the budget, keeps a prefix of the list, and gives the same answer for the same list', () => {
    fc.assert(
      fc.property(
        fc.array(fc.record({ description: fc.string({ maxLength: 600 }), properties: fc.integer({ min: 0, max: 12 }) }), { maxLength: 30 }),
        fc.integer({ min: 0, max: 4_000 }),
        (specs, budget) => {
          const tools = specs.map((spec, i) => tool(`mcp_s__t${i}`, spec.description, spec.properties));
          const fitted = fitMcpDefinitions(tools, budget);
          // Counted one by one, as the cut is made: the whole list's count is within a token per definition of it.
          expect(tokens(fitted.tools)).toBeLessThanOrEqual(budget + fitted.tools.length);
          expect(fitted.tools.map((t) => t.name)).toEqual(tools.slice(0, fitted.tools.length).map((t) => t.name));
          expect(fitted.tools.length + fitted.left.length).toBe(tools.length);
          expect(fitMcpDefinitions(tools, budget)).toEqual(fitted);
        },
      ),
    );
  });
});
