/**
 * The sync engine between two devices, each with its own app database and replicated copy
 * (PouchDB over fake IndexedDB), the copies replicated in-process as the server would. What
 * a device applied from another is not mistaken later for its own change: a deletion made
 * after it still reaches that device.
 */
import { describe, expect, it, vi } from 'vitest';
import { SETTINGS_KEY } from '../../src/persistence';
import { addShown, device, exchange, send, setUpDevices, type Device } from './engineDevices';

setUpDevices();

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
