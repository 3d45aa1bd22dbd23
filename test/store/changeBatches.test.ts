/**
 * Change notices are applied in batches: those heard within the wait together, once each,
 * in the order first heard, one batch at a time, and never sooner than the wait after the
 * previous batch was applied.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { StorageChange } from '../../src/persistence';
import { CHANGE_BATCH_MS, createChangeBatcher } from '../../src/store/changeBatches';

const message = (messageId: string): StorageChange => ({ type: 'messages-changed', conversationId: 'c1', messageId });
const conversation = (conversationId: string): StorageChange => ({ type: 'conversation-changed', conversationId });

beforeEach(() => {
  vi.useFakeTimers();
});
afterEach(() => {
  vi.useRealTimers();
});

describe('change batches', () => {
  it('applies the notices heard within the wait together, each once, in the order first heard', async () => {
    const batches: StorageChange[][] = [];
    const batcher = createChangeBatcher(async (changes) => void batches.push(changes));
    for (let i = 0; i < 500; i++) batcher.add(message(`m${i}`));
    batcher.add(conversation('c1'));
    batcher.add(message('m0'));
    batcher.add(conversation('c1'));

    await vi.advanceTimersByTimeAsync(CHANGE_BATCH_MS - 1);
    expect(batches).toEqual([]);
    await vi.advanceTimersByTimeAsync(1);
    expect(batches).toHaveLength(1);
    expect(batches[0]).toHaveLength(501);
    expect(batches[0]!.slice(0, 3)).toEqual([message('m0'), message('m1'), message('m2')]);
    expect(batches[0]!.at(-1)).toEqual(conversation('c1'));
  });

  it('gathers what is heard while a batch is applied into the next, applied the wait after it settles', async () => {
    const batches: StorageChange[][] = [];
    let finish: () => void = () => undefined;
    const batcher = createChangeBatcher((changes) => {
      batches.push(changes);
      return new Promise<void>((resolve) => (finish = resolve));
    });
    batcher.add(message('m1'));
    await vi.advanceTimersByTimeAsync(CHANGE_BATCH_MS);
    expect(batches).toEqual([[message('m1')]]);

    // Heard while the first is read and shown: it waits, however long that takes.
    batcher.add(message('m1'));
    batcher.add(message('m2'));
    await vi.advanceTimersByTimeAsync(CHANGE_BATCH_MS * 5);
    expect(batches).toHaveLength(1);

    finish();
    await vi.advanceTimersByTimeAsync(CHANGE_BATCH_MS - 1);
    expect(batches).toHaveLength(1);
    await vi.advanceTimersByTimeAsync(1);
    expect(batches).toEqual([[message('m1')], [message('m1'), message('m2')]]);
  });

  it('goes on after a batch that failed, and applies nothing once closed', async () => {
    const batches: StorageChange[][] = [];
    const batcher = createChangeBatcher(async (changes) => {
      batches.push(changes);
      if (batches.length === 1) throw new Error('storage went away');
    });
    batcher.add(message('m1'));
    await vi.advanceTimersByTimeAsync(CHANGE_BATCH_MS);
    batcher.add(message('m2'));
    await vi.advanceTimersByTimeAsync(CHANGE_BATCH_MS);
    expect(batches).toEqual([[message('m1')], [message('m2')]]);

    batcher.add(message('m3'));
    batcher.close();
    batcher.add(message('m4'));
    await vi.advanceTimersByTimeAsync(CHANGE_BATCH_MS * 3);
    expect(batches).toHaveLength(2);
  });
});
