import { describe, expect, it } from 'vitest';
import { mcpSecretsToSave, mcpSignedIn, readMcpOAuth, writeMcpOAuth, type McpAuth, type McpOAuthRecord, type McpServerConfig } from '../../../src/core';

const signedIn: McpOAuthRecord = {
  client: { client_id: 'c-1', token_endpoint_auth_method: 'none', issuer: 'https://auth.example.com/', client_id_issued_at: 1_700_000_000 },
  tokens: { access_token: 'at-1', token_type: 'bearer', refresh_token: 'rt-1', expires_in: 3600, issuer: 'https://auth.example.com/' },
};

describe('an MCP server’s OAuth sign-in as settings keep it', () => {
  it('reads back what was written, field for field', () => {
    expect(readMcpOAuth(writeMcpOAuth(signedIn))).toEqual(signedIn);
    const underWay = { client: { client_id: 'c-1' }, verifier: 'v'.repeat(64), state: 's-1' };
    expect(readMcpOAuth(writeMcpOAuth(underWay))).toEqual(underWay);
    expect(mcpSignedIn(readMcpOAuth(writeMcpOAuth(signedIn)))).toBe(true);
    expect(mcpSignedIn(readMcpOAuth(writeMcpOAuth(underWay)))).toBe(false);
  });

  it('reads anything else as not signed in: no secret, a bearer token left from before, JSON of another shape', () => {
    for (const secret of [undefined, '', 'a-bearer-token', '42', '[]', 'null', '{"tokens":"x"}']) expect(readMcpOAuth(secret)).toEqual({});
  });

  it('drops fields of the wrong type or size, and tokens or a client without their required fields', () => {
    const read = readMcpOAuth(
      JSON.stringify({
        client: { client_id: 'c-1', client_secret: 7, client_id_issued_at: -1, extra: 'x' },
        tokens: { access_token: 'a'.repeat(20_000), token_type: 'bearer' },
        verifier: { v: 1 },
        state: 's',
      }),
    );
    expect(read).toEqual({ client: { client_id: 'c-1' }, state: 's' });
    expect(readMcpOAuth(JSON.stringify({ tokens: { access_token: 'at' }, client: { client_secret: 'x' } }))).toEqual({});
  });

  it('never writes what it would not read back (a field the SDK added is left out)', () => {
    const written = JSON.parse(writeMcpOAuth({ ...signedIn, tokens: { ...signedIn.tokens!, extra: 'kept?' } as never }));
    expect(written.tokens).not.toHaveProperty('extra');
  });
});

describe('the MCP secrets a saved draft keeps', () => {
  const server = (id: string, auth: McpAuth): McpServerConfig => ({ id, label: id, url: `https://${id}.example.com/mcp`, enabled: true, auth, tools: [] });
  const stored = {
    servers: [
      server('oauth', { type: 'oauth' }),
      server('bearer', { type: 'bearer' }),
      server('switched', { type: 'bearer' }),
      server('removed', { type: 'none' }),
    ],
    secrets: { oauth: 'stored sign-in', bearer: 'old token', switched: 'its token', removed: 'gone', orphan: 'left by a cancelled dialog' },
  };

  it('takes the stored sign-in of an OAuth server, the draft’s other secrets, and none of a server no longer listed', () => {
    const next = {
      servers: [
        server('oauth', { type: 'oauth' }),
        server('bearer', { type: 'bearer' }),
        server('switched', { type: 'oauth' }),
        server('added', { type: 'oauth' }),
        server('signed-out', { type: 'oauth' }),
      ],
      secrets: { oauth: 'older sign-in', bearer: 'new token', switched: 'sign-in in the draft', added: 'draft copy', 'signed-out': 'draft copy' },
    };
    const withAdded = { ...stored, secrets: { ...stored.secrets, added: 'sign-in stored at once' } };
    expect(mcpSecretsToSave(withAdded, next)).toEqual({
      oauth: 'stored sign-in',
      bearer: 'new token',
      // Switched to OAuth in the dialog: the stored server still sent its token, so the sign-in waited in the draft.
      switched: 'sign-in in the draft',
      added: 'sign-in stored at once',
    });
  });
});
