import { cleanup, fireEvent, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { IDBObjectStore as FakeIDBObjectStore } from 'fake-indexeddb';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { SETTINGS_KEY } from '../../src/store/storedSettings';
import { ATTACHMENT_MAX_BYTES } from '../../src/store/attachmentActions';
import type { Settings } from '../../src/store/settings';
import { newVisit, renderApp, resetApp, runtime, seedConversation } from './appHarness';
import { showSettingsSection } from './settingsSections';

async function openApp() {
  renderApp();
  return screen.findByRole('textbox', { name: 'Message' });
}

const text = (name: string, content: string) => new File([content], name, { type: 'text/plain' });
const picker = () => screen.getByLabelText('Files to attach');
const chipNames = () =>
  within(screen.getByRole('list', { name: 'Attached files' }))
    .getAllByRole('listitem')
    .map((li) => li.textContent);
const sidebar = () => within(screen.getByRole('navigation', { name: 'Conversations' }));

/** Closes the page's storage and state and opens the app again on the same IndexedDB, as a reload does (the browser test reloads for real). */
async function reload() {
  cleanup();
  newVisit();
  await openApp();
}

describe('attaching files from the composer (App, fake IndexedDB)', { timeout: 15_000 }, () => {
  beforeEach(() => resetApp());

  it('attaches several files in a new chat: the conversation is created and shows them as chips, also after a reload', async () => {
    await openApp();
    await userEvent.upload(picker(), [text('app.log', 'boot\nready\nfailed: disk full\n'), text('config.json', '{"retries": 3}')]);
    await waitFor(() => expect(chipNames()).toEqual(['app.log29 B×', 'config.json14 B×']));
    expect(sidebar().getByRole('button', { name: 'app.log' })).toHaveAttribute('aria-current', 'page');
    // Stored, not pasted into the conversation.
    expect(screen.queryByRole('article')).not.toBeInTheDocument();
    expect(screen.getByRole('textbox', { name: 'Message' })).toHaveValue('');

    await reload();
    await userEvent.click(sidebar().getByRole('button', { name: 'app.log' }));
    await waitFor(() => expect(chipNames()).toEqual(['app.log29 B×', 'config.json14 B×']));
  });

  it('takes files dropped on the composer', async () => {
    const box = await openApp();
    const files = [text('notes.md', '# Notes')];
    fireEvent.drop(box.closest('form')!, { dataTransfer: { types: ['Files'], files } });
    await waitFor(() => expect(chipNames()).toEqual(['notes.md7 B×']));
  });

  it('attaches to the open conversation, next to its messages', async () => {
    const id = await seedConversation('Deploy notes', ['How do I deploy?', 'Run the script.']);
    await openApp();
    await userEvent.click(sidebar().getByRole('button', { name: 'Deploy notes' }));
    await screen.findByRole('article', { name: 'User message' });
    await userEvent.upload(picker(), text('deploy.sh', '#!/bin/sh\nmake deploy\n'));
    await waitFor(() => expect(chipNames()).toEqual(['deploy.sh22 B×']));
    expect((await runtime.storage!.repositories.files.listAttachments(id)).map((a) => a.name)).toEqual(['deploy.sh']);
    expect(await runtime.storage!.repositories.conversations.listConversations()).toHaveLength(1);
  });

  it('refuses a binary file and one over 5 MB with one clear alert, attaching the rest and keeping the draft', async () => {
    const box = await openApp();
    await userEvent.type(box, 'Why did it fail?');
    await userEvent.upload(picker(), [
      new File([new Uint8Array([0x50, 0x4b, 0x03, 0x04, 0x00, 0x00, 0x00, 0x0d])], 'logs.zip', { type: 'application/zip' }),
      text('app.log', 'failed\n'),
      text('dump.log', 'x'.repeat(ATTACHMENT_MAX_BYTES + 2 * 1024 * 1024)),
    ]);
    const alert = await screen.findByRole('alert');
    expect(alert).toHaveTextContent(
      '2 files were not attached. logs.zip is not a text file (it contains binary data). dump.log is 7 MB, over the 5 MB limit for an attachment.',
    );
    await waitFor(() => expect(chipNames()).toEqual(['app.log7 B×']));
    expect(box).toHaveValue('Why did it fail?');
  });

  it('refuses a file that is not UTF-8 text, and creates no conversation when nothing could be attached', async () => {
    await openApp();
    await userEvent.upload(picker(), new File([new Uint8Array([0x63, 0x61, 0x66, 0xe9])], 'latin1.txt'));
    expect(await screen.findByRole('alert')).toHaveTextContent('latin1.txt is not UTF-8 text. Save it as UTF-8 and attach it again.');
    expect(screen.queryByRole('list', { name: 'Attached files' })).not.toBeInTheDocument();
    expect(sidebar().queryByRole('button', { name: 'latin1.txt' })).not.toBeInTheDocument();
    expect(await runtime.storage!.repositories.conversations.listConversations()).toEqual([]);
  });

  it('attaches a different file under a name already attached as "name (2)", and says so', async () => {
    await openApp();
    await userEvent.upload(picker(), text('app.log', 'monday'));
    await waitFor(() => expect(chipNames()).toEqual(['app.log6 B×']));
    await userEvent.upload(picker(), [text('app.log', 'tuesday!'), text('app.log', 'monday')]);
    await waitFor(() => expect(chipNames()).toEqual(['app.log6 B×', 'app (2).log8 B×']));
    expect(screen.getByRole('status')).toHaveTextContent(
      'A different app.log is already attached, so this one was attached as app (2).log. app.log is already attached.',
    );
  });

  it('says storage is full and keeps the files already attached', async () => {
    await openApp();
    await userEvent.upload(picker(), text('small.txt', 'ok'));
    await waitFor(() => expect(chipNames()).toEqual(['small.txt2 B×']));
    const add = FakeIDBObjectStore.prototype.add;
    vi.spyOn(FakeIDBObjectStore.prototype, 'add').mockImplementation(function (this: IDBObjectStore, ...args) {
      if (this.name === 'attachments') throw new DOMException('The quota has been exceeded.', 'QuotaExceededError');
      return add.apply(this, args);
    });
    await userEvent.upload(picker(), text('big.csv', 'a,b\n1,2\n'));
    expect(await screen.findByRole('alert')).toHaveTextContent(/^Browser storage is full, so Windowpane couldn't save the attachment big\.csv\./);
    expect(chipNames()).toEqual(['small.txt2 B×']);
  });

  it('removes a file at once, with Undo to put it back', async () => {
    await openApp();
    await userEvent.upload(picker(), [text('keep.txt', 'keep'), text('drop.txt', 'drop')]);
    await waitFor(() => expect(chipNames()).toHaveLength(2));
    const before = chipNames();
    await userEvent.click(screen.getByRole('button', { name: 'Remove drop.txt' }));
    await waitFor(() => expect(chipNames()).toEqual(['keep.txt4 B×']));
    const status = screen.getByRole('status');
    expect(status).toHaveTextContent('Removed drop.txt.');
    await userEvent.click(within(status).getByRole('button', { name: 'Undo' }));
    await waitFor(() => expect(chipNames()).toEqual(before));
  });
});

describe('Settings: Tools (App, fake IndexedDB)', { timeout: 15_000 }, () => {
  beforeEach(() => resetApp());

  it('are saved for every conversation, even from the dialog of one conversation, and kept after a reload', async () => {
    await seedConversation('Open one', ['Hello', 'Hi']);
    await openApp();
    await userEvent.click(sidebar().getByRole('button', { name: 'Open one' }));
    await userEvent.click(screen.getByRole('button', { name: 'Settings' }));
    let dialog = within(await screen.findByRole('dialog', { name: 'Settings' }));
    await userEvent.click(dialog.getByRole('radio', { name: 'Only “Open one”' }));
    await showSettingsSection(screen.getByRole('dialog', { name: 'Settings' }), 'Tools');
    await userEvent.click(dialog.getByRole('switch', { name: /^run_javascript/ }));
    const rounds = dialog.getByRole('spinbutton', { name: 'Tool rounds per turn' });
    await userEvent.clear(rounds);
    await userEvent.type(rounds, '8');
    await userEvent.click(dialog.getByRole('button', { name: 'Save' }));
    await waitFor(() => expect(screen.queryByRole('dialog')).not.toBeInTheDocument());
    const saved = await runtime.storage!.repositories.settings.getSetting<Settings>(SETTINGS_KEY);
    expect(saved?.tools).toEqual({ readAttachment: true, runJavascript: false, maxRounds: 8, mcpServers: [] });

    await reload();
    await userEvent.click(screen.getByRole('button', { name: 'Settings' }));
    dialog = await showSettingsSection(await screen.findByRole('dialog', { name: 'Settings' }), 'Tools');
    expect(dialog.getByRole('switch', { name: /^run_javascript/ })).not.toBeChecked();
    expect(dialog.getByRole('switch', { name: /^read_attachment/ })).toBeChecked();
    expect(dialog.getByRole('spinbutton', { name: 'Tool rounds per turn' })).toHaveValue(8);
  });
});
