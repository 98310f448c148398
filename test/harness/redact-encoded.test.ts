/**
 * Registered secrets are redacted in their encoded forms too: JSON-escaped (`\/`, `\uXXXX` in either case
 * of hex, in any mix with plain characters, and JSON.stringify's own escapes) and percent-encoded (encodeURIComponent's,
 * with lower-case hex, a form body's, RFC 3986's). Texts without a secret are returned unchanged.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HttpClient } from '../../harness/transport/http.js';
import { REDACTED, redactHeaders, redactText, redactValue, registerSecret } from '../../harness/transport/redact.js';
import type { ExchangeRecord } from '../../harness/types.js';

/** every character as `\uXXXX`, hex digits upper or lower case */
const allEscaped = (s: string, upper: boolean) =>
  [...s]
    .map((c) => {
      const hex = c.charCodeAt(0).toString(16).padStart(4, '0');
      return `\\u${upper ? hex.toUpperCase() : hex}`;
    })
    .join('');
/** every other character as `\uXXXX`, alternating the case of the hex digits within and between escapes */
const someEscaped = (s: string) =>
  [...s]
    .map((c, i) => {
      if (i % 2 === 1) return JSON.stringify(c).slice(1, -1);
      const hex = c.charCodeAt(0).toString(16).padStart(4, '0');
      return `\\u${i % 4 === 0 ? hex.toUpperCase() : hex}`;
    })
    .join('');
const jsonInner = (s: string) => JSON.stringify(s).slice(1, -1);
const lowerHex = (s: string) => s.replace(/%[0-9A-F]{2}/g, (m) => m.toLowerCase());

/** the forms of a secret a target or a report may hold, by name */
function encodedForms(secret: string): Record<string, string> {
  return {
    'as written': secret,
    'JSON.stringify': jsonInner(secret),
    'JSON with \\/': jsonInner(secret).replace(/\//g, '\\/'),
    '\\uXXXX upper': allEscaped(secret, true),
    '\\uXXXX lower': allEscaped(secret, false),
    '\\uXXXX mixed with plain characters': someEscaped(secret),
    encodeURIComponent: encodeURIComponent(secret),
    'encodeURIComponent, lower-case hex': lowerHex(encodeURIComponent(secret)),
    'form body (URLSearchParams)': new URLSearchParams({ k: secret }).toString().slice(2),
    'RFC 3986 (!\'()* encoded too)': encodeURIComponent(secret).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`),
  };
}

// a gateway key (slashes, plus, equals), an HS256 secret with a quote, a backslash and a newline, a client secret with
// a space and the characters only RFC 3986 encodes
const GATEWAY_KEY = 'gw/Key+7f3a/9Zq==';
const HS256_SECRET = 'hs"256\\secret\nline-two\t!';
const CLIENT_SECRET = "client secret (d93f)*'~";
const JWT = 'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJhZG1pbiJ9.c2lnbmF0dXJlLXBhcnQ';

describe('redaction of encoded forms', () => {
  beforeAll(() => {
    for (const s of [GATEWAY_KEY, HS256_SECRET, CLIENT_SECRET, JWT]) registerSecret(s);
  });

  for (const secret of [GATEWAY_KEY, HS256_SECRET, CLIENT_SECRET]) {
    for (const [name, form] of Object.entries(encodedForms(secret))) {
      it(`redacts ${JSON.stringify(secret)} written ${name}`, () => {
        const out = redactText(`{"echo":"before ${form} after","again":"${form}"}`);
        expect(out).toBe(`{"echo":"before ${REDACTED} after","again":"${REDACTED}"}`);
      });
    }
  }

  it('redacts a registered JWT whose characters are partly written as \\uXXXX (which breaks its shape)', () => {
    expect(redactText(`"t":"${someEscaped(JWT)}"`)).toBe(`"t":"${REDACTED}"`);
    expect(redactText(`"t":"${JWT.replace('.', '\\u002E')}"`)).toBe(`"t":"${REDACTED}"`);
    expect(redactText(`"t":"${JWT.slice(0, 40)}\\u${JWT.charCodeAt(40).toString(16).padStart(4, '0')}${JWT.slice(41)}"`)).toBe(`"t":"${REDACTED}"`);
  });

  it('redacts encoded forms in header values and in values of any depth', () => {
    expect(redactHeaders({ 'X-Echo': `k=${encodeURIComponent(GATEWAY_KEY)}` })).toEqual({ 'x-echo': `k=${REDACTED}` });
    expect(redactValue({ a: [{ b: `say ${jsonInner(GATEWAY_KEY).replace(/\//g, '\\/')}` }] })).toEqual({ a: [{ b: `say ${REDACTED}` }] });
  });

  it('redacts a secret printed inside JSON.stringify of a message, and twice in one text', () => {
    const message = JSON.stringify({ error: `bad header ${GATEWAY_KEY} and ${HS256_SECRET}` });
    const out = redactText(`${message} ${encodeURIComponent(GATEWAY_KEY)}`);
    expect(out).toBe(`{"error":"bad header ${REDACTED} and ${REDACTED}"} ${REDACTED}`);
  });

  it('returns texts without a secret unchanged, escapes and percent signs included', () => {
    const texts = [
      '',
      'plain text',
      '{"a":"x\\/y","b":"\\u003cb\\u003e","c":"tab\\there","d":"quote \\" backslash \\\\"}',
      // an escaped backslash before u002f is a backslash and "u002f", not a slash
      `gw\\\\u002fKey+7f3a\\\\u002f9Zq==`,
      // near misses: one character different, cut short, the hex of another character
      'gw/Key+7f3a/9Zq=!',
      'gw\\/Key+7f3a\\/9Zq=',
      'gw\\u002fKey+7f3a\\u005c9Zq==',
      'gw%2FKey%2B7f3a%2F9Zq%3D',
      '100% sure, %zz, %2, \\u12, \\x41, trailing backslash \\',
      'https://host/path?q=a%20b&r=%2F',
    ];
    for (const t of texts) expect(redactText(t), t).toBe(t);
  });

  it('redacts any registered value in any mix of plain, \\uXXXX and short escapes, and leaves other text alone', () => {
    const control = '[[no secret here: \\u0041\\/ %41 ]]';
    fc.assert(
      fc.property(
        fc.string({ unit: 'grapheme-ascii', minLength: 6, maxLength: 24 }).filter((s) => s.trim().length >= 6 && !s.includes('<redacted>') && !control.includes(s) && !JSON.parse(`"${control}"`).includes(s)),
        fc.array(fc.integer({ min: 0, max: 3 }), { minLength: 24, maxLength: 24 }),
        (secret, choice) => {
          registerSecret(secret);
          const written = [...secret]
            .map((c, i) => {
              const hex = c.charCodeAt(0).toString(16).padStart(4, '0');
              return choice[i] === 0 ? `\\u${hex}` : choice[i] === 1 ? `\\u${hex.toUpperCase()}` : jsonInner(c).replace('/', choice[i] === 2 ? '\\/' : '/');
            })
            .join('');
          const out = redactText(`[[${written}]]`);
          expect(out).not.toContain(written);
          expect(out).toContain(REDACTED);
          expect(redactText(control)).toBe(control);
        },
      ),
      { numRuns: 200, seed: 20 },
    );
  });
});

describe('a target that echoes a header secret in an encoded form', () => {
  const KEY = 'gateway/key+b81d/echo==';
  let url = '';
  const server = createServer((req, res) => {
    const raw = JSON.stringify({ headers: req.headers });
    res.writeHead(200, { 'content-type': 'application/json' });
    // as PHP's json_encode writes it (every slash escaped), then with \u escapes, then percent-encoded
    const unicode = raw.replace(/[/+=]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
    res.end(`{"slashes":${raw.replace(/\//g, '\\/')},"unicode":${unicode},"percent":${JSON.stringify(encodeURIComponent(raw))}}`);
  });
  beforeAll(async () => {
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((r) => server.close(() => r())));

  it('records the echoed body without the secret in any of its forms', async () => {
    const records: ExchangeRecord[] = [];
    // the client registers its configured header values (as in a worker thread), the encoded forms with them
    const client = new HttpClient({ api: 'scan', baseUrl: url, timeoutMs: 2000, maxResponseBytes: 1 << 20, headers: { 'x-gateway-key': KEY }, onExchange: (x) => records.push(x) });
    const x = await client.send({ method: 'GET', path: '/echo' });
    expect(x.text).toContain('gateway\\/key+b81d\\/echo==');
    const recorded = JSON.stringify(records[0]);
    for (const form of [KEY, 'gateway\\/key+b81d\\/echo==', 'gateway\\u002fkey\\u002bb81d\\u002fecho\\u003d\\u003d', encodeURIComponent(KEY), 'b81d']) {
      expect(recorded, form).not.toContain(form);
    }
    expect(records[0]!.response?.body).toContain(`"x-gateway-key":"${REDACTED}"`);
  });
});
