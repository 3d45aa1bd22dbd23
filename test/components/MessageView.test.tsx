import { render, screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it, vi } from 'vitest';
import { MessageView } from '../../src/components/MessageView';
import type { StoredMessage } from '../../src/core';

function message(patch: Partial<StoredMessage> & Pick<StoredMessage, 'role'>): StoredMessage {
  return {
    id: `${patch.role}-1`,
    conversationId: 'c1',
    seq: 0,
    kind: 'message',
    content: [{ type: 'text', text: 'Hello' }],
    createdAt: 0,
    status: 'complete',
    ...patch,
  };
}

const user = message({ id: 'u1', role: 'user', content: [{ type: 'text', text: 'What is a context window?' }] });
const answer = message({
  id: 'a1',
  role: 'assistant',
  model: 'claude-test',
  content: [{ type: 'text', text: 'It is **how much** the model reads at once.\n\n```js\nconst x = 1;\n```' }],
});

describe('MessageView', () => {
  it('labels user and assistant messages as articles', () => {
    render(
      <>
        <MessageView message={user} />
        <MessageView message={answer} />
      </>,
    );
    expect(screen.getByRole('article', { name: 'User message' })).toHaveTextContent('What is a context window?');
    expect(screen.getByRole('article', { name: 'Assistant message' })).toBeInTheDocument();
  });

  it('renders an answer as markdown with a copy button on code', async () => {
    render(<MessageView message={answer} />);
    const article = screen.getByRole('article', { name: 'Assistant message' });
    expect(await within(article).findByRole('button', { name: 'Copy code' })).toBeInTheDocument();
    expect(within(article).getByText('how much').tagName).toBe('STRONG');
  });

  it('shows a user message as typed, never as markdown', () => {
    render(<MessageView message={{ ...user, content: [{ type: 'text', text: '**not bold** <b>nor this</b>' }] }} />);
    const article = screen.getByRole('article', { name: 'User message' });
    expect(article).toHaveTextContent('**not bold** <b>nor this</b>');
    expect(article.querySelector('strong, b')).toBeNull();
  });

  it('shows the estimated tokens of the message', () => {
    render(<MessageView message={user} tokens={1234} />);
    expect(screen.getByRole('article', { name: 'User message' })).toHaveTextContent('1,234 tok');
  });

  it('marks a message outside the window as not sent', () => {
    const { rerender } = render(<MessageView message={user} />);
    const article = screen.getByRole('article', { name: 'User message' });
    expect(article).not.toHaveClass('not-sent');
    expect(article).not.toHaveTextContent('not sent');
    rerender(<MessageView message={user} notSent />);
    expect(article).toHaveClass('not-sent');
    expect(article).toHaveTextContent('not sent');
  });

  it('edits a user message and resends it', async () => {
    const onEdit = vi.fn();
    render(<MessageView message={user} onEdit={onEdit} />);
    await userEvent.click(screen.getByRole('button', { name: 'Edit' }));
    const box = screen.getByRole('textbox', { name: 'Edit message' });
    expect(box).toHaveValue('What is a context window?');
    await userEvent.clear(box);
    await userEvent.type(box, 'What is a token?');
    await userEvent.click(screen.getByRole('button', { name: 'Save and resend' }));
    expect(onEdit).toHaveBeenCalledWith('u1', 'What is a token?');
    expect(screen.queryByRole('textbox', { name: 'Edit message' })).not.toBeInTheDocument();
  });

  it('keeps the edit box open with its text when the edit was not sent (offline, say)', async () => {
    const onEdit = vi.fn(() => false);
    render(<MessageView message={user} onEdit={onEdit} />);
    await userEvent.click(screen.getByRole('button', { name: 'Edit' }));
    await userEvent.type(screen.getByRole('textbox', { name: 'Edit message' }), ' Briefly.');
    await userEvent.click(screen.getByRole('button', { name: 'Save and resend' }));
    expect(onEdit).toHaveBeenCalledWith('u1', 'What is a context window? Briefly.');
    expect(screen.getByRole('textbox', { name: 'Edit message' })).toHaveValue('What is a context window? Briefly.');
  });

  it('cancels an edit without sending', async () => {
    const onEdit = vi.fn();
    render(<MessageView message={user} onEdit={onEdit} />);
    await userEvent.click(screen.getByRole('button', { name: 'Edit' }));
    await userEvent.type(screen.getByRole('textbox', { name: 'Edit message' }), ' more');
    await userEvent.click(screen.getByRole('button', { name: 'Cancel' }));
    expect(onEdit).not.toHaveBeenCalled();
    expect(screen.getByRole('article', { name: 'User message' })).toHaveTextContent('What is a context window?');
  });

  it('offers Edit only on user messages and Regenerate only on answers', async () => {
    const onEdit = vi.fn();
    const onRegenerate = vi.fn();
    render(
      <>
        <MessageView message={user} onEdit={onEdit} onRegenerate={onRegenerate} />
        <MessageView message={answer} onEdit={onEdit} onRegenerate={onRegenerate} />
      </>,
    );
    const mine = screen.getByRole('article', { name: 'User message' });
    const theirs = screen.getByRole('article', { name: 'Assistant message' });
    expect(within(mine).queryByRole('button', { name: 'Regenerate' })).not.toBeInTheDocument();
    expect(within(theirs).queryByRole('button', { name: 'Edit' })).not.toBeInTheDocument();
    await userEvent.click(within(theirs).getByRole('button', { name: 'Regenerate' }));
    expect(onRegenerate).toHaveBeenCalledWith('a1');
  });

  it('hides Edit and Regenerate while another request is in flight (no callbacks given)', () => {
    render(
      <>
        <MessageView message={user} />
        <MessageView message={answer} />
      </>,
    );
    expect(screen.queryByRole('button', { name: 'Edit' })).not.toBeInTheDocument();
    expect(screen.queryByRole('button', { name: 'Regenerate' })).not.toBeInTheDocument();
  });

  it('copies the message text to the clipboard', async () => {
    const events = userEvent.setup();
    render(<MessageView message={user} />);
    await events.click(screen.getByRole('button', { name: 'Copy' }));
    await expect(navigator.clipboard.readText()).resolves.toBe('What is a context window?');
    expect(screen.getByRole('button', { name: 'Copied' })).toBeInTheDocument();
  });

  it('badges a stopped answer and an interrupted one', () => {
    render(
      <>
        <MessageView message={{ ...answer, id: 'a2', status: 'stopped' }} />
        <MessageView message={{ ...answer, id: 'a3', status: 'interrupted' }} />
      </>,
    );
    const [stopped, interrupted] = screen.getAllByRole('article', { name: 'Assistant message' });
    expect(stopped).toHaveTextContent('Stopped');
    expect(interrupted).toHaveTextContent('Interrupted — the page closed while this answer was streaming');
  });

  it('shows streamed text as it arrives, without actions until it is done', () => {
    render(<MessageView message={{ ...answer, status: 'streaming', content: [] }} streamingText="Partial ans" onRegenerate={vi.fn()} />);
    const article = screen.getByRole('article', { name: 'Assistant message' });
    expect(article).toHaveTextContent('Partial ans');
    expect(article).toHaveTextContent('Writing…');
    expect(within(article).queryByRole('button')).not.toBeInTheDocument();
  });

  it('shows why a request failed as an alert', () => {
    render(<MessageView message={{ ...answer, status: 'error', content: [], error: { code: 'auth', message: 'The API key was rejected.' } }} />);
    expect(within(screen.getByRole('article', { name: 'Assistant message' })).getByRole('alert')).toHaveTextContent('The API key was rejected.');
  });
});
