/**
 * Where an API key may travel. A key sent over plain http can be read by anyone on the
 * network path, so it goes without asking only to https: origins and to this machine
 * (localhost, 127.0.0.1, [::1], *.localhost: a local server such as Ollama).
 */

/** Whether `hostname` (as URL.hostname gives it) names this machine. */
export function isLocalHostname(hostname: string): boolean {
  const host = hostname.toLowerCase();
  return host === 'localhost' || host.endsWith('.localhost') || host === '[::1]' || /^127(\.\d{1,3}){3}$/.test(host);
}

/**
 * Whether a request to `url` leaves this machine, and so cannot be answered while the
 * device is offline. A URL that cannot be parsed counts as leaving it.
 */
export function leavesThisMachine(url: string): boolean {
  try {
    return !isLocalHostname(new URL(url).hostname);
  } catch {
    return true;
  }
}

/** The origin of `url` ("https://api.example.com"), or undefined when it is not an http(s) URL. */
export function endpointOrigin(url: string): string | undefined {
  try {
    const parsed = new URL(url);
    return parsed.protocol === 'https:' || parsed.protocol === 'http:' ? parsed.origin : undefined;
  } catch {
    return undefined;
  }
}

/** Whether a key may be sent to `url` without the user confirming it: https, or http to this machine. */
export function keyTravelsSafely(url: string): boolean {
  try {
    const parsed = new URL(url);
    return parsed.protocol === 'https:' || (parsed.protocol === 'http:' && isLocalHostname(parsed.hostname));
  } catch {
    return false;
  }
}

/** What the user must decide before a key is saved with a base URL (see KeyDestinationCheck). */
export interface KeyDestinationQuestions {
  /** The key would go unencrypted to this origin: the user must confirm it. */
  insecureOrigin?: string;
  /** The saved key was meant for `from`; the base URL now points at `to`: keep it or clear it. */
  moved?: { from: string; to: string };
}

/**
 * The questions a change of key or base URL raises: sending a key over plain http to
 * another machine, and sending a saved key to a host other than the one it was saved for.
 * URLs are the effective ones (the provider's default when none is typed).
 */
export function keyDestinationQuestions(saved: { baseUrl: string; apiKey: string }, draft: { baseUrl: string; apiKey: string }): KeyDestinationQuestions {
  const questions: KeyDestinationQuestions = {};
  if (draft.apiKey && !keyTravelsSafely(draft.baseUrl)) questions.insecureOrigin = endpointOrigin(draft.baseUrl) ?? draft.baseUrl;
  const from = endpointOrigin(saved.baseUrl);
  const to = endpointOrigin(draft.baseUrl) ?? draft.baseUrl;
  if (saved.apiKey && draft.apiKey === saved.apiKey && from !== undefined && from !== to) questions.moved = { from, to };
  return questions;
}
