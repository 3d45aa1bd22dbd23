import type { ImportState } from '../store';

const mb = (bytes: number) => (bytes / (1024 * 1024)).toLocaleString('en-US', { maximumFractionDigits: 1 });

/** Where the import is, in words: the phase and how far it has got. */
function phaseText({ progress, cancelling }: ImportState): string {
  if (cancelling) return 'Cancelling after the conversations being written…';
  if (!progress) return 'Starting…';
  switch (progress.phase) {
    case 'reading':
      return `Reading the file: ${mb(progress.done)} of ${mb(progress.total)} MB`;
    case 'unpacking':
      return `Unpacking the .zip: ${mb(progress.done)} of ${mb(progress.total)} MB`;
    case 'parsing':
      return 'Reading the conversations…';
    case 'writing':
      return `Writing ${progress.done.toLocaleString('en-US')} of ${progress.total.toLocaleString('en-US')} conversations`;
  }
}

/** The running import: file, phase, a progress bar and Cancel. The rest of the app stays usable meanwhile. */
export default function ImportProgressBar({ importing, onCancel }: { importing: ImportState; onCancel: () => void }) {
  const { fileName, fileIndex, fileCount, progress, cancelling } = importing;
  const label = `Importing ${fileName}`;
  const text = phaseText(importing);
  const percent = progress && progress.total > 0 ? Math.min(100, Math.floor((progress.done / progress.total) * 100)) : undefined;
  return (
    <section className="import-progress" aria-label="Import">
      <div className="import-progress-head">
        <span className="import-progress-title" title={fileName}>
          {label}
        </span>
        {fileCount > 1 && (
          <span className="muted">
            file {fileIndex} of {fileCount}
          </span>
        )}
        <button type="button" onClick={onCancel} disabled={cancelling}>
          Cancel
        </button>
      </div>
      <div
        className={`import-progress-track${percent === undefined ? ' import-progress-busy' : ''}`}
        role="progressbar"
        aria-label={label}
        aria-valuemin={0}
        aria-valuemax={100}
        aria-valuenow={percent}
        aria-valuetext={text}
      >
        <div className="import-progress-fill" style={percent === undefined ? undefined : { width: `${percent}%` }} />
      </div>
      <p className="import-progress-phase">{text}</p>
    </section>
  );
}
