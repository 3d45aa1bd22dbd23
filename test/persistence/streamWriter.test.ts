import { IDBObjectStore as FakeIDBObjectStore } from 'fake-indexeddb';
import { describe, expect, it, vi } from 'vitest';
import { isWindowpaneError, type ContentBlock, type WindowpaneError } from '../../src/core';
import { openWindowpaneDb } from '../../src/persistence/db';
import type { ConversationRepository, MessagePatch } from '../../src/persistence/conversationRepository';
import { createRepositories } from '../../src/persistence/repositories';
import { createStreamWriter, liveStreamChecker, registerFlushOnHide, streamLockName, type StreamLocks, type Timers } from '../../src/persistence/streamWriter';
import { openTestStorage } from './helpers';

/** Timers driven by the test: `advance(ms)` runs what falls due, in order. */
function manualTimers() {
  let now = 0;
  let nextId = 0;
  const due = new Map<number, { at: number; callback: () => void }>();
  const timers: Timers = {
    setTimeout(callback, ms) {
      due.set(++nextId, { at: now + ms, callback });
      return nextId;
    },
    clearTimeout(handle) {
      due.delete(handle as number);
    },
  };
  function advance(ms: number) {
    const until = now + ms;
    for (;;) {
      const next = [...due.entries()].filter(([, t]) => t.at <= until).sort((a, b) => a[1].at - b[1].at)[0];
      if (!next) break;
      due.delete(next[0]);
      now = next[1].at;
      next[1].callback();
    }
    now = until;
  }
  return { timers, advance, scheduled: () => due.size };
}

/** The real repository, with every updateMessage call recorded. */
function recording(repository: ConversationRepository) {
  const writes: MessagePatch[] = [];
  return {
    writes,
    repository: {
      updateMessage: (id: string, patch: MessagePatch) => {
        writes.push(patch);
        return repository.updateMessage(id, patch);
      },
    },
  };
}

/** In-memory Web Locks: enough of navigator.locks for request/query. */
function fakeLocks(): StreamLocks {
  const held = new Set<string>();
  return {
    async request(name: string, callback: () => Promise<unknown>) {
      held.add(name);
      try {
        return await callback();
      } finally {
        held.delete(name);
      }
    },
    async query() {
      return { held: [...held].map((name) => ({ name, mode: 'exclusive' as const, clientId: 'tab' })), pending: [] };
    },
  } as unknown as StreamLocks;
}

const text = (t: string): ContentBlock[] => [{ type: 'text', text: t }];

async function streamingAnswer(conversations: ConversationRepository) {
  const { id } = await conversations.createConversation();
  await conversations.appendMessage({ conversationId: id, role: 'user', content: text('Tell me a story.') });
  return conversations.appendMessage({ conversationId: id, id: 'answer', role: 'assistant', status: 'streaming', content: [] });
}

describe('createStreamWriter', () => {
  it('writes at most once per interval however many deltas arrive, then the final state on finish', async () => {
    const { repositories } = await openTestStorage();
    await streamingAnswer(repositories.conversations);
    const { timers, advance } = manualTimers();
    const { writes, repository: counted } = recording(repositories.conversations);
    const writer = createStreamWriter(counted, 'answer', { intervalMs: 500, timers, locks: null });

    let answer = '';
    for (let token = 0; token < 100; token++) {
      answer += `w${token} `;
      writer.update({ content: text(answer) });
      advance(10);
    }
    await vi.waitFor(() => expect(writes).toHaveLength(2));
    await vi.waitFor(async () => expect((await repositories.conversations.getMessage('answer'))!.content).toEqual(text(answer)));
    expect(writes[0]).toEqual({ content: text(answer.split(' ').slice(0, 50).join(' ') + ' '), status: 'streaming' });

    const usage = { inputTokens: 12, outputTokens: 100, cacheReadTokens: 0, cacheWriteTokens: 0 };
    const final = await writer.finish({ content: text(`${answer}The end.`), status: 'complete', usage });
    expect(writes).toHaveLength(3);
    expect(final).toMatchObject({ id: 'answer', status: 'complete', usage, content: text(`${answer}The end.`) });
    expect(await repositories.conversations.getMessage('answer')).toEqual(final);
  });

  it('leaves the partial answer stored when the tab closes mid-stream; the next start marks it interrupted', async () => {
    const { factory, db, repositories } = await openTestStorage();
    await streamingAnswer(repositories.conversations);
    const { timers, advance } = manualTimers();
    const writer = createStreamWriter(repositories.conversations, 'answer', { intervalMs: 500, timers, locks: null });
    writer.update({ content: text('Once upon a') });
    advance(500);
    writer.update({ content: text('Once upon a time, in a') });
    await vi.waitFor(async () => expect((await repositories.conversations.getMessage('answer'))!.content).toEqual(text('Once upon a')));
    db.close(); // the tab is gone: no finish, no further write

    const reopened = createRepositories(await openWindowpaneDb({ factory })).conversations;
    const [recovered] = await reopened.markInterruptedStreams();
    expect(recovered).toMatchObject({ id: 'answer', status: 'interrupted', content: text('Once upon a') });
    expect(await reopened.getMessage('answer')).toEqual(recovered);
  });

  it('flushes pending state at once when the page is hidden or unloaded', async () => {
    const { repositories } = await openTestStorage();
    await streamingAnswer(repositories.conversations);
    const { timers, scheduled } = manualTimers();
    const writer = createStreamWriter(repositories.conversations, 'answer', { intervalMs: 60_000, timers, locks: null });
    const hiddenDocument = Object.assign(new EventTarget(), { visibilityState: 'hidden' as DocumentVisibilityState });
    let flushes = 0;
    const unregister = registerFlushOnHide(
      () => {
        flushes++;
        return writer.flush();
      },
      { window, document: hiddenDocument },
    );

    writer.update({ content: text('Before pagehide') });
    window.dispatchEvent(new Event('pagehide'));
    await vi.waitFor(async () => expect((await repositories.conversations.getMessage('answer'))!.content).toEqual(text('Before pagehide')));
    expect(scheduled()).toBe(0);

    writer.update({ content: text('Before the tab was hidden') });
    hiddenDocument.dispatchEvent(new Event('visibilitychange'));
    await vi.waitFor(async () => expect((await repositories.conversations.getMessage('answer'))!.content).toEqual(text('Before the tab was hidden')));

    expect(flushes).toBe(2);

    unregister();
    window.dispatchEvent(new Event('pagehide'));
    hiddenDocument.dispatchEvent(new Event('visibilitychange'));
    await Promise.resolve();
    expect(flushes).toBe(2);
  });

  it('reports a failed throttled write and writes the kept state with the next one', async () => {
    const { repositories } = await openTestStorage();
    await streamingAnswer(repositories.conversations);
    const { timers, advance } = manualTimers();
    const onError = vi.fn();
    const writer = createStreamWriter(repositories.conversations, 'answer', { intervalMs: 500, timers, locks: null, onError });

    const put = FakeIDBObjectStore.prototype.put;
    const full = vi.spyOn(FakeIDBObjectStore.prototype, 'put').mockImplementation(function (this: IDBObjectStore, ...args) {
      if (this.name === 'messages') throw new DOMException('full', 'QuotaExceededError');
      return put.apply(this, args);
    });
    writer.update({ content: text('Lost?') });
    advance(500);
    await vi.waitFor(() => expect(onError).toHaveBeenCalledTimes(1));
    expect((onError.mock.calls[0]![0] as WindowpaneError).code).toBe('quota_exceeded');
    full.mockRestore();

    const final = await writer.finish({ usage: { inputTokens: 1, outputTokens: 2, cacheReadTokens: 0, cacheWriteTokens: 0 }, status: 'complete' });
    expect(final).toMatchObject({ content: text('Lost?'), status: 'complete', usage: { outputTokens: 2 } });
  });

  it('rejects finish with the storage error, keeping the state so a retry writes it', async () => {
    const { repositories } = await openTestStorage();
    await streamingAnswer(repositories.conversations);
    const writer = createStreamWriter(repositories.conversations, 'answer', { locks: null });
    const put = FakeIDBObjectStore.prototype.put;
    vi.spyOn(FakeIDBObjectStore.prototype, 'put').mockImplementation(function (this: IDBObjectStore, ...args) {
      if (this.name === 'messages') throw new DOMException('full', 'QuotaExceededError');
      return put.apply(this, args);
    });
    const error = await writer.finish({ content: text('Whole answer'), status: 'complete' }).catch((e: unknown) => e);
    expect(isWindowpaneError(error, 'quota_exceeded')).toBe(true);
    expect(await repositories.conversations.getMessage('answer')).toMatchObject({ status: 'streaming', content: [] });

    vi.restoreAllMocks();
    await writer.finish({});
    expect(await repositories.conversations.getMessage('answer')).toMatchObject({ status: 'complete', content: text('Whole answer') });
  });

  it('holds a Web Lock while streaming, so another tab starting up spares the live stream', async () => {
    const { factory, repositories } = await openTestStorage();
    await streamingAnswer(repositories.conversations);
    await repositories.conversations.appendMessage({
      conversationId: 'id-1',
      id: 'orphan',
      role: 'assistant',
      status: 'streaming',
      content: text('left behind'),
    });
    const locks = fakeLocks();
    const writer = createStreamWriter(repositories.conversations, 'answer', { locks });
    writer.update({ content: text('still going') });
    await vi.waitFor(async () => expect((await locks.query()).held?.map((l) => l.name)).toEqual([streamLockName('answer')]));

    const otherTab = createRepositories(await openWindowpaneDb({ factory })).conversations;
    const changed = await otherTab.markInterruptedStreams(await liveStreamChecker(locks));
    expect(changed.map((m) => m.id)).toEqual(['orphan']);
    expect(await otherTab.getMessage('answer')).toMatchObject({ status: 'streaming' });

    await writer.finish({ content: text('still going, done'), status: 'complete' });
    await vi.waitFor(async () => expect((await locks.query()).held).toEqual([]));
    expect((await liveStreamChecker(null))('answer')).toBe(false);
  });

  it('re-asserts streaming when another tab marked the live message interrupted', async () => {
    const { repositories } = await openTestStorage();
    await streamingAnswer(repositories.conversations);
    const { timers, advance } = manualTimers();
    const writer = createStreamWriter(repositories.conversations, 'answer', { intervalMs: 500, timers, locks: null });
    await repositories.conversations.markInterruptedStreams(); // a tab without Web Locks starts up
    writer.update({ content: text('more') });
    advance(500);
    await vi.waitFor(async () => expect(await repositories.conversations.getMessage('answer')).toMatchObject({ status: 'streaming', content: text('more') }));
  });
});
