import { useId, useState, type ReactNode } from 'react';
import {
  connectorUnavailable,
  endpointOrigin,
  isCustomHeaderName,
  isServerUrl,
  keyTravelsSafely,
  MCP_CALL_TIMEOUT_RANGE,
  MCP_CALL_TIMEOUT_SECONDS,
  mcpSignedIn,
  readMcpOAuth,
  readMcpServers,
  type McpAuth,
  type McpServerConfig,
  type ProviderId,
} from '../../core';
import type { McpAuthorizer, McpListing } from '../../store';
import { Field } from '../Field';
import { mcpOAuthRedirectUrl, openSignInWindow } from './mcpSignInWindow';
import { typedCallTimeout } from './settingsDraft';

export interface McpServersSectionProps {
  /** The servers as the draft holds them (read here with readMcpServers: they may come from storage). */
  stored: readonly unknown[];
  secrets: Record<string, string>;
  /** The provider chosen: whether it can connect to a server itself (its MCP connector). */
  provider: ProviderId;
  onChange: (servers: McpServerConfig[], secrets: Record<string, string>) => void;
  /** Each server's time limit per call as typed, by server id, once edited (the draft's). */
  timeoutTexts: Record<string, string>;
  onTypeTimeout: (serverId: string, text: string) => void;
  /** Connects to a server and lists its tools; absent where nothing can connect (then Connect is not offered). */
  listTools?: (server: McpServerConfig, secret: string | undefined) => Promise<McpListing>;
  /** Signs in to a server with OAuth, then lists its tools; absent where nothing can connect (then Sign in is not offered). */
  signIn?: (server: McpServerConfig, secret: string | undefined, redirectUrl: string, authorize: McpAuthorizer) => Promise<McpListing>;
  /** Signs out of a server at once, beyond the draft (a sign-in is not the draft's to keep: core's signInKeptAtOnce), and revokes its tokens. */
  signOut?: (server: McpServerConfig, secret: string | undefined) => Promise<void>;
  newId: () => string;
}

type AuthKind = McpAuth['type'];

/** Why a server could not be listed, and whether it asks for an OAuth sign-in. */
type ServerError = { text: string; signIn: boolean };

/**
 * Settings → Tools → MCP servers: add a server by URL (with a bearer token, a header or an
 * OAuth sign-in), Connect to list its tools, Sign in and out of an OAuth server, switch the
 * server and each tool on or off, always allow a tool, remove the server. What a server listed
 * (names, descriptions) is shown as text only.
 */
export function McpServersSection({
  stored,
  secrets,
  provider,
  onChange,
  timeoutTexts,
  onTypeTimeout,
  listTools,
  signIn,
  signOut,
  newId,
}: McpServersSectionProps) {
  const servers = readMcpServers(stored, []);
  const [errors, setErrors] = useState<Record<string, ServerError | undefined>>({});
  const [connecting, setConnecting] = useState<string | null>(null);
  const update = (id: string, change: (server: McpServerConfig) => McpServerConfig, nextSecrets = secrets) =>
    onChange(
      servers.map((server) => (server.id === id ? change(server) : server)),
      nextSecrets,
    );

  /** Keeps what a listing found: the tools, and the server's secret when it changed (a sign-in, a refresh). */
  function settle(server: McpServerConfig, listing: McpListing, auth: McpAuth = server.auth) {
    setConnecting(null);
    setErrors((e) => ({ ...e, [server.id]: listing.ok ? undefined : { text: listing.error, signIn: listing.signIn === true } }));
    if (!listing.ok) return;
    const nextSecrets = listing.secret === undefined ? secrets : { ...secrets, [server.id]: listing.secret };
    update(server.id, (s) => ({ ...s, auth, tools: listing.tools }), nextSecrets);
  }

  async function connect(server: McpServerConfig) {
    if (!listTools) return;
    setConnecting(server.id);
    settle(server, await listTools(server, secrets[server.id]));
  }

  /** From the click: the sign-in window must open in it, or the browser blocks it. */
  async function startSignIn(server: McpServerConfig) {
    if (!signIn) return;
    const signInWindow = openSignInWindow();
    setConnecting(server.id);
    const auth: McpAuth = { type: 'oauth' };
    // A server switched to OAuth here signs in afresh: its old secret was a token or a header's value.
    const listing = await signIn(
      { ...server, auth },
      server.auth.type === 'oauth' ? secrets[server.id] : undefined,
      mcpOAuthRedirectUrl(),
      signInWindow.authorize,
    );
    signInWindow.close();
    settle(server, listing, listing.ok ? auth : server.auth);
  }

  function forget(server: McpServerConfig) {
    const { [server.id]: _signIn, ...rest } = secrets;
    setErrors((e) => ({ ...e, [server.id]: undefined }));
    onChange(servers, rest);
    void signOut?.(server, secrets[server.id]);
  }

  function remove(id: string) {
    const { [id]: _removed, ...rest } = secrets;
    onChange(
      servers.filter((server) => server.id !== id),
      rest,
    );
  }

  return (
    <div className="mcp-servers">
      <h4>MCP servers</h4>
      <p className="muted section-hint">
        Tools of remote MCP servers, called straight from this page: the server must allow this page’s origin (CORS). Each call is shown to you before it runs,
        unless you always allow that tool. A public https server can instead be called by the provider itself.
      </p>
      {servers.map((server) => (
        <ServerView
          key={server.id}
          server={server}
          provider={provider}
          error={errors[server.id]}
          signedIn={server.auth.type === 'oauth' && mcpSignedIn(readMcpOAuth(secrets[server.id]))}
          connecting={connecting === server.id}
          onConnect={listTools ? () => void connect(server) : undefined}
          onSignIn={signIn ? () => void startSignIn(server) : undefined}
          onSignOut={() => forget(server)}
          onRemove={() => remove(server.id)}
          onChange={(change) => update(server.id, change)}
          timeLimit={
            <CallTimeLimit
              server={server}
              typed={timeoutTexts[server.id]}
              onType={(text) => onTypeTimeout(server.id, text)}
              onChange={(change) => update(server.id, change)}
            />
          }
        />
      ))}
      <AddServer
        onAdd={(server, secret) => onChange([...servers, server], secret ? { ...secrets, [server.id]: secret } : secrets)}
        newId={newId}
        taken={servers.length}
      />
    </div>
  );
}

function authText(auth: McpAuth, signedIn: boolean): string {
  if (auth.type === 'none') return 'no authorization';
  if (auth.type === 'bearer') return 'bearer token';
  if (auth.type === 'header') return `header ${auth.name}`;
  return signedIn ? 'OAuth · Signed in' : 'OAuth · Not signed in';
}

function ServerView({
  server,
  provider,
  error,
  signedIn,
  connecting,
  onConnect,
  onSignIn,
  onSignOut,
  onRemove,
  onChange,
  timeLimit,
}: {
  server: McpServerConfig;
  provider: ProviderId;
  error: ServerError | undefined;
  signedIn: boolean;
  connecting: boolean;
  onConnect: (() => void) | undefined;
  onSignIn: (() => void) | undefined;
  onSignOut: () => void;
  onRemove: () => void;
  onChange: (change: (server: McpServerConfig) => McpServerConfig) => void;
  /** The field of its time limit per call. */
  timeLimit: ReactNode;
}) {
  const origin = endpointOrigin(server.url);
  const insecure = !keyTravelsSafely(server.url) && origin;
  const setTool = (name: string, patch: { enabled?: boolean; alwaysAllow?: boolean }) =>
    onChange((s) => ({ ...s, tools: s.tools.map((tool) => (tool.name === name ? { ...tool, ...patch } : tool)) }));
  return (
    <fieldset className="mcp-server" aria-label={`MCP server ${server.label}`}>
      <legend>{server.label}</legend>
      <p className="muted mcp-server-url">
        {server.url} · {authText(server.auth, signedIn)}
      </p>
      <label className="check">
        <input type="checkbox" role="switch" checked={server.enabled} onChange={(e) => onChange((s) => ({ ...s, enabled: e.target.checked }))} /> Use{' '}
        {server.label}’s tools
      </label>
      <ConnectVia server={server} provider={provider} onChange={onChange} />
      {insecure && server.connectVia !== 'provider' && (
        <label className="check">
          <input
            type="checkbox"
            checked={server.httpConfirmedFor === origin}
            onChange={(e) => onChange(({ httpConfirmedFor: _old, ...s }) => (e.target.checked ? { ...s, httpConfirmedFor: origin } : s))}
          />{' '}
          Let calls and their results travel unencrypted to {origin}
        </label>
      )}
      {timeLimit}
      <div className="mcp-server-actions">
        {onConnect && (server.auth.type !== 'oauth' || signedIn) && (
          <button type="button" onClick={onConnect} disabled={connecting}>
            {connecting ? 'Connecting…' : server.tools.length > 0 ? 'Connect again' : 'Connect'}
          </button>
        )}
        {onSignIn && (server.auth.type === 'oauth' || error?.signIn) && (
          <button type="button" onClick={onSignIn} disabled={connecting}>
            {signedIn ? 'Sign in again' : 'Sign in'}
          </button>
        )}
        {signedIn && (
          <button type="button" onClick={onSignOut} disabled={connecting}>
            Sign out
          </button>
        )}
        <button type="button" onClick={onRemove}>
          Remove {server.label}
        </button>
      </div>
      {error && (
        <p className="field-error" role="alert">
          {error.text}
        </p>
      )}
      {server.tools.length > 0 && (
        <ul className="mcp-tools" aria-label={`Tools of ${server.label}`}>
          {server.tools.map((tool) => (
            <li key={tool.name}>
              <label className="check">
                <input type="checkbox" role="switch" checked={tool.enabled} onChange={(e) => setTool(tool.name, { enabled: e.target.checked })} /> {tool.name}
              </label>
              <label className="check">
                <input type="checkbox" checked={tool.alwaysAllow} onChange={(e) => setTool(tool.name, { alwaysAllow: e.target.checked })} /> Always allow{' '}
                {tool.name}
              </label>
              {tool.description && <small className="muted mcp-tool-description">{tool.description}</small>}
            </li>
          ))}
        </ul>
      )}
    </fieldset>
  );
}

/**
 * The time limit of the server's calls: empty is the default; anything else must be whole
 * seconds in range. The text as typed is the draft's (`typed`, once edited), so a bad value
 * blocks Save rather than being dropped; a good one is the server's at once.
 */
function CallTimeLimit({
  server,
  typed,
  onType,
  onChange,
}: {
  server: McpServerConfig;
  typed: string | undefined;
  onType: (text: string) => void;
  onChange: (change: (server: McpServerConfig) => McpServerConfig) => void;
}) {
  const text = typed ?? (server.callTimeoutSeconds === undefined ? '' : String(server.callTimeoutSeconds));
  const { min, max } = MCP_CALL_TIMEOUT_RANGE;
  const valid = !Number.isNaN(typedCallTimeout(text));
  function change(value: string) {
    onType(value);
    const seconds = typedCallTimeout(value);
    if (Number.isNaN(seconds)) return;
    onChange(({ callTimeoutSeconds: _old, ...s }) => (seconds === undefined ? s : { ...s, callTimeoutSeconds: seconds }));
  }
  return (
    <Field
      label="Time limit per call (seconds)"
      hint={`A call still running then is given up and the model told so; ${MCP_CALL_TIMEOUT_SECONDS} when empty.`}
      error={valid ? null : `Whole seconds from ${min} to ${max}.`}
    >
      {(id, hint, invalid) => (
        // No min/max/step: the browser's own check would block Save with a bubble, not this field's message.
        <input
          id={id}
          type="number"
          inputMode="numeric"
          step="any"
          placeholder={String(MCP_CALL_TIMEOUT_SECONDS)}
          value={text}
          aria-describedby={hint}
          aria-invalid={invalid}
          onChange={(e) => change(e.target.value)}
        />
      )}
    </Field>
  );
}

const PROVIDER_NAMES: Record<ProviderId, string> = { anthropic: 'Anthropic', openai: 'OpenAI', 'openai-compatible': 'the provider', demo: 'the provider' };

/**
 * Who connects to the server: this page (each call shown first unless always allowed) or the
 * provider itself, which runs the calls while it answers without asking, so it gets only the
 * tools always allowed. Offered only where the provider has a connector and can reach the server.
 */
function ConnectVia({
  server,
  provider,
  onChange,
}: {
  server: McpServerConfig;
  provider: ProviderId;
  onChange: (change: (server: McpServerConfig) => McpServerConfig) => void;
}) {
  const id = useId();
  const unavailable = connectorUnavailable(server, provider);
  const viaProvider = server.connectVia === 'provider';
  const allowed = server.tools.filter((tool) => tool.enabled && tool.alwaysAllow).length;
  const name = PROVIDER_NAMES[provider];
  return (
    <div className="field">
      <label htmlFor={id}>Who connects to {server.label}</label>
      <select
        id={id}
        aria-describedby={`${id}-hint`}
        value={viaProvider ? 'provider' : 'browser'}
        onChange={(e) => onChange(({ connectVia: _old, ...s }) => (e.target.value === 'provider' ? { ...s, connectVia: 'provider' } : s))}
      >
        <option value="browser">This browser</option>
        <option value="provider" disabled={Boolean(unavailable) && !viaProvider}>
          The provider ({name === 'the provider' ? 'Anthropic / OpenAI' : name})
        </option>
      </select>
      <small id={`${id}-hint`} className={viaProvider && unavailable ? 'field-error' : 'muted'}>
        {viaProvider
          ? unavailable
            ? `${unavailable} Its tools are not used until you choose This browser or another provider.`
            : `${name} connects to ${server.label} and runs its tools while it answers, without asking you first: it gets only the tools you always allow (${allowed} now), and sees their results and everything the model sends them.`
          : unavailable
            ? `Only this browser can: ${unavailable}`
            : `This page calls ${server.label} and shows you each call first, unless you always allow the tool; or let ${name} connect to it itself.`}
      </small>
    </div>
  );
}

function AddServer({ onAdd, newId, taken }: { onAdd: (server: McpServerConfig, secret: string) => void; newId: () => string; taken: number }) {
  const [url, setUrl] = useState('');
  const [label, setLabel] = useState('');
  const [auth, setAuth] = useState<AuthKind>('none');
  const [headerName, setHeaderName] = useState('');
  const [secret, setSecret] = useState('');
  const [error, setError] = useState<string | null>(null);
  const withSecret = auth === 'bearer' || auth === 'header';

  function add() {
    const trimmed = url.trim();
    if (!isServerUrl(trimmed)) return setError('Enter the server’s http or https URL, such as https://mcp.example.com/mcp.');
    if (auth === 'header' && !isCustomHeaderName(headerName.trim())) return setError('Enter a header name such as X-Api-Key.');
    if (withSecret && !secret) return setError(auth === 'bearer' ? 'Enter the token.' : 'Enter the header’s value.');
    const kind: McpAuth = auth === 'header' ? { type: 'header', name: headerName.trim() } : { type: auth };
    onAdd(
      { id: newId(), label: label.trim().slice(0, 100) || new URL(trimmed).host, url: trimmed, enabled: true, auth: kind, tools: [] },
      withSecret ? secret : '',
    );
    setUrl('');
    setLabel('');
    setSecret('');
    setError(null);
  }

  return (
    <div className="mcp-add">
      <Field label="MCP server URL" error={error}>
        {(id, hint, invalid) => (
          <input id={id} aria-describedby={hint} aria-invalid={invalid} type="url" value={url} onChange={(e) => setUrl(e.target.value)} />
        )}
      </Field>
      <Field label="MCP server name" hint="How the server is named here and to the model; the URL’s host when empty.">
        {(id, hint) => <input id={id} aria-describedby={hint} value={label} onChange={(e) => setLabel(e.target.value)} />}
      </Field>
      <Field label="Authorization">
        {(id) => (
          <select id={id} value={auth} onChange={(e) => setAuth(e.target.value as AuthKind)}>
            <option value="none">None</option>
            <option value="bearer">Bearer token</option>
            <option value="header">A header</option>
            <option value="oauth">OAuth (sign in)</option>
          </select>
        )}
      </Field>
      {auth === 'oauth' && (
        <p className="muted section-hint">
          Once the server is added, choose Sign in: its sign-in page opens in a window of its own and sends you back here. The tokens are kept in this browser
          like the API keys, renewed when they expire, and never exported.
        </p>
      )}
      {auth === 'header' && <Field label="Header name">{(id) => <input id={id} value={headerName} onChange={(e) => setHeaderName(e.target.value)} />}</Field>}
      {withSecret && (
        <Field label={auth === 'bearer' ? 'Token' : 'Header value'} hint="Kept in this browser like the API keys; never exported.">
          {(id, hint) => (
            <input id={id} aria-describedby={hint} type="password" autoComplete="off" value={secret} onChange={(e) => setSecret(e.target.value)} />
          )}
        </Field>
      )}
      <button type="button" onClick={add}>
        {taken === 0 ? 'Add server' : 'Add another server'}
      </button>
    </div>
  );
}
