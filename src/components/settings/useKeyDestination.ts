import { useState, type Dispatch } from 'react';
import { keyDestinationQuestions } from '../../core';
import { DEFAULT_BASE_URLS, type Settings } from '../../store';
import type { KeyDestinationCheckProps } from './KeyDestinationCheck';
import type { SettingsDraft, SettingsDraftAction } from './settingsDraft';

/** Where the draft would send the chosen provider's key, and what the user must say about it first. */
export interface KeyDestination {
  /** What KeyDestinationCheck shows: the questions, the answers given, and the question Save found open. */
  check: KeyDestinationCheckProps;
  /** The keys to save and to list models with: the chosen provider's is cleared when the user chose to clear it. */
  apiKeys: Settings['apiKeys'];
  /** Why the key may not be sent to list models yet: whether it may go to its new host is unanswered. */
  listingBlocked: string | undefined;
  /** Called on Save: shows the question still open, if any, and says whether Save may go on. */
  confirmSave: () => boolean;
}

/**
 * The key's destination, asked before anything is saved and never after the key was sent:
 * a key bound for plain http on another machine waits for the user to confirm that origin,
 * and a saved key whose base URL now points at another host waits for "keep" or "clear".
 * `saved` are the settings the dialog opened with.
 */
export function useKeyDestination(saved: Settings, draft: SettingsDraft, dispatch: Dispatch<SettingsDraftAction>): KeyDestination {
  const [error, setError] = useState<string | undefined>();
  const { settings, keyMove } = draft;
  const { provider } = settings;
  const baseUrlOf = (s: Settings) => s.baseUrls[provider] || DEFAULT_BASE_URLS[provider];
  const questions =
    provider === 'demo'
      ? {}
      : keyDestinationQuestions(
          { baseUrl: baseUrlOf(saved), apiKey: saved.apiKeys[provider] ?? '' },
          { baseUrl: baseUrlOf(settings), apiKey: settings.apiKeys[provider] ?? '' },
        );
  const { insecureOrigin, moved } = questions;
  const confirmed = insecureOrigin !== undefined && settings.keyConfirmedFor[provider] === insecureOrigin;
  let unanswered: string | undefined;
  if (moved && !keyMove) unanswered = `Choose whether your key may go to ${moved.to}.`;
  else if (insecureOrigin && keyMove !== 'clear' && !confirmed)
    unanswered = `Confirm that your key may travel unencrypted to ${insecureOrigin}, or use an https address.`;
  return {
    check: {
      questions,
      confirmed,
      onConfirm: (yes) => dispatch({ type: 'editForProvider', field: 'keyConfirmedFor', value: yes ? insecureOrigin : undefined }),
      moveChoice: keyMove,
      onMoveChoice: (choice) => dispatch({ type: 'answerKeyMove', choice }),
      error,
    },
    apiKeys: keyMove === 'clear' && moved ? { ...settings.apiKeys, [provider]: '' } : settings.apiKeys,
    listingBlocked: moved && !keyMove ? `Choose above whether your key may go to ${moved.to} before listing its models.` : undefined,
    confirmSave: () => {
      setError(unanswered);
      return unanswered === undefined;
    },
  };
}
