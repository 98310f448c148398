/**
 * Credentials nobody configured are redacted by their names and shapes (harness/transport/redact.ts): in observe and judge,
 * which see other people's traffic, and in the HAR of run --record. Ordinary data under names that merely look alike
 * (a topology's keyData and publicKey, page tokens, contract keys) stays as it was, so that a judged recording gives
 * the run's verdicts.
 */
import { describe, expect, it } from 'vitest';
import { harEntryOf } from '../../harness/observe/har.js';
import { isCredentialField, isCredentialName, REDACTED, redactHeaders, redactText, registerSecretNames } from '../../harness/transport/redact.js';

const JWT = 'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJjYXJvbCJ9.Y2Fyb2xzLXNpZ25hdHVyZS1mb3ItdGhlLXRlc3Q';

describe('redaction of credentials nobody configured', () => {
  it('redacts the values of credential-bearing headers, the scheme of an authorization kept', () => {
    const out = redactHeaders({
      Authorization: 'Bearer abc.def',
      'Proxy-Authorization': 'Basic dXNlcjpwdw==',
      Cookie: 'sid=1',
      'Set-Cookie': 'session=2; HttpOnly',
      'X-Auth-Token': 'at-1',
      'X-Access-Token': 'at-2',
      'X-Api-Key': 'k-1',
      'X-Client-Secret': 's-1',
      'X-Session-Id': 'sess-1',
      'X-Password': 'pw-1',
      'X-Amz-Signature': 'sig-1',
      'Content-Type': 'application/json',
      'WWW-Authenticate': 'Bearer realm="ledger"',
      'X-Request-Id': 'r-1',
    });
    expect(out).toEqual({
      authorization: `Bearer ${REDACTED}`,
      'proxy-authorization': `Basic ${REDACTED}`,
      cookie: REDACTED,
      'set-cookie': REDACTED,
      'x-auth-token': REDACTED,
      'x-access-token': REDACTED,
      'x-api-key': REDACTED,
      'x-client-secret': REDACTED,
      'x-session-id': REDACTED,
      'x-password': REDACTED,
      'x-amz-signature': REDACTED,
      'content-type': 'application/json',
      'www-authenticate': 'Bearer realm="ledger"',
      'x-request-id': 'r-1',
    });
  });

  it('redacts query parameters and form fields with such names, and leaves page tokens and page sizes', () => {
    expect(redactText('http://n/v2/users?pageToken=p1&pageSize=2&access_token=t1&api-key=k1')).toBe(`http://n/v2/users?pageToken=p1&pageSize=2&access_token=${REDACTED}&api-key=${REDACTED}`);
    expect(redactText('grant_type=client_credentials&client_id=app&client_secret=s3&refresh_token=r4')).toBe(`grant_type=client_credentials&client_id=app&client_secret=${REDACTED}&refresh_token=${REDACTED}`);
    expect(redactText('curl \'http://n/x?signature=abc&after=5\'')).toBe(`curl 'http://n/x?signature=${REDACTED}&after=5'`);
    // a base64 text's padding is no parameter
    expect(redactText('c2Vzc2lvbktleQ==')).toBe('c2Vzc2lvbktleQ==');
  });

  it('redacts JSON string fields with credential names, and no public key, key data, contract key or page token', () => {
    const body = JSON.stringify({
      access_token: 'a1',
      refresh_token: 'r1',
      client_secret: 'c1',
      password: 'p1',
      apiKey: 'k1',
      privateKey: 'pk1',
      sessionId: 's1',
      authorization: 'Bearer b1',
      publicKey: { format: 'CRYPTO_KEY_FORMAT_RAW', keyData: 'AAEC', keySpec: 'SIGNING_KEY_SPEC_EC_CURVE25519' },
      publicKeyFingerprint: '1220abcd',
      contractKey: 'ck',
      key: 'k',
      nextPageToken: 'np',
      next_page_token: 'np2',
      authorizers: 'alice',
    });
    const out = JSON.parse(redactText(body)) as Record<string, unknown>;
    expect(out).toEqual({
      access_token: REDACTED,
      refresh_token: REDACTED,
      client_secret: REDACTED,
      password: REDACTED,
      apiKey: REDACTED,
      privateKey: REDACTED,
      sessionId: REDACTED,
      authorization: `Bearer ${REDACTED}`,
      publicKey: { format: 'CRYPTO_KEY_FORMAT_RAW', keyData: 'AAEC', keySpec: 'SIGNING_KEY_SPEC_EC_CURVE25519' },
      publicKeyFingerprint: '1220abcd',
      contractKey: 'ck',
      key: 'k',
      nextPageToken: 'np',
      next_page_token: 'np2',
      authorizers: 'alice',
    });
    expect(isCredentialField('keyData')).toBe(false);
    expect(isCredentialName('keyData')).toBe(false);
    expect(isCredentialName('X-Auth-Token')).toBe(true);
  });

  it('keeps JSON valid: a URL with a credential inside a JSON string keeps its quote and escapes', () => {
    const text = JSON.stringify({ next: 'http://n/x?token=abc', quoted: JSON.stringify({ token: 't' }) });
    const out = redactText(text);
    expect(() => JSON.parse(out)).not.toThrow();
    expect(out).not.toContain('abc');
    expect(JSON.parse(out)).toEqual({ next: `http://n/x?token=${REDACTED}`, quoted: expect.not.stringContaining('"t"') });
  });

  it('redacts JWT-shaped strings anywhere', () => {
    expect(redactText(`note: ${JWT} here`)).toBe(`note: ${REDACTED} here`);
  });

  it('redacts the names a setting lists (run.redactNames), compared without case, dashes and underscores', () => {
    expect(redactHeaders({ 'X-Tenant-Ref': 'tr-1' })['x-tenant-ref']).toBe('tr-1');
    registerSecretNames(['x_tenant_ref']);
    expect(redactHeaders({ 'X-Tenant-Ref': 'tr-1' })['x-tenant-ref']).toBe(REDACTED);
    expect(redactText('{"xTenantRef":"tr-2"}')).toBe(`{"xTenantRef":"${REDACTED}"}`);
    expect(redactText('http://n/?x-tenant-ref=tr-3')).toBe(`http://n/?x-tenant-ref=${REDACTED}`);
  });

  it('writes no unconfigured credential into a HAR entry of run --record', () => {
    const secrets: string[] = ['rsp-cookie-9Qx', 'rsp-token-7Wz', 'req-form-5Ec', JWT];
    const entry = harEntryOf(
      {
        record: {
          api: 'scan',
          operationId: 'listAnsEntries',
          request: { method: 'POST', url: redactText('http://n/api/scan/v0/events?access_token=zz-query-1'), headers: redactHeaders({ 'content-type': 'application/x-www-form-urlencoded', 'x-auth-token': 'zz-hdr-1' }) },
          response: { status: 200, headers: {}, body: '' },
          startedAt: '2026-01-01T00:00:00.000Z',
          durationMs: 1,
        },
        requestBody: `client_secret=${secrets[2]}&grant_type=x`,
        responseHeaders: { 'content-type': 'application/json', 'set-cookie': `sid=${secrets[0]}`, 'x-session-token': secrets[1]! },
        responseText: JSON.stringify({ events: [], access_token: secrets[1], id_token: secrets[3] }),
      },
      1024 * 1024,
    );
    const text = JSON.stringify(entry);
    for (const s of [...secrets, 'zz-query-1', 'zz-hdr-1']) expect(text.includes(s), s).toBe(false);
    expect(entry.response.content.text).toBe(`{"events":[],"access_token":"${REDACTED}","id_token":"${REDACTED}"}`);
  });
});
