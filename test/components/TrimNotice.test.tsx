import { render, screen } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { TrimNotice } from '../../src/components/TrimNotice';

describe('TrimNotice', () => {
  it('says how many earlier messages were truncated, in the truncation marker’s exact words', () => {
    render(<TrimNotice evicted={12} summarized={false} />);
    expect(screen.getByRole('note')).toHaveTextContent(/^\[12 earlier messages truncated to fit context window\]$/);
  });

  it('says how many messages a summary stands in for', () => {
    render(<TrimNotice evicted={5} summarized />);
    expect(screen.getByRole('note')).toHaveTextContent(/^5 messages summarized$/);
  });

  it('uses the singular for one summarized message', () => {
    render(<TrimNotice evicted={1} summarized />);
    expect(screen.getByRole('note')).toHaveTextContent(/^1 message summarized$/);
  });

  it('adds the reason after the notice text', () => {
    render(<TrimNotice evicted={3} summarized={false} reason="over 80 % of the context window" />);
    expect(screen.getByRole('note')).toHaveTextContent(/^\[3 earlier messages truncated to fit context window\] — over 80 % of the context window$/);
  });

  it('names the strategy that compacted the history, as a compaction event', () => {
    render(<TrimNotice evicted={3} summarized={false} reason="64 messages > 50" strategy="rolling" />);
    expect(screen.getByRole('note')).toHaveTextContent(
      /^\[3 earlier messages truncated to fit context window\] — 64 messages > 50\[History compacted using rolling strategy\]$/,
    );
  });
});
