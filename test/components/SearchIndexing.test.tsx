import { act, cleanup, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { beforeEach, describe, expect, it } from 'vitest';
import type { SearchIndexProgress } from '../../src/persistence';
import type { SearchBuildListener } from '../../src/persistence/searchBuild';
import { changeStorage, renderApp, resetApp, runtime, seedConversation } from './appHarness';

beforeEach(() => {
  cleanup();
  resetApp();
});

/** The real storage, except that builds of the search index are reported as the test says; records each query asked of it. */
function scriptedBuilds() {
  const listeners = new Set<SearchBuildListener>();
  const asked: string[] = [];
  changeStorage((storage) => {
    const search = storage.repositories.search.searchConversations.bind(storage.repositories.search);
    storage.repositories.search.searchConversations = (query, options) => {
      asked.push(query);
      return search(query, options);
    };
    return {
      ...storage,
      watchSearchBuild: (listener: SearchBuildListener) => {
        listeners.add(listener);
        return () => void listeners.delete(listener);
      },
    };
  });
  const report = (progress: SearchIndexProgress | null) => act(() => listeners.forEach((listener) => listener(progress)));
  return { report, asked };
}

describe('the search index being built', () => {
  it('says so under the search box with its progress, warns that results may be incomplete, and asks again when it ends', async () => {
    const otters = await seedConversation('Otters', ['Sea otters hold hands while they sleep.', 'So they do not drift apart.']);
    const { report, asked } = scriptedBuilds();
    renderApp();
    const nav = await screen.findByRole('navigation', { name: 'Conversations' });
    await waitFor(() => expect(runtime.storage).not.toBeNull());
    expect(within(nav).queryByRole('status')).toBeNull();

    report({ done: 41_000, total: 200_000 });
    const status = within(nav).getByRole('status');
    expect(status).toHaveAttribute('aria-live', 'polite');
    expect(status).toHaveTextContent('Indexing messages for search… 41,000 of 200,000');
    expect(status).not.toHaveTextContent(/incomplete/);

    const user = userEvent.setup();
    await user.type(within(nav).getByRole('searchbox', { name: 'Search conversations' }), 'drift');
    await within(nav).findByText('drift', { selector: 'mark' });
    expect(status).toHaveTextContent('Results may be incomplete until indexing finishes.');
    report({ done: 41_500, total: 200_000 });
    expect(status).toHaveTextContent('Indexing messages for search… 41,500 of 200,000');
    expect(status).toHaveTextContent(/incomplete/);

    // Nothing found while the index is built says it may be found later.
    await user.type(within(nav).getByRole('searchbox', { name: 'Search conversations' }), 'zzq');
    expect(await within(nav).findByText('Nothing found in what is indexed so far.')).toBeInTheDocument();
    await user.type(within(nav).getByRole('searchbox', { name: 'Search conversations' }), '{Backspace}{Backspace}{Backspace}');
    await within(nav).findByText('drift', { selector: 'mark' });

    const before = asked.length;
    report(null);
    expect(within(nav).queryByRole('status')).toBeNull();
    await waitFor(() => expect(asked.slice(before)).toEqual(['drift']));
    expect(runtime.store.getState().searchHits?.map((h) => h.conversationId)).toEqual([otters]);
  });

  it('asks nothing again when a build ends with the search box empty', async () => {
    const { report, asked } = scriptedBuilds();
    renderApp();
    const nav = await screen.findByRole('navigation', { name: 'Conversations' });
    await waitFor(() => expect(runtime.storage).not.toBeNull());

    report({ done: 0, total: 900 });
    expect(within(nav).getByRole('status')).toHaveTextContent('Indexing messages for search… 0 of 900');
    report(null);
    expect(within(nav).queryByRole('status')).toBeNull();
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(asked).toEqual([]);
  });
});
