import { act, cleanup, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { syncProblemText } from '../../src/store/syncText';
import type { ConnectResult, SyncService, SyncStatus } from '../../src/sync/types';
import type { ConnectInput } from '../../src/sync/types';
import { newVisit, renderApp, resetApp, runtime } from './appHarness';
import { showSettingsSection } from './settingsSections';

const URL_ = 'https://couch.example.com/windowpane';
const PASSPHRASE = 'correct horse battery';

/** Keys like those `connect` derives from a passphrase: non-extractable, so they are stored as CryptoKeys. */
async function newKeys() {
  const encrypt = await crypto.subtle.generateKey({ name: 'AES-GCM', length: 256 }, false, ['encrypt', 'decrypt']);
  const ids = await crypto.subtle.generateKey({ name: 'HMAC', hash: 'SHA-256' }, false, ['sign']);
  return { encrypt, ids };
}

/**
 * A sync service that accepts any server (or answers what `answer` says), records what it is
 * asked, and lets the test report statuses through the `onStatus` it was given.
 */
function fakeSync(answer?: (input: ConnectInput) => Promise<ConnectResult>) {
  let onStatus: ((status: SyncStatus) => void) | undefined;
  const service = {
    connect: vi.fn<SyncService['connect']>(answer ?? (async () => ({ ok: true, keys: await newKeys(), created: true }))),
    start: vi.fn<SyncService['start']>((_config, events) => (onStatus = events.status)),
    syncNow: vi.fn<SyncService['syncNow']>(),
    pause: vi.fn<SyncService['pause']>(),
    resume: vi.fn<SyncService['resume']>(),
    stop: vi.fn<SyncService['stop']>(async () => undefined),
  } satisfies SyncService;
  const report = (status: SyncStatus) =>
    act(() => {
      if (!onStatus) throw new Error('report before start');
      onStatus(status);
    });
  return { service, report };
}

/** Opens the app, then Settings and its Sync section; returns the section. */
async function openSyncSection() {
  renderApp();
  await userEvent.click(await screen.findByRole('button', { name: 'Settings' }));
  const dialog = await screen.findByRole('dialog', { name: 'Settings' });
  await showSettingsSection(dialog, 'Sync');
  return within(within(dialog).getByRole('region', { name: 'Sync' }));
}

type Section = Awaited<ReturnType<typeof openSyncSection>>;

async function fillIn(section: Section, fields: { url?: string; username?: string; password?: string; passphrase?: string }) {
  const user = userEvent.setup();
  const type = async (label: string, text: string | undefined) => {
    const field = section.getByLabelText(label);
    await user.clear(field);
    if (text) await user.type(field, text);
  };
  await type('Server URL', fields.url ?? URL_);
  await type('Username', fields.username ?? 'ada');
  await type('Password', fields.password ?? 'couch pw');
  await type('Passphrase', fields.passphrase ?? PASSPHRASE);
}

/** The sidebar's sync status (the only status named "Sync" on the page). */
/** The sidebar's status line: a chunk of its own, shown once sync is on (so awaited). */
const sidebarStatus = () => within(screen.getByRole('navigation', { name: 'Conversations' })).findByRole('status', { name: 'Sync' });
const sidebar = () => within(screen.getByRole('navigation', { name: 'Conversations' }));

async function turnOn(section: Section) {
  await fillIn(section, {});
  await userEvent.click(section.getByRole('button', { name: 'Turn on sync' }));
  await section.findByRole('button', { name: 'Turn off sync on this device' });
}

describe('Settings → Sync', () => {
  let sync: ReturnType<typeof fakeSync>;
  beforeEach(() => {
    cleanup();
    sync = fakeSync();
    resetApp({ sync: sync.service });
  });

  it('says what sync does and asks for the server, the credentials and a passphrase, with API keys left out by default', async () => {
    const section = await openSyncSection();
    expect(section.getByText(/^Keep your conversations on every device through your own CouchDB server\. Everything is encrypted/)).toBeInTheDocument();
    expect(section.getByRole('textbox', { name: 'Server URL' })).toHaveAttribute('placeholder', URL_);
    expect(section.getByRole('textbox', { name: 'Username' })).toHaveValue('');
    expect(section.getByLabelText('Password')).toHaveAttribute('type', 'password');
    const passphrase = section.getByLabelText('Passphrase');
    expect(passphrase).toHaveAttribute('type', 'password');
    expect(passphrase).toHaveAccessibleDescription('At least 10 characters. Use the same passphrase on every device; it cannot be recovered.');
    expect(section.getByRole('checkbox', { name: 'Also sync my keys (encrypted)' })).not.toBeChecked();
    expect(section.queryByRole('checkbox', { name: /unencrypted/ })).not.toBeInTheDocument();
    expect(sidebar().queryByRole('status', { name: 'Sync' })).not.toBeInTheDocument();
  });

  it('checks the server with the trimmed URL and the typed credentials, then starts, and forgets the secrets it was typed', async () => {
    const section = await openSyncSection();
    await fillIn(section, { url: `  ${URL_}  `, username: 'ada', password: 'couch pw' });
    await userEvent.click(section.getByRole('checkbox', { name: 'Also sync my keys (encrypted)' }));
    await userEvent.click(section.getByRole('button', { name: 'Turn on sync' }));

    await section.findByRole('button', { name: 'Turn off sync on this device' });
    expect(sync.service.connect).toHaveBeenCalledExactlyOnceWith({ serverUrl: URL_, username: 'ada', password: 'couch pw', passphrase: PASSPHRASE });
    expect(sync.service.start).toHaveBeenCalledOnce();
    const [config] = sync.service.start.mock.calls[0]!;
    expect(config).toMatchObject({ serverUrl: URL_, username: 'ada', password: 'couch pw', syncApiKeys: true });
    expect(config.keys.encrypt).toBeInstanceOf(CryptoKey);
    // Where it syncs, as text; no field asks for anything any more.
    expect(section.getByText(URL_)).toBeInTheDocument();
    expect(section.getByText('ada')).toBeInTheDocument();
    expect(section.queryByRole('textbox')).not.toBeInTheDocument();
    expect(section.queryByLabelText('Passphrase')).not.toBeInTheDocument();
    expect(section.getByRole('button', { name: 'Sync now' })).toHaveFocus();
    expect(await sidebarStatus()).toHaveTextContent('Sync is starting…');

    // Turned off again, the form is back empty: the password and passphrase were not kept.
    await userEvent.click(section.getByRole('button', { name: 'Turn off sync on this device' }));
    await userEvent.click(section.getByRole('button', { name: 'Turn off' }));
    expect(await section.findByLabelText('Password')).toHaveValue('');
    expect(section.getByLabelText('Passphrase')).toHaveValue('');
  });

  it('says “Checking the server…” while it checks, and a second press does nothing', async () => {
    let answer: (result: ConnectResult) => void = () => undefined;
    sync.service.connect.mockImplementation(() => new Promise((resolve) => (answer = resolve)));
    const section = await openSyncSection();
    await fillIn(section, {});
    await userEvent.click(section.getByRole('button', { name: 'Turn on sync' }));

    const checking = section.getByRole('button', { name: 'Checking the server…' });
    expect(checking).toHaveAttribute('aria-disabled', 'true');
    expect(checking).toHaveFocus();
    await userEvent.click(checking);
    expect(sync.service.connect).toHaveBeenCalledOnce();

    const keys = await newKeys();
    await act(async () => answer({ ok: true, keys, created: false }));
    expect(await section.findByRole('button', { name: 'Turn off sync on this device' })).toBeInTheDocument();
  });

  it.each([
    ['a short passphrase', { passphrase: 'too short' }, 'Choose a passphrase of at least 10 characters; every device needs the same one.'],
    ['a URL without a database', { url: 'https://couch.example.com/' }, 'Add the database’s name to the URL, such as https://couch.example.com/windowpane.'],
    [
      'a plain-http server on another machine, unconfirmed',
      { url: 'http://couch.example.com/windowpane' },
      'Confirm that your username and password may travel unencrypted to http://couch.example.com, or use an https address.',
    ],
  ])('refuses %s without asking the server', async (_what, fields, message) => {
    const section = await openSyncSection();
    await fillIn(section, fields);
    await userEvent.click(section.getByRole('button', { name: 'Turn on sync' }));
    expect(section.getByRole('alert')).toHaveTextContent(message);
    expect(section.getByRole('button', { name: 'Turn on sync' })).toHaveAccessibleDescription(message);
    expect(sync.service.connect).not.toHaveBeenCalled();
    expect(sidebar().queryByRole('status', { name: 'Sync' })).not.toBeInTheDocument();
  });

  it('sends credentials over plain http to another machine only once that origin is confirmed', async () => {
    const section = await openSyncSection();
    await fillIn(section, { url: 'http://couch.example.com/windowpane' });
    const confirm = section.getByRole('checkbox', { name: 'Send my username and password unencrypted to http://couch.example.com' });
    expect(confirm).not.toBeChecked();
    await userEvent.click(confirm);
    // Another machine asks again.
    await fillIn(section, { url: 'http://couch.example.org/windowpane' });
    const other = section.getByRole('checkbox', { name: 'Send my username and password unencrypted to http://couch.example.org' });
    expect(other).not.toBeChecked();
    await userEvent.click(section.getByRole('button', { name: 'Turn on sync' }));
    expect(section.getByRole('alert')).toHaveTextContent(/^Confirm that your username and password may travel unencrypted to http:\/\/couch\.example\.org/);
    expect(sync.service.connect).not.toHaveBeenCalled();

    await userEvent.click(other);
    await userEvent.click(section.getByRole('button', { name: 'Turn on sync' }));
    await section.findByRole('button', { name: 'Turn off sync on this device' });
    expect(sync.service.connect).toHaveBeenCalledExactlyOnceWith(expect.objectContaining({ serverUrl: 'http://couch.example.org/windowpane' }));
  });

  it('asks nothing more of a plain-http server on this machine', async () => {
    const section = await openSyncSection();
    await fillIn(section, { url: 'http://localhost:5984/windowpane' });
    expect(section.queryByRole('checkbox', { name: /unencrypted/ })).not.toBeInTheDocument();
    await userEvent.click(section.getByRole('button', { name: 'Turn on sync' }));
    await section.findByRole('button', { name: 'Turn off sync on this device' });
  });

  it('says a wrong passphrase beside the button and leaves sync off', async () => {
    sync.service.connect.mockResolvedValue({ ok: false, problem: { code: 'wrong_passphrase' } });
    const section = await openSyncSection();
    await fillIn(section, {});
    await userEvent.click(section.getByRole('button', { name: 'Turn on sync' }));

    expect(await section.findByRole('alert')).toHaveTextContent(syncProblemText({ code: 'wrong_passphrase' }));
    expect(section.getByRole('alert')).toHaveTextContent(/^Wrong passphrase: /);
    expect(sync.service.start).not.toHaveBeenCalled();
    expect(section.getByRole('button', { name: 'Turn on sync' })).toBeInTheDocument();
    expect(section.getByLabelText('Passphrase')).toHaveValue(PASSPHRASE);
    expect(sidebar().queryByRole('status', { name: 'Sync' })).not.toBeInTheDocument();
    expect(runtime.store.getState().sync).toBeNull();
  });

  it('turns sync on when Enter is pressed in a field, without saving and closing the dialog', async () => {
    const section = await openSyncSection();
    await fillIn(section, {});
    await userEvent.type(section.getByLabelText('Passphrase'), '{Enter}');
    await section.findByRole('button', { name: 'Turn off sync on this device' });
    expect(sync.service.connect).toHaveBeenCalledOnce();
    expect(screen.getByRole('dialog', { name: 'Settings' })).toBeInTheDocument();
    expect(runtime.store.getState().settingsOpen).toBe(true);
  });

  it('shows the status the service reports in the sidebar and the section, and refused records', async () => {
    const section = await openSyncSection();
    await turnOn(section);

    await sync.report({ phase: 'sending', progress: { done: 3, total: 10 } });
    expect(screen.getAllByRole('status', { name: 'Sync' })).toHaveLength(1);
    expect(await sidebarStatus()).toHaveTextContent('Sending 3 of 10…');
    expect(section.getByText('Sending 3 of 10…')).toBeInTheDocument();

    await sync.report({ phase: 'synced', lastSyncedAt: Date.now() });
    expect(await sidebarStatus()).toHaveTextContent(/^Synced at \d{1,2}:\d{2}/);
    expect(section.getByText(/^Synced at /)).toBeInTheDocument();

    await sync.report({ phase: 'synced', lastSyncedAt: Date.now(), refused: { count: 2, lastId: 'x' } });
    expect(await sidebarStatus()).toHaveTextContent('2 records from the server failed their integrity check and were not applied.');

    await sync.report({ phase: 'stopped', problem: { code: 'unauthorized' } });
    expect(await sidebarStatus()).toHaveTextContent('Sync stopped: The server refused the username or password.');
  });

  it('syncs now, pauses and resumes from the sidebar and from the section', async () => {
    const section = await openSyncSection();
    await turnOn(section);

    await sync.report({ phase: 'synced', lastSyncedAt: Date.now() });
    // Quiet once synced: Sync now alone.
    expect(sidebar().queryByRole('button', { name: 'Pause' })).not.toBeInTheDocument();
    await userEvent.click(sidebar().getByRole('button', { name: 'Sync now' }));
    await userEvent.click(section.getByRole('button', { name: 'Sync now' }));
    expect(sync.service.syncNow).toHaveBeenCalledTimes(2);

    await sync.report({ phase: 'receiving', progress: { done: 5 } });
    await userEvent.click(sidebar().getByRole('button', { name: 'Pause' }));
    expect(sync.service.pause).toHaveBeenCalledOnce();

    await sync.report({ phase: 'paused' });
    expect(await sidebarStatus()).toHaveTextContent('Sync paused.');
    expect(sidebar().queryByRole('button', { name: 'Pause' })).not.toBeInTheDocument();
    await userEvent.click(sidebar().getByRole('button', { name: 'Resume' }));
    await userEvent.click(section.getByRole('button', { name: 'Resume' }));
    expect(sync.service.resume).toHaveBeenCalledTimes(2);

    await sync.report({ phase: 'synced', lastSyncedAt: Date.now() });
    await userEvent.click(section.getByRole('button', { name: 'Pause' }));
    expect(sync.service.pause).toHaveBeenCalledTimes(2);
  });

  it('asks before turning off, then stops and forgets this device’s copy, and the form returns', async () => {
    const section = await openSyncSection();
    await turnOn(section);

    await userEvent.click(section.getByRole('button', { name: 'Turn off sync on this device' }));
    expect(section.getByText(/Your conversations stay on this device and on the server\.$/)).toBeInTheDocument();
    await waitFor(() => expect(section.getByRole('button', { name: 'Keep syncing' })).toHaveFocus());
    await userEvent.click(section.getByRole('button', { name: 'Keep syncing' }));
    expect(section.queryByRole('button', { name: 'Turn off' })).not.toBeInTheDocument();
    expect(sync.service.stop).not.toHaveBeenCalled();

    await userEvent.click(section.getByRole('button', { name: 'Turn off sync on this device' }));
    await userEvent.click(section.getByRole('button', { name: 'Turn off' }));
    expect(await section.findByRole('button', { name: 'Turn on sync' })).toBeInTheDocument();
    expect(sync.service.stop).toHaveBeenCalledExactlyOnceWith({ forget: true });
    expect(sidebar().queryByRole('status', { name: 'Sync' })).not.toBeInTheDocument();
    expect(section.getByLabelText('Server URL')).toHaveFocus();
  });

  it('syncs again on the next visit from what it stored, without asking for the passphrase', async () => {
    const section = await openSyncSection();
    await turnOn(section);
    cleanup();

    const next = fakeSync();
    newVisit({ sync: next.service });
    renderApp();
    await waitFor(() => expect(next.service.start).toHaveBeenCalledOnce());
    expect(next.service.connect).not.toHaveBeenCalled();
    const [config] = next.service.start.mock.calls[0]!;
    expect(config).toMatchObject({ serverUrl: URL_, username: 'ada', password: 'couch pw', syncApiKeys: false });
    expect(config.keys.ids).toBeInstanceOf(CryptoKey);
    expect(await sidebarStatus()).toHaveTextContent('Sync is starting…');
    await next.report({ phase: 'synced', lastSyncedAt: Date.now() });
    expect(await sidebarStatus()).toHaveTextContent(/^Synced at /);

    await userEvent.click(screen.getByRole('button', { name: 'Settings' }));
    await showSettingsSection(await screen.findByRole('dialog', { name: 'Settings' }), 'Sync');
    const again = within(screen.getByRole('region', { name: 'Sync' }));
    expect(again.getByText(URL_)).toBeInTheDocument();
    expect(again.queryByLabelText('Passphrase')).not.toBeInTheDocument();
  });

  it('shows its notices in the section while Settings is open, and on the page once it is closed', async () => {
    const section = await openSyncSection();
    act(() => void runtime.notifier.notify({ tone: 'error', text: 'Sync could not save its settings.', section: 'sync' }));
    expect(section.getByText('Sync could not save its settings.')).toBeInTheDocument();
    expect(screen.getAllByText('Sync could not save its settings.')).toHaveLength(1);

    await userEvent.click(screen.getByRole('button', { name: 'Cancel' }));
    expect(screen.getAllByText('Sync could not save its settings.')).toHaveLength(1);
  });

  it('offers nothing where the browser cannot sync', async () => {
    cleanup();
    resetApp();
    const section = await openSyncSection();
    expect(section.getByText('Sync is not available in this browser.')).toBeInTheDocument();
    expect(section.queryByRole('textbox')).not.toBeInTheDocument();
    expect(section.queryByRole('button')).not.toBeInTheDocument();
  });
});
