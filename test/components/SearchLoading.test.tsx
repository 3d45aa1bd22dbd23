import { act, cleanup, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { beforeEach, describe, expect, it } from 'vitest';
import { changeStorage, renderApp, resetApp, runtime, seedConversation } from './appHarness';

beforeEach(() => {
  cleanup();
  resetApp();
});

/**
 * The real storage, except that its search index answers as one still loading its older
 * conversations: the first asking of a query finds only in `recent` (1 of 2 parts loaded),
 * and asking again (with `after`) waits until the test calls `loadRest`, then answers in full.
 */
function loadingIndex(recent: () => string) {
  const asked: Array<number | undefined> = [];
  let loadRest: () => void = () => undefined;
  const rest = new Promise<void>((resolve) => (loadRest = resolve));
  changeStorage((storage) => {
    const search = storage.repositories.search.searchConversations.bind(storage.repositories.search);
    storage.repositories.search.searchConversations = async (query, options = {}) => {
      asked.push(options.after);
      const answer = await search(query, { limit: options.limit });
      if (options.after === undefined) return { hits: answer.hits.filter((h) => h.conversationId === recent()), loading: { loaded: 1, total: 2 } };
      await rest;
      return answer;
    };
    return storage;
  });
  return { asked, loadRest: () => act(async () => loadRest()) };
}

describe('searching while the index loads', () => {
  it('lists the hits of the conversations loaded, says older ones are still searched, then lists them all', async () => {
    const older = await seedConversation('Lighthouses', ['The keeper logged a gannet at dawn.']);
    const newer = await seedConversation('Birding', ['A gannet dived twice.']);
    const { asked, loadRest } = loadingIndex(() => newer);
    renderApp();
    const nav = await screen.findByRole('navigation', { name: 'Conversations' });
    await waitFor(() => expect(runtime.storage).not.toBeNull());

    await userEvent.setup().type(within(nav).getByRole('searchbox', { name: 'Search conversations' }), 'gannet');
    const status = await within(nav).findByRole('status');
    expect(status).toHaveTextContent('Searching older conversations…');
    expect(status).toHaveAttribute('aria-live', 'polite');
    await waitFor(() => expect(runtime.store.getState().searchHits?.map((h) => h.conversationId)).toEqual([newer]));
    expect(within(nav).getByRole('button', { name: /^Birding/ })).toBeInTheDocument();
    expect(within(nav).queryByRole('button', { name: /^Lighthouses/ })).toBeNull();
    // The query asked once per letter, then again for the rest of the index.
    expect(asked.at(-1)).toBe(1);

    await loadRest();
    await within(nav).findByRole('button', { name: /^Lighthouses/ });
    expect(runtime.store.getState().searchHits?.map((h) => h.conversationId)).toEqual([newer, older]);
    expect(within(nav).queryByRole('status')).toBeNull();
  });

  it('says nothing is found among recent conversations while older ones load, and nothing once the search box is cleared', async () => {
    await seedConversation('Lighthouses', ['The keeper logged a gannet at dawn.']);
    const newer = await seedConversation('Birding', ['A gannet dived twice.']);
    loadingIndex(() => newer);
    renderApp();
    const nav = await screen.findByRole('navigation', { name: 'Conversations' });
    await waitFor(() => expect(runtime.storage).not.toBeNull());

    const user = userEvent.setup();
    const box = within(nav).getByRole('searchbox', { name: 'Search conversations' });
    await user.type(box, 'keeper');
    expect(await within(nav).findByText('Nothing found in recent conversations.')).toBeInTheDocument();
    expect(within(nav).getByRole('status')).toHaveTextContent('Searching older conversations…');

    await user.clear(box);
    await waitFor(() => expect(within(nav).queryByRole('status')).toBeNull());
    expect(runtime.store.getState().searchOlderLoading).toBe(false);
  });
});
