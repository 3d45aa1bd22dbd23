/**
 * A burst of conversations written elsewhere (the sync Worker's first sync, another tab's
 * import) reaches the list together: one update of the list for the burst, not one per
 * conversation, so the page never re-renders the list hundreds of times in a row.
 */
import { cleanup, screen, waitFor, within } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createSyncChannel, openWindowpaneStorage, SYNC_CHANNEL_NAME } from '../../src/persistence';
import { renderApp, resetApp, runtime } from './appHarness';

const BURST = 60;

beforeEach(() => resetApp());
afterEach(cleanup);

describe('conversations written elsewhere in a burst', () => {
  it('appear together in a few updates of the list, not one per conversation', async () => {
    renderApp();
    const list = await screen.findByRole('navigation', { name: 'Conversations' });
    // Written quietly (on a channel nobody hears), then announced at once as the sync Worker does after a batch.
    const writer = await openWindowpaneStorage({ channel: { name: 'nobody-listens' } });
    const ids: string[] = [];
    for (let i = 0; i < BURST; i++) ids.push((await writer.repositories.conversations.createConversation({ title: `Arrived ${i}` })).id);
    writer.close();

    let updates = 0;
    const unsubscribe = runtime.store.subscribe((state, previous) => {
      if (state.conversations !== previous.conversations) updates++;
    });
    const channel = createSyncChannel({ name: SYNC_CHANNEL_NAME });
    for (const id of ids) channel.announce({ type: 'conversation-changed', conversationId: id });

    await waitFor(() => expect(runtime.store.getState().conversations).toHaveLength(BURST));
    unsubscribe();
    channel.close();
    // One for the burst; a slow machine may hear the last notices after the first read began.
    expect(updates).toBeLessThanOrEqual(3);
    await within(list).findByText('Arrived 59');
  });
});
