/**
 * A new version of the app, installed by its service worker, never replaces the running
 * one by itself: the user is told and chooses when to reload. Both notices stay until
 * acted on or dismissed.
 */
import type { Runtime } from './runtime';

const UPDATE_NOTICE = 'app-update';

/** A new version is installed and waiting; `reload` switches this tab to it. */
export function offerUpdate(rt: Runtime, reload: () => void): void {
  rt.notifier.notify({ id: UPDATE_NOTICE, tone: 'info', text: 'A new version of Windowpane is ready.', action: { label: 'Reload', run: reload } }, 0);
}

/**
 * Another tab switched to the new version while this one still runs the old code (whose
 * lazily loaded files the new version no longer keeps): `reload` brings this tab up to date.
 */
export function offerReloadAfterUpdate(rt: Runtime, reload: () => void): void {
  rt.notifier.notify(
    {
      id: UPDATE_NOTICE,
      tone: 'warning',
      text: 'Windowpane was updated in another tab. Reload this one to keep it working with the new version.',
      action: { label: 'Reload', run: reload },
    },
    0,
  );
}
