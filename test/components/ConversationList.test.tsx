import { render, screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { useState } from 'react';
import { describe, expect, it, vi } from 'vitest';
import { ConversationList, type ConversationItem, type ConversationListProps } from '../../src/components/ConversationList';

const items: ConversationItem[] = [
  { id: 'c1', title: 'Trip to Lisbon', updatedAt: 2 },
  { id: 'c2', title: 'Rust lifetimes', updatedAt: 1 },
];

/** The list with its search box wired to state, as the sidebar does. */
function List(props: Partial<ConversationListProps>) {
  const [query, setQuery] = useState('');
  return (
    <ConversationList
      items={items}
      activeId="c1"
      query={query}
      onNew={vi.fn()}
      onSelect={vi.fn()}
      onRename={vi.fn()}
      onDelete={vi.fn()}
      {...props}
      onQueryChange={(q) => {
        setQuery(q);
        props.onQueryChange?.(q);
      }}
    />
  );
}

describe('ConversationList', () => {
  it('is the navigation "Conversations" listing every conversation, the open one marked current', () => {
    render(<List />);
    const nav = screen.getByRole('navigation', { name: 'Conversations' });
    expect(within(nav).getByRole('button', { name: 'Trip to Lisbon' })).toHaveAttribute('aria-current', 'page');
    expect(within(nav).getByRole('button', { name: 'Rust lifetimes' })).not.toHaveAttribute('aria-current');
  });

  it('starts a new chat', async () => {
    const onNew = vi.fn();
    render(<List onNew={onNew} />);
    await userEvent.click(screen.getByRole('button', { name: 'New chat' }));
    expect(onNew).toHaveBeenCalledOnce();
  });

  it('opens a conversation', async () => {
    const onSelect = vi.fn();
    render(<List onSelect={onSelect} />);
    await userEvent.click(screen.getByRole('button', { name: 'Rust lifetimes' }));
    expect(onSelect).toHaveBeenCalledWith('c2');
  });

  it('searches as you type', async () => {
    const onQueryChange = vi.fn();
    render(<List onQueryChange={onQueryChange} />);
    const search = screen.getByRole('searchbox', { name: 'Search conversations' });
    await userEvent.type(search, 'lis');
    expect(search).toHaveValue('lis');
    expect(onQueryChange).toHaveBeenLastCalledWith('lis');
  });

  it('says when nothing matches a search, and when there is nothing yet', () => {
    const { rerender } = render(
      <ConversationList items={[]} query="zzz" onQueryChange={vi.fn()} onNew={vi.fn()} onSelect={vi.fn()} onRename={vi.fn()} onDelete={vi.fn()} />,
    );
    expect(screen.getByRole('navigation', { name: 'Conversations' })).toHaveTextContent('No conversation matches.');
    rerender(<ConversationList items={[]} query="" onQueryChange={vi.fn()} onNew={vi.fn()} onSelect={vi.fn()} onRename={vi.fn()} onDelete={vi.fn()} />);
    expect(screen.getByRole('navigation', { name: 'Conversations' })).toHaveTextContent('No conversations yet.');
  });

  it('shows the matching line of a message hit under its title', () => {
    render(<List items={[{ id: 'c2', title: 'Rust lifetimes', updatedAt: 1, snippet: '…the borrow checker…' }]} />);
    expect(screen.getByRole('button', { name: /^Rust lifetimes/ })).toHaveTextContent('…the borrow checker…');
  });

  it('highlights the match in the snippet and shows when the message was written, or highlights the title', () => {
    const at = new Date(2026, 10, 24, 15, 0).getTime();
    const { rerender } = render(
      <List items={[{ id: 'c2', title: 'Rust lifetimes', updatedAt: 1, snippet: '…the borrow checker…', match: { start: 5, length: 6 }, matchedAt: at }]} />,
    );
    const link = screen.getByRole('button', { name: /^Rust lifetimes/ });
    expect(link.querySelector('mark')).toHaveTextContent(/^borrow$/);
    expect(link.querySelector('time')).toHaveAttribute('dateTime', new Date(at).toISOString());
    expect(link).toHaveTextContent(new Date(at).toLocaleDateString());

    rerender(<List items={[{ id: 'c1', title: 'Trip to Lisbon', updatedAt: 1, match: { start: 8, length: 3 } }]} />);
    expect(screen.getByRole('button', { name: 'Trip to Lisbon' }).querySelector('mark')).toHaveTextContent(/^Lis$/);
  });

  it('renames a conversation in place with Enter', async () => {
    const onRename = vi.fn();
    render(<List onRename={onRename} />);
    await userEvent.click(screen.getByRole('button', { name: 'Rename Rust lifetimes' }));
    const box = screen.getByRole('textbox', { name: 'Conversation title' });
    expect(box).toHaveFocus();
    expect(box).toHaveValue('Rust lifetimes');
    await userEvent.clear(box);
    await userEvent.type(box, '  Borrowing, explained  {Enter}');
    expect(onRename).toHaveBeenCalledWith('c2', 'Borrowing, explained');
    expect(screen.queryByRole('textbox', { name: 'Conversation title' })).not.toBeInTheDocument();
  });

  it('cancels a rename with Escape, and ignores an empty title', async () => {
    const onRename = vi.fn();
    render(<List onRename={onRename} />);
    await userEvent.click(screen.getByRole('button', { name: 'Rename Trip to Lisbon' }));
    await userEvent.type(screen.getByRole('textbox', { name: 'Conversation title' }), ' 2{Escape}');
    expect(screen.queryByRole('textbox', { name: 'Conversation title' })).not.toBeInTheDocument();
    await userEvent.click(screen.getByRole('button', { name: 'Rename Trip to Lisbon' }));
    await userEvent.clear(screen.getByRole('textbox', { name: 'Conversation title' }));
    await userEvent.type(screen.getByRole('textbox', { name: 'Conversation title' }), '   {Enter}');
    expect(onRename).not.toHaveBeenCalled();
  });

  it('deletes a conversation', async () => {
    const onDelete = vi.fn();
    render(<List onDelete={onDelete} />);
    await userEvent.click(screen.getByRole('button', { name: 'Delete Trip to Lisbon' }));
    expect(onDelete).toHaveBeenCalledWith('c1');
  });

  // jsdom does no layout or scrolling: Home and End across the whole list are proved in Chromium (conversationList.e2e).
  it('holds only the conversations in view of a thousand, and the arrow keys move between them', async () => {
    const many: ConversationItem[] = Array.from({ length: 1000 }, (_, i) => ({ id: `c${i}`, title: `Conversation ${i + 1}`, updatedAt: 1000 - i }));
    const onSelect = vi.fn();
    render(<List items={many} onSelect={onSelect} />);
    const nav = screen.getByRole('navigation', { name: 'Conversations' });
    const shown = within(nav).getAllByRole('button', { name: /^Conversation \d+$/ });
    expect(shown.length).toBeGreaterThan(10);
    expect(shown.length).toBeLessThan(100);
    // Newest first, as given.
    expect(shown[0]).toHaveAccessibleName('Conversation 1');

    shown[0]!.focus();
    await userEvent.keyboard('{ArrowDown}{ArrowDown}');
    expect(screen.getByRole('button', { name: 'Conversation 3' })).toHaveFocus();
    await userEvent.keyboard('{ArrowUp}');
    expect(screen.getByRole('button', { name: 'Conversation 2' })).toHaveFocus();
    await userEvent.keyboard('{Enter}');
    expect(onSelect).toHaveBeenCalledWith('c1');
    await userEvent.keyboard('{Home}');
    expect(screen.getByRole('button', { name: 'Conversation 1' })).toHaveFocus();
  });
});
