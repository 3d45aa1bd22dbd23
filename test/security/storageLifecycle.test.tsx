// The storage lifecycle is never silent: an older tab blocking the schema upgrade gets a
// message naming what to do, and the app continues by itself once it is closed; a newer
// tab upgrading, or the browser closing the connection, asks for a reload at once.
import { act, screen, waitFor, within } from '@testing-library/react';
import { beforeEach, describe, expect, it } from 'vitest';
import { SafeApp } from '../../src/App';
import { forceCloseDatabase } from 'fake-indexeddb';
import { unwrap } from 'idb';
import { DB_NAME, MIGRATIONS, openWindowpaneDb } from '../../src/persistence/db';
import { renderApp, resetApp, runtime } from '../components/appHarness';

beforeEach(() => resetApp());

/** Opens the app's database at `version` as another tab would, and keeps the connection open. */
function openAs(version: number, options: { closeOnVersionChange?: boolean } = {}): Promise<IDBDatabase> {
  return new Promise((resolve, reject) => {
    const request = indexedDB.open(DB_NAME, version);
    request.onerror = () => reject(request.error);
    request.onsuccess = () => {
      const db = request.result;
      if (options.closeOnVersionChange) db.onversionchange = () => db.close();
      resolve(db);
    };
  });
}

describe('storage lifecycle', () => {
  it('tells the user to close the older tab when it blocks the upgrade, and opens once it is closed', async () => {
    // An older tab: the schema at version 1, its connection deaf to versionchange.
    (await openWindowpaneDb({ migrations: MIGRATIONS.slice(0, 1) })).close();
    const olderTab = await openAs(1);
    renderApp(<SafeApp />);
    const blocked = await screen.findByRole('alert');
    expect(blocked).toHaveTextContent('another Windowpane tab is still using the old version');
    expect(blocked).toHaveTextContent('Close or reload the other Windowpane tabs');
    expect(screen.queryByRole('textbox', { name: 'Message' })).toBeNull();
    olderTab.close();
    expect(await screen.findByRole('textbox', { name: 'Message' }, { timeout: 5000 })).toBeInTheDocument();
    expect(screen.queryByRole('alert')).toBeNull();
  });

  it('asks for a reload, with a Reload button, when a newer tab upgrades the storage', async () => {
    renderApp(<SafeApp />);
    await screen.findByRole('textbox', { name: 'Message' });
    const newerTab = await openAs(MIGRATIONS.at(-1)!.version + 1, { closeOnVersionChange: true });
    const alert = await screen.findByRole('alert');
    expect(alert).toHaveTextContent('Windowpane was updated in another tab');
    expect(alert).toHaveTextContent('Reload this tab to keep working');
    expect(within(alert).getByRole('button', { name: 'Reload' })).toBeInTheDocument();
    expect(runtime.store.getState().storageNeedsReload).toBe(true);
    newerTab.close();
  });

  it('asks for a reload when the browser closes the connection', async () => {
    renderApp(<SafeApp />);
    await screen.findByRole('textbox', { name: 'Message' });
    // What the browser does when site data is cleared while the tab is open.
    await act(async () => {
      forceCloseDatabase(unwrap(runtime.storage!.db) as unknown as Parameters<typeof forceCloseDatabase>[0]);
    });
    await waitFor(() => expect(screen.getByRole('alert')).toHaveTextContent('The browser closed Windowpane’s storage'));
    expect(within(screen.getByRole('alert')).getByRole('button', { name: 'Reload' })).toBeInTheDocument();
  });
});
