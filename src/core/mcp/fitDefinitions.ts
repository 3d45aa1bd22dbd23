/**
 * MCP tool definitions on a small window. Every request carries the definitions of every tool
 * it offers, before any message, so a few servers with many tools can leave a small window no
 * room for the conversation, or overflow it. They get at most a share of the input a request
 * may hold: past it, descriptions are cut short, and if that is not enough the tools listed
 * last are not offered. The same tools are kept for the same window and list, so the prompt
 * cache behind them holds from one request to the next.
 */
import { estimateTextTokens } from '../tokens/estimate';
import type { NamedToolDefinition } from '../tools/definitions';

/** The share of the request's input (window − output reserve) the MCP tools' definitions may take. */
export const MCP_DEFINITIONS_SHARE = 0.2;
/** A description cut short keeps this many characters. */
export const SHORT_DESCRIPTION_CHARS = 160;

/** The definitions to offer and what was given up to fit them. */
export interface FittedDefinitions {
  tools: NamedToolDefinition[];
  /** How many descriptions were cut short. */
  shortened: number;
  /** The request names of the tools not offered, in list order. */
  left: string[];
}

const tokensOf = (tools: readonly NamedToolDefinition[]) => (tools.length === 0 ? 0 : estimateTextTokens(JSON.stringify(tools)));

function shorten(tool: NamedToolDefinition): NamedToolDefinition {
  if (tool.description.length <= SHORT_DESCRIPTION_CHARS) return tool;
  return { ...tool, description: `${tool.description.slice(0, SHORT_DESCRIPTION_CHARS - 1).trimEnd()}…` };
}

/**
 * `definitions` (in the order servers and their tools were listed) within `budgetTokens`:
 * whole when they fit; else with every description cut to {@link SHORT_DESCRIPTION_CHARS};
 * else also without the tools listed last, as many as it takes.
 */
export function fitMcpDefinitions(definitions: readonly NamedToolDefinition[], budgetTokens: number): FittedDefinitions {
  if (tokensOf(definitions) <= budgetTokens) return { tools: [...definitions], shortened: 0, left: [] };
  const short = definitions.map(shorten);
  const shortened = short.filter((tool, i) => tool !== definitions[i]).length;
  // Each definition counted once, so the cut is found in one pass, not by counting the rest again per tool dropped.
  const sizes = short.map((tool) => tokensOf([tool]));
  let total = sizes.reduce((sum, size) => sum + size, 0);
  let kept = short.length;
  while (kept > 0 && total > budgetTokens) total -= sizes[--kept]!;
  return { tools: short.slice(0, kept), shortened, left: short.slice(kept).map((tool) => tool.name) };
}

/** What the gauge says when definitions were cut to fit, or undefined when all went whole. */
export function fittedDefinitionsNote(fitted: FittedDefinitions, shareOfInput = MCP_DEFINITIONS_SHARE): string | undefined {
  if (fitted.shortened === 0 && fitted.left.length === 0) return undefined;
  const share = `${Math.round(shareOfInput * 100)} %`;
  const parts = [fitted.shortened > 0 ? `${fitted.shortened} description${fitted.shortened === 1 ? ' is' : 's are'} cut short` : ''];
  if (fitted.left.length > 0) {
    const names = fitted.left.slice(0, 5).join(', ') + (fitted.left.length > 5 ? ` and ${fitted.left.length - 5} more` : '');
    parts.push(`${fitted.left.length} tool${fitted.left.length === 1 ? ' is' : 's are'} not offered (${names})`);
  }
  return `The MCP tools' definitions would take more than ${share} of what a request may hold, so ${parts.filter(Boolean).join(' and ')}. Switch off tools you do not need in Settings → Tools, or choose a model with a larger window.`;
}

/**
 * The MCP servers' tools as the store offers them: their definitions, and their fit to a
 * request that may hold `maxInputTokens` (at most {@link MCP_DEFINITIONS_SHARE} of it, with the
 * gauge's note). The fit comes with the definitions, from the chunk that loads only once a
 * server is configured, so the first screen carries none of it.
 */
export interface McpToolOffer {
  definitions: readonly NamedToolDefinition[];
  fit(maxInputTokens: number): FittedDefinitions & { note?: string };
  /**
   * The tools a provider's own MCP connector is given (connector.ts), by provider: the
   * provider lists them to the model itself, so they are never sent as tools, but every plan
   * counts their definitions as the model reads them.
   */
  onProvider?: Partial<Record<'anthropic' | 'openai', readonly NamedToolDefinition[]>>;
}

/** `definitions` offered with their fit (see McpToolOffer). */
export function mcpToolOffer(definitions: readonly NamedToolDefinition[], onProvider?: McpToolOffer['onProvider']): McpToolOffer {
  return {
    definitions,
    ...(onProvider ? { onProvider } : {}),
    fit(maxInputTokens) {
      const fitted = fitMcpDefinitions(definitions, Math.floor(MCP_DEFINITIONS_SHARE * maxInputTokens));
      const note = fittedDefinitionsNote(fitted);
      return note ? { ...fitted, note } : fitted;
    },
  };
}
