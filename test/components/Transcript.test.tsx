import { render, screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it, vi } from 'vitest';
import { Transcript } from '../../src/components/Transcript';
import type { StoredMessage } from '../../src/core';
import type { TranscriptRow } from '../../src/store/transcript';
import './appHarness';

function row(seq: number, role: 'user' | 'assistant', text: string): TranscriptRow {
  const message: StoredMessage = {
    id: `m${seq}`,
    conversationId: 'c',
    seq,
    role,
    kind: 'message',
    content: [{ type: 'text', text }],
    createdAt: seq,
    status: 'complete',
  };
  return { kind: 'message', key: message.id, message, notSent: false };
}

describe('Transcript', () => {
  it('offers Regenerate on every answer: an older one gets a new version too', async () => {
    const onRegenerate = vi.fn();
    const rows = [
      row(1, 'user', 'First question'),
      row(2, 'assistant', 'First answer'),
      row(3, 'user', 'Second question'),
      row(4, 'assistant', 'Second answer'),
    ];
    render(<Transcript rows={rows} onRegenerate={onRegenerate} onEdit={() => undefined} />);
    const [older, newest] = screen.getAllByRole('article', { name: 'Assistant message' });
    await userEvent.click(within(older!).getByRole('button', { name: 'Regenerate' }));
    await userEvent.click(within(newest!).getByRole('button', { name: 'Regenerate' }));
    expect(onRegenerate.mock.calls).toEqual([['m2'], ['m4']]);
  });

  it('shows "2 / 3" on a message with versions and steps with the buttons and the keyboard', async () => {
    const onSwitchVersion = vi.fn();
    const edited = { ...row(3, 'user', 'Second question, edited'), versions: { index: 1, count: 3 } };
    render(<Transcript rows={[row(1, 'user', 'First'), row(2, 'assistant', 'Answer'), edited]} onSwitchVersion={onSwitchVersion} />);
    const [, message] = screen.getAllByRole('article', { name: 'User message' });
    expect(within(message!).getByRole('group', { name: 'Version 2 of 3' })).toHaveTextContent('2 / 3');
    await userEvent.click(within(message!).getByRole('button', { name: 'Previous version' }));
    within(message!).getByRole('button', { name: 'Next version' }).focus();
    await userEvent.keyboard('{Enter}');
    expect(onSwitchVersion.mock.calls).toEqual([
      ['m3', -1],
      ['m3', 1],
    ]);
    // Messages with one version show no switch.
    expect(screen.getAllByRole('group', { name: /^Version/ })).toHaveLength(1);
  });

  it('disables stepping past either end and while a turn is running', () => {
    const first = { ...row(2, 'assistant', 'Answer'), versions: { index: 0, count: 2 } };
    const { rerender } = render(<Transcript rows={[row(1, 'user', 'Q'), first]} onSwitchVersion={() => undefined} />);
    expect(screen.getByRole('button', { name: 'Previous version' })).toBeDisabled();
    expect(screen.getByRole('button', { name: 'Next version' })).toBeEnabled();
    rerender(<Transcript rows={[row(1, 'user', 'Q'), first]} onSwitchVersion={() => undefined} busy />);
    expect(screen.getByRole('button', { name: 'Next version' })).toBeDisabled();
  });

  it('offers none while a turn is running', () => {
    render(<Transcript rows={[row(1, 'user', 'Hi'), row(2, 'assistant', 'Hello')]} onRegenerate={() => undefined} busy />);
    expect(screen.queryByRole('button', { name: 'Regenerate' })).not.toBeInTheDocument();
  });
});
