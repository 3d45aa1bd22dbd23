/**
 * Sync as the user drives it from Settings → Sync and the sidebar: turning it on (checking
 * the server and the passphrase first), Sync now, pause, and turning it off on this device.
 * The replication itself runs in the sync Worker (src/sync); this module keeps its settings
 * in storage like the API keys; syncText.ts words its status for the user. Loaded on first
 * use: at startup, once the conversations are read, to start sync again where it was on.
 */
import { isLocalHostname, endpointOrigin } from '../core';
import type { SyncConfig } from '../sync/types';
import type { Runtime } from './runtime';
import { MIN_PASSPHRASE_LENGTH, syncProblemText } from './syncText';

/** The settings-store key of this device's sync settings (never synced, never exported). */
export const SYNC_SETTINGS_KEY = 'sync';

/** What Settings → Sync asks for. */
export interface TurnOnSyncInput {
  serverUrl: string;
  username: string;
  password: string;
  passphrase: string;
  /** Let the API keys travel too, inside the encryption. */
  syncApiKeys: boolean;
  /** The user confirmed a plain-http server that is not on this machine. */
  plainHttpConfirmed?: boolean;
}

/** Why the input cannot be used as it is, in the user's words; undefined when it can. */
export function syncInputProblem(input: TurnOnSyncInput): string | undefined {
  let url: URL;
  try {
    url = new URL(input.serverUrl.trim());
  } catch {
    return 'Enter the database’s full URL, such as https://couch.example.com/windowpane.';
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return 'The server URL must start with https:// (or http:// for a server on this machine).';
  if (url.pathname.replace(/\/+$/, '') === '') return 'Add the database’s name to the URL, such as https://couch.example.com/windowpane.';
  if (url.username || url.password) return 'Put the username and password in their own fields, not in the URL.';
  if (url.protocol === 'http:' && !isLocalHostname(url.hostname) && !input.plainHttpConfirmed) {
    return `Confirm that your username and password may travel unencrypted to ${endpointOrigin(url.href) ?? url.origin}, or use an https address.`;
  }
  if (input.passphrase.length < MIN_PASSPHRASE_LENGTH)
    return `Choose a passphrase of at least ${MIN_PASSPHRASE_LENGTH} characters; every device needs the same one.`;
  return undefined;
}

/** Reads what another version stored: anything unusable means sync is off. */
function readSyncConfig(value: unknown): SyncConfig | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const v = value as Partial<SyncConfig>;
  const keys = v.keys as Partial<SyncConfig['keys']> | undefined;
  const isKey = (k: unknown) => typeof CryptoKey !== 'undefined' && k instanceof CryptoKey;
  if (typeof v.serverUrl !== 'string' || typeof v.username !== 'string' || typeof v.password !== 'string' || typeof v.deviceId !== 'string') return undefined;
  if (!keys || !isKey(keys.encrypt) || !isKey(keys.ids)) return undefined;
  return {
    serverUrl: v.serverUrl,
    username: v.username,
    password: v.password,
    deviceId: v.deviceId,
    keys: { encrypt: keys.encrypt!, ids: keys.ids! },
    syncApiKeys: v.syncApiKeys === true,
  };
}

function startWith(rt: Runtime, config: SyncConfig): void {
  rt.store.setState({ sync: { serverUrl: config.serverUrl, username: config.username, syncApiKeys: config.syncApiKeys, status: { phase: 'starting' } } });
  rt.deps.sync?.start(config, {
    status(status) {
      const current = rt.store.getState().sync;
      if (current) rt.store.setState({ sync: { ...current, status } });
    },
    notice(text) {
      rt.notifier.notify({ tone: 'info', text }, 12000);
    },
  });
}

/** At startup: syncs again when this device was syncing. */
export async function restoreSync(rt: Runtime): Promise<void> {
  if (!rt.deps.sync) return;
  const config = readSyncConfig(await rt.repositories.settings.getSetting(SYNC_SETTINGS_KEY));
  if (config) startWith(rt, config);
}

/**
 * Checks the input, then the server and the passphrase (the first device creates the
 * passphrase check); saves the settings and starts. Returns what went wrong, or undefined.
 */
export async function turnOnSync(rt: Runtime, input: TurnOnSyncInput): Promise<string | undefined> {
  const service = rt.deps.sync;
  if (!service) return 'Sync is not available in this browser.';
  const problem = syncInputProblem(input);
  if (problem) return problem;
  const serverUrl = input.serverUrl.trim().replace(/\/+$/, '');
  rt.store.setState({ syncConnecting: true });
  try {
    const connected = await service.connect({ serverUrl, username: input.username, password: input.password, passphrase: input.passphrase });
    if (!connected.ok) return syncProblemText(connected.problem);
    const config: SyncConfig = {
      serverUrl,
      username: input.username,
      password: input.password,
      keys: connected.keys,
      deviceId: rt.deps.newId(),
      syncApiKeys: input.syncApiKeys,
    };
    await rt.repositories.settings.setSetting(SYNC_SETTINGS_KEY, config);
    startWith(rt, config);
    return undefined;
  } catch (error) {
    return `Sync could not be turned on: ${error instanceof Error ? error.message : String(error)}`;
  } finally {
    rt.store.setState({ syncConnecting: false });
  }
}

export function syncNow(rt: Runtime): void {
  rt.deps.sync?.syncNow();
}

export function pauseSync(rt: Runtime): void {
  rt.deps.sync?.pause();
}

export function resumeSync(rt: Runtime): void {
  rt.deps.sync?.resume();
}

/** Stops syncing here and forgets this device's settings and replicated copy; every conversation stays on this device. */
export async function turnOffSync(rt: Runtime): Promise<void> {
  await rt.deps.sync?.stop({ forget: true });
  try {
    await rt.repositories.settings.deleteSetting(SYNC_SETTINGS_KEY);
  } catch (error) {
    rt.notifier.reportError(error, 'turn off sync', 'sync');
  }
  rt.store.setState({ sync: null });
  rt.notifier.notify({ tone: 'info', text: 'Sync is off on this device. Your conversations stay here; the server keeps its copy.' }, 6000);
}
