import { cleanup, render, screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { LazySettings, loadSettings } from '../../src/components/LazySettings';
import { renderApp, resetApp, runtime } from './appHarness';

describe('LazySettings', () => {
  beforeEach(() => resetApp());

  it('opens the dialog in its first render once its chunk has loaded, without the empty frame first', async () => {
    await loadSettings();
    const { container } = renderApp(<LazySettings onClose={() => {}} />);
    // No waiting: the first render already holds the dialog.
    expect(screen.getByRole('dialog', { name: 'Settings' })).toBeInTheDocument();
    expect(container.querySelector('[aria-busy="true"]')).not.toBeInTheDocument();
  });

  it('says so when its chunk cannot load; Close leaves the page as it was, and the next opening tries again', async () => {
    vi.resetModules();
    vi.doMock('../../src/components/AppSettings', () => {
      throw new Error('the network is down');
    });
    const fresh = await import('../../src/components/LazySettings');
    const onClose = vi.fn();
    vi.spyOn(console, 'error').mockImplementation(() => {}); // React reports the error the boundary caught
    renderApp(<fresh.LazySettings onClose={onClose} />);
    expect(await screen.findByRole('alert')).toHaveTextContent(/^Settings could not be loaded: /);
    expect(screen.queryByRole('dialog', { name: 'Settings' })).not.toBeInTheDocument();
    await userEvent.click(screen.getByRole('button', { name: 'Close' }));
    expect(onClose).toHaveBeenCalledOnce();
    cleanup();

    vi.doUnmock('../../src/components/AppSettings');
    vi.resetModules(); // the test's module registry keeps the failed import: cleared, the next import can succeed
    // The chunk loaded now reads the store through its own instance of AppRuntime.tsx.
    const { AppRuntimeProvider } = await import('../../src/components/AppRuntime');
    render(
      <AppRuntimeProvider runtime={runtime}>
        <fresh.LazySettings onClose={onClose} />
      </AppRuntimeProvider>,
    );
    expect(await screen.findByRole('dialog', { name: 'Settings' })).toBeInTheDocument();
  });
});
