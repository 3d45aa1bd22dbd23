import { useEffect, useId, useMemo, useRef, type ReactNode } from 'react';
import { useShallow } from 'zustand/react/shallow';
import { Notices } from './Notices';
import { formatBytes, storageViewOf, type StorageRow, type StorageView } from '../store';
import { useActions, useApp } from './AppRuntime';

const fmt = (n: number) => n.toLocaleString('en-US');
const NOT_REPORTED = 'Not reported by this browser.';

/** The browser's usage against its quota, in words and as a meter. */
function BrowserUsage({ browser, labelId }: { browser: StorageView['browser']; labelId: string }) {
  if (browser?.usage === undefined || browser.quota === undefined || browser.quota <= 0) {
    return <>{browser?.usage !== undefined ? `${formatBytes(browser.usage)} used; the limit is not reported by this browser.` : NOT_REPORTED}</>;
  }
  return (
    <span className="storage-usage">
      <meter aria-labelledby={labelId} min={0} max={browser.quota} value={Math.min(browser.usage, browser.quota)} />
      <span>
        {formatBytes(browser.usage)} of {formatBytes(browser.quota)} used
      </span>
    </span>
  );
}

/** Whether the browser keeps the data when space runs low, and the button to ask it to. */
function Persistence({ view }: { view: StorageView }) {
  const actions = useActions();
  const { browser, persistRequest } = view;
  let answer: ReactNode = null;
  if (persistRequest === 'denied' && !browser?.persisted) {
    answer = 'The browser said no. Browsers grant this to sites you use often, bookmark or install, and some ask you first.';
  } else if (persistRequest === 'unsupported') answer = 'This browser cannot be asked.';
  return (
    <>
      {browser?.persisted === undefined
        ? NOT_REPORTED
        : browser.persisted
          ? 'Yes: the browser will not clear it to free space.'
          : 'No: the browser may clear it when the disk runs low.'}
      {browser?.persisted === false && browser.canPersist && (
        <>
          {' '}
          <button
            type="button"
            aria-disabled={persistRequest === 'asking' ? true : undefined}
            onClick={() => persistRequest !== 'asking' && void actions.keepMyData()}
          >
            Keep my data
          </button>
        </>
      )}
      <span role="status" className="storage-answer">
        {answer}
      </span>
    </>
  );
}

/** Called as a button frees room: its row (or the button) goes, so focus moves to the Undo that follows. */
type OnFree = () => void;

function ConversationRow({ row, onFree }: { row: StorageRow; onFree: OnFree }) {
  const actions = useActions();
  return (
    <tr>
      <th scope="row">{row.title}</th>
      {/* data-label: on a phone each row is a card, and the column's name shows before its value (settings.css). */}
      <td className="num" data-label="Messages">
        {fmt(row.messages)}
      </td>
      <td className="num" data-label="Size">
        {formatBytes(row.bytes)}
      </td>
      <td className="files" data-label="Attachments">
        {row.attachments > 0 ? `${formatBytes(row.attachmentBytes)} (${fmt(row.attachments)} ${row.attachments === 1 ? 'file' : 'files'})` : '—'}
      </td>
      <td>
        <div className="storage-actions">
          {row.attachments > 0 && (
            <button
              type="button"
              aria-label={`Delete attachments of “${row.title}”`}
              onClick={() => {
                onFree();
                void actions.deleteAttachmentsOf(row.id);
              }}
            >
              Delete attachments
            </button>
          )}
          <button
            type="button"
            className="danger"
            aria-label={`Delete conversation “${row.title}”`}
            onClick={() => {
              onFree();
              void actions.deleteConversationFromStorage(row.id);
            }}
          >
            Delete conversation
          </button>
        </div>
      </td>
    </tr>
  );
}

function ConversationTable({ view, onFree }: { view: StorageView; onFree: OnFree }) {
  if (view.totalBytes === null) return null;
  if (view.rows.length === 0) return <p className="muted">No conversations are stored yet.</p>;
  return (
    <>
      <div className="storage-table">
        <table>
          <caption>Conversations, largest first</caption>
          <thead>
            <tr>
              <th scope="col">Conversation</th>
              <th scope="col" className="num">
                Messages
              </th>
              <th scope="col" className="num">
                Size
              </th>
              <th scope="col">Attachments</th>
              <th scope="col">
                <span className="visually-hidden">Actions</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {view.rows.map((row) => (
              <ConversationRow key={row.id} row={row} onFree={onFree} />
            ))}
          </tbody>
        </table>
      </div>
      {view.more > 0 && <p className="muted">…and {fmt(view.more)} more, each smaller than these.</p>}
    </>
  );
}

/**
 * The Settings dialog's Storage section: what the history takes, what the browser says
 * about usage, quota and persistence, and the conversations largest first, with buttons
 * that free room at once (each with Undo). Measured when it is first shown (the dialog
 * renders it then), since that reads every stored record.
 */
export function StorageSection() {
  const actions = useActions();
  const headingId = useId();
  const usageId = useId();
  const { state, conversations } = useApp(useShallow((s) => ({ state: s.storageView, conversations: s.conversations })));
  const notices = useApp(useShallow((s) => s.notices.filter((n) => n.section === 'storage')));
  const view = useMemo(() => storageViewOf(state, conversations), [state, conversations]);
  const measuring = view.status === 'measuring';
  // Keyboard users keep their place: after a delete, the new notice's Undo; after a notice goes, the section's heading.
  const headingRef = useRef<HTMLHeadingElement>(null);
  const noticesRef = useRef<HTMLDivElement>(null);
  const undoWanted = useRef(false);
  useEffect(() => {
    const undo = undoWanted.current ? noticesRef.current?.querySelector<HTMLButtonElement>('.notice:last-child button') : null;
    if (!undo) return;
    undoWanted.current = false;
    undo.focus();
  }, [notices]);
  useEffect(() => {
    void actions.loadStorageView();
  }, [actions]);
  return (
    <section className="storage" aria-labelledby={headingId}>
      <h3 id={headingId} ref={headingRef} tabIndex={-1}>
        Storage
      </h3>
      <p className="muted section-hint">What this browser keeps for Windowpane. The buttons here act at once, each with Undo; Save is not needed.</p>
      <div ref={noticesRef}>
        <Notices
          notices={notices}
          onDismiss={(id) => {
            actions.dismissNotice(id);
            headingRef.current?.focus();
          }}
        />
      </div>
      <dl className="storage-facts">
        <dt>History</dt>
        <dd>
          {view.totalBytes === null ? '—' : `About ${formatBytes(view.totalBytes)}`}{' '}
          <small className="muted">(an estimate: each stored record counted as the UTF-8 size of its JSON)</small>
        </dd>
        <dt id={usageId}>This site’s browser storage</dt>
        <dd>{view.browser ? <BrowserUsage browser={view.browser} labelId={usageId} /> : '—'}</dd>
        <dt>Kept when space runs low</dt>
        <dd>{view.browser ? <Persistence view={view} /> : '—'}</dd>
      </dl>
      <div className="row">
        <button type="button" aria-disabled={measuring ? true : undefined} onClick={() => !measuring && void actions.loadStorageView()}>
          Measure again
        </button>
        <span className="muted" role="status">
          {measuring ? 'Measuring…' : ''}
        </span>
      </div>
      {view.status === 'failed' && (
        <p className="field-error" role="alert">
          {view.problem}
        </p>
      )}
      <ConversationTable view={view} onFree={() => (undoWanted.current = true)} />
    </section>
  );
}
