import { useId, useState } from 'react';
import {
  connectorUnavailable,
  endpointOrigin,
  isCustomHeaderName,
  isServerUrl,
  keyTravelsSafely,
  readMcpServers,
  type McpAuth,
  type McpServerConfig,
  type ProviderId,
} from '../../core';
import type { McpListing } from '../../store';
import { Field } from '../Field';

export interface McpServersSectionProps {
  /** The servers as the draft holds them (read here with readMcpServers: they may come from storage). */
  stored: readonly unknown[];
  secrets: Record<string, string>;
  /** The provider chosen: whether it can connect to a server itself (its MCP connector). */
  provider: ProviderId;
  onChange: (servers: McpServerConfig[], secrets: Record<string, string>) => void;
  /** Connects to a server and lists its tools; absent where nothing can connect (then Connect is not offered). */
  listTools?: (server: McpServerConfig, secret: string | undefined) => Promise<McpListing>;
  newId: () => string;
}

type AuthKind = McpAuth['type'];

/**
 * Settings → Tools → MCP servers: add a server by URL (with a bearer token or a header),
 * Connect to list its tools, switch the server and each tool on or off, always allow a tool,
 * remove the server. What a server listed (names, descriptions) is shown as text only.
 */
export function McpServersSection({ stored, secrets, provider, onChange, listTools, newId }: McpServersSectionProps) {
  const servers = readMcpServers(stored, []);
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [connecting, setConnecting] = useState<string | null>(null);
  const update = (id: string, change: (server: McpServerConfig) => McpServerConfig) =>
    onChange(
      servers.map((server) => (server.id === id ? change(server) : server)),
      secrets,
    );

  async function connect(server: McpServerConfig) {
    if (!listTools) return;
    setConnecting(server.id);
    const listing = await listTools(server, secrets[server.id]);
    setConnecting(null);
    setErrors((e) => ({ ...e, [server.id]: listing.ok ? '' : listing.error }));
    if (listing.ok) update(server.id, (s) => ({ ...s, tools: listing.tools }));
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
          connecting={connecting === server.id}
          onConnect={listTools ? () => void connect(server) : undefined}
          onRemove={() => remove(server.id)}
          onChange={(change) => update(server.id, change)}
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

function ServerView({
  server,
  provider,
  error,
  connecting,
  onConnect,
  onRemove,
  onChange,
}: {
  server: McpServerConfig;
  provider: ProviderId;
  error: string | undefined;
  connecting: boolean;
  onConnect: (() => void) | undefined;
  onRemove: () => void;
  onChange: (change: (server: McpServerConfig) => McpServerConfig) => void;
}) {
  const origin = endpointOrigin(server.url);
  const insecure = !keyTravelsSafely(server.url) && origin;
  const setTool = (name: string, patch: { enabled?: boolean; alwaysAllow?: boolean }) =>
    onChange((s) => ({ ...s, tools: s.tools.map((tool) => (tool.name === name ? { ...tool, ...patch } : tool)) }));
  return (
    <fieldset className="mcp-server" aria-label={`MCP server ${server.label}`}>
      <legend>{server.label}</legend>
      <p className="muted mcp-server-url">
        {server.url} · {server.auth.type === 'none' ? 'no authorization' : server.auth.type === 'bearer' ? 'bearer token' : `header ${server.auth.name}`}
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
      <div className="mcp-server-actions">
        {onConnect && (
          <button type="button" onClick={onConnect} disabled={connecting}>
            {connecting ? 'Connecting…' : server.tools.length > 0 ? 'Connect again' : 'Connect'}
          </button>
        )}
        <button type="button" onClick={onRemove}>
          Remove {server.label}
        </button>
      </div>
      {error && (
        <p className="field-error" role="alert">
          {error}
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
            ? `The provider cannot connect instead: ${unavailable}`
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

  function add() {
    const trimmed = url.trim();
    if (!isServerUrl(trimmed)) return setError('Enter the server’s http or https URL, such as https://mcp.example.com/mcp.');
    if (auth === 'header' && !isCustomHeaderName(headerName.trim())) return setError('Enter a header name such as X-Api-Key.');
    if (auth !== 'none' && !secret) return setError(auth === 'bearer' ? 'Enter the token.' : 'Enter the header’s value.');
    const kind: McpAuth = auth === 'header' ? { type: 'header', name: headerName.trim() } : { type: auth };
    onAdd(
      { id: newId(), label: label.trim().slice(0, 100) || new URL(trimmed).host, url: trimmed, enabled: true, auth: kind, tools: [] },
      auth === 'none' ? '' : secret,
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
          </select>
        )}
      </Field>
      {auth === 'header' && <Field label="Header name">{(id) => <input id={id} value={headerName} onChange={(e) => setHeaderName(e.target.value)} />}</Field>}
      {auth !== 'none' && (
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
