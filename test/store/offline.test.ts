/**
 * Sending while the device is offline, through `send` as the composer calls it, on the
 * real store and fake IndexedDB with a scripted provider: a model on another machine is
 * not asked, nothing is stored, the text stays where it was typed and the user is told
 * why; the Demo and a server on this machine still answer.
 */
import { IDBFactory } from 'fake-indexeddb';
import { beforeEach, describe, expect, it } from 'vitest';
import type { ChatProvider, ChatRequest } from '../../src/providers';
import type { Runtime } from '../../src/store/runtime';
import { editAndResend, regenerate } from '../../src/store/messageActions';
import * as chat from '../../src/store/sendPipeline';
import { DEFAULT_SETTINGS, type Settings } from '../../src/store/settings';
import { answer, scriptedRuntime, sendAndSettle } from './scriptedStore';

const OFFLINE_SEND = "You're offline, so the message was not sent. It is still in the box: send it when you're back online.";
const OFFLINE_ANSWER = "You're offline, so no new answer was asked for. Try again when you're back online.";

interface Harness {
  rt: Runtime;
  requests: ChatRequest[];
  /** What navigator.onLine says. */
  network: { online: boolean };
}

async function start(settings: Partial<Settings>): Promise<Harness> {
  globalThis.indexedDB = new IDBFactory();
  const requests: ChatRequest[] = [];
  const id = settings.provider ?? 'demo';
  const provider: ChatProvider = {
    id,
    wireShape: id === 'anthropic' || id === 'demo' ? 'anthropic' : 'openai',
    async send(request) {
      requests.push(request);
      return answer([{ type: 'text', text: `Answer ${requests.length}` }]);
    },
    async complete() {
      return '';
    },
  };
  const rt = await scriptedRuntime(provider);
  const network = { online: true };
  rt.deps.isOnline = () => network.online;
  rt.store.setState({ settings: { ...DEFAULT_SETTINGS, ...settings } });
  return { rt, requests, network };
}

const anthropic: Partial<Settings> = { provider: 'anthropic', apiKeys: { anthropic: 'sk-ant-test-0123456789' }, models: { anthropic: 'claude-sonnet-4-6' } };
const notices = (rt: Runtime) => rt.store.getState().notices.map((n) => ({ tone: n.tone, text: n.text }));

describe('sending while offline', () => {
  let h: Harness;
  beforeEach(async () => {
    h = await start(anthropic);
  });

  it('refuses a message for a provider across the network: nothing stored, the draft kept, the reason shown', async () => {
    h.rt.store.setState({ draft: 'Are you there?' });
    h.network.online = false;
    expect(chat.send(h.rt, null, 'Are you there?')).toBe(false);
    const state = h.rt.store.getState();
    expect(state.conversations).toEqual([]);
    expect(state.sendingId).toBeNull();
    expect(state.draft).toBe('Are you there?');
    expect(h.requests).toEqual([]);
    expect(notices(h.rt)).toEqual([{ tone: 'warning', text: OFFLINE_SEND }]);
    expect(await h.rt.repositories.conversations.listConversations()).toEqual([]);
  });

  it('sends once back online, and the offline notice goes', async () => {
    h.network.online = false;
    expect(chat.send(h.rt, null, 'Are you there?')).toBe(false);
    h.network.online = true;
    await sendAndSettle(h.rt, 'Are you there?');
    expect(h.requests).toHaveLength(1);
    expect(notices(h.rt)).toEqual([]);
  });

  it('refuses an edit (the edit box keeps its text) and a regenerated answer in an existing conversation', async () => {
    const id = await sendAndSettle(h.rt, 'First question');
    const [question, reply] = h.rt.store.getState().messages[id]!;
    h.network.online = false;
    expect(editAndResend(h.rt, question!.id, 'First question, edited')).toBe(false);
    expect(notices(h.rt)).toEqual([{ tone: 'warning', text: OFFLINE_SEND }]);
    await regenerate(h.rt, reply!.id);
    expect(notices(h.rt)).toEqual([{ tone: 'warning', text: OFFLINE_ANSWER }]);
    expect(h.requests).toHaveLength(1);
    expect(h.rt.store.getState().messages[id]).toHaveLength(2);
    expect(await h.rt.repositories.conversations.getMessages(id)).toHaveLength(2);
  });

  it.each<[string, Partial<Settings>]>([
    ['the Demo, which runs in this page', { provider: 'demo' }],
    ['a server on this machine (Ollama on localhost)', { provider: 'openai-compatible', models: { 'openai-compatible': 'llama3' } }],
    ['an Anthropic base URL on 127.0.0.1', { ...anthropic, baseUrls: { anthropic: 'http://127.0.0.1:8080' } }],
  ])('still sends to %s', async (_name, settings) => {
    h = await start(settings);
    h.network.online = false;
    await sendAndSettle(h.rt, 'Still here?');
    expect(h.requests).toHaveLength(1);
    expect(notices(h.rt).filter((n) => n.text === OFFLINE_SEND)).toEqual([]);
  });
});
