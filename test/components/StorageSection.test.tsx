import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { beforeEach, describe, expect, it } from 'vitest';
import { openWindowpaneStorage, type BrowserStorage } from '../../src/persistence';
import { renderApp, resetApp, runtime, seedConversation } from './appHarness';
import { showSettingsSection } from './settingsSections';

const GB = 1024 ** 3;

/** A browser reporting 52 KB used of 2 GB, not yet persistent, that grants "Keep my data". */
function grantingBrowser(): BrowserStorage {
  let persisted = false;
  return {
    estimate: async () => ({ usage: 52 * 1024, quota: 2 * GB }),
    persisted: async () => persisted,
    persist: async () => (persisted = true),
  };
}

async function attach(conversationId: string, files: Record<string, string>): Promise<void> {
  const storage = await openWindowpaneStorage();
  try {
    for (const [name, text] of Object.entries(files)) await storage.repositories.files.addAttachment({ conversationId, name, text });
  } finally {
    storage.close();
  }
}

/** Opens the app, then Settings, then its Storage section; returns the section once it has measured. */
async function openStorageSection(browserStorage: BrowserStorage = grantingBrowser()) {
  runtime.deps = { ...runtime.deps, browserStorage };
  renderApp();
  await userEvent.click(await screen.findByRole('button', { name: 'Settings' }));
  const dialog = await screen.findByRole('dialog', { name: 'Settings' });
  // Nothing is measured until the section is shown.
  expect(within(dialog).queryByRole('region', { name: 'Storage', hidden: true })).not.toBeInTheDocument();
  await showSettingsSection(dialog, 'Storage');
  const section = within(dialog).getByRole('region', { name: 'Storage' });
  await within(section).findByText(/^About /);
  return within(section);
}

const rowTitles = (section: Awaited<ReturnType<typeof openStorageSection>>) => section.queryAllByRole('rowheader').map((cell) => cell.textContent);

describe('the Storage section of Settings', () => {
  beforeEach(() => resetApp());

  it('shows the history’s size, the browser’s usage of its quota, persistence, and each conversation largest first', async () => {
    await seedConversation('Short chat', ['hi', 'hello']);
    const logs = await seedConversation('Debugging logs', ['look at these', 'I see']);
    await attach(logs, { 'app.log': 'x'.repeat(6000) });
    await seedConversation('Long answer', ['explain', 'y'.repeat(3000)]);
    const section = await openStorageSection();

    expect(section.getByText(/^About \d+(\.\d)? KB$/)).toBeInTheDocument();
    expect(section.getByText(/an estimate/)).toBeInTheDocument();
    const meter = section.getByRole('meter', { name: 'This site’s browser storage' });
    expect(meter).toHaveAttribute('value', String(52 * 1024));
    expect(meter).toHaveAttribute('max', String(2 * GB));
    expect(section.getByText('52 KB of 2 GB used')).toBeInTheDocument();
    expect(section.getByText(/^No: the browser may clear it/)).toBeInTheDocument();

    const table = section.getByRole('table', { name: 'Conversations, largest first' });
    expect(
      within(table)
        .getAllByRole('columnheader')
        .map((h) => h.textContent),
    ).toEqual(['Conversation', 'Messages', 'Size', 'Attachments', 'Actions']);
    expect(rowTitles(section)).toEqual(['Debugging logs', 'Long answer', 'Short chat']);
    const logsRow = within(section.getByRole('row', { name: /^Debugging logs/ }));
    expect(logsRow.getAllByRole('cell').map((c) => c.textContent)).toEqual([
      '2',
      expect.stringMatching(/ KB$/),
      expect.stringMatching(/^\d+(\.\d)? KB \(1 file\)$/),
      'Delete attachmentsDelete conversation',
    ]);
    // Only a conversation with files offers to delete them.
    expect(section.getAllByRole('button', { name: /^Delete attachments of/ })).toHaveLength(1);
    expect(section.getAllByRole('button', { name: /^Delete conversation/ })).toHaveLength(3);
  });

  it('asks the browser to keep the data, and shows that it will', async () => {
    await seedConversation('Worth keeping', ['hi']);
    const section = await openStorageSection();
    await userEvent.click(section.getByRole('button', { name: 'Keep my data' }));
    expect(await section.findByText(/^Yes: the browser will not clear it/)).toBeInTheDocument();
    expect(section.queryByRole('button', { name: 'Keep my data' })).not.toBeInTheDocument();
  });

  it('says what a browser without the Storage API does not report, and offers no button', async () => {
    await seedConversation('Anything', ['hi']);
    const section = await openStorageSection({});
    expect(section.getAllByText('Not reported by this browser.')).toHaveLength(2);
    expect(section.queryByRole('meter')).not.toBeInTheDocument();
    expect(section.queryByRole('button', { name: 'Keep my data' })).not.toBeInTheDocument();
  });

  it('deletes a conversation’s attachments with Undo shown in the section', async () => {
    const id = await seedConversation('Debugging logs', ['look at these']);
    await attach(id, { 'app.log': 'x'.repeat(2000), 'db.log': 'y'.repeat(500) });
    const section = await openStorageSection();

    await userEvent.click(section.getByRole('button', { name: 'Delete attachments of “Debugging logs”' }));

    expect(await section.findByText(/^Deleted 2 attached files from “Debugging logs” \(\d+(\.\d)? KB\)\.$/)).toBeInTheDocument();
    expect(within(section.getByRole('row', { name: /^Debugging logs/ })).getByText('—')).toBeInTheDocument();
    expect(section.queryByRole('button', { name: /^Delete attachments of/ })).not.toBeInTheDocument();
    expect(await runtime.repositories.files.listAttachments(id)).toEqual([]);

    await userEvent.click(section.getByRole('button', { name: 'Undo' }));
    expect(await section.findByRole('button', { name: 'Delete attachments of “Debugging logs”' })).toBeInTheDocument();
    expect((await runtime.repositories.files.listAttachments(id)).map((a) => a.name)).toEqual(['app.log', 'db.log']);
  });

  it('deletes a whole conversation with the usual Undo, shown in the section', async () => {
    await seedConversation('Keep me', ['hi']);
    await seedConversation('Delete me', ['hello', 'z'.repeat(2000)]);
    const section = await openStorageSection();
    expect(rowTitles(section)).toEqual(['Delete me', 'Keep me']);

    await userEvent.click(section.getByRole('button', { name: 'Delete conversation “Delete me”' }));

    expect(await section.findByText('Deleted “Delete me”.')).toBeInTheDocument();
    // The button pressed is gone with its row: focus goes to the Undo.
    await waitFor(() => expect(section.getByRole('button', { name: 'Undo' })).toHaveFocus());
    expect(rowTitles(section)).toEqual(['Keep me']);
    expect(screen.getByRole('navigation', { name: 'Conversations' })).not.toHaveTextContent('Delete me');
    await userEvent.keyboard('{Enter}');
    await waitFor(() => expect(rowTitles(section)).toEqual(['Delete me', 'Keep me']));
    expect(section.getByRole('heading', { name: 'Storage' })).toHaveFocus();
  });

  it('shows each of its notices once: in the section while Settings is open, on the page once it is closed', async () => {
    const id = await seedConversation('Debugging logs', ['look at these']);
    await attach(id, { 'app.log': 'x'.repeat(2000) });
    await seedConversation('Delete me', ['hello']);
    const section = await openStorageSection();

    await userEvent.click(section.getByRole('button', { name: 'Delete attachments of “Debugging logs”' }));
    await userEvent.click(section.getByRole('button', { name: 'Delete conversation “Delete me”' }));
    expect(await section.findByText('Deleted “Delete me”.')).toBeInTheDocument();
    expect(screen.getAllByText(/^Deleted app\.log from “Debugging logs”/)).toHaveLength(1);
    expect(screen.getAllByText('Deleted “Delete me”.')).toHaveLength(1);
    expect(screen.getAllByRole('button', { name: 'Undo' })).toHaveLength(2);
    expect(section.getAllByRole('button', { name: 'Undo' })).toHaveLength(2);

    // Closed, the dialog no longer shows them: the page does, still with Undo.
    await userEvent.click(screen.getByRole('button', { name: 'Cancel' }));
    expect(screen.queryByRole('dialog', { name: 'Settings' })).not.toBeInTheDocument();
    expect(screen.getAllByText('Deleted “Delete me”.')).toHaveLength(1);
    expect(screen.getAllByRole('button', { name: 'Undo' })).toHaveLength(2);
  });

  it('shows the fifty largest conversations and says how many more there are', async () => {
    const storage = await openWindowpaneStorage();
    try {
      for (let n = 1; n <= 53; n++) {
        const { id } = await storage.repositories.conversations.createConversation({ title: `Chat ${n}` });
        await storage.repositories.conversations.appendMessage({ conversationId: id, role: 'user', content: [{ type: 'text', text: 'w'.repeat(n * 10) }] });
      }
    } finally {
      storage.close();
    }
    const section = await openStorageSection();
    const titles = rowTitles(section);
    expect(titles).toHaveLength(50);
    expect(titles.slice(0, 2)).toEqual(['Chat 53', 'Chat 52']);
    expect(section.getByText(/^…and 3 more, each smaller than these\.$/)).toBeInTheDocument();
  });
});
