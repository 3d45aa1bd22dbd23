/**
 * What the page holds of the history: the messages of the open conversation (and of one
 * being answered), never every conversation opened since the page loaded.
 */
import { IDBFactory } from 'fake-indexeddb';
import { beforeEach, describe, expect, it } from 'vitest';
import type { ContentBlock } from '../../src/core';
import type { ChatProvider } from '../../src/providers';
import { newChat, selectConversation } from '../../src/store/conversationActions';
import * as chat from '../../src/store/sendPipeline';
import { DEFAULT_SETTINGS } from '../../src/store/settings';
import { answer, scriptedRuntime, sendAndSettle, settled } from './scriptedStore';

const text = (t: string): ContentBlock => ({ type: 'text', text: t });

function slowProvider(release: Promise<void>): ChatProvider {
  return {
    id: 'anthropic',
    wireShape: 'anthropic',
    async send(request) {
      const last = request.messages.at(-1)!;
      if (last.content === 'Take your time') await release;
      return answer([text('Done.')]);
    },
    async complete() {
      return 'Summary.';
    },
  };
}

beforeEach(() => {
  globalThis.indexedDB = new IDBFactory();
});

describe('conversations held in memory', () => {
  it('keeps only the open conversation’s messages, and reads a released one again when reopened', async () => {
    let release = () => undefined as void;
    const rt = await scriptedRuntime(slowProvider(new Promise<void>((resolve) => (release = resolve))));
    rt.store.setState({ settings: { ...DEFAULT_SETTINGS, provider: 'anthropic', apiKeys: { anthropic: 'sk-test-key-0123456789' } } });
    const ids: string[] = [];
    for (const word of ['one', 'two', 'three']) {
      newChat(rt);
      ids.push(await sendAndSettle(rt, word));
    }
    for (const id of ids) await selectConversation(rt, id);
    expect(Object.keys(rt.store.getState().messages)).toEqual([ids[2]]);

    await selectConversation(rt, ids[0]!);
    expect(Object.keys(rt.store.getState().messages)).toEqual([ids[0]]);
    expect(rt.store.getState().messages[ids[0]!]!.map((m) => m.role)).toEqual(['user', 'assistant']);

    // A conversation being answered stays while another is open.
    expect(chat.send(rt, ids[0]!, 'Take your time')).toBe(true);
    await selectConversation(rt, ids[1]!);
    expect(Object.keys(rt.store.getState().messages).sort()).toEqual([ids[0], ids[1]].sort());
    release();
    await settled(rt);
  });
});
