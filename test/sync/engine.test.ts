/**
 * The sync engine between two devices, each with its own app database and replicated copy
 * (PouchDB over fake IndexedDB), the copies replicated in-process as the server would. What
 * a device applied from another is not mistaken later for its own change: a deletion made
 * after it still reaches that device.
 */
import { IDBFactory } from 'fake-indexeddb';
import PouchDB from 'pouchdb-browser';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createSyncRepositories, createSyncChannel, openWindowpaneDb, SETTINGS_KEY, type Repositories, type WindowpaneDb } from '../../src/persistence';
import { deriveKeys } from '../../src/sync/crypto';
import { docStoreOver } from '../../src/sync/docStore';
import { createEngine, type Engine } from '../../src/sync/engine';
import type { Database as Replica } from '../../src/sync/replication';
import type { SyncKeys } from '../../src/sync/types';

interface Device {
  name: string;
  db: WindowpaneDb;
  repositories: Repositories;
  replica: Replica;
  engine: Engine;
  notices: string[];
}

let clock = 1_700_000_000_000;
const opened: Device[] = [];
let keys: SyncKeys;

async function device(name: string): Promise<Device> {
  const db = await openWindowpaneDb({ factory: new IDBFactory(), name: `app-${name}` });
  const repositories = createSyncRepositories(db, {
    sync: createSyncChannel({ name: `engine-test-${name}-${Math.random()}` }),
    search: { search: async () => ({ hits: [] }), details: async () => [], notify: () => undefined, close: () => undefined },
  });
  const replica = new PouchDB(`replica-${name}-${Math.random()}`) as unknown as Replica;
  const notices: string[] = [];
  const engine = createEngine({
    keys,
    deviceId: `device-${name}`,
    syncApiKeys: false,
    docs: docStoreOver(replica),
    repositories,
    now: () => (clock += 1000),
    events: { progress: () => undefined, refused: () => undefined, notice: (text) => notices.push(text) },
  });
  const d = { name, db, repositories, replica, engine, notices };
  opened.push(d);
  return d;
}

/** What the server does between two devices: each replicated copy gets the other's documents. */
function exchange(a: Device, b: Device): Promise<void> {
  return new Promise((resolve, reject) => {
    a.replica
      .sync(b.replica, {})
      .on('complete', () => resolve())
      .on('error', reject);
  });
}

/** One pass of `from`'s engine sending, the server, and one of `to`'s receiving. */
async function send(from: Device, to: Device): Promise<void> {
  await from.engine.pushAll();
  await exchange(from, to);
  await to.engine.pull();
}

/** Adds a finished message (a question when `parentId` is null, else an answer) and shows it, as a turn does. */
async function addShown(d: Device, conversationId: string, parentId: string | null, text: string): Promise<{ id: string }> {
  const message = await d.repositories.conversations.appendMessage({
    conversationId,
    parentId,
    role: parentId === null ? 'user' : 'assistant',
    content: [{ type: 'text', text }],
  } as never);
  await d.repositories.conversations.setActiveLeaf(conversationId, message.id);
  return message;
}

beforeEach(async () => {
  globalThis.indexedDB = new IDBFactory(); // PouchDB's own databases
  keys ??= await deriveKeys('correct horse battery staple', new Uint8Array(16), 1000);
});
afterEach(async () => {
  for (const d of opened.splice(0)) {
    d.db.close();
    await d.replica.destroy();
  }
});

describe('the sync engine, two devices', () => {
  it('a deletion reaches a device that applied a change of the conversation made on the other', async () => {
    const a = await device('a');
    const b = await device('b');
    const conversations = a.repositories.conversations;
    const conversation = await conversations.createConversation({ title: 'Draft a packing list' });
    const question = await addShown(a, conversation.id, null, 'Pack');
    await send(a, b);
    expect((await b.repositories.conversations.getConversation(conversation.id))?.activeLeafId).toBe(question.id);

    // A answers: the conversation's shown branch changes there, and B applies the change over what it had.
    const answer = await addShown(a, conversation.id, question.id, 'Socks');
    await send(a, b);
    expect((await b.repositories.conversations.getConversation(conversation.id))?.activeLeafId).toBe(answer.id);

    // A deletes it; B added nothing, so it goes from B too.
    await conversations.deleteConversation(conversation.id);
    await send(a, b);
    expect(await b.repositories.conversations.getConversation(conversation.id)).toBeUndefined();
    expect(b.notices).toEqual(['“Draft a packing list” was deleted on another device.']);
    await b.engine.pushAll();
    await exchange(a, b);
    await a.engine.pull();
    expect(await a.repositories.conversations.getConversation(conversation.id)).toBeUndefined();
    expect(a.notices).toEqual([]);
  });

  it('opens each arriving document once: sorting a batch by kind and settling its records read the same decryption', async () => {
    const a = await device('a');
    const b = await device('b');
    const conversation = await a.repositories.conversations.createConversation({ title: 'Count the openings' });
    let parent: string | null = null;
    for (let i = 0; i < 10; i++) parent = (await addShown(a, conversation.id, parent, `message ${i}`)).id;
    await a.engine.pushAll();
    await exchange(a, b);
    const decrypt = vi.spyOn(crypto.subtle, 'decrypt');
    await b.engine.pull();
    const opened = decrypt.mock.calls.length;
    decrypt.mockRestore();
    expect(await b.repositories.conversations.getMessages(conversation.id)).toHaveLength(10);
    // The conversation and its ten messages: one decryption each.
    expect(opened).toBe(11);
  });

  it('a setting changed again on one device is not undone by the other re-sending the value it applied', async () => {
    const a = await device('a');
    const b = await device('b');
    const set = (d: Device, strategy: string) => d.repositories.settings.setSetting(SETTINGS_KEY, { strategy });
    const strategyOn = async (d: Device) => (await d.repositories.settings.getSetting<{ strategy: string }>(SETTINGS_KEY))?.strategy;
    await set(b, 'rolling');
    await b.engine.pushAll();
    await set(a, 'summarize');
    await a.engine.pushAll();
    // Both wrote the settings record: the device whose version lost the conflict merges the two and sends the result.
    await exchange(a, b);
    await Promise.all([a.engine.pull(), b.engine.pull()]);
    await exchange(a, b);
    await Promise.all([a.engine.pull(), b.engine.pull()]);
    expect(await strategyOn(a)).toBe('summarize');
    expect(await strategyOn(b)).toBe('summarize');

    // A changes it again; B, which has changed nothing since, passes before it hears of that.
    await set(a, 'auto');
    await a.engine.pushAll();
    await b.engine.pushAll();
    await exchange(a, b);
    await Promise.all([a.engine.pull(), b.engine.pull()]);
    expect(await strategyOn(a)).toBe('auto');
    expect(await strategyOn(b)).toBe('auto');
  });

  it('syncs the MCP servers but never their secrets, as with the API keys', async () => {
    const a = await device('a');
    const b = await device('b');
    const server = { id: 's1', label: 'Tracker', url: 'https://mcp.example.com/mcp', enabled: true, auth: { type: 'bearer' }, tools: [] };
    await a.repositories.settings.setSetting(SETTINGS_KEY, { tools: { mcpServers: [server] }, mcpSecrets: { s1: 'mcp-token' }, apiKeys: { openai: 'sk-x' } });
    await send(a, b);
    expect(await b.repositories.settings.getSetting(SETTINGS_KEY)).toEqual({ tools: { mcpServers: [server] } });
  });
});
