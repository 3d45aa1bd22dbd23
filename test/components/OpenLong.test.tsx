import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import type { StoredMessage } from '../../src/core';
import { openWindowpaneStorage } from '../../src/persistence';
import { renderApp, resetApp, runtime } from './appHarness';

/** Stores a conversation of `length` alternating questions and answers in one transaction. */
async function seedLong(title: string, length: number): Promise<void> {
  const id = 'long';
  const messages: StoredMessage[] = Array.from({ length }, (_, seq) => ({
    id: `m${seq}`,
    conversationId: id,
    seq,
    parentId: seq === 0 ? null : `m${seq - 1}`,
    role: seq % 2 === 0 ? 'user' : 'assistant',
    kind: 'message',
    content: [{ type: 'text', text: seq === length - 1 ? 'The newest answer.' : `Message number ${seq}.` }],
    createdAt: 1_000 + seq,
    status: 'complete',
  }));
  const storage = await openWindowpaneStorage();
  try {
    await storage.repositories.conversations.restoreConversation({
      conversation: { id, title, createdAt: 1_000, updatedAt: 2_000, messageCount: length, activeLeafId: `m${length - 1}` },
      messages,
      attachments: [],
      files: [],
    });
  } finally {
    storage.close();
  }
}

describe('opening a long conversation', { timeout: 45_000 }, () => {
  beforeEach(() => resetApp());

  it('shows its newest messages while the rest is read, with the gauge counting and nothing to edit yet', async () => {
    await seedLong('A long talk', 600);
    renderApp();
    await screen.findByRole('textbox', { name: 'Message' });
    // Holds the read of the whole conversation until the test lets it go.
    let release = () => undefined as void;
    const held = new Promise<void>((resolve) => (release = resolve));
    const conversations = runtime.repositories.conversations;
    const getMessages = conversations.getMessages.bind(conversations);
    vi.spyOn(conversations, 'getMessages').mockImplementation(async (id) => {
      await held;
      return getMessages(id);
    });
    let showNewest = () => undefined as void;
    const newestHeld = new Promise<void>((resolve) => (showNewest = resolve));
    const getNewestMessages = conversations.getNewestMessages.bind(conversations);
    vi.spyOn(conversations, 'getNewestMessages').mockImplementation(async (id, count) => {
      await newestHeld;
      return getNewestMessages(id, count);
    });

    await userEvent.click(within(screen.getByRole('navigation', { name: 'Conversations' })).getByRole('button', { name: 'A long talk' }));
    // Nothing read yet: an empty transcript, not the welcome of a new chat.
    expect(screen.getByRole('log', { name: 'Transcript' })).toHaveAttribute('aria-busy', 'true');
    expect(screen.queryByRole('region', { name: 'Welcome' })).not.toBeInTheDocument();
    showNewest();
    expect(await screen.findByText('The newest answer.')).toBeInTheDocument();
    const meter = screen.getByRole('meter', { name: 'Context usage' });
    expect(meter).toHaveAttribute('aria-busy', 'true');
    expect(meter).toHaveAttribute('aria-valuetext', 'Counting tokens…');
    expect(screen.queryByRole('region', { name: 'Welcome' })).not.toBeInTheDocument();
    expect(screen.queryByRole('button', { name: /Regenerate/ })).not.toBeInTheDocument();

    release();
    await waitFor(() => expect(screen.getByRole('meter', { name: 'Context usage' })).not.toHaveAttribute('aria-busy'));
    expect(screen.getByRole('meter', { name: 'Context usage' }).getAttribute('aria-valuetext')).toMatch(/^[\d,]+ of 4,000 tokens/);
    expect(screen.getByText('The newest answer.')).toBeInTheDocument();
    expect(screen.getAllByRole('button', { name: /Regenerate/ }).length).toBeGreaterThan(0);
    expect(runtime.store.getState().messages['long']).toHaveLength(600);
    expect(runtime.store.getState().opening).toBeNull();
  });
});
