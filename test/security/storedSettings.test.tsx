// Settings and per-conversation overrides read back from storage (another version, a hand
// edit, an imported file) are validated: what planning cannot use is dropped and named in
// a notice, the defaults apply, and the conversation opens as usual.
import { screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { beforeEach, describe, expect, it } from 'vitest';
import { SafeApp } from '../../src/App';
import { openWindowpaneStorage } from '../../src/persistence';
import { DEFAULT_SETTINGS } from '../../src/store/settings';
import { readOverrides, readSettings } from '../../src/store/storedSettings';
import { renderApp, resetApp, seedConversation } from '../components/appHarness';
import { SETTINGS_KEY } from '../../src/store/storedSettings';

beforeEach(() => resetApp());

describe('readOverrides', () => {
  const cases: [name: string, raw: unknown, ignored: string][] = [
    ['an unknown strategy', { window: { strategy: 'bogus' } }, 'strategy "bogus"'],
    ['an unknown provider', { provider: 'evil-corp' }, 'provider "evil-corp"'],
    ['a rolling window above 1,000 messages', { window: { rollingMax: 5000 } }, 'rollingMax 5000'],
    ['a rolling window of zero', { window: { rollingMax: 0 } }, 'rollingMax 0'],
    ['"trim down to" at or above "trim above"', { window: { triggerRatio: 0.5, targetRatio: 0.9 } }, 'targetRatio 0.9 (not below triggerRatio 0.5)'],
    ['a negative context window', { contextWindow: -5 }, 'contextWindow -5'],
    ['a context window that is not a number', { contextWindow: '200000' }, 'contextWindow "200000"'],
    ['NaN as a share of the window', { window: { triggerRatio: Number.NaN } }, 'triggerRatio NaN'],
    ['a share above one', { window: { lowWater: 3 } }, 'lowWater 3'],
    ['an object where the strategy belongs', { window: { strategy: { name: 'auto' } } }, 'strategy a value of the wrong type'],
    ['a window that is not an object', { window: 'auto' }, 'window: not a set of settings'],
    ['overrides that are not an object', 'auto', 'overrides: not a set of settings'],
  ];
  it.each(cases)('drops %s and names it', (_name, raw, ignored) => {
    const read = readOverrides(raw);
    expect(read.ignored).toContain(ignored);
  });

  it('keeps the valid fields beside the dropped ones', () => {
    const read = readOverrides({ provider: 'anthropic', window: { strategy: 'bogus', rollingMax: 30, summarize: true } });
    expect(read.overrides).toEqual({ provider: 'anthropic', window: { rollingMax: 30, summarize: true } });
  });

  it('never copies a prototype key onto the overrides', () => {
    const raw = JSON.parse('{"window": {"__proto__": {"strategy": "bogus"}, "constructor": {"x": 1}}}') as unknown;
    const read = readOverrides(raw);
    expect(read.overrides).toEqual({});
    expect(({} as Record<string, unknown>).strategy).toBeUndefined();
  });
});

describe('readSettings', () => {
  it('falls back to the default of each field it cannot use, and names it', () => {
    const read = readSettings({ provider: 'nope', contextWindow: 1e12, window: { strategy: 'bogus', rollingMax: 20 }, tools: { maxRounds: 10_000 } });
    expect(read.settings.provider).toBe(DEFAULT_SETTINGS.provider);
    expect(read.settings.contextWindow).toBe(0);
    expect(read.settings.window.strategy).toBe(DEFAULT_SETTINGS.window.strategy);
    expect(read.settings.window.rollingMax).toBe(20);
    expect(read.settings.tools.maxRounds).toBe(DEFAULT_SETTINGS.tools.maxRounds);
    expect(read.ignored).toEqual(expect.arrayContaining(['provider "nope"', 'contextWindow 1000000000000', 'strategy "bogus"']));
  });

  it('reads a theme this version does not know as "system", and keeps one it knows', () => {
    expect(readSettings({ theme: 'sepia' })).toMatchObject({ settings: { theme: 'system' }, ignored: ['theme "sepia"'] });
    expect(readSettings({ theme: { dark: true } }).settings.theme).toBe('system');
    expect(readSettings({}).settings.theme).toBe('system');
    expect(readSettings({ theme: 'dark' })).toMatchObject({ settings: { theme: 'dark' }, ignored: [] });
  });

  it('keeps a list of MCP servers for readMcpServers to read where they are used, and only the secrets that are text', () => {
    const server = { id: 's1', label: 'Tracker', url: 'https://mcp.example.com/mcp', enabled: true, auth: { type: 'bearer' }, tools: [] };
    const read = readSettings(JSON.parse(JSON.stringify({ tools: { mcpServers: [server] }, mcpSecrets: { s1: 'token-1', s2: 42, s3: { x: 1 } } })));
    expect(read.settings.tools.mcpServers).toEqual([server]);
    expect(read.settings.mcpSecrets).toEqual({ s1: 'token-1' });
    expect(readSettings({ tools: { mcpServers: 'all' }, mcpSecrets: 'x' }).settings).toMatchObject({ tools: { mcpServers: [] }, mcpSecrets: {} });
  });

  it('reads something that is not settings at all as the defaults', () => {
    expect(readSettings('garbage').settings).toEqual(DEFAULT_SETTINGS);
    expect(readSettings(null).settings).toEqual(DEFAULT_SETTINGS);
  });
});

describe('a stored conversation with overrides it cannot use', () => {
  it('opens with its messages and the gauge, and a notice names what was ignored', async () => {
    const id = await seedConversation('Odd settings', ['hello', 'hi there']);
    const storage = await openWindowpaneStorage();
    await storage.repositories.conversations.setConversationOverrides(id, { provider: 'evil', window: { strategy: 'bogus', rollingMax: 5000 } });
    storage.close();
    renderApp(<SafeApp />);
    await screen.findByRole('textbox', { name: 'Message' });
    await userEvent.click(within(screen.getByRole('navigation', { name: 'Conversations' })).getByRole('button', { name: 'Odd settings' }));
    expect(await screen.findByRole('article', { name: 'Assistant message' })).toHaveTextContent('hi there');
    expect(
      screen.getByText(
        /Some stored settings of "Odd settings" could not be used and were ignored: provider "evil", strategy "bogus", rollingMax 5000\. The defaults apply instead\./,
      ),
    ).toBeInTheDocument();
    expect(screen.getByRole('meter', { name: /Context usage/ })).toBeInTheDocument();
  });

  it('starts with global settings it cannot use replaced by the defaults, and says so', async () => {
    const storage = await openWindowpaneStorage();
    await storage.repositories.settings.setSetting(SETTINGS_KEY, { provider: 'demo', window: { strategy: 'no-such-strategy' } });
    storage.close();
    renderApp(<SafeApp />);
    await screen.findByRole('textbox', { name: 'Message' });
    expect(
      await screen.findByText(/Some stored settings for all conversations could not be used and were ignored: strategy "no-such-strategy"/),
    ).toBeInTheDocument();
  });
});
