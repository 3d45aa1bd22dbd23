import { cleanup, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { SETTINGS_KEY } from '../../src/store/storedSettings';
import type { Settings } from '../../src/store/settings';
import { DEFAULT_SETTINGS } from '../../src/store/settings';
import { newVisit, renderApp, resetApp, runtime, seedConversation, seedSettings } from './appHarness';
import { showSettingsSection } from './settingsSections';

async function openApp() {
  renderApp();
  return screen.findByRole('textbox', { name: 'Message' });
}

// The first answer of the file loads the SDK and the markdown renderer (a few seconds in jsdom).
describe('App on the real store, fake IndexedDB and the Demo provider', { timeout: 15_000 }, () => {
  beforeEach(() => resetApp());

  it('first run: welcomes the user on the Demo, with a way to add a key and an empty gauge', async () => {
    await openApp();
    const welcome = screen.getByRole('region', { name: 'Welcome' });
    expect(within(welcome).getByRole('button', { name: 'Add an API key' })).toBeInTheDocument();
    expect(screen.getByRole('main')).toHaveTextContent('Demo — not a real model');
    const meter = screen.getByRole('meter', { name: 'Context usage' });
    expect(meter).toHaveAttribute('aria-valuemax', '4000');
    expect(within(screen.getByRole('navigation', { name: 'Conversations' })).getByRole('button', { name: 'New chat' })).toBeInTheDocument();
    expect(screen.getByRole('button', { name: 'Send' })).toBeDisabled();
  });

  it('shows a cost and the per-request budget only where they mean something', async () => {
    await openApp();
    // The Demo is free and its 4,000-token window binds before any money budget could.
    await userEvent.type(screen.getByRole('textbox', { name: 'Message' }), 'Hi{Enter}');
    await waitFor(() => expect(screen.getByRole('article', { name: 'Assistant message' })).toHaveAttribute('data-status', 'complete'), { timeout: 8000 });
    await userEvent.click(screen.getByRole('meter', { name: 'Context usage' }));
    expect(screen.getByRole('row', { name: /^Total/ })).toBeInTheDocument();
    expect(screen.queryByRole('row', { name: /per-request budget/ })).not.toBeInTheDocument();
    expect(screen.getByRole('main')).not.toHaveTextContent('next ≤');
    expect(screen.getByRole('main')).not.toHaveTextContent('so far');
    cleanup();

    // Claude Sonnet 5.5 has a 1M-token window: the default $0.50 per request binds first.
    await seedSettings({ ...DEFAULT_SETTINGS, provider: 'anthropic', apiKeys: { anthropic: 'sk-ant-test' }, models: { anthropic: 'claude-sonnet-5-5' } });
    await openApp();
    await userEvent.click(screen.getByRole('meter', { name: 'Context usage' }));
    const budget = screen.getByRole('row', { name: /per-request budget/ });
    const tokens = Number(budget.textContent!.replace(/\D/g, ''));
    expect(tokens).toBeGreaterThan(100_000);
    expect(tokens).toBeLessThan(800_000);
    expect(screen.getByRole('main')).toHaveTextContent(/next ≤ \$\d/);
  });

  it('sends a message and streams the Demo’s answer into an "Assistant message"', async () => {
    await openApp();
    const meter = screen.getByRole('meter', { name: 'Context usage' });
    const before = Number(meter.getAttribute('aria-valuenow'));
    await userEvent.type(screen.getByRole('textbox', { name: 'Message' }), 'What is a context window?{Enter}');
    // While it streams, Stop replaces Send.
    expect(await screen.findByRole('button', { name: 'Stop' })).toBeInTheDocument();
    expect(screen.getByRole('article', { name: 'User message' })).toHaveTextContent('What is a context window?');
    await waitFor(() => expect(screen.getByRole('article', { name: 'Assistant message' })).toHaveAttribute('data-status', 'complete'), { timeout: 8000 });
    expect(screen.getByRole('article', { name: 'Assistant message' })).toHaveTextContent('What is a context window?');
    expect(await screen.findByRole('button', { name: 'Send' })).toBeInTheDocument();
    expect(screen.getByRole('textbox', { name: 'Message' })).toHaveValue('');
    expect(Number(meter.getAttribute('aria-valuenow'))).toBeGreaterThan(before);
    // The conversation is listed under its first message and was stored.
    expect(within(screen.getByRole('navigation', { name: 'Conversations' })).getByRole('button', { name: 'What is a context window?' })).toHaveAttribute(
      'aria-current',
      'page',
    );
    const [stored] = await runtime.storage!.repositories.conversations.listConversations();
    expect(await runtime.storage!.repositories.conversations.getMessages(stored!.id)).toHaveLength(2);
  });

  it('summarizes more evicted text than the Demo’s 4,000-token window can read at once', async () => {
    await seedSettings({ ...DEFAULT_SETTINGS, window: { ...DEFAULT_SETTINGS.window, summarize: true } });
    const paragraph = 'We compared how each strategy keeps the first message and the newest turns, and what the summary must preserve. ';
    // 24 messages of about 300 tokens each: what a trim sets aside is far more than 4,000 tokens.
    await seedConversation(
      'Long talk',
      Array.from({ length: 24 }, (_, i) => `Message ${i}. ${paragraph.repeat(11)}`),
    );
    await openApp();
    await userEvent.click(within(screen.getByRole('navigation', { name: 'Conversations' })).getByRole('button', { name: 'Long talk' }));
    await screen.findAllByRole('article', { name: 'Assistant message' });
    const composer = screen.getByRole('textbox', { name: 'Message' });
    await userEvent.type(composer, 'And now?{Enter}');
    const summary = await screen.findByRole('article', { name: 'Conversation summary' }, { timeout: 8000 });
    expect(summary.textContent?.startsWith('[Conversation Summary]')).toBe(true);
    // Polled in the composer only: role queries over a transcript of 26 long messages are slow
    // enough in jsdom to starve the stream they wait for.
    await within(composer.closest('form')!).findByRole('button', { name: 'Send' }, { timeout: 8000 });
    expect(screen.queryAllByRole('status').map((s) => s.textContent)).not.toContainEqual(expect.stringContaining('Summarizing failed'));
  });

  it('opens Settings as a dialog named "Settings" and keeps what is saved', async () => {
    await openApp();
    await userEvent.click(screen.getByRole('button', { name: 'Settings' }));
    const dialog = await screen.findByRole('dialog', { name: 'Settings' });
    await showSettingsSection(dialog, 'Context');
    await userEvent.click(within(dialog).getByRole('checkbox', { name: 'Summarize evicted messages' }));
    await userEvent.click(within(dialog).getByRole('button', { name: 'Save' }));
    expect(screen.queryByRole('dialog', { name: 'Settings' })).not.toBeInTheDocument();
    await waitFor(async () => expect((await runtime.storage!.repositories.settings.getSetting<Settings>(SETTINGS_KEY))?.window.summarize).toBe(true));
    await userEvent.click(screen.getByRole('button', { name: 'Settings' }));
    const again = await showSettingsSection(await screen.findByRole('dialog', { name: 'Settings' }), 'Context');
    expect(again.getByRole('checkbox', { name: 'Summarize evicted messages' })).toBeChecked();
  });

  it('follows the system’s theme until Appearance says light or dark, on <html>, for every conversation and the next visit', async () => {
    await seedConversation('Plans', ['hi', 'hello']);
    await openApp();
    const html = document.documentElement;
    expect(html).toHaveAttribute('data-theme', 'system');
    await userEvent.click(within(screen.getByRole('navigation', { name: 'Conversations' })).getByRole('button', { name: /^Plans/ }));
    await userEvent.click(screen.getByRole('button', { name: 'Settings' }));
    const dialog = await screen.findByRole('dialog', { name: 'Settings' });
    // Chosen for this conversation only, the theme still applies to all: it is not a conversation's setting.
    await userEvent.click(within(dialog).getByRole('radio', { name: /^Only “Plans”/ }));
    const appearance = await showSettingsSection(dialog, 'Appearance');
    expect(appearance.getByRole('radio', { name: 'System' })).toBeChecked();
    await userEvent.click(appearance.getByRole('radio', { name: 'Dark' }));
    // Nothing applies before Save.
    expect(html).toHaveAttribute('data-theme', 'system');
    await userEvent.click(within(dialog).getByRole('button', { name: 'Save' }));
    expect(html).toHaveAttribute('data-theme', 'dark');
    await waitFor(async () => expect((await runtime.storage!.repositories.settings.getSetting<Settings>(SETTINGS_KEY))?.theme).toBe('dark'));
    cleanup();
    html.removeAttribute('data-theme');

    newVisit();
    await openApp();
    await waitFor(() => expect(html).toHaveAttribute('data-theme', 'dark'));
  });

  it('"Add an API key" opens Settings', async () => {
    await openApp();
    await userEvent.click(screen.getByRole('button', { name: 'Add an API key' }));
    expect(await screen.findByRole('dialog', { name: 'Settings' })).toBeInTheDocument();
  });

  it('stops a streaming answer with Esc and keeps what arrived, marked stopped', async () => {
    resetApp({ chunkDelayMs: 40 });
    await openApp();
    await userEvent.type(screen.getByRole('textbox', { name: 'Message' }), 'Tell me a long story{Enter}');
    await screen.findByRole('button', { name: 'Stop' });
    await waitFor(() => expect(screen.getByRole('article', { name: 'Assistant message' }).textContent?.length).toBeGreaterThan(40));
    await userEvent.keyboard('{Escape}');
    await waitFor(() => expect(screen.getByRole('article', { name: 'Assistant message' })).toHaveAttribute('data-status', 'stopped'));
    expect(screen.getByRole('article', { name: 'Assistant message' })).toHaveTextContent('Stopped');
    expect(await screen.findByRole('button', { name: 'Send' })).toBeInTheDocument();
  });

  it('Ctrl+K focuses search and Ctrl+Shift+O starts a new chat with the composer focused', async () => {
    await seedConversation('First topic', ['Hello', 'Hi, how can I help?']);
    await openApp();
    await userEvent.click(within(screen.getByRole('navigation', { name: 'Conversations' })).getByRole('button', { name: 'First topic' }));
    expect(await screen.findByRole('article', { name: 'Assistant message' })).toHaveTextContent('Hi, how can I help?');
    await userEvent.keyboard('{Control>}k{/Control}');
    expect(screen.getByRole('searchbox', { name: 'Search conversations' })).toHaveFocus();
    await userEvent.keyboard('{Control>}{Shift>}O{/Shift}{/Control}');
    expect(await screen.findByRole('region', { name: 'Welcome' })).toBeInTheDocument();
    expect(screen.queryByRole('article')).not.toBeInTheDocument();
    expect(screen.getByRole('textbox', { name: 'Message' })).toHaveFocus();
  });

  it('finds a conversation by the text of its messages', async () => {
    await seedConversation('Travel', ['Which trains go to Sintra?', 'From Rossio station, every 20 minutes.']);
    await seedConversation('Cooking', ['How long to boil an egg?', 'About nine minutes.']);
    await openApp();
    const nav = screen.getByRole('navigation', { name: 'Conversations' });
    await userEvent.type(within(nav).getByRole('searchbox', { name: 'Search conversations' }), 'rossio');
    await waitFor(() => expect(within(nav).queryByRole('button', { name: /^Cooking/ })).not.toBeInTheDocument());
    expect(within(nav).getByRole('button', { name: /^Travel/ })).toBeInTheDocument();
  });

  it('starts loading the search index once the list is painted, without waiting for the page to be idle', async () => {
    await seedConversation('Travel', ['Which trains go to Sintra?', 'From Rossio station, every 20 minutes.']);
    vi.stubGlobal('requestIdleCallback', () => 0); // a page that is never idle
    vi.stubGlobal('cancelIdleCallback', () => undefined);
    try {
      let prepared = 0;
      const open = runtime.deps.openStorage;
      runtime.deps.openStorage = async (events) => {
        const storage = await open(events);
        const prepare = storage.prepareSearch;
        storage.prepareSearch = () => {
          prepared++;
          prepare();
        };
        return storage;
      };
      await openApp();
      expect(await screen.findByRole('button', { name: 'Travel' })).toBeInTheDocument();
      await waitFor(() => expect(prepared).toBe(1));
    } finally {
      cleanup(); // unmounted while its idle callback can still be cancelled
      vi.unstubAllGlobals();
    }
  });

  it('renames and deletes from the list, with Undo', async () => {
    await seedConversation('Plan a trip', ['Plan a trip', 'Where to?']);
    await openApp();
    const nav = screen.getByRole('navigation', { name: 'Conversations' });
    await userEvent.click(within(nav).getByRole('button', { name: 'Rename Plan a trip' }));
    await userEvent.clear(within(nav).getByRole('textbox', { name: 'Conversation title' }));
    await userEvent.type(within(nav).getByRole('textbox', { name: 'Conversation title' }), 'Lisbon in May{Enter}');
    expect(await within(nav).findByRole('button', { name: 'Lisbon in May' })).toBeInTheDocument();
    await userEvent.click(within(nav).getByRole('button', { name: 'Delete Lisbon in May' }));
    await waitFor(() => expect(within(nav).queryByRole('button', { name: 'Lisbon in May' })).not.toBeInTheDocument());
    const notice = screen.getByRole('status');
    expect(notice).toHaveTextContent('Deleted “Lisbon in May”.');
    await userEvent.click(within(notice).getByRole('button', { name: 'Undo' }));
    expect(await within(nav).findByRole('button', { name: 'Lisbon in May' })).toBeInTheDocument();
    expect((await runtime.storage!.repositories.conversations.listConversations()).map((c) => c.title)).toEqual(['Lisbon in May']);
  });
});
