// Settings planning cannot use (put straight into the store here, past the dialog's and the
// sanitizer's checks, or a conversation's override crossing a global setting) never take
// the conversation off the screen: it is shown as it stands with the reason, and a send is
// refused with that reason, keeping the draft.
import { act, screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { SafeApp } from '../../src/App';
import { DEFAULT_SETTINGS, type WindowSettings } from '../../src/store/settings';
import { renderApp, resetApp, runtime, seedConversation } from '../components/appHarness';
import { openWindowpaneStorage } from '../../src/persistence';

beforeEach(() => {
  resetApp();
  // An error boundary that caught something would report it here; none should.
  vi.spyOn(console, 'error').mockImplementation(() => {});
});

const BAD_WINDOWS: [name: string, window: Partial<WindowSettings>, reason: RegExp][] = [
  ['a rolling window above 1,000 messages', { strategy: 'rolling', rollingMax: 5000 }, /rollingMax: Enter a whole number from 1 to 1,000\./],
  [
    '"trim down to" above "trim above" (truncate)',
    { strategy: 'truncate', triggerRatio: 0.5, targetRatio: 0.9 },
    /targetRatio: Must be below “Trim above” \(50 %\)/,
  ],
  [
    '"trim down to" above "trim above" (summarize)',
    { strategy: 'summarize', triggerRatio: 0.3, targetRatio: 0.6 },
    /targetRatio: Must be below “Trim above” \(30 %\)/,
  ],
  ['a fall-to of 100 %', { strategy: 'auto', lowWater: 1 }, /lowWater: Enter a percentage above 0 and below 100\./],
  ['a negative message cap', { strategy: 'count', maxMessages: -1 }, /maxMessages: Enter a whole number from 0 to 1,000,000\./],
  ['a summary of no tokens', { strategy: 'summarize', summaryMaxTokens: 0 }, /summaryMaxTokens: Enter a whole number from 1 to 1,000,000\./],
  ['a fractional first-messages count', { strategy: 'count', preserveFirst: 1.5 }, /preserveFirst: Enter a whole number from 0 to 10,000\./],
  ['an unknown strategy', { strategy: 'no-such-strategy' }, /strategy: Choose one of the listed strategies\./],
];

async function openSeeded(): Promise<void> {
  await seedConversation('Garden', ['What grows by a sunny wall?', 'Heliotrope and lavender do well there.']);
  renderApp(<SafeApp />);
  await screen.findByRole('textbox', { name: 'Message' });
  await userEvent.click(within(screen.getByRole('navigation', { name: 'Conversations' })).getByRole('button', { name: 'Garden' }));
  await screen.findByText('Heliotrope and lavender do well there.');
}

async function expectConversationShownAndSendRefused(reason: RegExp): Promise<void> {
  // The conversation, the gauge and the composer are all still there.
  expect(screen.getByText('Heliotrope and lavender do well there.')).toBeInTheDocument();
  expect(screen.getByRole('meter', { name: /Context usage/ })).toBeInTheDocument();
  const alert = screen.getAllByRole('alert').find((a) => /cannot be used/.test(a.textContent ?? ''));
  expect(alert).toHaveTextContent(/^The settings in force here cannot be used, so nothing is sent until they are fixed in Settings\./);
  expect(alert).toHaveTextContent(reason);
  expect(within(alert!).getByRole('button', { name: 'Open Settings' })).toBeInTheDocument();

  const composer = screen.getByRole('textbox', { name: 'Message' });
  await userEvent.type(composer, 'And in the shade?{Enter}');
  expect(composer).toHaveValue('And in the shade?');
  expect(runtime.store.getState().sendingId).toBeNull();
  expect(runtime.store.getState().notices.find((n) => n.id === 'cannot-plan')?.text).toMatch(reason);
  expect(screen.queryByText('And in the shade?', { selector: 'article *' })).not.toBeInTheDocument();
}

describe('settings planning cannot use', () => {
  it.each(BAD_WINDOWS)('with %s, the chat shows the conversation and the reason, and refuses to send', async (_name, window, reason) => {
    await openSeeded();
    act(() => runtime.store.setState((s) => ({ settings: { ...s.settings, window: { ...s.settings.window, ...window } } })));
    await expectConversationShownAndSendRefused(reason);
    expect(screen.queryByText(/could not be shown|Something went wrong/i)).not.toBeInTheDocument();
    // Fixed, the chat's notice goes and the kept draft sends.
    act(() => runtime.store.setState({ settings: DEFAULT_SETTINGS }));
    expect(screen.queryByRole('button', { name: 'Open Settings' })).not.toBeInTheDocument();
    await userEvent.type(screen.getByRole('textbox', { name: 'Message' }), '{Enter}');
    expect(screen.getByRole('textbox', { name: 'Message' })).toHaveValue('');
    expect(await screen.findByText('And in the shade?')).toBeInTheDocument();
  });

  it('with a conversation override crossing the global setting, shows the conversation and refuses to send', async () => {
    const id = await seedConversation('Garden', ['What grows by a sunny wall?', 'Heliotrope and lavender do well there.']);
    const storage = await openWindowpaneStorage();
    // Each value is valid on its own; together "trim down to" (70 %) is above the global "trim above" (60 %).
    await storage.repositories.conversations.setConversationOverrides(id, { window: { strategy: 'truncate', targetRatio: 0.7 } });
    storage.close();
    renderApp(<SafeApp />);
    await screen.findByRole('textbox', { name: 'Message' });
    act(() => runtime.store.setState((s) => ({ settings: { ...s.settings, window: { ...s.settings.window, triggerRatio: 0.6, targetRatio: 0.5 } } })));
    await userEvent.click(within(screen.getByRole('navigation', { name: 'Conversations' })).getByRole('button', { name: 'Garden' }));
    await screen.findByText('Heliotrope and lavender do well there.');
    await expectConversationShownAndSendRefused(/targetRatio: Must be below “Trim above” \(60 %\)/);
  });
});
