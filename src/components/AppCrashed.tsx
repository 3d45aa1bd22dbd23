import type { FallbackProps } from 'react-error-boundary';

export interface AppCrashedProps extends Pick<FallbackProps, 'error'> {
  onExportAll: () => void;
}

/**
 * The last resort when the app itself cannot render: never a blank page. Reload starts
 * it again; Export all saves every conversation as JSON through the store, which does
 * not need the React tree that failed.
 */
export function AppCrashed({ error, onExportAll }: AppCrashedProps) {
  const detail = error instanceof Error ? error.message : String(error);
  return (
    <main className="app-crashed render-failure" role="alert" aria-label="Windowpane stopped">
      <h1>Windowpane stopped with an error</h1>
      <p>Your conversations are still stored in this browser. Reload to try again, or export them all first.</p>
      <p className="muted">{detail.slice(0, 300)}</p>
      <div className="row">
        <button type="button" onClick={() => window.location.reload()}>
          Reload
        </button>
        <button type="button" onClick={onExportAll}>
          Export all
        </button>
      </div>
    </main>
  );
}
