/**
 * buildUrl builds most request URLs without the URL parser (a path it would leave as written is appended as is): the
 * URL it gives is the parser's for any base, path and query, as the parser-only version built them.
 */
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { buildUrl } from '../../harness/transport/http.js';

/** The parser-only version, as buildUrl was before its fast path: the oracle. */
function parsedUrl(baseUrl: string, path: string, query?: Record<string, string | number | boolean | undefined | Array<string | number | boolean>>): string {
  const q = baseUrl.indexOf('?');
  const baseQuery = q < 0 ? '' : baseUrl.slice(q + 1).replace(/#.*$/, '');
  const url = new URL((q < 0 ? baseUrl : baseUrl.slice(0, q)).replace(/#.*$/, '').replace(/\/+$/, '') + (path.startsWith('/') ? path : `/${path}`));
  for (const [k, v] of Object.entries(query ?? {})) {
    if (v === undefined) continue;
    for (const item of Array.isArray(v) ? v : [v]) url.searchParams.append(k, String(item));
  }
  if (baseQuery !== '') url.search = url.search === '' ? baseQuery : `${baseQuery}&${url.search.slice(1)}`;
  return url.toString();
}

const pieces = ['a', 'Z9', '.', '..', '%2e', '%2E.', '%', '%41', ' ', '?', '#', '&', '=', '+', '/', '//', '\\', ':', '@', "'", '"', '<', '{', '|', '~', '-', '_', 'é', '€', '\u0000', '\t', 'v2', 'users', 'cc-user-1', 'alice::1220ab'];
const text = fc.array(fc.constantFrom(...pieces), { maxLength: 8 }).map((a) => a.join(''));
const bases = fc.constantFrom('http://127.0.0.1:5012', 'http://127.0.0.1:5012/', 'http://h:1/api/scan', 'http://h:1/api/scan//', 'HTTP://Host.Example:80/a/', 'https://h/api?api_key=k/1+2=', 'http://h:1/api?k=a b#frag', 'http://[::1]:7575/x/');
const values = fc.oneof(text, fc.integer(), fc.boolean(), fc.constant(undefined), fc.array(fc.oneof(text, fc.integer()), { maxLength: 3 }));

describe('buildUrl', () => {
  it('gives the URL parser\'s URL for any base, path and query', () => {
    fc.assert(
      fc.property(bases, text, fc.option(fc.dictionary(fc.constantFrom('limit', 'after', 'a b', 'k&', 'é'), values, { maxKeys: 3 }), { nil: undefined }), (base, path, query) => {
        expect(buildUrl(base, path, query)).toBe(parsedUrl(base, path, query));
      }),
      { numRuns: 3000, seed: 20261127 },
    );
  });

  it('appends a plain path as written and resolves dot segments as the parser does', () => {
    expect(buildUrl('http://h:1/api/', '/v0/x', { a: 'b c' })).toBe('http://h:1/api/v0/x?a=b+c');
    expect(buildUrl('http://h:1/api', 'v0/./x/../y', undefined)).toBe('http://h:1/api/v0/y');
    expect(buildUrl('http://h:1/api', '/v0/%2e%2E/y')).toBe('http://h:1/api/y');
    expect(buildUrl('http://h:1', '/v2/users/a b')).toBe('http://h:1/v2/users/a%20b');
  });
});
