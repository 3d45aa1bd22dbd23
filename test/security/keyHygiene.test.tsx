// An API key goes where the user meant it to, and only there: a key bound for plain http
// on another machine waits for an explicit confirmation, a saved key does not follow a base
// URL to a new host without being asked, and the provider layer refuses to send a key to an
// unconfirmed http host even if settings somehow hold one.
import { render, screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it, vi } from 'vitest';
import { SettingsDialog, type ModelOption } from '../../src/components/SettingsDialog';
import { isWindowpaneError, keyDestinationQuestions, keyTravelsSafely } from '../../src/core';
import { createProvider } from '../../src/providers';
import { DEFAULT_SETTINGS, type Settings } from '../../src/store/settings';

const modelsFor = (): ModelOption[] => [];

function open(settings: Settings) {
  const onSave = vi.fn<(settings: Settings, scope: 'global' | 'conversation') => void>();
  render(<SettingsDialog settings={settings} modelsFor={modelsFor} onSave={onSave} onClose={() => {}} />);
  return { dialog: within(screen.getByRole('dialog', { name: 'Settings' })), onSave };
}

describe('keyTravelsSafely', () => {
  it.each([
    ['https://api.anthropic.com', true],
    ['http://localhost:11434/v1', true],
    ['http://127.0.0.1:8080/v1', true],
    ['http://[::1]:11434/v1', true],
    ['http://ollama.localhost/v1', true],
    ['http://192.168.1.20:11434/v1', false],
    ['http://proxy.example.com/v1', false],
    ['http://localhost.evil.com/v1', false],
    ['ftp://example.com', false],
    ['not a url', false],
  ])('%s: %s', (url, safe) => {
    expect(keyTravelsSafely(url)).toBe(safe);
  });
});

describe('Settings asks where the key goes before saving', () => {
  it('holds Save until the user confirms sending the key unencrypted to an http host on another machine', async () => {
    const { dialog, onSave } = open({ ...DEFAULT_SETTINGS, provider: 'openai-compatible' });
    await userEvent.type(dialog.getByLabelText('API key'), 'sk-local-123');
    await userEvent.type(dialog.getByRole('textbox', { name: 'Base URL' }), 'http://192.168.1.20:11434/v1');
    await userEvent.type(dialog.getByRole('textbox', { name: 'Model' }), 'llama3');
    await userEvent.click(dialog.getByRole('button', { name: 'Save' }));
    expect(onSave).not.toHaveBeenCalled();
    expect(dialog.getByRole('alert')).toHaveTextContent('Confirm that your key may travel unencrypted to http://192.168.1.20:11434');
    await userEvent.click(dialog.getByRole('checkbox', { name: 'Send my API key unencrypted to http://192.168.1.20:11434' }));
    await userEvent.click(dialog.getByRole('button', { name: 'Save' }));
    expect(onSave).toHaveBeenCalledTimes(1);
    expect(onSave.mock.lastCall![0].keyConfirmedFor['openai-compatible']).toBe('http://192.168.1.20:11434');
  });

  it('asks nothing for a local server or an https address', async () => {
    const { dialog, onSave } = open({ ...DEFAULT_SETTINGS, provider: 'openai-compatible' });
    await userEvent.type(dialog.getByLabelText('API key'), 'sk-local-123');
    await userEvent.type(dialog.getByRole('textbox', { name: 'Base URL' }), 'http://localhost:11434/v1');
    await userEvent.type(dialog.getByRole('textbox', { name: 'Model' }), 'llama3');
    expect(dialog.queryByRole('checkbox', { name: /unencrypted/ })).toBeNull();
    await userEvent.click(dialog.getByRole('button', { name: 'Save' }));
    expect(onSave).toHaveBeenCalledTimes(1);
  });

  const withAnthropicKey: Settings = {
    ...DEFAULT_SETTINGS,
    provider: 'anthropic',
    apiKeys: { anthropic: 'sk-ant-saved' },
    models: { anthropic: 'claude-opus-4-5' },
  };

  it('asks whether a saved key may follow the base URL to another host, and clears it when told to', async () => {
    const { dialog, onSave } = open(withAnthropicKey);
    await userEvent.type(dialog.getByRole('textbox', { name: 'Base URL' }), 'https://proxy.example.com');
    const question = dialog.getByRole('group', { name: 'Your saved API key was for https://api.anthropic.com. Send it to https://proxy.example.com too?' });
    await userEvent.click(dialog.getByRole('button', { name: 'Save' }));
    expect(onSave).not.toHaveBeenCalled();
    expect(dialog.getByRole('alert')).toHaveTextContent('Choose whether your key may go to https://proxy.example.com.');
    await userEvent.click(within(question).getByRole('radio', { name: 'Clear the key' }));
    await userEvent.click(dialog.getByRole('button', { name: 'Save' }));
    expect(onSave.mock.lastCall![0].apiKeys.anthropic).toBe('');
    expect(onSave.mock.lastCall![0].baseUrls.anthropic).toBe('https://proxy.example.com');
  });

  it('keeps the saved key for the new host when the user says so', async () => {
    const { dialog, onSave } = open(withAnthropicKey);
    await userEvent.type(dialog.getByRole('textbox', { name: 'Base URL' }), 'https://proxy.example.com');
    await userEvent.click(dialog.getByRole('radio', { name: 'Keep the key for https://proxy.example.com' }));
    await userEvent.click(dialog.getByRole('button', { name: 'Save' }));
    expect(onSave.mock.lastCall![0].apiKeys.anthropic).toBe('sk-ant-saved');
  });

  it('does not ask when a new key is typed with the new host', () => {
    const questions = keyDestinationQuestions(
      { baseUrl: 'https://api.anthropic.com', apiKey: 'sk-old' },
      { baseUrl: 'https://proxy.example.com', apiKey: 'sk-new' },
    );
    expect(questions).toEqual({});
  });
});

describe('the provider layer', () => {
  it('refuses to send a key to an unconfirmed http host before any request is made', async () => {
    const fetchSpy = vi.spyOn(globalThis, 'fetch');
    const creating = createProvider({ provider: 'openai-compatible', apiKey: 'sk-secret', baseUrl: 'http://10.0.0.5:8000/v1', model: 'm' });
    await expect(creating).rejects.toSatisfy((error) => isWindowpaneError(error, 'invalid_config'));
    await expect(creating).rejects.toThrow('Your API key was not sent to http://10.0.0.5:8000');
    expect(fetchSpy).not.toHaveBeenCalled();
  });

  it('creates the provider once the user confirmed that very origin, and only that one', async () => {
    const settings = { provider: 'openai-compatible' as const, apiKey: 'sk-secret', baseUrl: 'http://10.0.0.5:8000/v1', model: 'm' };
    await expect(createProvider({ ...settings, keyConfirmedFor: 'http://10.0.0.5:8000' })).resolves.toBeDefined();
    await expect(createProvider({ ...settings, keyConfirmedFor: 'http://10.0.0.6:8000' })).rejects.toThrow('Your API key was not sent');
  });
});
