/**
 * How a new version is offered, with a fake `registerSW` standing in for vite-plugin-pwa's
 * (jsdom has no service worker): the app shows the notice and changes only when the user
 * presses Reload.
 */
import { screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { RegisterSWOptions } from 'vite-plugin-pwa/types';
import { watchForUpdates } from '../src/serviceWorker';
import { actions, renderApp, resetApp, runtime } from './components/appHarness';

/** A registerSW whose events the test fires, recording when the waiting version is told to take over. */
function fakeRegister() {
  const fake = { options: {} as RegisterSWOptions, activateWaiting: vi.fn(async () => undefined) };
  return {
    fake,
    register: (options: RegisterSWOptions) => {
      fake.options = options;
      return fake.activateWaiting;
    },
  };
}

const notices = () => runtime.store.getState().notices.map((n) => ({ tone: n.tone, text: n.text, action: n.action?.label }));

describe('offering a new version', () => {
  beforeEach(() => resetApp());
  afterEach(() => vi.useRealTimers());

  it('shows "A new version of Windowpane is ready." and switches only when the user presses Reload', async () => {
    const { fake, register } = fakeRegister();
    const reloadPage = vi.fn();
    watchForUpdates(register, actions, reloadPage);
    renderApp();
    await screen.findByRole('textbox', { name: 'Message' });

    fake.options.onNeedRefresh?.();
    await screen.findByText('A new version of Windowpane is ready.');
    const notice = screen.getAllByRole('status').find((el) => el.textContent?.includes('A new version of Windowpane is ready.'));
    expect(notice).toBeDefined();
    expect(fake.activateWaiting).not.toHaveBeenCalled();
    expect(reloadPage).not.toHaveBeenCalled();

    await userEvent.click(within(notice!).getByRole('button', { name: 'Reload' }));
    expect(fake.activateWaiting).toHaveBeenCalledTimes(1);
    // The new version took control because this tab asked: this tab reloads into it.
    fake.options.onNeedReload?.();
    expect(reloadPage).toHaveBeenCalledTimes(1);
    expect(notices()).toEqual([]);
  });

  it('stays until the user acts: it does not fade like other information', () => {
    vi.useFakeTimers();
    const { fake, register } = fakeRegister();
    watchForUpdates(register, actions, vi.fn());
    fake.options.onNeedRefresh?.();
    vi.advanceTimersByTime(60_000);
    expect(notices()).toEqual([{ tone: 'info', text: 'A new version of Windowpane is ready.', action: 'Reload' }]);
  });

  it('in a tab that did not ask, a version another tab switched to is offered as a reload, never forced', () => {
    const { fake, register } = fakeRegister();
    const reloadPage = vi.fn();
    watchForUpdates(register, actions, reloadPage);
    fake.options.onNeedRefresh?.();
    fake.options.onNeedReload?.();
    expect(reloadPage).not.toHaveBeenCalled();
    expect(fake.activateWaiting).not.toHaveBeenCalled();
    expect(notices()).toEqual([
      { tone: 'warning', text: 'Windowpane was updated in another tab. Reload this one to keep it working with the new version.', action: 'Reload' },
    ]);
    runtime.store.getState().notices[0]!.action!.run();
    expect(reloadPage).toHaveBeenCalledTimes(1);
  });

  it('a tab left open asks for a new version every hour, but not while offline', async () => {
    vi.useFakeTimers();
    const { fake, register } = fakeRegister();
    watchForUpdates(register, actions, vi.fn());
    const update = vi.fn(async () => undefined);
    fake.options.onRegisteredSW?.('/sw.js', { update } as unknown as ServiceWorkerRegistration);
    vi.advanceTimersByTime(60 * 60 * 1000);
    expect(update).toHaveBeenCalledTimes(1);
    vi.spyOn(navigator, 'onLine', 'get').mockReturnValue(false);
    vi.advanceTimersByTime(60 * 60 * 1000);
    expect(update).toHaveBeenCalledTimes(1);
  });
});
