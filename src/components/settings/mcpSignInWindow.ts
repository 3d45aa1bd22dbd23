/**
 * The window an MCP server's OAuth sign-in happens in. A window of its own, not the app's tab:
 * leaving the page for the authorization server would end a turn under way and lose the
 * Settings dialog's unsaved draft. It is opened at the click (later, a browser blocks it) and
 * sent to the authorization page once the sign-in knows it. The authorization server sends the
 * user back to `mcp-oauth-callback.html` on this origin, which passes on what came back over a
 * BroadcastChannel (same origin only) and closes; an answer whose `state` is not this sign-in's
 * is not taken.
 */
import type { McpAuthorizationAnswer, McpAuthorizer } from '../../store';

/** The channel `public/mcp-oauth-callback.js` speaks on. */
const CHANNEL = 'windowpane-mcp-oauth';

/** The redirect URL registered with authorization servers: the callback page beside the app. */
export const mcpOAuthRedirectUrl = (): string => new URL(`${import.meta.env.BASE_URL}mcp-oauth-callback.html`, window.location.origin).href;

function readAnswer(data: unknown): McpAuthorizationAnswer | undefined {
  if (typeof data !== 'object' || data === null) return undefined;
  const { type, code, state, error } = data as Record<string, unknown>;
  if (type !== CHANNEL || typeof state !== 'string') return undefined;
  if (typeof code === 'string' && code) return { code, state };
  if (typeof error === 'string' && error) return { error: error.slice(0, 300), state };
  return undefined;
}

export interface SignInWindow {
  authorize: McpAuthorizer;
  /** Closes the window if the sign-in ended without it (a failure before the authorization page). */
  close(): void;
}

/** Opens the sign-in window; call from the click that asked for it. */
export function openSignInWindow(): SignInWindow {
  const popup = window.open('', 'windowpane-mcp-sign-in', 'popup,width=520,height=720');
  let stop = () => {};
  return {
    authorize: (url) =>
      new Promise((resolve, reject) => {
        if (!popup) {
          reject(new Error('the browser blocked the sign-in window; allow pop-ups for this page and sign in again.'));
          return;
        }
        const expected = url.searchParams.get('state');
        const channel = new BroadcastChannel(CHANNEL);
        // A window the user closed says nothing: it is looked at now and then.
        const watch = window.setInterval(() => {
          if (!popup.closed) return;
          stop();
          reject(new Error('the sign-in window was closed before the sign-in finished.'));
        }, 500);
        stop = () => {
          window.clearInterval(watch);
          channel.close();
        };
        channel.onmessage = (event: MessageEvent) => {
          const answer = readAnswer(event.data);
          if (!answer || answer.state !== expected) return;
          stop();
          popup.close();
          resolve(answer);
        };
        popup.location.href = url.href;
      }),
    close() {
      stop();
      popup?.close();
    },
  };
}
