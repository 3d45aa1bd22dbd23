import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { beforeEach, describe, expect, it } from 'vitest';
import type { ChatProvider, ChatRequest } from '../../src/providers';
import { DEFAULT_SETTINGS, type Settings } from '../../src/store/settings';
import { renderApp, resetApp, runtime, seedSettings } from './appHarness';

const SONNET: Settings = {
  ...DEFAULT_SETTINGS,
  provider: 'anthropic',
  apiKeys: { anthropic: 'sk-ant-test-key' },
  models: { anthropic: 'claude-sonnet-5-5' },
};

/** A provider that answers at once and keeps every request it was sent. */
function recordingProvider(requests: ChatRequest[]): ChatProvider {
  return {
    id: 'anthropic',
    wireShape: 'anthropic',
    async send(request) {
      requests.push(request);
      return {
        content: [{ type: 'text', text: 'Noted.' }],
        usage: { inputTokens: 20, outputTokens: 3, cacheReadTokens: 0, cacheWriteTokens: 0 },
        usageReported: true,
        stopReason: 'end_turn',
        model: request.model,
      };
    },
    async complete() {
      return '';
    },
  };
}

async function send(text: string, requests: ChatRequest[]): Promise<ChatRequest> {
  const before = requests.length;
  await userEvent.type(screen.getByRole('textbox', { name: 'Message' }), `${text}{Enter}`);
  await waitFor(() => expect(requests.length).toBe(before + 1));
  await waitFor(() => expect(runtime.store.getState().sendingId).toBeNull());
  return requests.at(-1)!;
}

describe('thinking for the next message', () => {
  let requests: ChatRequest[];
  beforeEach(async () => {
    resetApp();
    await seedSettings(SONNET);
    requests = [];
    runtime.deps = { ...runtime.deps, createProvider: async () => recordingProvider(requests) };
  });

  it('offers what the model documents, sends the choice, and keeps a valid one when the model changes, saying so', async () => {
    renderApp();
    const picker = await screen.findByRole('combobox', { name: 'Thinking for the next message' });
    expect(
      within(picker)
        .getAllByRole('option')
        .map((o) => o.textContent),
    ).toEqual(['Model default (high)', 'Off (notes between tools only)', 'Low', 'Medium', 'High', 'Extra high', 'Max']);

    // The model's default: adaptive, asking for the thinking's summary (Sonnet 5.5 sends none unless asked).
    expect((await send('First', requests)).thinking).toMatchObject({ thinking: { type: 'adaptive', display: 'summarized' } });

    await userEvent.selectOptions(screen.getByRole('combobox', { name: 'Thinking for the next message' }), 'Off (notes between tools only)');
    expect((await send('Second', requests)).thinking).toMatchObject({ thinking: { type: 'between_tools' } });
    expect(requests.at(-1)!.thinking?.effort).toBeUndefined();

    // Opus 5.5 cannot turn thinking off: its lowest effort takes the place of Off, and the user is told.
    await userEvent.selectOptions(screen.getByRole('combobox', { name: 'Model for the next message' }), 'claude-opus-5-5');
    await screen.findByText('Thinking is now “Low”: Claude Opus 5.5 does not take “Off”.');
    expect(screen.getByRole('combobox', { name: 'Thinking for the next message' })).toHaveDisplayValue('Low');
    const third = await send('Third', requests);
    expect(third.model).toBe('claude-opus-5-5');
    expect(third.thinking).toMatchObject({ thinking: { type: 'adaptive', display: 'summarized' }, effort: 'low' });

    // The choice is the conversation's: a reload keeps it.
    const id = runtime.store.getState().activeId!;
    expect(runtime.store.getState().conversations.find((c) => c.id === id)?.overrides).toMatchObject({ thinking: { kind: 'effort', effort: 'low' } });
  });

  it('gives a budget model its budget and the room for it in max_tokens', async () => {
    await seedSettings({ ...SONNET, models: { anthropic: 'claude-haiku-4-5' }, maxOutputTokens: 2000 });
    renderApp();
    await userEvent.selectOptions(await screen.findByRole('combobox', { name: 'Thinking for the next message' }), 'Up to 4,096 tokens');
    const request = await send('Think it through', requests);
    expect(request.thinking?.thinking).toEqual({ type: 'enabled', budget_tokens: 4096 });
    // Anthropic counts thinking in max_tokens, which must exceed the budget: the answer keeps its 2,000.
    expect(request.maxTokens).toBe(6096);
  });

  it('shows nothing for the Demo, which has no thinking controls', async () => {
    await seedSettings(DEFAULT_SETTINGS);
    renderApp();
    await screen.findByRole('textbox', { name: 'Message' });
    expect(screen.queryByRole('combobox', { name: 'Thinking for the next message' })).not.toBeInTheDocument();
  });
});
