/**
 * Sends refused while the device is offline. Only a model on another machine needs the
 * network: the Demo runs in this page and a server on this machine (Ollama on localhost)
 * answers without one. The refusal comes before anything is stored, so the text stays
 * where it was typed, and the user is told why.
 */
import { leavesThisMachine } from '../core';
import type { Runtime } from './runtime';
import { DEFAULT_BASE_URLS } from './settings';
import type { TurnContext } from './turn';

const OFFLINE_NOTICE = 'offline';

/** Whether a send (`asking: 'message'`) or a new answer (`'answer'`) in `ctx` is refused for being offline; the user is told. */
export function refusedOffline(rt: Runtime, ctx: TurnContext, asking: 'message' | 'answer'): boolean {
  if (rt.deps.isOnline?.() !== false || !needsNetwork(ctx)) {
    rt.notifier.dismiss(OFFLINE_NOTICE);
    return false;
  }
  const text =
    asking === 'message'
      ? "You're offline, so the message was not sent. It is still in the box: send it when you're back online."
      : "You're offline, so no new answer was asked for. Try again when you're back online.";
  rt.notifier.notify({ id: OFFLINE_NOTICE, tone: 'warning', text });
  return true;
}

function needsNetwork({ provider, providerSettings }: TurnContext): boolean {
  return provider !== 'demo' && leavesThisMachine(providerSettings.baseUrl || DEFAULT_BASE_URLS[provider]);
}
