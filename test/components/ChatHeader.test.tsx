import { createRef } from 'react';
import { render, screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it, vi } from 'vitest';
import { ChatHeader } from '../../src/components/ChatHeader';

function header(canExportActive: boolean) {
  const onExport = vi.fn();
  render(
    <ChatHeader title="Plans" modelLabel="Claude Sonnet 5.5" isDemo={false} canExportActive={canExportActive} onSettings={() => {}} onExport={onExport} />,
  );
  return onExport;
}

describe('ChatHeader export', () => {
  it('offers JSON with the images, giving their size, when there are images to carry', async () => {
    const onExport = vi.fn();
    render(
      <ChatHeader
        title="Plans"
        modelLabel="Claude Sonnet 5.5"
        isDemo={false}
        canExportActive
        onSettings={() => {}}
        onExport={onExport}
        imageBytes={async () => ({ active: 3_500_000, all: 5_000_000 })}
      />,
    );
    await userEvent.click(screen.getByRole('button', { name: 'Other formats' }));
    const menu = screen.getByRole('menu', { name: 'Export' });
    await within(menu).findByRole('menuitem', { name: 'This conversation with its images and PDFs (JSON, 3.3 MB)' });
    expect(within(menu).getByRole('menuitem', { name: 'All conversations with their images and PDFs (JSON, 4.7 MB)' })).toBeInTheDocument();
    await userEvent.click(within(menu).getByRole('menuitem', { name: 'This conversation with its images and PDFs (JSON, 3.3 MB)' }));
    expect(onExport).toHaveBeenCalledWith('json', 'active', { withImages: true });
  });

  it('exports the open conversation as JSON in one click', async () => {
    const onExport = header(true);
    await userEvent.click(screen.getByRole('button', { name: 'Export' }));
    expect(onExport).toHaveBeenCalledWith('json', 'active');
    expect(screen.queryByRole('menu')).not.toBeInTheDocument();
  });

  it('exports every conversation when none is open', async () => {
    const onExport = header(false);
    await userEvent.click(screen.getByRole('button', { name: 'Export' }));
    expect(onExport).toHaveBeenCalledWith('json', 'all');
  });

  it('offers Markdown and all conversations in a menu beside it, closed by Escape', async () => {
    const onExport = header(true);
    const toggle = screen.getByRole('button', { name: 'Other formats' });
    await userEvent.click(toggle);
    expect(toggle).toHaveAttribute('aria-expanded', 'true');
    const menu = screen.getByRole('menu', { name: 'Export' });
    expect(
      within(menu)
        .getAllByRole('menuitem')
        .map((item) => item.textContent),
    ).toEqual(['This conversation (JSON)', 'This conversation (Markdown)', 'All conversations (JSON)', 'All conversations (Markdown)']);
    await userEvent.click(within(menu).getByRole('menuitem', { name: 'All conversations (Markdown)' }));
    expect(onExport).toHaveBeenCalledWith('markdown', 'all');
    expect(screen.queryByRole('menu')).not.toBeInTheDocument();

    // Keyboard: the open menu has focus on its first item, arrows move, Escape closes and returns focus.
    await userEvent.click(toggle);
    expect(screen.getByRole('menuitem', { name: 'This conversation (JSON)' })).toHaveFocus();
    await userEvent.keyboard('{ArrowUp}');
    expect(screen.getByRole('menuitemcheckbox', { name: 'Include thinking in Markdown' })).toHaveFocus();
    await userEvent.keyboard('{ArrowDown}{ArrowDown}');
    expect(screen.getByRole('menuitem', { name: 'This conversation (Markdown)' })).toHaveFocus();
    await userEvent.keyboard('{Escape}');
    expect(screen.queryByRole('menu')).not.toBeInTheDocument();
    expect(toggle).toHaveFocus();
  });
});

describe('ChatHeader export of thinking', () => {
  it('leaves thinking out of Markdown unless ticked, and ticking keeps the menu open', async () => {
    const onExport = header(true);
    const toggle = screen.getByRole('button', { name: 'Other formats' });
    await userEvent.click(toggle);
    const include = screen.getByRole('menuitemcheckbox', { name: 'Include thinking in Markdown' });
    expect(include).toHaveAttribute('aria-checked', 'false');
    await userEvent.click(screen.getByRole('menuitem', { name: 'This conversation (Markdown)' }));
    expect(onExport).toHaveBeenLastCalledWith('markdown', 'active');

    await userEvent.click(toggle);
    await userEvent.click(screen.getByRole('menuitemcheckbox', { name: 'Include thinking in Markdown' }));
    expect(screen.getByRole('menuitemcheckbox', { name: 'Include thinking in Markdown' })).toHaveAttribute('aria-checked', 'true');
    await userEvent.click(screen.getByRole('menuitem', { name: 'This conversation (Markdown)' }));
    expect(onExport).toHaveBeenLastCalledWith('markdown', 'active', { withThinking: true });

    // JSON keeps the thinking whatever the box says: it is the lossless format.
    await userEvent.click(toggle);
    await userEvent.click(screen.getByRole('menuitem', { name: 'This conversation (JSON)' }));
    expect(onExport).toHaveBeenLastCalledWith('json', 'active');
  });

  it('ticks with the keyboard', async () => {
    header(true);
    await userEvent.click(screen.getByRole('button', { name: 'Other formats' }));
    await userEvent.keyboard('{ArrowUp}{Enter}');
    expect(screen.getByRole('menuitemcheckbox', { name: 'Include thinking in Markdown' })).toHaveAttribute('aria-checked', 'true');
  });
});

describe('ChatHeader on a phone', () => {
  function phoneHeader() {
    const calls = { open: vi.fn(), newChat: vi.fn(), settings: vi.fn(), export: vi.fn() };
    const ref = createRef<HTMLButtonElement>();
    render(
      <ChatHeader
        title="Plans for a very long weekend in the mountains"
        modelLabel="Demo"
        isDemo
        canExportActive
        onSettings={calls.settings}
        onExport={calls.export}
        phone={{ onOpenConversations: calls.open, conversationsOpen: false, onNewChat: calls.newChat }}
        conversationsButtonRef={ref}
      />,
    );
    return { calls, ref };
  }

  it('leads with the Conversations button and New chat, and names the Demo in one word', async () => {
    const { calls, ref } = phoneHeader();
    const conversations = screen.getByRole('button', { name: 'Conversations' });
    expect(ref.current).toBe(conversations);
    expect(conversations).toHaveAttribute('aria-haspopup', 'dialog');
    expect(conversations).toHaveAttribute('aria-expanded', 'false');
    await userEvent.click(conversations);
    expect(calls.open).toHaveBeenCalledTimes(1);
    await userEvent.click(screen.getByRole('button', { name: 'New chat' }));
    expect(calls.newChat).toHaveBeenCalledTimes(1);
    expect(screen.getByText('Demo')).toHaveAttribute('title', 'Answers come from a local demo, not a real model');
    // Export and Settings are not in the line itself.
    expect(screen.queryByRole('button', { name: 'Export' })).not.toBeInTheDocument();
    expect(screen.queryByRole('button', { name: 'Settings' })).not.toBeInTheDocument();
  });

  it('keeps Export and Settings in "More"', async () => {
    const { calls } = phoneHeader();
    const more = screen.getByRole('button', { name: 'More' });
    await userEvent.click(more);
    const menu = screen.getByRole('menu', { name: 'More' });
    expect(
      within(menu)
        .getAllByRole('menuitem')
        .map((item) => item.textContent),
    ).toEqual([
      'Export this conversation (JSON)',
      'Export this conversation (Markdown)',
      'Export all conversations (JSON)',
      'Export all conversations (Markdown)',
      'Settings',
    ]);
    expect(within(menu).getByRole('menuitem', { name: 'Export this conversation (JSON)' })).toHaveFocus();
    await userEvent.click(within(menu).getByRole('menuitem', { name: 'Export this conversation (Markdown)' }));
    expect(calls.export).toHaveBeenCalledWith('markdown', 'active');
    expect(screen.queryByRole('menu')).not.toBeInTheDocument();

    await userEvent.click(more);
    await userEvent.click(screen.getByRole('menuitem', { name: 'Settings' }));
    expect(calls.settings).toHaveBeenCalledTimes(1);
    expect(screen.queryByRole('menu')).not.toBeInTheDocument();

    await userEvent.click(more);
    await userEvent.keyboard('{Escape}');
    expect(screen.queryByRole('menu')).not.toBeInTheDocument();
    expect(more).toHaveFocus();
  });
});
