/**
 * Opening a long conversation: its newest messages show as soon as they are read, and the
 * rest (with the plan) follows; nothing is sent or changed from the part read first.
 */
import { IDBFactory } from 'fake-indexeddb';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import type { ContentBlock, StoredMessage } from '../../src/core';
import type { ChatProvider } from '../../src/providers';
import type { AppState } from '../../src/store/state';
import { openingRows } from '../../src/store/chatView';
import { selectConversation } from '../../src/store/conversationActions';
import { contextFor } from '../../src/store/planning';
import * as chat from '../../src/store/sendPipeline';
import { DEFAULT_SETTINGS } from '../../src/store/settings';
import { answer, scriptedRuntime, settled } from './scriptedStore';

const text = (t: string): ContentBlock => ({ type: 'text', text: t });

function longConversation(id: string, length: number): StoredMessage[] {
  return Array.from({ length }, (_, seq) => ({
    id: `${id}-${seq}`,
    conversationId: id,
    seq,
    parentId: seq === 0 ? null : `${id}-${seq - 1}`,
    role: seq % 2 === 0 ? 'user' : 'assistant',
    kind: 'message',
    content: [text(`Message ${seq} of ${id}.`)],
    createdAt: 1_000 + seq,
    status: 'complete',
  }));
}

async function runtimeWith(conversations: Record<string, number>) {
  const requests: unknown[][] = [];
  const provider: ChatProvider = {
    id: 'anthropic',
    wireShape: 'anthropic',
    async send(request) {
      requests.push(request.messages);
      return answer([text('Answered.')]);
    },
    async complete() {
      return 'Summary.';
    },
  };
  const rt = await scriptedRuntime(provider);
  rt.store.setState({ settings: { ...DEFAULT_SETTINGS, provider: 'anthropic', apiKeys: { anthropic: 'sk-test-key-0123456789' } } });
  for (const [id, length] of Object.entries(conversations)) {
    const messages = longConversation(id, length);
    const conversation = { id, title: id, createdAt: 1_000, updatedAt: 2_000, messageCount: length, activeLeafId: messages.at(-1)!.id };
    await rt.repositories.conversations.restoreConversation({ conversation, messages, attachments: [], files: [] });
    rt.store.setState((s) => ({ conversations: [...s.conversations, conversation] }));
  }
  return { rt, requests };
}

/** Every state the store passes through while `run` runs. */
async function statesDuring(rt: Awaited<ReturnType<typeof runtimeWith>>['rt'], run: () => Promise<void>): Promise<AppState[]> {
  const states: AppState[] = [];
  const stop = rt.store.subscribe((state) => states.push(state));
  await run();
  stop();
  return states;
}

/**
 * Holds the whole read of `id` (of every conversation when none is named) until `release`
 * is called, as a long conversation's whole read takes longer in a browser than its newest part.
 */
function holdWholeRead(rt: Awaited<ReturnType<typeof runtimeWith>>['rt'], id?: string): { release: () => void } {
  let release = () => undefined as void;
  const held = new Promise<void>((resolve) => (release = resolve));
  const getMessages = rt.repositories.conversations.getMessages.bind(rt.repositories.conversations);
  vi.spyOn(rt.repositories.conversations, 'getMessages').mockImplementation(async (conversationId) => {
    if (id === undefined || conversationId === id) await held;
    return getMessages(conversationId);
  });
  return { release };
}

beforeEach(() => {
  globalThis.indexedDB = new IDBFactory();
});

describe('opening a long conversation', () => {
  it('shows its newest messages first, then all of them, and keeps none of the first read', async () => {
    const { rt } = await runtimeWith({ long: 1_000 });
    const { release } = holdWholeRead(rt);
    const reading = statesDuring(rt, () => selectConversation(rt, 'long'));
    await vi.waitFor(() => expect(rt.store.getState().opening).not.toBeNull());
    release();
    const states = await reading;

    const first = states.find((s) => s.opening !== null);
    expect(first?.opening?.conversationId).toBe('long');
    expect(first?.messages['long']).toBeUndefined();
    expect(first?.opening?.newest.map((m) => m.seq)).toEqual(Array.from({ length: 40 }, (_, i) => 960 + i));

    const end = rt.store.getState();
    expect(end.opening).toBeNull();
    expect(end.messages['long']).toHaveLength(1_000);
    // The newest part and the whole arrive in that order, and the whole replaces the part in one step.
    const whole = states.findIndex((s) => s.messages['long'] !== undefined);
    expect(states.indexOf(first!)).toBeLessThan(whole);
    expect(states[whole]!.opening).toBeNull();
  });

  it('shows first the branch this tab showed before a reload, when its end is among the newest messages', async () => {
    const { rt } = await runtimeWith({ long: 1_000 });
    // A second version of the last answer, stored after it; the conversation record still names the first.
    const second: StoredMessage = { ...longConversation('long', 1_000).at(-1)!, id: 'long-999b', seq: 1_000, content: [text('Second version.')] };
    await rt.repositories.conversations.restoreConversation({
      conversation: { ...rt.store.getState().conversations[0]!, messageCount: 1_001 },
      messages: [...longConversation('long', 1_000), second],
      attachments: [],
      files: [],
    });
    const session = new Map([['windowpane:shown-leaves', JSON.stringify({ long: 'long-999b' })]]);
    rt.deps = {
      ...rt.deps,
      session: { getItem: (k) => session.get(k) ?? null, setItem: (k, v) => void session.set(k, v), removeItem: (k) => void session.delete(k) },
    };
    rt.store.setState((s) => ({ conversations: s.conversations.map((c) => ({ ...c, messageCount: 1_001 })) }));
    const { release } = holdWholeRead(rt);
    const opened = selectConversation(rt, 'long');
    await vi.waitFor(() => expect(rt.store.getState().opening).not.toBeNull());
    const rows = openingRows(contextFor(rt, 'long'), rt.store.getState().opening!.newest, rt.store.getState().opening!.leafId);
    expect(rows.map((row) => row.key).slice(-2)).toEqual(['long-998', 'long-999b']);
    release();
    await opened;
  });

  it('reads a short conversation in one go', async () => {
    const { rt } = await runtimeWith({ short: 30 });
    const states = await statesDuring(rt, () => selectConversation(rt, 'short'));
    expect(states.some((s) => s.opening !== null)).toBe(false);
    expect(rt.store.getState().messages['short']).toHaveLength(30);
  });

  it('drops the newest part of a conversation left before it was read', async () => {
    const { rt } = await runtimeWith({ long: 1_000, other: 400 });
    const { release } = holdWholeRead(rt, 'long');
    const opening = selectConversation(rt, 'long');
    await vi.waitFor(() => expect(rt.store.getState().opening?.conversationId).toBe('long'));
    await selectConversation(rt, 'other');
    expect(rt.store.getState().opening).toBeNull();
    release();
    await opening;
    const state = rt.store.getState();
    expect(state.activeId).toBe('other');
    expect(state.opening).toBeNull();
    expect(state.messages['other']).toHaveLength(400);
  });

  it('sends a message typed while it is read after its newest message, with the whole history', async () => {
    const { rt, requests } = await runtimeWith({ long: 300 });
    const opening = selectConversation(rt, 'long');
    expect(chat.send(rt, 'long', 'Sent at once')).toBe(true);
    await opening;
    await settled(rt);
    const stored = rt.store.getState().messages['long']!;
    const sent = stored.find((m) => m.content.some((b) => b.type === 'text' && b.text === 'Sent at once'));
    expect(sent).toMatchObject({ parentId: 'long-299', seq: 300 });
    expect(stored).toHaveLength(302);
    expect(requests).toHaveLength(1);
    expect((requests[0] as unknown[]).length).toBeGreaterThan(40);
  });

  it('shows first only the branch shown, from its end up to the first message read, and nothing when its end was not read', async () => {
    const { rt } = await runtimeWith({});
    const ctx = contextFor(rt, null);
    const at = (id: string, seq: number, parentId: string | null, kind: StoredMessage['kind'] = 'message'): StoredMessage => ({
      id,
      conversationId: 'c',
      seq,
      parentId,
      role: seq % 2 === 0 ? 'user' : 'assistant',
      kind,
      content: [text(id)],
      createdAt: seq,
      status: 'complete',
    });
    // Read first: seq 10 to 15. b is a second version of a (both answer q); s is a summary.
    const newest = [at('q', 10, 'p9'), at('a', 11, 'q'), at('b', 12, 'q'), at('s', 13, null, 'summary'), at('next', 14, 'b'), at('loop', 15, 'loop2')];
    const ids = (leaf: string | undefined) => openingRows(ctx, newest, leaf).map((row) => row.key);
    expect(ids('next')).toEqual(['q', 'b', 'next']);
    expect(ids('a')).toEqual(['q', 'a']);
    expect(ids('p9')).toEqual([]);
    expect(ids(undefined)).toEqual(['loop']);
    expect(ids('s')).toEqual([]);
    const rows = openingRows(ctx, [...newest, at('loop2', 16, 'loop')], 'loop2');
    expect(rows.map((row) => row.key)).toEqual(['loop', 'loop2']);
    expect(rows.every((row) => row.kind === 'message' && !row.notSent && (row.tokens ?? 0) > 0)).toBe(true);
  });
});
