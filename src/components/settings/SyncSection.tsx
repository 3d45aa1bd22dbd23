import { useEffect, useId, useRef, useState, type KeyboardEvent } from 'react';
import { useShallow } from 'zustand/react/shallow';
import { MIN_PASSPHRASE_LENGTH, needsPlainHttpConfirmation, type SyncState } from '../../store';
import { useActions, useApp, useSyncAvailable } from '../AppRuntime';
import { Field } from '../Field';
import { Notices } from '../Notices';
import { refusedLine, syncLine } from '../SyncStatus';

/** Asks for focus in the view that shows next: its buttons after turning on, the form after turning off (null: stay). */
type WantFocus = (view: 'on' | 'off' | null) => void;

/** Server, credentials and passphrase; Turn on sync checks them with the server before anything is saved. */
function TurnOnForm({ wantFocus }: { wantFocus: WantFocus }) {
  const actions = useActions();
  const connecting = useApp((s) => s.syncConnecting);
  const errorId = useId();
  const [serverUrl, setServerUrl] = useState('');
  const [username, setUsername] = useState('');
  const [password, setPassword] = useState('');
  const [passphrase, setPassphrase] = useState('');
  const [syncApiKeys, setSyncApiKeys] = useState(false);
  // The plain-http origin the user agreed to: typing another address asks again.
  const [confirmedOrigin, setConfirmedOrigin] = useState<string>();
  const [error, setError] = useState<string>();
  const plainOrigin = needsPlainHttpConfirmation(serverUrl);
  const plainHttpConfirmed = plainOrigin !== undefined && confirmedOrigin === plainOrigin;

  async function turnOn() {
    if (connecting) return;
    setError(undefined);
    wantFocus('on');
    const problem = await actions.turnOnSync({ serverUrl, username, password, passphrase, syncApiKeys, plainHttpConfirmed });
    if (problem) {
      wantFocus(null);
      setError(problem);
      return;
    }
    // The store keeps the password for the replication and only keys derived from the passphrase.
    setPassword('');
    setPassphrase('');
  }

  // Enter in these fields turns sync on: they are not the dialog's draft, so its Save must not run.
  function onKeyDown(e: KeyboardEvent<HTMLDivElement>) {
    if (e.key !== 'Enter' || !(e.target instanceof HTMLInputElement)) return;
    e.preventDefault();
    if (e.target.type !== 'checkbox') void turnOn();
  }

  const text = (id: string, describedBy: string | undefined) => ({
    id,
    'aria-describedby': describedBy,
    spellCheck: false,
    autoCapitalize: 'off',
    autoCorrect: 'off',
  });
  return (
    <div className="sync-form" onKeyDown={onKeyDown}>
      <Field label="Server URL">
        {(id, describedBy) => (
          // Not type="url": the browser's own check would then block the dialog's Save over a field Save does not keep.
          <input
            {...text(id, describedBy)}
            type="text"
            inputMode="url"
            placeholder="https://couch.example.com/windowpane"
            value={serverUrl}
            onChange={(e) => setServerUrl(e.target.value)}
          />
        )}
      </Field>
      {plainOrigin && (
        <label className="check sync-plain-http">
          <input type="checkbox" checked={plainHttpConfirmed} onChange={(e) => setConfirmedOrigin(e.target.checked ? plainOrigin : undefined)} /> Send my
          username and password unencrypted to {plainOrigin}
        </label>
      )}
      <div className="grid">
        <Field label="Username">
          {(id, describedBy) => (
            <input {...text(id, describedBy)} type="text" autoComplete="username" value={username} onChange={(e) => setUsername(e.target.value)} />
          )}
        </Field>
        <Field label="Password">
          {(id, describedBy) => (
            <input
              id={id}
              aria-describedby={describedBy}
              type="password"
              autoComplete="current-password"
              value={password}
              onChange={(e) => setPassword(e.target.value)}
            />
          )}
        </Field>
      </div>
      <Field label="Passphrase" hint={`At least ${MIN_PASSPHRASE_LENGTH} characters. Use the same passphrase on every device; it cannot be recovered.`}>
        {(id, describedBy) => (
          <input id={id} aria-describedby={describedBy} type="password" autoComplete="off" value={passphrase} onChange={(e) => setPassphrase(e.target.value)} />
        )}
      </Field>
      <label className="check">
        <input type="checkbox" checked={syncApiKeys} onChange={(e) => setSyncApiKeys(e.target.checked)} /> Also sync my keys (encrypted)
      </label>
      <div className="row sync-turn-on">
        {/* aria-disabled, not disabled: the button keeps focus while the server is checked. */}
        <button
          type="button"
          className="primary"
          aria-disabled={connecting ? true : undefined}
          aria-describedby={error ? errorId : undefined}
          onClick={() => void turnOn()}
        >
          {connecting ? 'Checking the server…' : 'Turn on sync'}
        </button>
        {error && (
          <p id={errorId} className="field-error" role="alert">
            {error}
          </p>
        )}
      </div>
    </div>
  );
}

/** Where this device syncs, what sync is doing, and the buttons that act on it at once. */
function SyncOn({ sync, wantFocus }: { sync: SyncState; wantFocus: WantFocus }) {
  const actions = useActions();
  const [confirming, setConfirming] = useState(false);
  const [turningOff, setTurningOff] = useState(false);
  const keepRef = useRef<HTMLButtonElement>(null);
  const turnOffRef = useRef<HTMLButtonElement>(null);
  const { status } = sync;
  const paused = status.phase === 'paused';

  async function turnOff() {
    if (turningOff) return;
    setTurningOff(true);
    wantFocus('off');
    try {
      await actions.turnOffSync();
    } finally {
      setTurningOff(false);
    }
  }

  return (
    <div className="sync-on">
      <dl className="sync-facts">
        <dt>Server</dt>
        <dd className="sync-server">{sync.serverUrl}</dd>
        <dt>Username</dt>
        <dd>{sync.username}</dd>
        <dt>API keys</dt>
        <dd>{sync.syncApiKeys ? 'Synced, encrypted' : 'Not synced'}</dd>
        <dt>Status</dt>
        <dd>
          {syncLine(status)}
          {status.refused && <span className="sync-refused">{refusedLine(status.refused)}</span>}
        </dd>
      </dl>
      <div className="row sync-buttons">
        <button type="button" onClick={actions.syncNow}>
          Sync now
        </button>
        {paused ? (
          <button type="button" onClick={actions.resumeSync}>
            Resume
          </button>
        ) : (
          <button type="button" onClick={actions.pauseSync}>
            Pause
          </button>
        )}
        {!confirming && (
          <button
            ref={turnOffRef}
            type="button"
            className="danger"
            onClick={() => {
              setConfirming(true);
              // The safe answer takes focus, so a second Enter does not turn sync off.
              requestAnimationFrame(() => keepRef.current?.focus());
            }}
          >
            Turn off sync on this device
          </button>
        )}
      </div>
      {confirming && (
        <div className="sync-confirm" role="group" aria-label="Turn off sync on this device?">
          <p>Turn off sync on this device? Your conversations stay on this device and on the server.</p>
          <div className="row">
            <button type="button" className="danger" aria-disabled={turningOff ? true : undefined} onClick={() => void turnOff()}>
              Turn off
            </button>
            <button
              ref={keepRef}
              type="button"
              onClick={() => {
                setConfirming(false);
                requestAnimationFrame(() => turnOffRef.current?.focus());
              }}
            >
              Keep syncing
            </button>
          </div>
        </div>
      )}
    </div>
  );
}

/**
 * The Settings dialog's Sync section: end-to-end-encrypted sync with the user's own CouchDB
 * server. Its buttons act at once; it takes no part in the dialog's draft, Save or Cancel.
 */
export function SyncSection() {
  const actions = useActions();
  const available = useSyncAvailable();
  const headingId = useId();
  const sync = useApp((s) => s.sync);
  const notices = useApp(useShallow((s) => s.notices.filter((n) => n.section === 'sync')));
  const sectionRef = useRef<HTMLElement>(null);
  const headingRef = useRef<HTMLHeadingElement>(null);
  const focusWanted = useRef<'on' | 'off' | null>(null);
  const wantFocus: WantFocus = (view) => (focusWanted.current = view);
  // The view pressed in goes away: focus moves to the one that replaces it.
  const on = sync !== null;
  useEffect(() => {
    if (focusWanted.current !== (on ? 'on' : 'off')) return;
    focusWanted.current = null;
    sectionRef.current?.querySelector<HTMLElement>(on ? '.sync-on button' : '.sync-form input')?.focus();
  }, [on]);

  return (
    <section ref={sectionRef} className="sync-settings" aria-labelledby={headingId}>
      <h3 id={headingId} ref={headingRef} tabIndex={-1}>
        Sync
      </h3>
      {!on && (
        <p className="muted section-hint">
          Keep your conversations on every device through your own CouchDB server. Everything is encrypted in this browser with your passphrase before it
          leaves; the server sees only random ids and ciphertext.
        </p>
      )}
      <Notices
        notices={notices}
        onDismiss={(id) => {
          actions.dismissNotice(id);
          headingRef.current?.focus();
        }}
      />
      {!available ? (
        <p className="muted section-hint">Sync is not available in this browser.</p>
      ) : sync ? (
        <SyncOn sync={sync} wantFocus={wantFocus} />
      ) : (
        <TurnOnForm wantFocus={wantFocus} />
      )}
    </section>
  );
}
