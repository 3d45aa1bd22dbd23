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
  it('offers Regenerate on the newest answer only', async () => {
    const onRegenerate = vi.fn();
    const rows = [
      row(1, 'user', 'First question'),
      row(2, 'assistant', 'First answer'),
      row(3, 'user', 'Second question'),
      row(4, 'assistant', 'Second answer'),
    ];
    render(<Transcript rows={rows} onRegenerate={onRegenerate} onEdit={() => undefined} />);
    const [older, newest] = screen.getAllByRole('article', { name: 'Assistant message' });
    expect(within(older!).getByRole('button', { name: 'Copy' })).toBeInTheDocument();
    expect(within(older!).queryByRole('button', { name: 'Regenerate' })).not.toBeInTheDocument();
    await userEvent.click(within(newest!).getByRole('button', { name: 'Regenerate' }));
    expect(onRegenerate).toHaveBeenCalledWith('m4');
  });

  it('offers none while a turn is running', () => {
    render(<Transcript rows={[row(1, 'user', 'Hi'), row(2, 'assistant', 'Hello')]} onRegenerate={() => undefined} busy />);
    expect(screen.queryByRole('button', { name: 'Regenerate' })).not.toBeInTheDocument();
  });
});
