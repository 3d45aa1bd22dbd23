import { syncStatusText, syncTime, type SyncStatus as Status } from '../store';
import { useActions, useApp } from './AppRuntime';

const count = (n: number) => n.toLocaleString('en-US');

/** What the sidebar and Settings → Sync say of sync now: "Synced at 16:42", "Sending 1,240 of 200,000…". */
export function syncLine(status: Status): string {
  return syncStatusText(status, (ms) => syncTime(ms, Date.now()));
}

/** Records the server sent that failed their check, said once for all of them. */
export function refusedLine(refused: NonNullable<Status['refused']>): string {
  return refused.count === 1
    ? '1 record from the server failed its integrity check and was not applied.'
    : `${count(refused.count)} records from the server failed their integrity check and were not applied.`;
}

/**
 * At the sidebar's foot while this device syncs: one line of what sync is doing (quiet once
 * synced), with Sync now and, while records move, Pause (Resume while paused). Gone while sync is off.
 */
export function SyncStatus() {
  const actions = useActions();
  const status = useApp((s) => s.sync?.status);
  if (!status) return null;
  const text = syncLine(status);
  const moving = status.phase === 'sending' || status.phase === 'receiving';
  // Announced without its count ("Sending"), like the search index's progress: the count changes with every batch.
  const quiet = moving && status.progress ? syncStatusText({ ...status, progress: undefined }, () => '').replace(/…$/, '') : text;
  const counted = quiet !== text && text.startsWith(quiet);
  return (
    <div className="sync-status" data-phase={status.phase}>
      <div role="status" aria-live="polite" aria-label="Sync" className="sync-status-text" title={text}>
        <p>
          {counted ? (
            <>
              {quiet}
              <span aria-hidden="true">{text.slice(quiet.length)}</span>
            </>
          ) : (
            text
          )}
        </p>
        {status.refused && <p className="sync-refused">{refusedLine(status.refused)}</p>}
      </div>
      <div className="sync-status-actions">
        <button type="button" onClick={actions.syncNow}>
          Sync now
        </button>
        {moving && (
          <button type="button" onClick={actions.pauseSync}>
            Pause
          </button>
        )}
        {status.phase === 'paused' && (
          <button type="button" onClick={actions.resumeSync}>
            Resume
          </button>
        )}
      </div>
    </div>
  );
}
