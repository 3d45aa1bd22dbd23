/** The store over fake IndexedDB with a scripted model and one MCP server configured, for the MCP store tests. */
import { IDBFactory } from 'fake-indexeddb';
import { expect, vi } from 'vitest';
import type { ContentBlock, McpServerConfig } from '../../src/core';
import { openWindowpaneStorage, randomUuid } from '../../src/persistence';
import type { ChatProvider, ChatResult } from '../../src/providers';
import { hydrate } from '../../src/store/hydrate';
import { createRuntime, type Runtime } from '../../src/store/runtime';
import { DEFAULT_SETTINGS, type Settings } from '../../src/store/settings';

/** The scripted model's answer: `content`, stopping for tools when it calls one. */
export function answer(content: ContentBlock[]): ChatResult {
  return {
    content,
    usage: { inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0 },
    usageReported: false,
    stopReason: content.some((b) => b.type === 'tool_use') ? 'tool_use' : 'end_turn',
    model: 'scripted-model',
  };
}

/** What a test may give the runtime in place of the defaults here (an image reader, say). */
export type RuntimeDeps = Parameters<typeof createRuntime>[0];

/** A fresh runtime on `provider`, with `server` (and `secrets`) in the settings, once the MCP chunk offers `offered` tools. */
export async function mcpRuntime(
  provider: ChatProvider,
  server: McpServerConfig,
  secrets: Record<string, string>,
  offered: number,
  deps: Partial<RuntimeDeps> = {},
): Promise<Runtime> {
  globalThis.indexedDB = new IDBFactory();
  const rt = createRuntime({
    openStorage: () => openWindowpaneStorage(),
    createProvider: async () => provider,
    now: () => Date.now(),
    newId: randomUuid,
    runJavascript: async () => ({ logs: [], truncated: false }),
    ...deps,
  });
  await hydrate(rt);
  const settings: Settings = {
    ...DEFAULT_SETTINGS,
    provider: 'anthropic',
    apiKeys: { anthropic: 'sk-test-key-0123456789' },
    models: { anthropic: 'claude-sonnet-4-6' },
    tools: { ...DEFAULT_SETTINGS.tools, mcpServers: [server] },
    mcpSecrets: secrets,
  };
  rt.store.setState({ settings });
  // The MCP chunk loads and offers the server's tools.
  await vi.waitFor(() => expect(rt.store.getState().mcpTools?.definitions).toHaveLength(offered));
  return rt;
}
