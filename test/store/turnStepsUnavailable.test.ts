/**
 * Sending when the steps of a turn cannot be loaded (offline before their chunk was saved):
 * nothing is stored, the user is told why, the message goes back into the composer, and
 * the next Send tries the load again.
 */
import { IDBFactory } from 'fake-indexeddb';
import { expect, it, vi } from 'vitest';
import type { ChatProvider } from '../../src/providers';
import * as chat from '../../src/store/sendPipeline';
import { DEFAULT_SETTINGS } from '../../src/store/settings';
import { answer, scriptedRuntime, settled } from './scriptedStore';

const load = vi.hoisted(() => ({ fails: true }));

vi.mock('../../src/store/turnSteps', async (original) => {
  if (load.fails) throw new TypeError('Failed to fetch dynamically imported module');
  return original();
});

it('tells the user, keeps the message and stores nothing when what sends it cannot load', async () => {
  globalThis.indexedDB = new IDBFactory();
  const provider: ChatProvider = {
    id: 'demo',
    wireShape: 'anthropic',
    send: async () => answer([{ type: 'text', text: 'Hello.' }]),
    complete: async () => '',
  };
  const rt = await scriptedRuntime(provider);
  rt.store.setState({ settings: { ...DEFAULT_SETTINGS } });

  expect(chat.send(rt, null, 'Are you there?')).toBe(true);
  await settled(rt);
  expect(rt.store.getState().conversations).toEqual([]);
  expect(rt.store.getState().draft).toBe('Are you there?');
  const [notice] = rt.store.getState().notices;
  expect(notice?.tone).toBe('error');
  expect(notice?.text).toMatch(
    /^Windowpane couldn't load the part that sends messages \(.+\)\. Check the connection and try again\. Your message is back in the message box\.$/,
  );

  load.fails = false;
  vi.resetModules();
  expect(chat.send(rt, null, 'Are you there?')).toBe(true);
  await settled(rt);
  expect(rt.store.getState().conversations).toHaveLength(1);
});
