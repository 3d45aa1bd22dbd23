// The app is never blank. Stored records another version or a hand edit wrote are shown
// repaired or left out, with a notice. Whatever still fails to render (a bug, an input no
// check foresaw: injected into the store here) is caught: one message shows its plain
// text, a conversation that cannot render leaves the sidebar and offers its export, and
// the app's last resort offers Reload and Export all.
import { act, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { SafeApp } from '../../src/App';
import { renderApp, resetApp, runtime, seedConversation } from '../components/appHarness';

beforeEach(() => {
  resetApp();
  // react-error-boundary and React report each caught error on the console; that is expected here.
  vi.spyOn(console, 'error').mockImplementation(() => {});
});

/** Changes stored records of `store` as another version (or a hand edit) might have left them. */
async function rewriteRecords(store: 'conversations' | 'messages', change: (record: Record<string, unknown>) => void): Promise<void> {
  await new Promise<void>((resolve, reject) => {
    const open = indexedDB.open('windowpane');
    open.onerror = () => reject(open.error);
    open.onsuccess = () => {
      const db = open.result;
      const tx = db.transaction(store, 'readwrite');
      const objects = tx.objectStore(store);
      const all = objects.getAll();
      all.onsuccess = () => {
        for (const record of all.result as Record<string, unknown>[]) {
          change(record);
          objects.put(record);
        }
      };
      tx.oncomplete = () => {
        db.close();
        resolve();
      };
      tx.onerror = () => reject(tx.error);
    };
  });
}

async function openApp(): Promise<void> {
  renderApp(<SafeApp />);
  await screen.findByRole('textbox', { name: 'Message' });
}

async function openConversation(title: string): Promise<void> {
  await userEvent.click(within(screen.getByRole('navigation', { name: 'Conversations' })).getByRole('button', { name: title }));
}

/** Captures what the app hands the browser to download. */
function captureDownloads(): Blob[] {
  const blobs: Blob[] = [];
  URL.createObjectURL = (blob: Blob) => {
    blobs.push(blob);
    return `blob:download-${blobs.length}`;
  };
  URL.revokeObjectURL = () => {};
  return blobs;
}

/** Puts a value into the store's state for one render, as a bug or an input no check foresaw would. */
function injectState(change: (state: ReturnType<typeof runtime.store.getState>) => Partial<ReturnType<typeof runtime.store.getState>>): void {
  act(() => runtime.store.setState(change(runtime.store.getState())));
}

describe('stored records another version wrote', () => {
  it('are shown repaired or left out, with a notice, and stay in storage unchanged', async () => {
    const id = await seedConversation('Mixed records', ['first question', 'an answer with a broken model field', 'second question', 'a fine answer']);
    await rewriteRecords('messages', (record) => {
      if (record.conversationId === id && record.seq === 1) record.model = { name: 'not a string' };
      if (record.conversationId === id && record.seq === 2) record.content = [null];
    });
    await rewriteRecords('conversations', (record) => {
      record.title = { text: 'not a string' };
    });
    await openApp();
    expect(await screen.findByText(/1 stored conversation has fields this version cannot read/)).toBeInTheDocument();
    await openConversation('Untitled conversation');
    expect(await screen.findByText('a fine answer')).toBeInTheDocument();
    expect(await screen.findByText(/2 stored messages are in a form this version cannot read, so they are left out here/)).toBeInTheDocument();
    expect(screen.queryByText('second question')).toBeNull();
    // Nothing was rewritten: the records are as the other version left them.
    const stored = await new Promise<Record<string, unknown>[]>((resolve) => {
      const open = indexedDB.open('windowpane');
      open.onsuccess = () => {
        const all = open.result.transaction('messages').objectStore('messages').getAll();
        all.onsuccess = () => {
          open.result.close();
          resolve(all.result as Record<string, unknown>[]);
        };
      };
    });
    expect(stored.find((record) => record.seq === 2)?.content).toEqual([null]);
  });
});

describe('the app is never blank', () => {
  it('shows a message that cannot be rendered as its plain text, and the rest of the conversation as usual', async () => {
    const id = await seedConversation('Broken answer', ['first question', 'an answer whose model field breaks', 'second question', 'a fine answer']);
    await openApp();
    await openConversation('Broken answer');
    await screen.findByText('a fine answer');
    // An object where the model's name belongs: rendering the message's header throws.
    injectState((s) => ({
      messages: { ...s.messages, [id]: s.messages[id]!.map((m) => (m.seq === 1 ? { ...m, model: { name: 'x' } as unknown as string } : m)) },
    }));
    expect(await screen.findByText('This message could not be rendered, so its plain text is shown.')).toBeInTheDocument();
    expect(screen.getByText('an answer whose model field breaks')).toBeInTheDocument();
    expect(screen.getByText('a fine answer')).toBeInTheDocument();
    expect(screen.getAllByRole('article', { name: 'Assistant message' })).toHaveLength(2);
  });

  it('renders 6,000 nested quotes in an answer as plain text, with the conversation around it', async () => {
    await seedConversation('Quote bomb', ['hello', `${'>'.repeat(6000)} deep`]);
    await openApp();
    await openConversation('Quote bomb');
    const answer = await screen.findByRole('article', { name: 'Assistant message' });
    expect(await within(answer).findByText('Shown as plain text: it nests more than 32 quotes or lists.')).toBeInTheDocument();
    expect(answer.querySelector('blockquote')).toBeNull();
    expect(screen.getByRole('article', { name: 'User message' })).toHaveTextContent('hello');
  });

  it('keeps the sidebar and offers the export when the open conversation cannot be shown, and recovers on switching', async () => {
    await seedConversation('A good one', ['hi', 'hello there']);
    const bad = await seedConversation('Cannot show', ['hi', 'hello']);
    const downloads = captureDownloads();
    await openApp();
    await openConversation('Cannot show');
    await screen.findByText('hello');
    // A null where a content block belongs: planning the conversation fails as a whole.
    injectState((s) => ({ messages: { ...s.messages, [bad]: s.messages[bad]!.map((m) => ({ ...m, content: [null as never] })) } }));
    const failure = await screen.findByRole('alert', { name: 'Conversation could not be shown' });
    await userEvent.click(within(failure).getByRole('button', { name: 'Export this conversation as JSON' }));
    await waitFor(() => expect(downloads).toHaveLength(1));
    const exported = JSON.parse(new TextDecoder().decode(await downloads[0]!.arrayBuffer())) as {
      conversations: { conversation: { title: string }; messages: unknown[] }[];
    };
    expect(exported.conversations.map((c) => c.conversation.title)).toEqual(['Cannot show']);
    expect(exported.conversations[0]!.messages).toHaveLength(2);
    await openConversation('A good one');
    expect(await screen.findByText('hello there')).toBeInTheDocument();
    expect(screen.queryByRole('alert', { name: 'Conversation could not be shown' })).toBeNull();
  });

  it('falls back to Reload and Export all when the app itself cannot render, and Export all still saves every conversation', async () => {
    await seedConversation('Fine', ['hi', 'hello']);
    const downloads = captureDownloads();
    await openApp();
    // An object where a title belongs: the conversation list itself cannot render.
    injectState((s) => ({ conversations: s.conversations.map((c) => ({ ...c, title: { text: 'x' } as unknown as string })) }));
    const crashed = await screen.findByRole('alert', { name: 'Windowpane stopped' });
    expect(within(crashed).getByRole('button', { name: 'Reload' })).toBeInTheDocument();
    await userEvent.click(within(crashed).getByRole('button', { name: 'Export all' }));
    await waitFor(() => expect(downloads).toHaveLength(1));
    const exported = JSON.parse(new TextDecoder().decode(await downloads[0]!.arrayBuffer())) as { conversations: { messages: unknown[] }[] };
    expect(exported.conversations).toHaveLength(1);
    expect(exported.conversations[0]!.messages).toHaveLength(2);
  });
});
