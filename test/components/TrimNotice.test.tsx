import { render, screen } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { TrimNotice } from '../../src/components/TrimNotice';

type TrimRow = Parameters<typeof TrimNotice>[0]['row'];
const trim = (facts: Omit<TrimRow, 'kind' | 'key'>): TrimRow => ({ kind: 'trim', key: 'trim', ...facts });

describe('TrimNotice', () => {
  it('says how many earlier messages were truncated, in the truncation marker’s exact words', () => {
    render(<TrimNotice row={trim({ evicted: 12, summarized: false })} />);
    expect(screen.getByRole('note')).toHaveTextContent(/^\[12 earlier messages truncated to fit context window\]$/);
  });

  it('says how many messages a summary stands in for', () => {
    render(<TrimNotice row={trim({ evicted: 5, summarized: true })} />);
    expect(screen.getByRole('note')).toHaveTextContent(/^5 messages summarized$/);
  });

  it('uses the singular for one summarized message', () => {
    render(<TrimNotice row={trim({ evicted: 1, summarized: true })} />);
    expect(screen.getByRole('note')).toHaveTextContent(/^1 message summarized$/);
  });

  it('adds the reason after the notice text', () => {
    render(<TrimNotice row={trim({ evicted: 3, summarized: false, reason: 'over 80 % of the context window' })} />);
    expect(screen.getByRole('note')).toHaveTextContent(/^\[3 earlier messages truncated to fit context window\] — over 80 % of the context window$/);
  });

  it('names the strategy that compacted the history, as a compaction event', () => {
    render(<TrimNotice row={trim({ evicted: 3, summarized: false, reason: '64 messages > 50', strategy: 'rolling' })} />);
    expect(screen.getByRole('note')).toHaveTextContent(
      /^\[3 earlier messages truncated to fit context window\] — 64 messages > 50\[History compacted using rolling strategy\]$/,
    );
  });

  it('says which provider compacted the earlier messages, and how large they were', () => {
    render(<TrimNotice row={trim({ evicted: 17, summarized: false, compactedBy: 'anthropic', compactedTokens: 81_564 })} />);
    expect(screen.getByRole('note')).toHaveTextContent(
      /^Anthropic compacted the 17 earlier messages \(81,564 tokens\) into its summary below; requests send the summary in their place\. They stay in the conversation\.$/,
    );
  });
});
