/**
 * A device's tabs keep writing while its sync engine applies what arrived: the engine reads a
 * record, merges it with the other device's version and writes the result a moment later. A
 * tab's change made in that moment (a branch switched, a summary edited, a message added to a
 * conversation deleted elsewhere) must survive: the engine's write finds the record changed
 * and leaves it, and the next pass merges the change in. Each test makes the tab's change
 * exactly between the engine's read and its write, by running it as the write begins.
 */
import { describe, expect, it } from 'vitest';
import type { StorageChange } from '../../src/persistence';
import { addShown, device, exchange, send, setUpDevices, type Device } from './engineDevices';

setUpDevices();

/** What the sync Worker does when a tab announces a write: settles it, then takes what waits. */
async function tabAnnounced(d: Device, change: StorageChange): Promise<void> {
  await d.engine.pushChange(change);
  await d.engine.pull();
}

/** Runs `tab` once, just before the engine's next call of `method` on `target` writes. */
function onceBefore<T extends object, K extends keyof T>(target: T, method: K, tab: () => Promise<unknown>): void {
  const original = target[method] as (...args: unknown[]) => Promise<unknown>;
  let ran = false;
  target[method] = (async (...args: unknown[]) => {
    if (!ran) {
      ran = true;
      await tab();
    }
    return original.apply(target, args);
  }) as T[K];
}

describe('sync applying a batch while a tab writes', () => {
  it('keeps a branch switched in a tab while a rename from the other device is applied', async () => {
    const [a, b] = [await device('a'), await device('b')];
    const conversation = await a.repositories.conversations.createConversation({ title: 'Plan the trip' });
    const question = await addShown(a, conversation.id, null, 'Where to?');
    const first = await addShown(a, conversation.id, question.id, 'Lisbon');
    const second = await addShown(a, conversation.id, question.id, 'Porto');
    await send(a, b);
    expect((await b.repositories.conversations.getConversation(conversation.id))?.activeLeafId).toBe(second.id);

    await a.repositories.conversations.renameConversation(conversation.id, 'Plan the Portugal trip');
    await a.engine.pushAll();
    await exchange(a, b);
    onceBefore(b.repositories.sync, 'putConversation', () => b.repositories.conversations.setActiveLeaf(conversation.id, first.id));
    await b.engine.pull();
    await tabAnnounced(b, { type: 'conversation-changed', conversationId: conversation.id });

    const onB = await b.repositories.conversations.getConversation(conversation.id);
    expect(onB?.title).toBe('Plan the Portugal trip');
    expect(onB?.activeLeafId).toBe(first.id);
    await send(b, a);
    expect((await a.repositories.conversations.getConversation(conversation.id))?.activeLeafId).toBe(first.id);
  });

  it('keeps a summary edited in a tab while the other device’s pin of it is applied', async () => {
    const [a, b] = [await device('a'), await device('b')];
    const conversation = await a.repositories.conversations.createConversation({ title: 'Reading notes' });
    const question = await addShown(a, conversation.id, null, 'Summarize chapter one');
    const summary = await addShown(a, conversation.id, question.id, 'Chapter one: the voyage begins.');
    await send(a, b);

    await a.repositories.conversations.updateMessage(summary.id, { pinned: true });
    await a.engine.pushAll();
    await exchange(a, b);
    const edited = [{ type: 'text' as const, text: 'Chapter one: the voyage begins in Lisbon.' }];
    onceBefore(b.repositories.sync, 'putMessages', () => b.repositories.conversations.updateMessage(summary.id, { content: edited }));
    await b.engine.pull();
    await tabAnnounced(b, { type: 'messages-changed', conversationId: conversation.id, messageId: summary.id });

    // The edit came later than the pin, and a message's versions are whole: the edited one stands, everywhere.
    expect((await b.repositories.conversations.getMessage(summary.id))?.content).toEqual(edited);
    await send(b, a);
    expect((await a.repositories.conversations.getMessage(summary.id))?.content).toEqual(edited);
  });

  it('keeps a conversation deleted on the other device when a tab adds to it as the deletion is applied', async () => {
    const [a, b] = [await device('a'), await device('b')];
    const conversation = await a.repositories.conversations.createConversation({ title: 'Garden plans' });
    const question = await addShown(a, conversation.id, null, 'What grows in shade?');
    await send(a, b);

    await a.repositories.conversations.deleteConversation(conversation.id);
    await a.engine.pushAll();
    await exchange(a, b);
    let added: { id: string } | undefined;
    onceBefore(b.repositories.conversations, 'deleteConversation', async () => {
      added = await addShown(b, conversation.id, question.id, 'Ferns and hostas.');
    });
    await b.engine.pull();
    await tabAnnounced(b, { type: 'messages-changed', conversationId: conversation.id, messageId: added!.id });

    const messagesOnB = await b.repositories.conversations.getMessages(conversation.id);
    expect(messagesOnB.map((m) => m.id)).toEqual([question.id, added!.id]);
    await send(b, a);
    expect((await a.repositories.conversations.getMessages(conversation.id)).map((m) => m.id)).toEqual([question.id, added!.id]);
    expect(a.notices).toEqual(['“Garden plans”, deleted on this device, was kept: another device added to it meanwhile.']);
  });
});
