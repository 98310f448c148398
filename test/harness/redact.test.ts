import { describe, expect, it } from 'vitest';
import { REDACTED, redactHeaders, redactText, redactValue, registerSecret } from '../../harness/transport/redact.js';

describe('redaction', () => {
  it('hides credentials in headers but keeps the scheme', () => {
    expect(redactHeaders({ Authorization: 'Bearer abc.def.ghi', 'Sec-WebSocket-Protocol': 'jwt.token.x', Accept: 'application/json' })).toEqual({
      authorization: `Bearer ${REDACTED}`,
      'sec-websocket-protocol': REDACTED,
      accept: 'application/json',
    });
  });

  it('hides any JWT by its shape, even one the harness never saw', () => {
    const jwt = 'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJ4In0.sig_nature-1';
    expect(redactText(`token=${jwt}&x=1`)).toBe(`token=${REDACTED}&x=1`);
  });

  it('hides registered secrets wherever they appear', () => {
    registerSecret('hunter2-long-secret');
    expect(redactText('the secret is hunter2-long-secret!')).toBe(`the secret is ${REDACTED}!`);
  });

  it('hides secret-named fields but keeps page tokens readable', () => {
    expect(redactValue({ access_token: 'x1', client_secret: 'x2', nextPageToken: 'page-2', next_page_token: 5, nested: { password: 'p' } })).toEqual({
      access_token: REDACTED,
      client_secret: REDACTED,
      nextPageToken: 'page-2',
      next_page_token: 5,
      nested: { password: REDACTED },
    });
  });
});
