import { act, cleanup, fireEvent, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { DETAILED_HITS } from '../../src/persistence/searchIndex';
import { changeStorage, renderApp, resetApp, runtime, seedConversation } from './appHarness';

beforeEach(() => {
  cleanup();
  resetApp();
});

/** The real storage, recording the conversations each request for pending hits names. */
function recordDetails() {
  const asked: string[][] = [];
  changeStorage((storage) => {
    const details = storage.repositories.search.searchHitDetails.bind(storage.repositories.search);
    storage.repositories.search.searchHitDetails = (query, conversationIds) => {
      asked.push([...conversationIds]);
      return details(query, conversationIds);
    };
    return storage;
  });
  return asked;
}

/** The app over `count` conversations, `Trip 0` the oldest, each with a message holding "kestrel"; the sidebar and the details asked. */
async function openTrips(count: number) {
  for (let i = 0; i < count; i++) await seedConversation(`Trip ${i}`, [`Packing list ${i}: a kestrel guide and boots.`, 'Noted.']);
  const asked = recordDetails();
  renderApp();
  const nav = await screen.findByRole('navigation', { name: 'Conversations' });
  await waitFor(() => expect(runtime.storage).not.toBeNull());
  return { asked, nav, list: nav.querySelector('.conversation-list')! };
}

/** Scrolls the conversation list to its end. */
async function scrollToEnd(list: Element) {
  await act(async () => {
    list.scrollTop = 10_000;
    fireEvent.scroll(list);
  });
}

describe('search results in the sidebar', () => {
  afterEach(() => {
    delete (HTMLElement.prototype as Partial<HTMLElement>).scrollTo;
  });

  it('reads the snippets of the rows in the page, and those of the rest once they are scrolled to', async () => {
    const count = 40;
    const { asked, nav, list } = await openTrips(count);

    await userEvent.setup().type(within(nav).getByRole('searchbox', { name: 'Search conversations' }), 'kestrel');
    await waitFor(() => expect(runtime.store.getState().searchHits).toHaveLength(count));
    const listed = runtime.store.getState().searchHits!.map((h) => h.conversationId);
    const rows = () => within(nav).getAllByRole('button', { name: /^Trip \d+/ });
    // Every row in the page ends with its snippet, the query having read the first rows and one more request the others in the page.
    await waitFor(() => {
      for (const row of rows()) expect(row.querySelector('.conversation-snippet mark')).toHaveTextContent('kestrel');
    });
    const inPage = rows().length;
    expect(inPage).toBeGreaterThan(DETAILED_HITS);
    expect(inPage).toBeLessThan(count);
    expect(asked).toEqual([listed.slice(DETAILED_HITS, inPage)]);
    const hits = runtime.store.getState().searchHits!;
    expect(hits.map((h) => h.conversationId)).toEqual(listed);
    expect(hits.slice(inPage).every((h) => h.matchedIn === 'pending')).toBe(true);

    // Scrolled to the end: the last rows are read, and show their snippets.
    await scrollToEnd(list);
    const lastTitle = runtime.store.getState().conversations.find((c) => c.id === listed.at(-1))!.title;
    const last = await within(nav).findByRole('button', { name: new RegExp(`^${lastTitle}\\b`) });
    await waitFor(() => expect(last.querySelector('.conversation-snippet mark')).toHaveTextContent('kestrel'));
    expect(asked.flat()).toEqual(expect.arrayContaining(listed.slice(inPage)));
    expect(new Set(asked.flat()).size).toBe(asked.flat().length); // each asked once
    expect(runtime.store.getState().searchHits!.every((h) => h.matchedIn === 'message')).toBe(true);
  });

  it('lists a search from its top though the list was scrolled down, and the conversations from theirs once it is cleared', async () => {
    // jsdom does not scroll: an element's scrollTo sets its offset and tells of it in a later task, as a browser's does.
    HTMLElement.prototype.scrollTo = function (this: HTMLElement, options?: ScrollToOptions | number) {
      if (typeof options === 'object' && options.top !== undefined) this.scrollTop = options.top;
      setTimeout(() => this.dispatchEvent(new Event('scroll')));
    };
    const count = 40;
    const { asked, nav, list } = await openTrips(count);
    const newest = () =>
      within(nav)
        .queryByText(`Trip ${count - 1}`, { selector: '.conversation-title' })
        ?.closest('button');
    await waitFor(() => expect(newest()).toBeTruthy());
    await scrollToEnd(list);
    expect(newest()).toBeFalsy();

    const user = userEvent.setup();
    const search = within(nav).getByRole('searchbox', { name: 'Search conversations' });
    await user.type(search, 'kestrel');
    await waitFor(() => expect(runtime.store.getState().searchHits).toHaveLength(count));
    // The first hits, the ones the query read, are the rows shown; only the page's rows past them are asked for.
    await waitFor(() => expect(newest()?.querySelector('.conversation-snippet mark')).toHaveTextContent('kestrel'));
    expect(list.scrollTop).toBe(0);
    const listed = runtime.store.getState().searchHits!.map((h) => h.conversationId);
    const inPage = within(nav).getAllByRole('button', { name: /^Trip \d+/ }).length;
    await waitFor(() => expect(asked).toEqual([listed.slice(DETAILED_HITS, inPage)]));

    await scrollToEnd(list);
    expect(newest()).toBeFalsy();
    await user.clear(search);
    await waitFor(() => expect(runtime.store.getState().searchHits).toBeNull());
    expect(newest()).toBeTruthy();
    expect(list.scrollTop).toBe(0);
  });
});
