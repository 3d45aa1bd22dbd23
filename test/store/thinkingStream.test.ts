/**
 * An answer's thinking as it streams, through `send` on the real store and fake IndexedDB:
 * shown and stored while it streams (so a reload keeps it), timed from its first delta to
 * the answer's first text, and the time stored with the answer.
 */
import { IDBFactory } from 'fake-indexeddb';
import { describe, expect, it, vi } from 'vitest';
import type { ContentBlock, StoredMessage } from '../../src/core';
import { openWindowpaneStorage, randomUuid } from '../../src/persistence';
import type { ChatProvider, ChatResult, StreamCallbacks } from '../../src/providers';
import { createRuntime, type Runtime } from '../../src/store/runtime';
import { hydrate } from '../../src/store/hydrate';
import { DEFAULT_SETTINGS } from '../../src/store/settings';
import { sendAndSettle } from './scriptedStore';

/** A provider whose one answer is `script`, given the callbacks and a clock it may move. */
async function start(script: (callbacks: StreamCallbacks, clock: { now: number }) => Promise<ChatResult>): Promise<Runtime> {
  globalThis.indexedDB = new IDBFactory();
  const clock = { now: 1_767_225_600_000 };
  const provider: ChatProvider = {
    id: 'anthropic',
    wireShape: 'anthropic',
    send: (_request, callbacks = {}) => script(callbacks, clock),
    complete: async () => '',
  };
  const rt = createRuntime({
    openStorage: () => openWindowpaneStorage(),
    createProvider: async () => provider,
    now: () => clock.now,
    newId: randomUuid,
    runJavascript: async () => ({ logs: [], result: '', truncated: false }),
  });
  await hydrate(rt);
  rt.store.setState({
    settings: { ...DEFAULT_SETTINGS, provider: 'anthropic', apiKeys: { anthropic: 'sk-ant-test-0123456789' }, models: { anthropic: 'claude-sonnet-4-6' } },
  });
  return rt;
}

const finished = (content: ContentBlock[]): ChatResult => ({
  content,
  usage: { inputTokens: 20, outputTokens: 400, cacheReadTokens: 0, cacheWriteTokens: 0 },
  usageReported: true,
  stopReason: 'end_turn',
  model: 'claude-sonnet-4-6',
});

const storedAnswer = async (rt: Runtime, conversationId: string): Promise<StoredMessage | undefined> =>
  (await rt.storage!.repositories.conversations.getMessages(conversationId)).find((m) => m.role === 'assistant');

describe('thinking as it streams', () => {
  it('is shown and stored while it streams, its time fixed when the answer begins and stored with it', async () => {
    let seenWhileThinking: unknown;
    let storedWhileThinking: StoredMessage | undefined;
    let seenOnceAnswering: unknown;
    const rt = await start(async (callbacks, clock) => {
      callbacks.onThinking?.('Orders has ');
      clock.now += 2_000;
      callbacks.onThinking?.('the most rows.');
      seenWhileThinking = rt.store.getState().streaming;
      const id = rt.store.getState().streaming!.messageId;
      await vi.waitFor(async () => {
        storedWhileThinking = await rt.storage!.repositories.conversations.getMessage(id);
        expect(storedWhileThinking?.content).toEqual([{ type: 'thinking', thinking: 'Orders has the most rows.' }]);
      });
      clock.now += 6_400;
      callbacks.onText?.('Start with orders.');
      clock.now += 5_000; // answering is not thinking
      callbacks.onText?.(' Then customers.');
      seenOnceAnswering = rt.store.getState().streaming;
      return finished([
        { type: 'thinking', thinking: 'Orders has the most rows.', signature: 'sig-1' },
        { type: 'text', text: 'Start with orders. Then customers.' },
      ]);
    });

    const conversationId = await sendAndSettle(rt, 'Which tables move first?');

    expect(seenWhileThinking).toMatchObject({ thinking: 'Orders has the most rows.', text: '', thinkingStartedAt: 1_767_225_600_000 });
    expect(seenWhileThinking).not.toHaveProperty('thinkingMs', expect.anything());
    expect(storedWhileThinking).toMatchObject({ status: 'streaming' });
    expect(seenOnceAnswering).toMatchObject({ thinkingMs: 8_400, text: 'Start with orders. Then customers.' });
    const stored = await storedAnswer(rt, conversationId);
    expect(stored).toMatchObject({ status: 'complete', thinkingMs: 8_400 });
    expect(stored!.content[0]).toEqual({ type: 'thinking', thinking: 'Orders has the most rows.', signature: 'sig-1' });
  });

  it('times an answer that only thought until it ended, and stores no time for one that did not think', async () => {
    const thoughtOnly = await start(async (callbacks, clock) => {
      callbacks.onThinking?.('Nothing to add.');
      clock.now += 3_000;
      return finished([{ type: 'thinking', thinking: 'Nothing to add.', signature: 'sig' }]);
    });
    expect(await storedAnswer(thoughtOnly, await sendAndSettle(thoughtOnly, 'Anything?'))).toMatchObject({ thinkingMs: 3_000 });

    const plain = await start(async (callbacks) => {
      callbacks.onText?.('Hello.');
      return finished([{ type: 'text', text: 'Hello.' }]);
    });
    expect(await storedAnswer(plain, await sendAndSettle(plain, 'Hi'))).not.toHaveProperty('thinkingMs');
  });
});
