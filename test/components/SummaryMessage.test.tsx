import { render, screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it, vi } from 'vitest';
import { SummaryMessage } from '../../src/components/SummaryMessage';
import type { StoredMessage } from '../../src/core';

const summary: StoredMessage = {
  id: 's1',
  conversationId: 'c1',
  seq: 9,
  role: 'assistant',
  kind: 'summary',
  content: [{ type: 'text', text: '[Conversation Summary]\nThe user is planning a **trip to Lisbon** in May.' }],
  createdAt: 0,
  status: 'complete',
  covers: ['m1', 'm2', 'm3', 'm4', 'm5', 'm6'],
};

describe('SummaryMessage', () => {
  it('is an article "Conversation summary" whose text starts with the marker and says what it covers', () => {
    render(<SummaryMessage message={summary} />);
    const article = screen.getByRole('article', { name: 'Conversation summary' });
    expect(article.textContent?.startsWith('[Conversation Summary]')).toBe(true);
    expect(article).toHaveTextContent('covers 6 earlier messages, sent in their place');
  });

  it('is collapsed until opened, then shows the summary rendered as markdown', async () => {
    render(<SummaryMessage message={summary} />);
    const details = within(screen.getByRole('article', { name: 'Conversation summary' })).getByRole('group');
    expect(details).not.toHaveAttribute('open');
    await userEvent.click(within(details).getByText('[Conversation Summary]'));
    expect(details).toHaveAttribute('open');
    expect(await within(details).findByText('trip to Lisbon', { selector: 'strong' })).toBeInTheDocument();
    // The marker is the heading, not repeated in the body.
    expect(details.textContent?.match(/\[Conversation Summary\]/g)).toHaveLength(1);
  });

  it('says "message" for a summary of one', () => {
    render(<SummaryMessage message={{ ...summary, covers: ['m1'] }} />);
    expect(screen.getByRole('article', { name: 'Conversation summary' })).toHaveTextContent('covers 1 earlier message,');
  });

  it('can be regenerated, except while a request is in flight', async () => {
    const onRegenerate = vi.fn();
    const { rerender } = render(<SummaryMessage message={summary} onRegenerate={onRegenerate} />);
    await userEvent.click(screen.getByRole('button', { name: 'Regenerate summary' }));
    expect(onRegenerate).toHaveBeenCalledWith('s1');
    rerender(<SummaryMessage message={summary} onRegenerate={onRegenerate} busy />);
    expect(screen.getByRole('button', { name: 'Regenerate summary' })).toBeDisabled();
  });
});
