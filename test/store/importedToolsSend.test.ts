/**
 * A conversation imported from a ChatGPT or Claude export, tool use and all, continued
 * through `send` as the composer calls it, on the real store and fake IndexedDB: the
 * request the provider receives holds every imported tool exchange whole, in a shape the
 * target API accepts, with the tools named under names it accepts.
 */
import { Blob as NodeBlob } from 'node:buffer';
import { IDBFactory } from 'fake-indexeddb';
import { describe, expect, it } from 'vitest';
import { type WindowMessage } from '../../src/core';
import { validateRequest } from '../core/validateRequest';
import type { ChatProvider, ChatRequest } from '../../src/providers';
import { selectConversation } from '../../src/store/conversationActions';
import { DEFAULT_SETTINGS } from '../../src/store/settings';
import { importFiles } from '../../src/store/transferActions';
import { readFixture } from '../core/transfer/fixtures';
import { answer, scriptedRuntime, sendAndSettle } from './scriptedStore';

/** The fixture as the file input hands it over (jsdom's File cannot be read, Node's Blob can). */
const fixture = (name: string) => Object.assign(new NodeBlob([readFixture(name)], { type: 'application/json' }), { name }) as unknown as File;

describe.each(['anthropic', 'openai'] as const)('continuing an imported conversation with tool use (%s)', (provider) => {
  it.each(['chatgpt-tools.json', 'claude-tools.json'])('sends every conversation of %s as a valid request holding its tool exchanges', async (name) => {
    globalThis.indexedDB = new IDBFactory();
    const requests: ChatRequest[] = [];
    const fake: ChatProvider = {
      id: provider,
      wireShape: provider,
      async send(request) {
        requests.push({ ...request, messages: structuredClone(request.messages) as ChatRequest['messages'] });
        return answer([{ type: 'text', text: 'Going on.' }]);
      },
      async complete() {
        return 'Summary.';
      },
    };
    const rt = await scriptedRuntime(fake);
    rt.store.setState({
      settings: {
        ...DEFAULT_SETTINGS,
        provider,
        apiKeys: { [provider]: 'sk-test-key-0123456789' },
        models: { [provider]: provider === 'anthropic' ? 'claude-sonnet-4-6' : 'gpt-5.5' },
      },
    });
    await importFiles(rt, [fixture(name)]);
    const conversations = rt.store.getState().conversations;
    expect(conversations.length).toBeGreaterThan(0);
    for (const conversation of conversations) {
      await selectConversation(rt, conversation.id);
      await sendAndSettle(rt, 'Go on.');
    }
    expect(requests).toHaveLength(conversations.length);
    for (const [i, request] of requests.entries()) {
      expect(validateRequest(request.messages as WindowMessage[], { provider }), `${conversations[i]?.title}`).toEqual({ ok: true, violations: [] });
      const wire = JSON.stringify(request.messages);
      expect(wire).toMatch(provider === 'anthropic' ? /"type":"tool_use"/ : /"tool_calls"/);
      expect(wire).not.toMatch(/<<ImageDisplayed>>|【|[\ue200-\ue204]/);
    }
    // Every tool the requests name, offered or standing in for the history's, has a name the APIs accept.
    for (const request of requests) for (const tool of request.tools ?? []) expect(tool.name).toMatch(/^[A-Za-z0-9_-]{1,64}$/);
  });
});
