/**
 * Many MCP tools on a small window: the definitions every request carries get at most a fifth
 * of what a request may hold, the rest of the window stays the conversation's, and the gauge
 * says what was given up. On a large window every tool goes whole.
 */
import { describe, expect, it } from 'vitest';
import { emptyCalibration, estimateTextTokens, mcpToolOffer, type McpServerConfig, type McpToolOffer, type StoredMessage } from '../../src/core';
import { chatView } from '../../src/store/chatView';
import { connectorDefinitions, mcpDefinitions } from '../../src/store/mcp/mcpTools';
import { planFor } from '../../src/store/planning';
import { toRequest } from '../../src/store/request';
import { DEFAULT_SETTINGS, type Settings } from '../../src/store/settings';
import { turnContext } from '../../src/store/turn';
import { trackerServer } from '../mcp/fixtures';

const server = trackerServer('https://mcp.example.com/mcp');
/** Sixty tools with the long descriptions and schemas real servers list. */
const definitions = mcpDefinitions(
  new Map(
    Array.from({ length: 60 }, (_, i) => [
      `mcp_tracker__tool_${i}`,
      {
        server,
        info: {
          name: `tool_${i}`,
          description: `Finds records of kind ${i} by any of their fields and returns them with their history and links. `.repeat(4),
          inputSchema: { type: 'object', properties: { query: { type: 'string', description: 'What to look for.' }, limit: { type: 'integer' } } },
          enabled: true,
          alwaysAllow: false,
        },
      },
    ]),
  ),
);

const settings = (contextWindow: number): Settings => ({
  ...DEFAULT_SETTINGS,
  provider: 'anthropic',
  apiKeys: { anthropic: 'sk-ant-test' },
  models: { anthropic: 'claude-haiku-5-5' },
  contextWindow,
  maxOutputTokens: 1000,
});
const history: StoredMessage[] = [
  {
    id: 'm1',
    conversationId: 'c1',
    seq: 1,
    role: 'user',
    kind: 'message',
    content: [{ type: 'text', text: 'Find the open records.' }],
    createdAt: 1,
    status: 'complete',
  },
];
const contextFor = (window: number) => turnContext(settings(window), undefined, emptyCalibration(), false, () => [], {}, mcpToolOffer(definitions));
const mcpNames = (names: readonly string[]) => names.filter((name) => name.startsWith('mcp_'));

describe('MCP tool definitions on a small window', () => {
  it('take at most a fifth of the request, the tools listed last left out, and the gauge says so', () => {
    const ctx = contextFor(16_000);
    const offered = mcpNames(ctx.tools.map((tool) => tool.name));
    expect(offered.length).toBeGreaterThan(0);
    expect(offered.length).toBeLessThan(60);
    expect(offered).toEqual(definitions.slice(0, offered.length).map((tool) => tool.name));
    const mcpText = JSON.stringify(ctx.tools.filter((tool) => tool.name.startsWith('mcp_')));
    expect(estimateTextTokens(mcpText)).toBeLessThanOrEqual(0.2 * 15_000 + offered.length);
    // The built-in tools are always offered.
    expect(ctx.tools.map((tool) => tool.name)).toContain('run_javascript');

    const plan = planFor(ctx, history);
    expect(plan.metrics.totalTokens).toBeLessThan(plan.metrics.maxInputTokens);
    const { request } = toRequest(ctx, plan);
    expect(mcpNames((request.tools ?? []).map((tool) => tool.name))).toEqual(offered);
    const view = chatView(ctx, history, plan, undefined, 0, undefined);
    expect(view.gauge.toolsNote).toMatch(
      /more than 20 % of what a request may hold, so 60 descriptions are cut short and \d+ tools are not offered \(mcp_tracker__tool_\d+/,
    );
  });

  it('go whole on a large window, with nothing said', () => {
    const ctx = contextFor(1_000_000);
    expect(mcpNames(ctx.tools.map((tool) => tool.name))).toHaveLength(60);
    expect(ctx.tools.find((tool) => tool.name === 'mcp_tracker__tool_0')?.description).toBe(definitions[0]!.description);
    expect(ctx.toolsNote).toBeUndefined();
  });

  it('count the tools the provider’s connector lists to the model, which are never sent as tools', () => {
    const describedAtLength = 'Searches every record the tracker holds by its title, its body and its comments. '.repeat(20);
    const viaProvider: McpServerConfig = {
      ...trackerServer('https://mcp.example.com/mcp', true),
      connectVia: 'provider',
      tools: [{ name: 'search_records', description: describedAtLength, inputSchema: { type: 'object', properties: {} }, enabled: true, alwaysAllow: true }],
    };
    const onProvider = { anthropic: connectorDefinitions([viaProvider], 'anthropic'), openai: connectorDefinitions([viaProvider], 'openai') };
    expect(onProvider.anthropic.map((tool) => tool.name)).toEqual(['search_records']);
    const on = (provider: Settings['provider'], offer?: McpToolOffer) =>
      turnContext({ ...settings(200_000), provider, apiKeys: { [provider]: 'sk-test' } }, undefined, emptyCalibration(), false, () => [], {}, offer);
    for (const provider of ['anthropic', 'openai'] as const) {
      const counted = on(provider, mcpToolOffer([], onProvider));
      const without = on(provider, mcpToolOffer([]));
      expect(counted.toolsText).toContain('search_records');
      expect(counted.tools.map((tool) => tool.name)).not.toContain('search_records');
      const tokens = (ctx: typeof counted) => planFor(ctx, history).metrics.totalTokens;
      expect(tokens(counted) - tokens(without)).toBeGreaterThan(estimateTextTokens(describedAtLength) * 0.8);
      expect(toRequest(counted, planFor(counted, history)).request.tools?.map((tool) => tool.name) ?? []).not.toContain('search_records');
    }
    // A server the page reaches has no connector: nothing is counted for it.
    expect(on('openai-compatible', mcpToolOffer([], onProvider)).toolsText).not.toContain('search_records');
  });
});
