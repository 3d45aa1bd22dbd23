import { cleanup, render, screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { useState } from 'react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { writeMcpOAuth, type McpServerConfig, type ProviderId } from '../../src/core';
import { McpServersSection, type McpServersSectionProps } from '../../src/components/settings/McpServersSection';
import McpApprovalPrompt from '../../src/components/McpApprovalPrompt';
import type { McpListing } from '../../src/store';
import { trackerServer } from '../mcp/fixtures';

afterEach(cleanup);

/** The section over a draft of its own, as the Settings dialog holds it. */
function Harness(props: {
  stored?: unknown[];
  secrets?: Record<string, string>;
  listTools?: (server: McpServerConfig, secret?: string) => Promise<McpListing>;
  signIn?: McpServersSectionProps['signIn'];
  signOut?: McpServersSectionProps['signOut'];
  onState?: (servers: McpServerConfig[], secrets: Record<string, string>) => void;
  provider?: ProviderId;
}) {
  const [state, setState] = useState({ servers: props.stored ?? [], secrets: props.secrets ?? {} });
  const [timeoutTexts, setTimeoutTexts] = useState<Record<string, string>>({});
  return (
    <McpServersSection
      stored={state.servers}
      secrets={state.secrets}
      provider={props.provider ?? 'anthropic'}
      onChange={(servers, secrets) => {
        setState({ servers, secrets });
        props.onState?.(servers, secrets);
      }}
      timeoutTexts={timeoutTexts}
      onTypeTimeout={(serverId, text) => setTimeoutTexts((texts) => ({ ...texts, [serverId]: text }))}
      newId={() => 'new-id'}
      {...(props.listTools ? { listTools: props.listTools } : {})}
      {...(props.signIn ? { signIn: props.signIn } : {})}
      {...(props.signOut ? { signOut: props.signOut } : {})}
    />
  );
}

describe('Settings → Tools → MCP servers', () => {
  it('adds a server with a bearer token, keeping the token apart from the server', async () => {
    const onState = vi.fn();
    render(<Harness onState={onState} />);
    const user = userEvent.setup();
    await user.type(screen.getByLabelText('MCP server URL', { exact: true }), 'https://mcp.example.com/mcp');
    await user.type(screen.getByLabelText('MCP server name', { exact: true }), 'Tracker');
    await user.selectOptions(screen.getByLabelText('Authorization', { exact: true }), 'Bearer token');
    await user.type(screen.getByLabelText('Token', { exact: true }), 's3cret');
    await user.click(screen.getByRole('button', { name: 'Add server' }));
    const [servers, secrets] = onState.mock.calls.at(-1)!;
    expect(servers).toEqual([{ id: 'new-id', label: 'Tracker', url: 'https://mcp.example.com/mcp', enabled: true, auth: { type: 'bearer' }, tools: [] }]);
    expect(secrets).toEqual({ 'new-id': 's3cret' });
    expect(JSON.stringify(servers)).not.toContain('s3cret');
    expect(screen.getByRole('group', { name: 'MCP server Tracker' })).toBeInTheDocument();
  });

  it('sets a server’s time limit per call in whole seconds, says what it accepts, and empty is the default', async () => {
    const onState = vi.fn();
    render(<Harness stored={[trackerServer('https://mcp.example.com/mcp')]} onState={onState} />);
    const user = userEvent.setup();
    const field = screen.getByLabelText('Time limit per call (seconds)', { exact: true });
    await user.type(field, '5');
    expect(onState.mock.calls.at(-1)![0][0].callTimeoutSeconds).toBe(5);
    await user.clear(field);
    await user.type(field, '0.5');
    expect(screen.getByText('Whole seconds from 1 to 600.')).toBeInTheDocument();
    expect(field).toHaveAttribute('aria-invalid', 'true');
    await user.clear(field);
    expect(onState.mock.calls.at(-1)![0][0]).not.toHaveProperty('callTimeoutSeconds');
    expect(screen.queryByText('Whole seconds from 1 to 600.')).toBeNull();
  });

  it('refuses a URL that is not http(s) and says why', async () => {
    render(<Harness />);
    const user = userEvent.setup();
    await user.type(screen.getByLabelText('MCP server URL', { exact: true }), 'javascript:alert(1)');
    await user.click(screen.getByRole('button', { name: 'Add server' }));
    expect(screen.getByText('Enter the server’s http or https URL, such as https://mcp.example.com/mcp.')).toBeInTheDocument();
    expect(screen.queryByRole('group')).toBeNull();
  });

  it('Connect lists the tools with their descriptions as text; each can be switched and always allowed', async () => {
    const onState = vi.fn();
    const listTools = vi.fn(async (): Promise<McpListing> => ({
      ok: true,
      tools: [
        {
          name: 'lookup_issue',
          description: 'Looks up an issue. <img src=x onerror=alert(1)>',
          inputSchema: { type: 'object' },
          enabled: true,
          alwaysAllow: false,
        },
        { name: 'big_log', description: '', inputSchema: { type: 'object' }, enabled: true, alwaysAllow: false },
      ],
    }));
    const { container } = render(
      <Harness
        stored={[{ ...trackerServer('https://mcp.example.com/mcp'), tools: [] }]}
        secrets={{ 'srv-1': 'tok' }}
        listTools={listTools}
        onState={onState}
      />,
    );
    const user = userEvent.setup();
    await user.click(screen.getByRole('button', { name: 'Connect' }));
    expect(listTools).toHaveBeenCalledWith(expect.objectContaining({ id: 'srv-1' }), 'tok');
    const tools = await screen.findByRole('list', { name: 'Tools of Tracker' });
    expect(within(tools).getByText('Looks up an issue. <img src=x onerror=alert(1)>')).toBeInTheDocument();
    expect(container.querySelector('img')).toBeNull();
    await user.click(within(tools).getByRole('switch', { name: 'big_log' }));
    await user.click(within(tools).getByRole('checkbox', { name: 'Always allow lookup_issue' }));
    const [servers] = onState.mock.calls.at(-1)!;
    expect(servers[0].tools).toEqual([
      expect.objectContaining({ name: 'lookup_issue', enabled: true, alwaysAllow: true }),
      expect.objectContaining({ name: 'big_log', enabled: false, alwaysAllow: false }),
    ]);
  });

  it('says beside the server why Connect failed, and Remove drops the server and its secret', async () => {
    const onState = vi.fn();
    const failure = "The MCP server at https://mcp.example.com/mcp did not allow this page's origin, or is offline.";
    render(
      <Harness
        stored={[trackerServer('https://mcp.example.com/mcp')]}
        secrets={{ 'srv-1': 'tok' }}
        listTools={async () => ({ ok: false, error: failure })}
        onState={onState}
      />,
    );
    const user = userEvent.setup();
    await user.click(screen.getByRole('button', { name: 'Connect again' }));
    expect(within(screen.getByRole('group', { name: 'MCP server Tracker' })).getByRole('alert')).toHaveTextContent(failure);
    await user.click(screen.getByRole('button', { name: 'Remove Tracker' }));
    expect(onState).toHaveBeenLastCalledWith([], {});
  });

  it('asks before calls travel unencrypted to another machine', async () => {
    const onState = vi.fn();
    render(<Harness stored={[trackerServer('http://192.168.1.20:8080/mcp')]} onState={onState} />);
    await userEvent.setup().click(screen.getByRole('checkbox', { name: 'Let calls and their results travel unencrypted to http://192.168.1.20:8080' }));
    expect(onState.mock.calls.at(-1)![0][0].httpConfirmedFor).toBe('http://192.168.1.20:8080');
  });
});

describe('Settings → Tools → MCP servers with OAuth', () => {
  const lookup = { name: 'lookup_issue', description: 'Looks up an issue.', inputSchema: { type: 'object' }, enabled: true, alwaysAllow: false };
  const signedIn = writeMcpOAuth({ client: { client_id: 'c-1' }, tokens: { access_token: 'at-1', token_type: 'bearer' }, redirectUrl: 'http://localhost/cb' });
  const oauthServer = { ...trackerServer('https://mcp.example.com/mcp'), auth: { type: 'oauth' }, tools: [] };
  // The sign-in window: jsdom opens none, and the sign-in given here never needs it.
  beforeEach(() => {
    vi.spyOn(window, 'open').mockReturnValue(null);
  });
  afterEach(() => vi.restoreAllMocks());

  it('adds a server with OAuth and no secret; Sign in keeps the sign-in as its secret and lists the tools', async () => {
    const onState = vi.fn();
    const signIn = vi.fn(async (): Promise<McpListing> => ({ ok: true, tools: [lookup], secret: signedIn }));
    const signOut = vi.fn(async () => {});
    render(<Harness onState={onState} signIn={signIn} signOut={signOut} listTools={async () => ({ ok: false, error: 'not used' })} />);
    const user = userEvent.setup();
    await user.type(screen.getByLabelText('MCP server URL', { exact: true }), 'https://mcp.example.com/mcp');
    await user.selectOptions(screen.getByLabelText('Authorization', { exact: true }), 'OAuth (sign in)');
    expect(screen.queryByLabelText('Token', { exact: true })).toBeNull();
    await user.click(screen.getByRole('button', { name: 'Add server' }));
    expect(onState.mock.calls.at(-1)).toEqual([[expect.objectContaining({ auth: { type: 'oauth' }, tools: [] })], {}]);
    const server = screen.getByRole('group', { name: 'MCP server mcp.example.com' });
    expect(within(server).getByText('https://mcp.example.com/mcp · OAuth · Not signed in')).toBeInTheDocument();
    expect(within(server).queryByRole('button', { name: 'Connect' })).toBeNull();

    await user.click(within(server).getByRole('button', { name: 'Sign in' }));
    expect(signIn).toHaveBeenCalledWith(
      expect.objectContaining({ id: 'new-id' }),
      undefined,
      'http://localhost:3000/mcp-oauth-callback.html',
      expect.any(Function),
    );
    await within(server).findByText('https://mcp.example.com/mcp · OAuth · Signed in');
    expect(onState.mock.calls.at(-1)).toEqual([[expect.objectContaining({ tools: [lookup] })], { 'new-id': signedIn }]);
    expect(within(server).getByRole('button', { name: 'Sign in again' })).toBeInTheDocument();

    expect(signOut).not.toHaveBeenCalled();
    await user.click(within(server).getByRole('button', { name: 'Sign out' }));
    expect(onState.mock.calls.at(-1)![1]).toEqual({});
    // The sign-out is not the draft's alone: the stored sign-in is forgotten at once.
    expect(signOut).toHaveBeenCalledWith(expect.objectContaining({ id: 'new-id' }), signedIn);
    expect(within(server).getByText('https://mcp.example.com/mcp · OAuth · Not signed in')).toBeInTheDocument();
  });

  it('offers Sign in when a server configured without OAuth asks for it, and switches the server to OAuth once signed in', async () => {
    const onState = vi.fn();
    const asks = `The MCP server at https://mcp.example.com/mcp asks you to sign in (OAuth): choose Sign in to use it.`;
    const signIn = vi.fn(async (): Promise<McpListing> => ({ ok: true, tools: [lookup], secret: signedIn }));
    render(
      <Harness
        stored={[{ ...oauthServer, auth: { type: 'none' } }]}
        listTools={async () => ({ ok: false, error: asks, signIn: true })}
        signIn={signIn}
        onState={onState}
      />,
    );
    const user = userEvent.setup();
    const server = screen.getByRole('group', { name: 'MCP server Tracker' });
    expect(within(server).queryByRole('button', { name: 'Sign in' })).toBeNull();
    await user.click(within(server).getByRole('button', { name: 'Connect' }));
    expect(within(server).getByRole('alert')).toHaveTextContent(asks);
    await user.click(within(server).getByRole('button', { name: 'Sign in' }));
    expect(signIn).toHaveBeenCalledWith(expect.objectContaining({ auth: { type: 'oauth' } }), undefined, expect.any(String), expect.any(Function));
    await within(server).findByText('https://mcp.example.com/mcp · OAuth · Signed in');
    expect(onState.mock.calls.at(-1)).toEqual([[expect.objectContaining({ auth: { type: 'oauth' }, tools: [lookup] })], { 'srv-1': signedIn }]);
    expect(within(server).queryByRole('alert')).toBeNull();
  });

  it('says why the sign-in failed and keeps what was there', async () => {
    const onState = vi.fn();
    const failure = 'Could not sign in to https://mcp.example.com/mcp: the sign-in window was closed before the sign-in finished.';
    render(<Harness stored={[oauthServer]} signIn={async () => ({ ok: false, error: failure, signIn: true })} onState={onState} />);
    const server = screen.getByRole('group', { name: 'MCP server Tracker' });
    await userEvent.setup().click(within(server).getByRole('button', { name: 'Sign in' }));
    expect(await within(server).findByRole('alert')).toHaveTextContent(failure);
    expect(onState).not.toHaveBeenCalled();
  });
});

describe('the prompt before an MCP tool runs', () => {
  it('shows the server, the tool and the arguments as text, and answers', async () => {
    const onAnswer = vi.fn();
    const { container } = render(
      <McpApprovalPrompt
        approval={{
          conversationId: 'c',
          callId: 'toolu_1',
          serverId: 'srv-1',
          server: 'Tracker',
          tool: 'lookup_issue',
          args: '{\n  "q": "<b>bold</b>"\n}',
          answer: onAnswer,
        }}
      />,
    );
    const prompt = screen.getByRole('alertdialog', { name: 'Run lookup_issue on the MCP server “Tracker”?' });
    expect(within(prompt).getByText(/"q": "<b>bold<\/b>"/)).toBeInTheDocument();
    expect(container.querySelector('b')).toBeNull();
    const user = userEvent.setup();
    for (const name of ['Allow', 'Always allow', 'Refuse']) await user.click(within(prompt).getByRole('button', { name }));
    expect(onAnswer.mock.calls).toEqual([['allow'], ['always'], ['refuse']]);
  });
});

describe('who connects to an MCP server', () => {
  it('lets the provider connect to a public https server, with only the tools always allowed', async () => {
    const onState = vi.fn();
    render(<Harness stored={[trackerServer('https://mcp.example.com/mcp', true)]} provider="openai" onState={onState} />);
    const choice = screen.getByLabelText('Who connects to Tracker', { exact: true });
    await userEvent.setup().selectOptions(choice, 'The provider (OpenAI)');
    expect(onState.mock.calls.at(-1)![0][0].connectVia).toBe('provider');
    expect(choice).toHaveAccessibleDescription(/OpenAI connects to Tracker .* without asking you first: it gets only the tools you always allow \(1 now\)/);
  });

  it.each([
    ['http://127.0.0.1:8080/mcp', 'anthropic', 'the provider connects only to https addresses'],
    ['https://localhost/mcp', 'anthropic', 'it is this machine'],
    ['https://10.0.0.5/mcp', 'openai', 'it is a private address'],
    ['https://mcp.example.com/mcp', 'openai-compatible', 'OpenAI-compatible servers have no MCP connector'],
    ['https://mcp.example.com/mcp', 'demo', 'The Demo has no MCP connector'],
  ] as const)('does not offer the provider for %s on %s, and says why', (url, provider, why) => {
    render(<Harness stored={[trackerServer(url, true)]} provider={provider} />);
    const choice = screen.getByLabelText('Who connects to Tracker', { exact: true });
    expect(within(choice).getByRole('option', { name: /The provider/ })).toBeDisabled();
    expect(choice).toHaveAccessibleDescription(new RegExp(why));
  });

  it('says a server set to the provider is not used where the provider cannot connect', () => {
    render(<Harness stored={[{ ...trackerServer('https://mcp.example.com/mcp', true), connectVia: 'provider' }]} provider="demo" />);
    expect(screen.getByLabelText('Who connects to Tracker', { exact: true })).toHaveAccessibleDescription(
      /The Demo has no MCP connector.*Its tools are not used until you choose This browser or another provider\./,
    );
  });
});
