import { lazy, Suspense, useState, type ReactNode } from 'react';
import { ErrorBoundary } from 'react-error-boundary';
import type AppSettingsComponent from './AppSettings';

type SettingsModule = { default: typeof AppSettingsComponent };
let loaded: SettingsModule | undefined;
let loading: Promise<SettingsModule> | undefined;

/**
 * Loads the Settings dialog's chunk (once; after a failure, the next call tries again). The app
 * calls it while idle once the first screen shows, and the Settings button when pointed at or
 * focused, so the dialog usually opens with no wait.
 */
export function loadSettings(): Promise<SettingsModule> {
  loading ??= import('./AppSettings').then(
    (module) => (loaded = module),
    (error: unknown) => {
      loading = undefined;
      throw error;
    },
  );
  return loading;
}

/** React.lazy keeps a failed load for good: each try at opening after one gets a fresh one. */
let Suspending = lazy(loadSettings);

/** The dialog's empty frame, the size the dialog opens at, shown while its chunk loads. */
function Frame({ children }: { children?: ReactNode }) {
  return (
    <div className="dialog-backdrop">
      <div className="dialog" aria-busy={children ? undefined : true}>
        {children}
      </div>
    </div>
  );
}

/**
 * The Settings dialog, from its own chunk: rendered at once when the chunk is here, else its
 * empty frame until it loads (React.lazy alone would suspend on every first render, even of a
 * loaded chunk). A chunk that cannot load says so, with a way out, and leaves the page as it was.
 */
export function LazySettings({ onClose }: { onClose: () => void }) {
  const [Settings] = useState(() => loaded?.default ?? Suspending);
  return (
    <ErrorBoundary
      fallbackRender={({ error }) => (
        <Frame>
          <p className="notice notice-error" role="alert">
            Settings could not be loaded: {error instanceof Error ? error.message : String(error)}
          </p>
          <div className="dialog-actions">
            <button
              type="button"
              onClick={() => {
                Suspending = lazy(loadSettings);
                onClose();
              }}
            >
              Close
            </button>
          </div>
        </Frame>
      )}
    >
      <Suspense fallback={<Frame />}>
        <Settings />
      </Suspense>
    </ErrorBoundary>
  );
}
