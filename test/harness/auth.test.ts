import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { jwtVerify } from 'jose';
import { describe, expect, it } from 'vitest';
import { AuthUnavailable, TokenProvider } from '../../harness/transport/auth.js';
import { redactText } from '../../harness/transport/redact.js';

describe('auth', () => {
  it('mints HS256 tokens whose subject is the ledger user, and registers them as secrets', async () => {
    const p = new TokenProvider({ kind: 'hs256', secret: 'shared-secret-for-tests', users: { admin: 'participant_admin' }, audience: 'aud-1' });
    const token = await p.tokenFor('admin');
    const { payload } = await jwtVerify(token, new TextEncoder().encode('shared-secret-for-tests'), { audience: 'aud-1' });
    expect(payload.sub).toBe('participant_admin');
    expect((await p.tokenForUser('someone-else')).length).toBeGreaterThan(20);
    expect(redactText(`x ${token} y`)).toBe('x <redacted> y');
  });

  it('returns static tokens per role and says which roles exist', async () => {
    const p = new TokenProvider({ kind: 'static', tokens: { user: 'static-user-token' } });
    expect(await p.tokenFor('user')).toBe('static-user-token');
    expect(p.roles()).toEqual(['user']);
    await expect(p.tokenFor('admin')).rejects.toBeInstanceOf(AuthUnavailable);
    await expect(p.tokenForUser('x')).rejects.toThrow(/hs256/);
  });

  it('fetches OAuth2 client-credentials tokens and caches them until near expiry', async () => {
    let calls = 0;
    let form = '';
    const server = createServer((req, res) => {
      calls++;
      let body = '';
      req.on('data', (c: Buffer) => (body += c.toString()));
      req.on('end', () => {
        form = body;
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ access_token: 'oauth-access-token-1', expires_in: 3600, token_type: 'Bearer' }));
      });
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    try {
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/token`;
      const p = new TokenProvider({ kind: 'oauth2', tokenUrl: url, clients: { reader: { clientId: 'cid', clientSecret: 'client-secret-1', scope: 's1' } } });
      expect(await p.tokenFor('reader')).toBe('oauth-access-token-1');
      expect(await p.tokenFor('reader')).toBe('oauth-access-token-1');
      expect(calls).toBe(1);
      expect(new URLSearchParams(form).get('grant_type')).toBe('client_credentials');
      expect(redactText('client-secret-1 and oauth-access-token-1')).toBe('<redacted> and <redacted>');
    } finally {
      server.close();
    }
  });

  it('reports a refused OAuth2 token request without echoing the response', async () => {
    const server = createServer((_, res) => {
      res.writeHead(401, { 'content-type': 'application/json' });
      res.end('{"error":"invalid_client","echo":"client-secret-2"}');
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    try {
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/token`;
      const p = new TokenProvider({ kind: 'oauth2', tokenUrl: url, clients: { reader: { clientId: 'cid', clientSecret: 'client-secret-2' } } });
      const err = (await p.tokenFor('reader').catch((e: unknown) => e)) as Error;
      expect(err.message).toContain('answered 401');
      expect(err.message).not.toContain('client-secret-2');
    } finally {
      server.close();
    }
  });
});
