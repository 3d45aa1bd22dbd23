import { render, screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it } from 'vitest';
import { TokenGauge, type TokenGaugeProps } from '../../src/components/TokenGauge';

const parts = [
  { label: 'First message (goal)', tokens: 120 },
  { label: 'Summary', tokens: 340 },
  { label: 'Newest messages', tokens: 1_900 },
  { label: 'Draft', tokens: 42 },
  { label: 'Output reserve', tokens: 512 },
];
const total = parts.reduce((sum, p) => sum + p.tokens, 0); // 2,914

function gauge(overrides: Partial<TokenGaugeProps> = {}) {
  return render(<TokenGauge total={total} contextWindow={4_000} trigger={3_200} target={2_124} parts={parts} approachingLimit={false} {...overrides} />);
}

describe('TokenGauge', () => {
  it('is a meter named "Context usage" holding the next request against the window', () => {
    gauge();
    const meter = screen.getByRole('meter', { name: 'Context usage' });
    expect(meter).toHaveAttribute('aria-valuenow', String(total));
    expect(meter).toHaveAttribute('aria-valuemax', '4000');
    expect(meter).toHaveAttribute('aria-valuemin', '0');
    expect(meter).toHaveAttribute('aria-valuetext', '2,914 of 4,000 tokens (73 %)');
  });

  it('rounds a fractional estimate for aria-valuenow', () => {
    gauge({ total: 1_234.6 });
    expect(screen.getByRole('meter', { name: 'Context usage' })).toHaveAttribute('aria-valuenow', '1235');
  });

  it('opens details that break the total down into head, summary, newest, draft and reserve', async () => {
    gauge();
    const details = screen.getByRole('group');
    expect(details).not.toHaveAttribute('open');
    await userEvent.click(screen.getByRole('meter', { name: 'Context usage' }));
    expect(details).toHaveAttribute('open');
    const table = screen.getByRole('table', { name: 'Next request (estimated)' });
    for (const part of parts) {
      expect(within(table).getByRole('row', { name: `${part.label} ${part.tokens.toLocaleString('en-US')}` })).toBeInTheDocument();
    }
    expect(within(table).getByRole('row', { name: 'Total 2,914' })).toBeInTheDocument();
    expect(within(table).getByRole('row', { name: 'Trim above / down to 3,200 / 2,124' })).toBeInTheDocument();
  });

  it('shows the last request as the provider reported it, and the cost so far', () => {
    gauge({ lastUsage: { inputTokens: 1_480, cacheReadTokens: 1_024, cacheWriteTokens: 256, outputTokens: 377 }, costSoFar: 1.234, nextRequestCost: 0.0042 });
    const last = screen.getByRole('table', { name: 'Last request (reported by the provider)' });
    expect(within(last).getByRole('row', { name: 'Input 1,480' })).toBeInTheDocument();
    expect(within(last).getByRole('row', { name: 'Cache read / write 1,024 / 256' })).toBeInTheDocument();
    expect(within(last).getByRole('row', { name: 'Output 377' })).toBeInTheDocument();
    expect(screen.getByRole('group')).toHaveTextContent('This conversation so far: $1.23');
    // Sub-cent amounts keep their digits rather than rounding to $0.00.
    expect(screen.getByRole('group')).toHaveTextContent('next ≤ $0.0042');
  });

  it('shows reasoning as a part of the output, for the last request and the conversation', () => {
    gauge({
      lastUsage: { inputTokens: 40, cacheReadTokens: 0, cacheWriteTokens: 0, outputTokens: 1_300, reasoningTokens: 1_024 },
      costSoFar: 0.05,
      outputSoFar: { tokens: 4_000, reasoningTokens: 3_072 },
    });
    const last = screen.getByRole('table', { name: 'Last request (reported by the provider)' });
    expect(within(last).getByRole('row', { name: 'Output 1,300, of which 1,024 reasoning' })).toBeInTheDocument();
    expect(screen.getByRole('group')).toHaveTextContent('Output so far: 4,000 tokens, of which 3,072 reasoning (billed as output)');
  });

  it('says nothing of reasoning the provider did not itemize', () => {
    gauge({ lastUsage: { inputTokens: 40, cacheReadTokens: 0, cacheWriteTokens: 0, outputTokens: 1_300 }, outputSoFar: { tokens: 1_300 } });
    expect(screen.getByRole('row', { name: 'Output 1,300' })).toBeInTheDocument();
    expect(screen.getByRole('group')).not.toHaveTextContent('reasoning');
  });

  it('leaves out the last request and cost before there are any', () => {
    gauge();
    expect(screen.queryByRole('table', { name: 'Last request (reported by the provider)' })).not.toBeInTheDocument();
    expect(screen.getByRole('group')).not.toHaveTextContent('so far');
  });

  it('warns when the request approaches the limit, and only then', () => {
    const { rerender } = gauge();
    expect(screen.queryByRole('status')).not.toBeInTheDocument();
    rerender(<TokenGauge total={3_300} contextWindow={4_000} trigger={3_200} target={2_124} parts={parts} approachingLimit />);
    expect(screen.getByRole('status')).toHaveTextContent('Approaching the limit: older messages will be trimmed on a coming request.');
  });

  it('states the conversation’s metrics and a message-cap warning in their usual words', async () => {
    const report = {
      conversation: 'Conversation: 91 messages (~2,240 tokens)',
      trimmed: 'Trimmed conversation: 9 messages removed, 91 kept (~2,240 tokens)',
      pruned: null,
      compacted: '[History compacted using count strategy]',
      messageCapWarning: 'Conversation approaching limit (91/100 messages)',
      differs: null,
    };
    gauge({ approachingLimit: true, report });
    expect(screen.getByRole('status')).toHaveTextContent(
      'Approaching the limit: older messages will be trimmed on a coming request. Conversation approaching limit (91/100 messages).',
    );
    await userEvent.click(screen.getByRole('meter', { name: 'Context usage' }));
    expect(screen.getByText('Conversation: 91 messages (~2,240 tokens)')).toBeVisible();
    expect(screen.getByText('Trimmed conversation: 9 messages removed, 91 kept (~2,240 tokens)')).toBeVisible();
  });

  it('names the max input tokens every trim ratio is a share of', () => {
    gauge({ maxInputTokens: 3_488 });
    expect(screen.getByRole('row', { name: 'Max input tokens (window − reserve) 3,488' })).toBeInTheDocument();
  });

  it('says under the bar, without opening the details, when MCP tools were cut to fit the window', () => {
    const note = 'The MCP tools’ definitions would take more than 20 % of what a request may hold, so 3 tools are not offered (mcp_a__x, mcp_a__y, mcp_a__z).';
    gauge({ toolsNote: note });
    expect(screen.getByRole('group')).not.toHaveAttribute('open');
    expect(screen.getByText(note)).toBeVisible();
  });

  it('lists the per-request budget when one applies', () => {
    gauge({ budgetTokens: 50_000 });
    expect(screen.getByRole('row', { name: 'Your per-request budget 50,000' })).toBeInTheDocument();
  });
});
