/**
 * The gauge's exact count: the badge and the row when the provider counted the request as it
 * stands, the Count exactly button where the provider can count, and the words where it cannot;
 * then the whole app, asking the provider from the gauge and showing its count.
 */
import { render, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { TokenGauge, type TokenGaugeProps } from '../../src/components/TokenGauge';
import type { ChatProvider, ChatRequest } from '../../src/providers';
import { DEFAULT_SETTINGS, type Settings } from '../../src/store/settings';
import { answer } from '../store/scriptedStore';
import { renderApp, resetApp, runtime, seedSettings } from './appHarness';

const parts = [
  { label: 'First message (goal)', tokens: 120 },
  { label: 'Newest messages', tokens: 1_900 },
  { label: 'Output reserve', tokens: 512 },
];

function gauge(overrides: Partial<TokenGaugeProps> = {}) {
  return render(<TokenGauge total={2_532} contextWindow={4_000} trigger={3_200} target={2_124} parts={parts} approachingLimit={false} {...overrides} />);
}

describe('TokenGauge exact count', () => {
  it('says "exact" beside the number and in the meter when the provider counted the request', async () => {
    gauge({ total: 2_612, exactCount: { kind: 'exact', inputTokens: 2_100 } });
    const meter = screen.getByRole('meter', { name: 'Context usage' });
    expect(meter).toHaveAttribute('aria-valuetext', '2,612 of 4,000 tokens (65 %), exact');
    expect(screen.getByText('exact')).toBeVisible();
    await userEvent.click(meter);
    const table = screen.getByRole('table', { name: 'Next request (estimated)' });
    expect(within(table).getByRole('row', { name: 'Input counted by the provider (exact) 2,100' })).toBeInTheDocument();
    expect(within(table).getByRole('row', { name: 'Total 2,612' })).toBeInTheDocument();
    expect(screen.queryByRole('button', { name: 'Count exactly' })).not.toBeInTheDocument();
  });

  it('offers Count exactly where the provider can count, and calls for it', async () => {
    const onCountExactly = vi.fn();
    gauge({ exactCount: { kind: 'estimate', canCount: true, busy: false }, onCountExactly });
    expect(screen.queryByText('exact')).not.toBeInTheDocument();
    expect(screen.getByRole('meter', { name: 'Context usage' })).toHaveAttribute('aria-valuetext', '2,532 of 4,000 tokens (63 %)');
    await userEvent.click(screen.getByRole('meter', { name: 'Context usage' }));
    await userEvent.click(screen.getByRole('button', { name: 'Count exactly' }));
    expect(onCountExactly).toHaveBeenCalledTimes(1);
  });

  it('shows a count under way as a disabled button, and why a count did not come', async () => {
    const { rerender } = gauge({ exactCount: { kind: 'estimate', canCount: true, busy: true }, onCountExactly: () => undefined });
    await userEvent.click(screen.getByRole('meter', { name: 'Context usage' }));
    expect(screen.getByRole('button', { name: 'Counting…' })).toBeDisabled();
    const note = "The provider's rate limit paused counting; counting again in about 30 s. The estimate stands until then.";
    rerender(
      <TokenGauge
        total={2_532}
        contextWindow={4_000}
        trigger={3_200}
        target={2_124}
        parts={parts}
        approachingLimit={false}
        exactCount={{ kind: 'estimate', canCount: true, busy: false, note }}
        onCountExactly={() => undefined}
      />,
    );
    expect(screen.getByText(note)).toBeVisible();
    expect(screen.getByRole('button', { name: 'Count exactly' })).toBeEnabled();
  });

  it('says so where the server cannot count, with no button', async () => {
    gauge({ exactCount: { kind: 'estimate', canCount: false } });
    await userEvent.click(screen.getByRole('meter', { name: 'Context usage' }));
    expect(screen.getByText('Estimate; this server cannot count exactly.')).toBeVisible();
    expect(screen.queryByRole('button', { name: /count/i })).not.toBeInTheDocument();
  });
});

const SONNET: Settings = {
  ...DEFAULT_SETTINGS,
  provider: 'anthropic',
  apiKeys: { anthropic: 'sk-ant-test-key' },
  models: { anthropic: 'claude-sonnet-4-6' },
};

/** A provider that answers at once and counts every request as `tokens`. */
function countingProvider(counted: ChatRequest[], tokens: number): ChatProvider {
  return {
    id: 'anthropic',
    wireShape: 'anthropic',
    send: async () => answer([{ type: 'text', text: 'Noted.' }]),
    complete: async () => '',
    async countTokens(request) {
      counted.push(request);
      return tokens;
    },
  };
}

describe('Count exactly in the app', () => {
  let counted: ChatRequest[];
  beforeEach(() => {
    resetApp();
    counted = [];
  });

  it('asks the provider for the request as it stands and shows its count as exact', async () => {
    await seedSettings(SONNET);
    runtime.deps = { ...runtime.deps, createProvider: async () => countingProvider(counted, 4_321) };
    renderApp();
    await userEvent.type(await screen.findByRole('textbox', { name: 'Message' }), 'How long is this conversation?{Enter}');
    await waitFor(() => expect(runtime.store.getState().sendingId).toBeNull());
    await screen.findByText('Noted.');
    const meter = screen.getByRole('meter', { name: 'Context usage' });
    // Far from every limit: nothing is counted unless asked.
    expect(counted).toHaveLength(0);
    await userEvent.click(meter);
    await userEvent.click(screen.getByRole('button', { name: 'Count exactly' }));
    await waitFor(() => expect(meter.getAttribute('aria-valuetext')).toMatch(/, exact$/));
    expect(counted).toHaveLength(1);
    expect(counted[0]!.messages).toHaveLength(2);
    const reserve = Number(
      within(screen.getByRole('row', { name: /^Output reserve/ }))
        .getAllByRole('cell')[0]!
        .textContent!.replace(/,/g, ''),
    );
    expect(Number(meter.getAttribute('aria-valuenow'))).toBe(4_321 + reserve);
    expect(screen.getByRole('row', { name: 'Input counted by the provider (exact) 4,321' })).toBeInTheDocument();

    // Typing a draft changes no message of the request: still exact, the draft added as estimated.
    await userEvent.type(screen.getByRole('textbox', { name: 'Message' }), 'And now?');
    await waitFor(() => expect(Number(meter.getAttribute('aria-valuenow'))).toBeGreaterThan(4_321 + reserve));
    expect(meter.getAttribute('aria-valuetext')).toMatch(/, exact$/);
    expect(counted).toHaveLength(1);
  });

  it('keeps the estimate on an OpenAI-compatible server and says it cannot count exactly', async () => {
    await seedSettings({
      ...DEFAULT_SETTINGS,
      provider: 'openai-compatible',
      baseUrls: { ...DEFAULT_SETTINGS.baseUrls, 'openai-compatible': 'https://llm.example/v1' },
      models: { 'openai-compatible': 'llama3.2' },
    });
    runtime.deps = {
      ...runtime.deps,
      createProvider: async () => ({ ...countingProvider(counted, 1), id: 'openai-compatible', wireShape: 'openai', countTokens: undefined }),
    };
    renderApp();
    await userEvent.type(await screen.findByRole('textbox', { name: 'Message' }), 'Hello there{Enter}');
    await waitFor(() => expect(runtime.store.getState().sendingId).toBeNull());
    await userEvent.click(screen.getByRole('meter', { name: 'Context usage' }));
    expect(screen.getByText('Estimate; this server cannot count exactly.')).toBeVisible();
    expect(screen.queryByRole('button', { name: 'Count exactly' })).not.toBeInTheDocument();
    expect(screen.getByRole('meter', { name: 'Context usage' }).getAttribute('aria-valuetext')).not.toMatch(/exact/);
  });
});
