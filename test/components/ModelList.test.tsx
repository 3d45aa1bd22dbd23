import { cleanup, fireEvent, render, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { ChatHeader } from '../../src/components/ChatHeader';
import { ModelList } from '../../src/components/ModelList';
import { AUTO_LIST_DELAY_MS } from '../../src/components/useAutoListing';
import { useApp } from '../../src/components/AppRuntime';
import { SettingsDialog, type ModelOption } from '../../src/components/SettingsDialog';
import { WindowpaneError, type ModelChoice, type ProviderId } from '../../src/core';
import type { ModelListing } from '../../src/providers';
import { modelChoicesFor, type ListTarget } from '../../src/store';
import { DEFAULT_SETTINGS, type Settings } from '../../src/store/settings';
import { actions, renderApp, resetApp, runtime, seedSettings } from './appHarness';

const ANTHROPIC: Settings = {
  ...DEFAULT_SETTINGS,
  provider: 'anthropic',
  apiKeys: { anthropic: 'sk-ant-test-key' },
  models: { anthropic: 'claude-haiku-4-5' },
};
const LISTING: ModelListing = {
  models: [{ id: 'claude-next', label: 'Claude Next', contextWindow: 300_000 }, { id: 'claude-haiku-4-5' }, { id: 'claude-mystery' }],
  truncated: false,
};

function modelsFor(provider: ProviderId, baseUrl?: string): ModelOption[] {
  return modelChoicesFor(runtime.store.getState(), DEFAULT_SETTINGS, provider, baseUrl).map((m) => ({
    id: m.id,
    label: m.label,
    contextWindow: m.contextWindow,
    guess: m.windowSource === 'guess',
  }));
}

function openSettings(settings: Settings = ANTHROPIC) {
  const onSave = vi.fn<(settings: Settings, scope: 'global' | 'conversation') => void>();
  // As App does: the dialog is drawn again when a listing arrives, so the Model field offers the listed models.
  function Connected() {
    useApp((s) => s.modelLists);
    return <SettingsDialog settings={settings} modelsFor={modelsFor} modelList={(slot) => <ModelList {...slot} />} onSave={onSave} onClose={() => {}} />;
  }
  renderApp(<Connected />);
  const dialog = screen.getByRole('dialog', { name: 'Settings' });
  return { dialog: within(dialog), onSave };
}

describe('the model list in Settings', () => {
  beforeEach(() => resetApp());

  it('lists the models the key can use, each with its window and where it comes from', async () => {
    const listModels = vi.fn(async () => LISTING);
    runtime.deps = { ...runtime.deps, listModels };
    const { dialog } = openSettings();
    const list = dialog.getByRole('region', { name: 'Models this key can use' });
    expect(within(list).getByRole('status')).toHaveTextContent('Not listed yet.');
    await userEvent.click(within(list).getByRole('button', { name: 'List models' }));
    expect(listModels).toHaveBeenCalledWith(
      {
        provider: 'anthropic',
        apiKey: 'sk-ant-test-key',
        baseUrl: 'https://api.anthropic.com',
        keyConfirmedFor: undefined,
      },
      undefined,
    );
    const rows = await within(list).findAllByRole('listitem');
    expect(rows.map((row) => row.textContent)).toEqual([
      'Claude Next claude-next300,000 tokens (stated by the provider)',
      'Claude Haiku 4.5 claude-haiku-4-5200,000 tokens (documented)',
      'claude-mystery4,096 tokens — a guess; enter the real windowWindow of claude-mystery',
    ]);
    expect(within(list).getByRole('status')).toHaveTextContent('3 models listed just now.');
    expect(within(list).getByRole('button', { name: 'Refresh' })).toBeEnabled();
    // The listed models can be chosen in the Model field, a guess said as one.
    const model = dialog.getByRole('combobox', { name: 'Model' });
    const options = within(model)
      .getAllByRole('option')
      .map((o) => o.textContent);
    expect(options).toContain('Claude Next — 300,000 tokens');
    expect(options).toContain('claude-mystery — 4,096 tokens (a guess)');
  });

  it('takes the real window of a guessed model, and saves it with the settings', async () => {
    runtime.deps = { ...runtime.deps, listModels: async () => LISTING };
    const { dialog, onSave } = openSettings();
    await userEvent.click(dialog.getByRole('button', { name: 'List models' }));
    const input = await dialog.findByRole('spinbutton', { name: 'Window of claude-mystery' });
    fireEvent.change(input, { target: { value: '32768' } });
    expect(dialog.getByText('32,768 tokens (yours)')).toBeInTheDocument();
    await userEvent.click(dialog.getByRole('button', { name: 'Save' }));
    expect(onSave.mock.lastCall?.[0].modelWindows).toEqual({ anthropic: { 'claude-mystery': 32_768 } });
  });

  it('says plainly why a listing failed, next to the list', async () => {
    runtime.deps = {
      ...runtime.deps,
      listModels: async () => {
        throw new WindowpaneError('auth', 'The key was refused (401) by Anthropic. Check that it is complete and still active.');
      },
    };
    const { dialog } = openSettings();
    await userEvent.click(dialog.getByRole('button', { name: 'List models' }));
    expect(await dialog.findByRole('alert')).toHaveTextContent('The key was refused (401) by Anthropic. Check that it is complete and still active.');
    expect(dialog.queryByRole('list', { name: 'Listed models' })).not.toBeInTheDocument();
  });

  it('asks for a key before listing, and sends none still half typed', async () => {
    const listModels = vi.fn(async () => LISTING);
    runtime.deps = { ...runtime.deps, listModels };
    const { dialog } = openSettings({ ...ANTHROPIC, apiKeys: {} });
    expect(dialog.getByRole('button', { name: 'List models' })).toBeDisabled();
    expect(dialog.getByText('Enter an API key to list the models it can use.')).toBeInTheDocument();
    await userEvent.type(dialog.getByLabelText('API key'), 'sk-ant-new-key');
    expect(dialog.getByRole('button', { name: 'List models' })).toBeEnabled();
    await new Promise((resolve) => setTimeout(resolve, AUTO_LIST_DELAY_MS + 200));
    expect(listModels).not.toHaveBeenCalled();
  });

  it('lists by itself once the key looks complete and rests, stopping a listing of what was typed before', async () => {
    const signals: AbortSignal[] = [];
    const listModels = vi.fn(
      (_target: ListTarget, signal?: AbortSignal) =>
        new Promise<ModelListing>((resolve, reject) => {
          signals.push(signal!);
          // The first listing waits until it is stopped; the second answers.
          if (signals.length === 1) signal?.addEventListener('abort', () => reject(new WindowpaneError('aborted', 'Stopped.')));
          else resolve(LISTING);
        }),
    );
    runtime.deps = { ...runtime.deps, listModels };
    const { dialog } = openSettings({ ...ANTHROPIC, apiKeys: {} });
    const key = dialog.getByLabelText('API key');
    await userEvent.type(key, 'sk-ant-api03-0123456789');
    await waitFor(() => expect(listModels).toHaveBeenCalledOnce());
    expect(listModels.mock.calls[0]![0]).toMatchObject({ provider: 'anthropic', apiKey: 'sk-ant-api03-0123456789', baseUrl: 'https://api.anthropic.com' });
    const list = within(dialog.getByRole('region', { name: 'Models this key can use' }));
    expect(list.getByRole('status')).toHaveTextContent('Listing models…');
    // Typing goes on while it lists: the field takes every key, and the listing of the shorter key stops.
    await userEvent.type(key, 'ab');
    expect(key).toHaveValue('sk-ant-api03-0123456789ab');
    expect(signals[0]!.aborted).toBe(true);
    expect(list.getByRole('status')).toHaveTextContent('Not listed yet.');
    await waitFor(() => expect(listModels).toHaveBeenCalledTimes(2));
    expect(listModels.mock.calls[1]![0]).toMatchObject({ apiKey: 'sk-ant-api03-0123456789ab' });
    expect(await list.findAllByRole('listitem')).toHaveLength(3);
    expect(list.getByRole('status')).toHaveTextContent('3 models listed just now.');
  });

  it('says beside the list why a listing it started by itself failed, and Refresh tries again', async () => {
    let fail = true;
    const listModels = vi.fn(async () => {
      if (fail) throw new WindowpaneError('auth', 'The key was refused (401) by Anthropic. Check that it is complete and still active.');
      return LISTING;
    });
    runtime.deps = { ...runtime.deps, listModels };
    const { dialog } = openSettings({ ...ANTHROPIC, apiKeys: {} });
    await userEvent.type(dialog.getByLabelText('API key'), 'sk-ant-api03-0123456789');
    const list = within(dialog.getByRole('region', { name: 'Models this key can use' }));
    expect(await list.findByRole('alert', {}, { timeout: 3000 })).toHaveTextContent('The key was refused (401) by Anthropic.');
    fail = false;
    await userEvent.click(list.getByRole('button', { name: 'List models' }));
    expect(await list.findAllByRole('listitem')).toHaveLength(3);
    expect(list.queryByRole('alert')).not.toBeInTheDocument();
  });

  it('lists what Settings opens with only if it never was, and waits for the key’s new host to be allowed', async () => {
    const listModels = vi.fn(async (_target: ListTarget) => LISTING);
    runtime.deps = { ...runtime.deps, listModels };
    const saved: Settings = { ...ANTHROPIC, apiKeys: { anthropic: 'sk-ant-api03-0123456789' } };
    const first = openSettings(saved);
    await waitFor(() => expect(listModels).toHaveBeenCalledOnce());
    expect(await first.dialog.findAllByRole('listitem')).toHaveLength(3);
    cleanup();

    // Listed before: opening Settings again sends nothing.
    const again = openSettings(saved);
    await new Promise((resolve) => setTimeout(resolve, AUTO_LIST_DELAY_MS + 200));
    expect(listModels).toHaveBeenCalledOnce();
    // The saved key pointed at another host waits for the answer to "Send it there too?".
    await userEvent.type(again.dialog.getByRole('textbox', { name: 'Base URL' }), 'https://proxy.example.com');
    await new Promise((resolve) => setTimeout(resolve, AUTO_LIST_DELAY_MS + 200));
    expect(listModels).toHaveBeenCalledOnce();
    await userEvent.click(again.dialog.getByRole('radio', { name: 'Keep the key for https://proxy.example.com' }));
    await waitFor(() => expect(listModels).toHaveBeenCalledTimes(2));
    expect(listModels.mock.calls[1]![0]).toMatchObject({ baseUrl: 'https://proxy.example.com' });
  });
});

describe('the model picker in the header', () => {
  const choices: ModelChoice[] = [
    { id: 'claude-haiku-4-5', label: 'Claude Haiku 4.5', contextWindow: 200_000, windowSource: 'registry', listed: true },
    { id: 'claude-mystery', label: 'claude-mystery', contextWindow: 4096, windowSource: 'guess', listed: true },
  ];

  it('offers the models with their windows and switches on a choice', async () => {
    const onModelChange = vi.fn();
    render(
      <ChatHeader
        title="Plans"
        modelLabel="Claude Haiku 4.5"
        isDemo={false}
        canExportActive
        onSettings={() => {}}
        onExport={() => {}}
        models={choices}
        modelId="claude-haiku-4-5"
        onModelChange={onModelChange}
      />,
    );
    const picker = screen.getByRole('combobox', { name: 'Model for the next message' });
    expect(
      within(picker)
        .getAllByRole('option')
        .map((o) => o.textContent),
    ).toEqual(['Claude Haiku 4.5 — 200,000 tokens', 'claude-mystery — 4,096 tokens, a guess']);
    await userEvent.selectOptions(picker, 'claude-mystery');
    expect(onModelChange).toHaveBeenCalledWith('claude-mystery');
  });

  it('only names the Demo', () => {
    render(
      <ChatHeader
        title="Plans"
        modelLabel="Demo"
        isDemo
        canExportActive
        onSettings={() => {}}
        onExport={() => {}}
        models={choices}
        modelId="claude-haiku-4-5"
        onModelChange={() => {}}
      />,
    );
    expect(screen.queryByRole('combobox', { name: 'Model for the next message' })).not.toBeInTheDocument();
    expect(screen.getByText('Demo — not a real model')).toBeInTheDocument();
  });

  it('in the app, a switch replans the next request for the new window without a send', async () => {
    resetApp();
    await seedSettings(ANTHROPIC);
    renderApp();
    await screen.findByRole('textbox', { name: 'Message' });
    const meter = screen.getByRole('meter', { name: 'Context usage' });
    expect(meter).toHaveAttribute('aria-valuemax', '200000');
    await userEvent.selectOptions(screen.getByRole('combobox', { name: 'Model for the next message' }), 'claude-opus-5-5');
    await waitFor(() => expect(screen.getByRole('meter', { name: 'Context usage' })).toHaveAttribute('aria-valuemax', '1000000'));
    expect(runtime.store.getState().settings.models.anthropic).toBe('claude-opus-5-5');
    // A listed model is planned with the window its endpoint states.
    runtime.deps = { ...runtime.deps, listModels: async () => LISTING };
    await actions.refreshModels({ provider: 'anthropic', apiKey: 'sk-ant-test-key' });
    await userEvent.selectOptions(screen.getByRole('combobox', { name: 'Model for the next message' }), 'claude-next');
    await waitFor(() => expect(screen.getByRole('meter', { name: 'Context usage' })).toHaveAttribute('aria-valuemax', '300000'));
  });
});
