import { describe, expect, it } from 'vitest';
import { mcpSignedIn, readMcpOAuth, writeMcpOAuth, type McpOAuthRecord } from '../../../src/core';

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
