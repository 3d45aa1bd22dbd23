import { useEffect, useRef, useState } from 'react';
import { looksListable, type ListTarget } from '../store';
import { useActions } from './AppRuntime';

/** How long the key and address must rest before their models are listed. */
export const AUTO_LIST_DELAY_MS = 600;

/**
 * Lists `target`'s models by itself once its key and base URL look complete (see
 * looksListable) and have rested AUTO_LIST_DELAY_MS: each keystroke restarts the wait and
 * stops a listing of what was typed before. What the dialog opened with is listed only if
 * it never was (`listed`, as it opened). Closing the dialog lets a listing under way
 * finish: its list is kept.
 */
const identityOf = (t: ListTarget) => JSON.stringify([t.provider, t.apiKey, t.baseUrl ?? '', t.keyConfirmedFor ?? '']);

export function useAutoListing(target: ListTarget, { allowed, listed }: { allowed: boolean; listed: boolean }): void {
  const actions = useActions();
  const { provider, apiKey, baseUrl, keyConfirmedFor } = target;
  const [opened] = useState(() => ({ identity: identityOf(target), listed }));
  const running = useRef<AbortController | null>(null);
  useEffect(() => {
    // What was typed before is stale now.
    running.current?.abort();
    running.current = null;
    const typed: ListTarget = { provider, apiKey, baseUrl, keyConfirmedFor };
    if (!allowed || !looksListable(typed) || (identityOf(typed) === opened.identity && opened.listed)) return;
    const timer = setTimeout(() => {
      const controller = new AbortController();
      running.current = controller;
      void actions.refreshModels(typed, controller.signal);
    }, AUTO_LIST_DELAY_MS);
    return () => clearTimeout(timer);
  }, [provider, apiKey, baseUrl, keyConfirmedFor, allowed, opened, actions]);
}
