import { render, screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it, vi } from 'vitest';
import { Composer } from '../../src/components/Composer';

describe('Composer', () => {
  it('sends the draft on Enter and clears the box', async () => {
    const onSend = vi.fn();
    render(<Composer onSend={onSend} />);
    const box = screen.getByRole('textbox', { name: 'Message' });
    await userEvent.type(box, 'Hello there{Enter}');
    expect(onSend).toHaveBeenCalledWith('Hello there');
    expect(box).toHaveValue('');
  });

  it('adds a line on Shift+Enter instead of sending', async () => {
    const onSend = vi.fn();
    render(<Composer onSend={onSend} />);
    const box = screen.getByRole('textbox', { name: 'Message' });
    await userEvent.type(box, 'one{Shift>}{Enter}{/Shift}two');
    expect(onSend).not.toHaveBeenCalled();
    expect(box).toHaveValue('one\ntwo');
  });

  it('keeps Send disabled until there is text', async () => {
    render(<Composer onSend={vi.fn()} />);
    const send = screen.getByRole('button', { name: 'Send' });
    expect(send).toBeDisabled();
    await userEvent.type(screen.getByRole('textbox', { name: 'Message' }), '   ');
    expect(send).toBeDisabled();
    await userEvent.type(screen.getByRole('textbox', { name: 'Message' }), 'x');
    expect(send).toBeEnabled();
  });
});
