/**
 * Registers the service worker that vite-plugin-pwa builds (production only) and turns its
 * update events into the store's notices: a new version waits until the user presses
 * Reload, so the app never changes under them mid-conversation.
 */
import type { RegisterSWOptions } from 'vite-plugin-pwa/types';

/** `registerSW` from `virtual:pwa-register`; returns what activates the waiting version. */
export type RegisterServiceWorker = (options: RegisterSWOptions) => (reloadPage?: boolean) => Promise<void>;

/** What the user is offered: the store's actions of the same names. */
export interface UpdateOffers {
  offerUpdate: (reload: () => void) => void;
  offerReloadAfterUpdate: (reload: () => void) => void;
}

/** Browsers look for a new version on each load; a tab left open for days asks again this often. */
const UPDATE_CHECK_MS = 60 * 60 * 1000;

export function watchForUpdates(register: RegisterServiceWorker, offers: UpdateOffers, reloadPage: () => void = () => location.reload()): void {
  // Set once this tab asked for the new version: its taking control then reloads this tab
  // at once; in any other tab it only offers a reload.
  let switching = false;
  const activateWaiting = register({
    onNeedRefresh: () =>
      offers.offerUpdate(() => {
        switching = true;
        void activateWaiting();
      }),
    onNeedReload: () => (switching ? reloadPage() : offers.offerReloadAfterUpdate(reloadPage)),
    onRegisteredSW: (_url, registration) => {
      if (!registration) return;
      setInterval(() => {
        if (navigator.onLine) registration.update().catch(() => undefined);
      }, UPDATE_CHECK_MS);
    },
  });
}
