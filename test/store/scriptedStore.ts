/**
 * The real store on fake IndexedDB with a scripted provider standing in for the model: what
 * the store tests share. Each test builds its provider (what it answers, what it records).
 */
import { expect, vi } from 'vitest';
import type { ContentBlock } from '../../src/core';
import { openWindowpaneStorage, randomUuid } from '../../src/persistence';
import type { ChatProvider, ChatResult } from '../../src/providers';
import { createRuntime, type Runtime } from '../../src/store/runtime';
import { hydrate } from '../../src/store/hydrate';
import * as chat from '../../src/store/sendPipeline';
import type { JavascriptRunner } from '../../src/sandbox/javascriptRunner';

/** A hydrated runtime whose provider is `provider` (IndexedDB is whatever `globalThis.indexedDB` is now). */
export async function scriptedRuntime(provider: ChatProvider, runJavascript?: JavascriptRunner): Promise<Runtime> {
  const rt = createRuntime({
    openStorage: () => openWindowpaneStorage(),
    createProvider: async () => provider,
    now: () => Date.now(),
    newId: randomUuid,
    runJavascript: runJavascript ?? (async () => ({ logs: [], result: '', truncated: false })),
  });
  await hydrate(rt);
  return rt;
}

/** A finished answer holding `content`, as a provider returns it (no usage reported). */
export function answer(content: ContentBlock[], stopReason?: string): ChatResult {
  return {
    content,
    usage: { inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0 },
    usageReported: false,
    stopReason: stopReason ?? (content.some((b) => b.type === 'tool_use') ? 'tool_use' : 'end_turn'),
    model: 'scripted-model',
  };
}

/** Waits until no turn is running (every round of it over). */
export async function settled(rt: Runtime): Promise<void> {
  await vi.waitFor(
    () => {
      expect(rt.store.getState().sendingId).toBeNull();
      expect(rt.controllers.size).toBe(0);
    },
    { timeout: 5000 },
  );
}

/** Sends as the composer does and waits until the turn is over; returns the conversation's id. */
export async function sendAndSettle(rt: Runtime, message: string): Promise<string> {
  expect(chat.send(rt, rt.store.getState().activeId, message)).toBe(true);
  await settled(rt);
  return rt.store.getState().activeId!;
}
