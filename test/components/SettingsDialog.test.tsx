import { render, screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it, vi } from 'vitest';
import { SettingsDialog, type ModelOption } from '../../src/components/SettingsDialog';
import { MODEL_REGISTRY, type ProviderId } from '../../src/core';
import { DEFAULT_SETTINGS, type Settings } from '../../src/store/settings';
import { showSettingsSection, type SettingsSection } from './settingsSections';
import { trackerServer } from '../mcp/fixtures';

function modelsFor(provider: ProviderId): ModelOption[] {
  const registryProvider = provider === 'openai-compatible' ? 'none' : provider;
  return MODEL_REGISTRY.filter((m) => m.provider === registryProvider).map((m) => ({ id: m.id, label: m.label, contextWindow: m.contextWindow }));
}

function open(props: { settings?: Settings; conversationTitle?: string } = {}) {
  const onSave = vi.fn<(settings: Settings, scope: 'global' | 'conversation') => void>();
  const onClose = vi.fn();
  render(
    <SettingsDialog
      settings={props.settings ?? DEFAULT_SETTINGS}
      modelsFor={modelsFor}
      conversationTitle={props.conversationTitle}
      onSave={onSave}
      onClose={onClose}
    />,
  );
  const dialog = screen.getByRole('dialog', { name: 'Settings' });
  return { dialog, onSave, onClose, saved: () => onSave.mock.lastCall };
}

describe('SettingsDialog', () => {
  it('is a modal dialog named "Settings" that starts on the Demo with the default settings', async () => {
    const { dialog } = open();
    expect(dialog).toHaveAttribute('aria-modal', 'true');
    const d = within(dialog);
    expect(d.getByRole('combobox', { name: 'Provider' })).toHaveDisplayValue('Demo (no key, runs in this page)');
    expect(d.getByRole('combobox', { name: 'Model' })).toHaveDisplayValue(/^Demo \(no key\) — 4,000 tokens$/);
    expect(d.getByRole('spinbutton', { name: 'Context window' })).toHaveValue(0);
    expect(d.getByRole('textbox', { name: 'System prompt' })).toHaveValue('');
    expect(d.getByRole('spinbutton', { name: 'Max output tokens' })).toHaveValue(0);
    // The Demo needs no key, so it asks for none.
    expect(d.queryByLabelText('API key')).not.toBeInTheDocument();
    expect(d.queryByRole('textbox', { name: 'Base URL' })).not.toBeInTheDocument();
    await showSettingsSection(dialog, 'Context');
    expect(d.getByRole('combobox', { name: 'Strategy' })).toHaveValue('provider');
    expect(d.getByRole('checkbox', { name: 'Summarize evicted messages' })).not.toBeChecked();
    expect(d.getByRole('spinbutton', { name: 'Max messages' })).toHaveValue(100);
    expect(d.getByRole('spinbutton', { name: 'Preserve first messages' })).toHaveValue(1);
    expect(d.getByRole('spinbutton', { name: 'Preserve last messages' })).toHaveValue(20);
    expect(d.getByRole('spinbutton', { name: 'Rolling window size' })).toHaveValue(50);
    expect(d.getByRole('spinbutton', { name: 'Trim above (% of window)' })).toHaveValue(80);
    expect(d.getByRole('spinbutton', { name: 'Trim down to (% of window)' })).toHaveValue(70);
    expect(d.getByRole('textbox', { name: 'Summary model' })).toHaveValue('');
    expect(d.getByRole('spinbutton', { name: 'Summary max tokens' })).toHaveValue(1024);
    await showSettingsSection(dialog, 'Appearance');
    expect(d.getByRole('radio', { name: 'System' })).toBeChecked();
  });

  it('focuses its first field when it opens', () => {
    open();
    expect(screen.getByRole('combobox', { name: 'Provider' })).toHaveFocus();
  });

  it('asks a real provider for a key that is masked, can be shown, and is said to stay in this browser', async () => {
    const { dialog } = open();
    const d = within(dialog);
    await userEvent.selectOptions(d.getByRole('combobox', { name: 'Provider' }), 'anthropic');
    const key = d.getByLabelText('API key');
    expect(key).toHaveAttribute('type', 'password');
    expect(key).toHaveAccessibleDescription(/Stored only in this browser/);
    await userEvent.type(key, 'sk-ant-secret');
    await userEvent.click(d.getByRole('button', { name: 'Show' }));
    expect(key).toHaveAttribute('type', 'text');
    expect(key).toHaveValue('sk-ant-secret');
    await userEvent.click(d.getByRole('button', { name: 'Hide' }));
    expect(key).toHaveAttribute('type', 'password');
    expect(d.getByRole('textbox', { name: 'Base URL' })).toHaveAccessibleDescription('Default: https://api.anthropic.com');
  });

  it('shows what Windowpane adds to the chosen strategy, off for a classic one, and resets it to its own rule', async () => {
    const { dialog, saved } = open();
    const d = within(dialog);
    await showSettingsSection(dialog, 'Context');
    const added = () => d.getByRole('group', { name: 'Added by Windowpane' });
    // The default, the provider's compaction, has no additions; auto uses every addition it reads.
    expect(d.queryByRole('group', { name: 'Added by Windowpane' })).not.toBeInTheDocument();
    await userEvent.selectOptions(d.getByRole('combobox', { name: 'Strategy' }), 'auto');
    expect(within(added()).getByRole('switch', { name: 'Clear old tool results first' })).toBeChecked();
    expect(within(added()).getByRole('switch', { name: 'Keep pinned messages' })).toBeChecked();
    await userEvent.selectOptions(d.getByRole('combobox', { name: 'Strategy' }), 'two-tier');
    const switches = within(added()).getAllByRole('switch');
    expect(switches.map((s) => s.getAttribute('aria-checked') ?? String((s as HTMLInputElement).checked))).toEqual(['false', 'false', 'false', 'false']);
    expect(within(added()).getByRole('switch', { name: 'Keep the first message (the goal)' })).toHaveAccessibleDescription(
      'Send your first message besides the last messages, so the model keeps the task in view.',
    );
    await userEvent.click(within(added()).getByRole('switch', { name: "Count with the model's token estimate" }));
    await userEvent.click(d.getByRole('button', { name: 'Save' }));
    expect(saved()?.[0].window).toMatchObject({ strategy: 'two-tier', additions: { 'two-tier': { scriptAwareCount: true } } });

    const trigger = d.getByRole('spinbutton', { name: 'Trim above (% of window)' });
    await userEvent.clear(trigger);
    await userEvent.type(trigger, '90');
    await userEvent.click(within(added()).getByRole('button', { name: 'Reset to the strategy’s own rule' }));
    expect(within(added()).getByRole('switch', { name: "Count with the model's token estimate" })).not.toBeChecked();
    expect(d.getByRole('spinbutton', { name: 'Trim above (% of window)' })).toHaveValue(80);
    await userEvent.click(d.getByRole('button', { name: 'Save' }));
    expect(saved()?.[0].window).toMatchObject({ strategy: 'two-tier', triggerRatio: 0.8, additions: {} });
  });

  it('asks how many files summarize keeps after its summary, only for summarize, and checks it', async () => {
    const { dialog, saved } = open();
    const d = within(dialog);
    await showSettingsSection(dialog, 'Context');
    expect(d.queryByRole('spinbutton', { name: 'Files kept after the summary' })).not.toBeInTheDocument();
    await userEvent.selectOptions(d.getByRole('combobox', { name: 'Strategy' }), 'summarize');
    const field = d.getByRole('spinbutton', { name: 'Files kept after the summary' });
    expect(field).toHaveValue(10);
    await userEvent.clear(field);
    await userEvent.type(field, '-2');
    expect(field).toHaveAttribute('aria-invalid', 'true');
    await userEvent.clear(field);
    await userEvent.type(field, '4');
    expect(field).not.toHaveAttribute('aria-invalid');
    await userEvent.click(d.getByRole('button', { name: 'Save' }));
    expect(saved()?.[0].window).toMatchObject({ strategy: 'summarize', preserveRecentFiles: 4 });
  });

  it('saves the edited settings globally', async () => {
    const { dialog, saved } = open();
    const d = within(dialog);
    await userEvent.selectOptions(d.getByRole('combobox', { name: 'Provider' }), 'anthropic');
    await userEvent.type(d.getByLabelText('API key'), 'sk-ant-test');
    await userEvent.type(d.getByRole('textbox', { name: 'Base URL' }), 'http://127.0.0.1:8787');
    await userEvent.selectOptions(d.getByRole('combobox', { name: 'Model' }), 'claude-haiku-4-5');
    await showSettingsSection(dialog, 'Context');
    await userEvent.selectOptions(d.getByRole('combobox', { name: 'Strategy' }), 'truncate');
    await userEvent.click(d.getByRole('checkbox', { name: 'Summarize evicted messages' }));
    for (const [name, value] of [
      ['Max messages', '40'],
      ['Preserve first messages', '2'],
      ['Preserve last messages', '8'],
      ['Trim above (% of window)', '90'],
      ['Trim down to (% of window)', '60'],
      ['Summary max tokens', '512'],
    ] as const) {
      const field = d.getByRole('spinbutton', { name });
      await userEvent.clear(field);
      await userEvent.type(field, value);
    }
    await userEvent.type(d.getByRole('textbox', { name: 'Summary model' }), 'claude-haiku-4-5');
    await userEvent.click(d.getByRole('button', { name: 'Save' }));
    const [settings, scope] = saved() ?? [];
    expect(scope).toBe('global');
    expect(settings).toMatchObject({
      provider: 'anthropic',
      apiKeys: { anthropic: 'sk-ant-test' },
      baseUrls: { anthropic: 'http://127.0.0.1:8787' },
      models: { anthropic: 'claude-haiku-4-5' },
      window: {
        strategy: 'truncate',
        summarize: true,
        maxMessages: 40,
        preserveFirst: 2,
        preserveLast: 8,
        triggerRatio: 0.9,
        targetRatio: 0.6,
        summaryModel: 'claude-haiku-4-5',
        summaryMaxTokens: 512,
      },
    });
  });

  it('saves the model shown in the list even when the user never touched it', async () => {
    const { dialog, saved } = open();
    await userEvent.selectOptions(within(dialog).getByRole('combobox', { name: 'Provider' }), 'openai');
    await userEvent.click(within(dialog).getByRole('button', { name: 'Save' }));
    expect(saved()?.[0].models.openai).toBe(modelsFor('openai')[0]?.id);
  });

  it('takes a custom model with its own context window', async () => {
    const { dialog, saved } = open();
    const d = within(dialog);
    await userEvent.selectOptions(d.getByRole('combobox', { name: 'Provider' }), 'openai');
    await userEvent.selectOptions(d.getByRole('combobox', { name: 'Model' }), 'Custom model…');
    const custom = d.getByRole('textbox', { name: 'Model' });
    expect(custom).toHaveFocus();
    await userEvent.type(custom, 'my-finetune');
    const window = d.getByRole('spinbutton', { name: 'Context window' });
    await userEvent.clear(window);
    await userEvent.type(window, '32000');
    await userEvent.click(d.getByRole('button', { name: 'Save' }));
    expect(saved()?.[0]).toMatchObject({ provider: 'openai', models: { openai: 'my-finetune' }, contextWindow: 32_000 });
  });

  it('asks for a typed model id for an OpenAI-compatible server, which lists none', async () => {
    const { dialog, saved } = open();
    const d = within(dialog);
    await userEvent.selectOptions(d.getByRole('combobox', { name: 'Provider' }), 'openai-compatible');
    // Focus stays where the user is working.
    expect(d.getByRole('combobox', { name: 'Provider' })).toHaveFocus();
    await userEvent.type(d.getByRole('textbox', { name: 'Model' }), 'llama3.1');
    expect(d.getByLabelText('API key')).toHaveAccessibleDescription(/Optional for local servers/);
    await userEvent.click(d.getByRole('button', { name: 'Save' }));
    expect(saved()?.[0]).toMatchObject({ provider: 'openai-compatible', models: { 'openai-compatible': 'llama3.1' } });
  });

  it('shows a saved custom model as typed when its provider is chosen, not a listed one it is not', async () => {
    const settings: Settings = { ...DEFAULT_SETTINGS, models: { openai: 'my-finetune' } };
    const { dialog, saved } = open({ settings });
    const d = within(dialog);
    await userEvent.selectOptions(d.getByRole('combobox', { name: 'Provider' }), 'openai');
    expect(d.getByRole('textbox', { name: 'Model' })).toHaveValue('my-finetune');
    await userEvent.click(d.getByRole('button', { name: 'From list' }));
    expect(d.getByRole('combobox', { name: 'Model' })).toHaveValue(modelsFor('openai')[0]?.id);
    await userEvent.click(d.getByRole('button', { name: 'Save' }));
    expect(saved()?.[0].models.openai).toBe(modelsFor('openai')[0]?.id);
  });

  it('applies to all conversations or only the open one', async () => {
    const { dialog, saved, onSave } = open({ conversationTitle: 'Trip to Lisbon' });
    const d = within(dialog);
    const scope = d.getByRole('group', { name: 'Apply to' });
    expect(within(scope).getByRole('radio', { name: 'All conversations (defaults)' })).toBeChecked();
    await userEvent.click(within(scope).getByRole('radio', { name: 'Only “Trip to Lisbon”' }));
    await showSettingsSection(dialog, 'Context');
    await userEvent.click(d.getByRole('checkbox', { name: 'Summarize evicted messages' }));
    await userEvent.click(d.getByRole('button', { name: 'Save' }));
    expect(onSave).toHaveBeenCalledOnce();
    expect(saved()?.[1]).toBe('conversation');
    expect(saved()?.[0].window.summarize).toBe(true);
  });

  it('offers no per-conversation scope when no conversation is open', () => {
    const { dialog } = open();
    expect(within(dialog).queryByRole('radio')).not.toBeInTheDocument();
  });

  it('closes on Cancel and on Escape without saving', async () => {
    const { dialog, onSave, onClose } = open();
    await userEvent.click(within(dialog).getByRole('button', { name: 'Cancel' }));
    expect(onClose).toHaveBeenCalledTimes(1);
    await userEvent.keyboard('{Escape}');
    expect(onClose).toHaveBeenCalledTimes(2);
    expect(onSave).not.toHaveBeenCalled();
  });

  it('shows settings saved before, not the defaults', async () => {
    const settings: Settings = {
      ...DEFAULT_SETTINGS,
      provider: 'anthropic',
      apiKeys: { anthropic: 'sk-ant-x' },
      window: { ...DEFAULT_SETTINGS.window, summarize: true, maxMessages: 30 },
    };
    const { dialog } = open({ settings });
    const d = within(dialog);
    expect(d.getByRole('combobox', { name: 'Provider' })).toHaveValue('anthropic');
    expect(d.getByLabelText('API key')).toHaveValue('sk-ant-x');
    await showSettingsSection(dialog, 'Context');
    expect(d.getByRole('checkbox', { name: 'Summarize evicted messages' })).toBeChecked();
    expect(d.getByRole('spinbutton', { name: 'Max messages' })).toHaveValue(30);
  });
});

describe('SettingsDialog: Tools', () => {
  it('has a Tools section with a switch per tool, each explained in one line, and the round limit', async () => {
    const { dialog } = open();
    const d = await showSettingsSection(dialog, 'Tools');
    expect(d.getByRole('heading', { name: 'Tools' })).toBeInTheDocument();
    const read = d.getByRole('switch', { name: 'read_attachment — read attached files' });
    const run = d.getByRole('switch', { name: 'run_javascript — run code in a sandbox' });
    expect(read).toBeChecked();
    expect(run).toBeChecked();
    expect(read).toHaveAccessibleDescription(/reads them by line range; they are never pasted into the prompt/);
    expect(run).toHaveAccessibleDescription(
      'The model runs JavaScript in a worker in this browser: no network, no access to the page, stopped after 5 seconds.',
    );
    const rounds = d.getByRole('spinbutton', { name: 'Tool rounds per turn' });
    expect(rounds).toHaveValue(25);
    expect(rounds).toHaveAccessibleDescription('From 1 to 200. At the limit the turn stops and says so.');
  });

  it('saves the switches and the round limit with the other settings', async () => {
    const { dialog, saved } = open();
    const d = within(dialog);
    await showSettingsSection(dialog, 'Tools');
    await userEvent.click(d.getByRole('switch', { name: /^run_javascript/ }));
    const rounds = d.getByRole('spinbutton', { name: 'Tool rounds per turn' });
    await userEvent.clear(rounds);
    await userEvent.type(rounds, '40');
    await userEvent.click(d.getByRole('button', { name: 'Save' }));
    expect(saved()?.[0].tools).toEqual({ readAttachment: true, runJavascript: false, maxRounds: 40, mcpServers: [] });
  });

  it('refuses an MCP server’s time limit per call that is not whole seconds in range, and saves once it is fixed', async () => {
    const server = { ...trackerServer('https://mcp.example.com/mcp'), callTimeoutSeconds: 30 };
    const { dialog, onSave, saved } = open({ settings: { ...DEFAULT_SETTINGS, tools: { ...DEFAULT_SETTINGS.tools, mcpServers: [server] } } });
    const d = within(dialog);
    await showSettingsSection(dialog, 'Tools');
    const limit = d.getByRole('spinbutton', { name: 'Time limit per call (seconds)' });
    expect(limit).toHaveValue(30);
    for (const typed of ['0', '601', '2.5']) {
      await userEvent.clear(limit);
      await userEvent.type(limit, typed);
      expect(limit).toBeInvalid();
      expect(limit).toHaveAccessibleDescription(/^Whole seconds from 1 to 600\./);
      expect(d.getByRole('button', { name: 'Save' })).toHaveAccessibleDescription(
        'Save is unavailable until this field is fixed: Time limit per call (seconds).',
      );
      await userEvent.click(d.getByRole('button', { name: 'Save' }));
      expect(onSave).not.toHaveBeenCalled();
      expect(limit).toHaveFocus();
    }
    // Nothing else typed was lost: correct the value and Save.
    await userEvent.clear(limit);
    await userEvent.type(limit, '90');
    expect(limit).toBeValid();
    await userEvent.click(d.getByRole('button', { name: 'Save' }));
    expect(saved()?.[0].tools.mcpServers).toEqual([{ ...server, callTimeoutSeconds: 90 }]);
  });

  it('shows switches saved before', async () => {
    const { dialog } = open({ settings: { ...DEFAULT_SETTINGS, tools: { readAttachment: false, runJavascript: true, maxRounds: 7, mcpServers: [] } } });
    const d = await showSettingsSection(dialog, 'Tools');
    expect(d.getByRole('switch', { name: /^read_attachment/ })).not.toBeChecked();
    expect(d.getByRole('switch', { name: /^run_javascript/ })).toBeChecked();
    expect(d.getByRole('spinbutton', { name: 'Tool rounds per turn' })).toHaveValue(7);
  });

  it.each([['0'], ['201'], ['2.5'], ['']])('refuses a round limit of "%s" with a clear message, and saves once it is fixed', async (typed) => {
    const { dialog, onSave, saved } = open();
    const d = within(dialog);
    await showSettingsSection(dialog, 'Tools');
    const rounds = d.getByRole('spinbutton', { name: 'Tool rounds per turn' });
    await userEvent.clear(rounds);
    if (typed) await userEvent.type(rounds, typed);
    expect(rounds).toBeInvalid();
    expect(rounds).toHaveAccessibleDescription(/^Enter a whole number from 1 to 200\./);
    await userEvent.click(d.getByRole('button', { name: 'Save' }));
    expect(onSave).not.toHaveBeenCalled();
    expect(rounds).toHaveFocus();
    // Nothing else typed was lost: correct the value and Save.
    await userEvent.clear(rounds);
    await userEvent.type(rounds, '12');
    expect(rounds).toBeValid();
    expect(rounds).toHaveAccessibleDescription('From 1 to 200. At the limit the turn stops and says so.');
    await userEvent.click(d.getByRole('button', { name: 'Save' }));
    expect(saved()?.[0].tools.maxRounds).toBe(12);
  });
});

describe('SettingsDialog: every knob is checked as it is typed', () => {
  const whole = (min: string, max: string) => new RegExp(`^Enter a whole number from ${min} to ${max}\\.`);
  const percentage = /^Enter a percentage above 0 and at most 100\./;
  const cases: [label: string, bad: string[], reason: RegExp, fixed: string, saved: (s: Settings) => unknown, expected: unknown][] = [
    ['Context window', ['-5', '2.5', '200000000', ''], whole('0', '100,000,000'), '32000', (s) => s.contextWindow, 32_000],
    ['Max output tokens', ['-1', '1.5', ''], whole('0', '100,000,000'), '4096', (s) => s.maxOutputTokens, 4096],
    ['Max messages', ['-1', '0.5', '2000000', ''], whole('0', '1,000,000'), '40', (s) => s.window.maxMessages, 40],
    ['Preserve first messages', ['-1', '10001', ''], whole('0', '10,000'), '2', (s) => s.window.preserveFirst, 2],
    ['Preserve last messages', ['1.5', '-3', ''], whole('0', '10,000'), '8', (s) => s.window.preserveLast, 8],
    [
      'Rolling window size',
      ['0', '1001', '5000', '2.5', ''],
      /^Enter a whole number from 1 to 1,000\. The rolling strategy looks at the newest 1,000 messages at most\./,
      '1000',
      (s) => s.window.rollingMax,
      1000,
    ],
    ['Trim above (% of window)', ['0', '150', '-10', ''], percentage, '90', (s) => s.window.triggerRatio, 0.9],
    ['Trim down to (% of window)', ['0', '101', ''], percentage, '62.5', (s) => s.window.targetRatio, 0.625],
    [
      'After a trim, fall to (% of trigger)',
      ['0', '100', '120', ''],
      /^Enter a percentage above 0 and below 100\. At 100 % every request would trim\./,
      '50',
      (s) => s.window.lowWater,
      0.5,
    ],
    ['Token budget per request', ['-1', '1.5', '200000000', ''], whole('0', '100,000,000'), '1500', (s) => s.window.budgetTokens, 1500],
    ['Money budget per request (USD)', ['-0.5', ''], /^Enter an amount of 0 or more\./, '0.12', (s) => s.window.budgetUsd, 0.12],
    ['Summary max tokens', ['0', '2000000', '1.5', ''], whole('1', '1,000,000'), '32', (s) => s.window.summaryMaxTokens, 32],
    ['Tool rounds per turn', ['0', '201', ''], whole('1', '200'), '12', (s) => s.tools.maxRounds, 12],
  ];

  const sectionOf = (label: string): SettingsSection =>
    label === 'Context window' || label === 'Max output tokens' ? 'Model and key' : label === 'Tool rounds per turn' ? 'Tools' : 'Context';

  it.each(cases)(
    '"%s" refuses each bad value with the reason beside it and Save unavailable, and saves once fixed',
    async (label, bad, reason, fixed, saved, expected) => {
      const { dialog, onSave } = open();
      const d = within(dialog);
      await showSettingsSection(dialog, sectionOf(label));
      const field = d.getByRole('spinbutton', { name: label });
      const save = d.getByRole('button', { name: 'Save' });
      const short = label.replace(/ \(.*\)$/, '');
      for (const value of bad) {
        await userEvent.clear(field);
        if (value) await userEvent.type(field, value);
        expect(field, `${label} = "${value}"`).toBeInvalid();
        expect(field).toHaveAttribute('aria-invalid', 'true');
        expect(field).toHaveAccessibleDescription(reason);
        // The reason is on screen, not only read out.
        expect(d.getByText(reason)).toBeVisible();
        expect(save).toHaveAttribute('aria-disabled', 'true');
        expect(save).toHaveAccessibleDescription(`Save is unavailable until this field is fixed: ${short}.`);
        expect(d.getByText(`Save is unavailable until this field is fixed: ${short}.`)).toBeVisible();
        await userEvent.click(save);
        expect(onSave).not.toHaveBeenCalled();
        expect(field).toHaveFocus();
      }
      await userEvent.clear(field);
      await userEvent.type(field, fixed);
      expect(field).toBeValid();
      expect(field).not.toHaveAttribute('aria-invalid');
      expect(save).not.toHaveAttribute('aria-disabled');
      expect(d.queryByText(/^Save is unavailable/)).not.toBeInTheDocument();
      await userEvent.click(save);
      expect(onSave).toHaveBeenCalledOnce();
      expect(saved(onSave.mock.lastCall![0])).toBe(expected);
    },
  );

  it('refuses a rolling window above 1,000 messages when the rolling strategy is chosen, saying why', async () => {
    const { dialog, onSave, saved } = open();
    const d = within(dialog);
    await showSettingsSection(dialog, 'Context');
    await userEvent.selectOptions(d.getByRole('combobox', { name: 'Strategy' }), 'rolling');
    const size = d.getByRole('spinbutton', { name: 'Rolling window size' });
    await userEvent.clear(size);
    await userEvent.type(size, '1500');
    expect(size).toHaveAccessibleDescription(
      'Enter a whole number from 1 to 1,000. The rolling strategy looks at the newest 1,000 messages at most. Messages kept by the rolling strategy.',
    );
    await userEvent.click(d.getByRole('button', { name: 'Save' }));
    expect(onSave).not.toHaveBeenCalled();
    await userEvent.clear(size);
    await userEvent.type(size, '800');
    await userEvent.click(d.getByRole('button', { name: 'Save' }));
    expect(saved()?.[0].window).toMatchObject({ strategy: 'rolling', rollingMax: 800 });
  });

  it.each([['70'], ['50']])('refuses "trim down to" of %s %% with "trim above" at 50 %%, on the field to fix, until one of them changes', async (target) => {
    const { dialog, onSave, saved } = open();
    const d = within(dialog);
    await showSettingsSection(dialog, 'Context');
    const trigger = d.getByRole('spinbutton', { name: 'Trim above (% of window)' });
    const down = d.getByRole('spinbutton', { name: 'Trim down to (% of window)' });
    await userEvent.clear(trigger);
    await userEvent.type(trigger, '50');
    await userEvent.clear(down);
    await userEvent.type(down, target);
    expect(trigger).toBeValid();
    expect(down).toBeInvalid();
    expect(down).toHaveAccessibleDescription('Must be below “Trim above” (50 %): a trim cuts the request down to this share.');
    expect(d.getByText('Must be below “Trim above” (50 %): a trim cuts the request down to this share.')).toBeVisible();
    const save = d.getByRole('button', { name: 'Save' });
    expect(save).toHaveAttribute('aria-disabled', 'true');
    expect(save).toHaveAccessibleDescription('Save is unavailable until this field is fixed: Trim down to.');
    await userEvent.click(save);
    expect(onSave).not.toHaveBeenCalled();
    expect(down).toHaveFocus();
    // Raising "trim above" fixes it as well as lowering "trim down to".
    await userEvent.clear(trigger);
    await userEvent.type(trigger, '85');
    expect(down).toBeValid();
    await userEvent.click(save);
    expect(saved()?.[0].window).toMatchObject({ triggerRatio: 0.85, targetRatio: Number(target) / 100 });
  });

  it('refuses a summary model id longer than 200 characters', async () => {
    const { dialog, onSave } = open();
    const d = within(dialog);
    await showSettingsSection(dialog, 'Context');
    const field = d.getByRole('textbox', { name: 'Summary model' });
    await userEvent.click(field);
    await userEvent.paste('m'.repeat(201));
    expect(field).toBeInvalid();
    expect(field).toHaveAccessibleDescription(/^Use at most 200 characters\./);
    await userEvent.click(d.getByRole('button', { name: 'Save' }));
    expect(onSave).not.toHaveBeenCalled();
    await userEvent.type(field, '{Backspace}');
    expect(field).toBeValid();
  });

  it('names every field to fix when there are several, in the order they appear, and shows the section of the first', async () => {
    const { dialog } = open();
    const d = within(dialog);
    for (const [section, name] of [
      ['Model and key', 'Context window'],
      ['Context', 'Rolling window size'],
      ['Tools', 'Tool rounds per turn'],
    ] as const) {
      await showSettingsSection(dialog, section);
      await userEvent.clear(d.getByRole('spinbutton', { name }));
    }
    expect(d.getByRole('button', { name: 'Save' })).toHaveAccessibleDescription(
      'Save is unavailable until these fields are fixed: Context window, Rolling window size, Tool rounds per turn.',
    );
    // Pressed in Tools, Save goes to the first field to fix, in the first section.
    await userEvent.click(d.getByRole('button', { name: 'Save' }));
    expect(d.getByRole('tab', { name: 'Model and key' })).toHaveAttribute('aria-selected', 'true');
    expect(d.getByRole('spinbutton', { name: 'Context window' })).toHaveFocus();
  });

  it('finds a field to fix in a section not shown when Enter is pressed in another', async () => {
    const { dialog, onSave } = open();
    const d = within(dialog);
    await showSettingsSection(dialog, 'Context');
    const size = d.getByRole('spinbutton', { name: 'Rolling window size' });
    await userEvent.clear(size);
    await showSettingsSection(dialog, 'Model and key');
    expect(size).not.toBeVisible();
    await userEvent.type(d.getByRole('spinbutton', { name: 'Max output tokens' }), '{Enter}');
    expect(onSave).not.toHaveBeenCalled();
    expect(d.getByRole('tab', { name: 'Context' })).toHaveAttribute('aria-selected', 'true');
    expect(size).toBeVisible();
    expect(size).toHaveFocus();
  });

  it('shows a saved value the rules refuse as invalid rather than hiding it', async () => {
    const { dialog } = open({ settings: { ...DEFAULT_SETTINGS, window: { ...DEFAULT_SETTINGS.window, rollingMax: 5000 } } });
    await showSettingsSection(dialog, 'Context');
    const size = within(dialog).getByRole('spinbutton', { name: 'Rolling window size' });
    expect(size).toHaveValue(5000);
    expect(size).toBeInvalid();
  });
});

describe('SettingsDialog: sections', () => {
  it('shows one section at a time as tabs, each panel named by its tab, moved between with the arrow keys, Home and End', async () => {
    const { dialog } = open();
    const d = within(dialog);
    const tabs = within(d.getByRole('tablist', { name: 'Settings sections' })).getAllByRole('tab');
    expect(tabs.map((t) => t.textContent)).toEqual(['Model and key', 'Context', 'Tools', 'Appearance']);
    expect(tabs.map((t) => t.getAttribute('aria-selected'))).toEqual(['true', 'false', 'false', 'false']);
    // One stop in the Tab order: the tab shown.
    expect(tabs.map((t) => t.tabIndex)).toEqual([0, -1, -1, -1]);
    const panel = d.getByRole('tabpanel');
    expect(panel).toHaveAccessibleName('Model and key');
    expect(tabs[0]).toHaveAttribute('aria-controls', panel.id);

    tabs[0]!.focus();
    await userEvent.keyboard('{ArrowRight}');
    expect(tabs[1]).toHaveFocus();
    expect(d.getByRole('tabpanel')).toHaveAccessibleName('Context');
    expect(d.getByRole('combobox', { name: 'Strategy' })).toBeVisible();
    expect(d.queryByRole('combobox', { name: 'Provider' })).not.toBeInTheDocument();
    await userEvent.keyboard('{End}');
    expect(tabs[3]).toHaveFocus();
    expect(d.getByRole('tabpanel')).toHaveAccessibleName('Appearance');
    await userEvent.keyboard('{ArrowRight}');
    expect(tabs[0]).toHaveFocus();
    await userEvent.keyboard('{ArrowLeft}');
    expect(tabs[3]).toHaveFocus();
    await userEvent.keyboard('{Home}');
    expect(tabs[0]).toHaveFocus();
    expect(d.getByRole('tabpanel')).toHaveAccessibleName('Model and key');
    // Tab leaves the tab list for the section's first field.
    await userEvent.tab();
    expect(d.getByRole('combobox', { name: 'Provider' })).toHaveFocus();
  });

  it('keeps what was typed in a section while another is shown', async () => {
    const { dialog, saved } = open();
    const d = within(dialog);
    await userEvent.type(d.getByRole('textbox', { name: 'System prompt' }), 'Be brief.');
    await showSettingsSection(dialog, 'Tools');
    await showSettingsSection(dialog, 'Model and key');
    expect(d.getByRole('textbox', { name: 'System prompt' })).toHaveValue('Be brief.');
    await userEvent.click(d.getByRole('button', { name: 'Save' }));
    expect(saved()?.[0].systemPrompt).toBe('Be brief.');
  });

  it('adds Storage and Sync when they are given, and renders Storage only once it is shown', async () => {
    const storageRendered = vi.fn();
    function Storage() {
      storageRendered();
      return <section aria-label="Storage">measured</section>;
    }
    render(
      <SettingsDialog
        settings={DEFAULT_SETTINGS}
        modelsFor={modelsFor}
        storage={<Storage />}
        sync={<section aria-label="Sync">sync form</section>}
        onSave={() => {}}
        onClose={() => {}}
      />,
    );
    const dialog = screen.getByRole('dialog', { name: 'Settings' });
    expect(
      within(dialog)
        .getAllByRole('tab')
        .map((t) => t.textContent),
    ).toEqual(['Model and key', 'Context', 'Tools', 'Storage', 'Sync', 'Appearance']);
    expect(storageRendered).not.toHaveBeenCalled();
    const storage = await showSettingsSection(dialog, 'Storage');
    expect(storage.getByRole('region', { name: 'Storage' })).toHaveTextContent('measured');
    const sync = await showSettingsSection(dialog, 'Sync');
    expect(sync.getByRole('region', { name: 'Sync' })).toHaveTextContent('sync form');
  });

  it('saves the theme chosen in Appearance', async () => {
    const { dialog, saved } = open({ settings: { ...DEFAULT_SETTINGS, theme: 'light' } });
    const appearance = await showSettingsSection(dialog, 'Appearance');
    const themes = within(appearance.getByRole('group', { name: 'Theme' }));
    expect(themes.getByRole('radio', { name: 'System' })).toHaveAccessibleDescription('Light or dark as this device is set, changing when it does.');
    expect(themes.getByRole('radio', { name: 'Light' })).toBeChecked();
    expect(themes.getByRole('radio', { name: 'Dark' })).not.toBeChecked();
    await userEvent.click(appearance.getByRole('radio', { name: 'Dark' }));
    await userEvent.click(within(dialog).getByRole('button', { name: 'Save' }));
    expect(saved()?.[0].theme).toBe('dark');
  });
});
