import { act, cleanup, render, screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { MessageView } from '../../src/components/MessageView';
import type { StoredMessage } from '../../src/core';

const words = (n: number) => Array.from({ length: n }, (_, i) => `w${i}`).join(' ');

function answer(patch: Partial<StoredMessage> = {}): StoredMessage {
  return {
    id: 'a1',
    conversationId: 'c1',
    seq: 1,
    role: 'assistant',
    kind: 'message',
    model: 'claude-sonnet-4-6',
    provider: 'anthropic',
    content: [
      { type: 'thinking', thinking: words(1240), signature: 'sig-1' },
      { type: 'text', text: 'Start with orders.' },
    ],
    createdAt: 0,
    status: 'complete',
    thinkingMs: 8_400,
    ...patch,
  };
}

const thinkingToggle = () => screen.getByText(/^Thinking/, { selector: 'summary span' }).closest('summary')!;

// The Thinking block is a chunk of its own (the page loads it while idle): loaded once here, it
// renders with its message from then on.
beforeAll(async () => {
  render(<MessageView message={answer()} />);
  await screen.findByText(/^Thinking/, { selector: 'summary span' });
  cleanup();
});

afterEach(() => {
  vi.useRealTimers();
});

describe('the Thinking block', () => {
  // Opening it from the keyboard is proven in Chromium (test/e2e/thinking.e2e.test.ts): jsdom does not toggle a <details>.
  it('stands above the answer, collapsed, with its length and time, and opens', async () => {
    render(<MessageView message={answer()} />);
    const article = screen.getByRole('article', { name: 'Assistant message' });
    const summary = within(article).getByText('Thinking · 1,240 words · 8 s');
    const details = summary.closest('details')!;
    expect(details).not.toHaveAttribute('open');
    expect(details.compareDocumentPosition(within(article).getByText('Start with orders.')) & Node.DOCUMENT_POSITION_FOLLOWING).toBeTruthy();
    expect(within(article).queryByRole('button', { name: 'Copy thinking' })).not.toBeVisible();

    await userEvent.click(thinkingToggle());
    expect(details).toHaveAttribute('open');
    expect(within(article).getByRole('button', { name: 'Copy thinking' })).toBeVisible();
  });

  it('says it is thinking while it streams, counting the seconds, and freezes the time once the answer begins', () => {
    vi.useFakeTimers({ now: 100_000 });
    const streaming = answer({ content: [], status: 'streaming' });
    delete streaming.thinkingMs;
    const { rerender } = render(<MessageView message={streaming} streamingText="" streamingThinking={{ text: 'Orders has', since: 100_000 }} />);
    expect(screen.getByText('Thinking… 0 s')).toBeInTheDocument();
    act(() => vi.advanceTimersByTime(3_000));
    expect(screen.getByText('Thinking… 3 s')).toBeInTheDocument();
    expect(thinkingToggle().closest('details')).not.toHaveAttribute('open');

    rerender(<MessageView message={streaming} streamingText="Start" streamingThinking={{ text: 'Orders has the most rows.', since: 100_000, ms: 3_200 }} />);
    act(() => vi.advanceTimersByTime(5_000));
    expect(screen.getByText('Thinking · 5 words · 3 s')).toBeInTheDocument();
  });

  it('says when the provider redacted the thinking, and keeps it in the same block', async () => {
    render(
      <MessageView
        message={answer({
          content: [
            { type: 'redacted_thinking', data: 'EqQB' },
            { type: 'text', text: 'Yes.' },
          ],
          thinkingMs: 2_000,
        })}
      />,
    );
    const summary = screen.getByText('Thinking · redacted by the provider · 2 s');
    await userEvent.click(summary);
    expect(screen.getByText(/One part of the thinking was redacted by the provider/)).toBeVisible();
    expect(screen.queryByText('EqQB')).not.toBeInTheDocument();
    expect(screen.queryByRole('button', { name: 'Copy thinking' })).not.toBeInTheDocument();
  });

  it('shows an OpenAI reasoning summary the same way', () => {
    render(
      <MessageView
        message={answer({
          provider: 'openai',
          model: 'o4-mini',
          content: [
            { type: 'thinking', thinking: 'Compared both tables.' },
            { type: 'text', text: 'Orders.' },
          ],
          thinkingMs: 61_000,
        })}
      />,
    );
    expect(screen.getByText('Thinking · 3 words · 1 min 1 s')).toBeInTheDocument();
  });
});

describe('copying an answer that thought', () => {
  it('copies the answer alone from Copy, and the thinking from inside its open block', async () => {
    const events = userEvent.setup();
    render(
      <MessageView
        message={answer({
          content: [
            { type: 'thinking', thinking: 'Orders has the most rows.' },
            { type: 'text', text: 'Start with orders.' },
          ],
        })}
      />,
    );
    await events.click(screen.getByRole('button', { name: 'Copy' }));
    await expect(navigator.clipboard.readText()).resolves.toBe('Start with orders.');

    await events.click(thinkingToggle());
    const block = thinkingToggle().closest('details')!;
    await events.click(within(block).getByRole('button', { name: 'Copy thinking' }));
    await expect(navigator.clipboard.readText()).resolves.toBe('Orders has the most rows.');
    expect(within(block).getByRole('button', { name: 'Copied' })).toBeInTheDocument();
  });
});

describe('reasoning tokens of an answer', () => {
  it('badges the part of the output that was reasoning, and says Anthropic does not itemize thinking', () => {
    const usage = { inputTokens: 40, outputTokens: 1_300, cacheReadTokens: 0, cacheWriteTokens: 0 };
    render(
      <>
        <MessageView message={answer({ id: 'o', provider: 'openai-compatible', usage: { ...usage, reasoningTokens: 1_024 } })} tokens={30} />
        <MessageView message={answer({ id: 'a', usage })} tokens={30} />
      </>,
    );
    const [openai, anthropic] = screen.getAllByRole('article', { name: 'Assistant message' });
    const badge = within(openai!).getByText('1,300 out, of which 1,024 reasoning');
    expect(badge).toHaveAttribute('title', expect.stringContaining('Of the 1,300 output tokens'));
    expect(within(openai!).getByText('30 tok')).toHaveAttribute(
      'title',
      expect.stringContaining('1,300 output tokens reported by the provider, of which 1,024 reasoning'),
    );
    expect(within(anthropic!).queryByText(/reasoning/)).not.toBeInTheDocument();
    expect(within(anthropic!).getByText('30 tok')).toHaveAttribute('title', expect.stringContaining('thinking included (not itemized by Anthropic)'));
  });
});
