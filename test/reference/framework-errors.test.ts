/** A URL fastify cannot decode (bad percent-encoding) is answered in the error shape of the interface it addresses. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startReference, type ReferenceServer } from '../../reference/index.js';

let server: ReferenceServer;
beforeAll(async () => {
  server = await startReference();
});
afterAll(async () => {
  await server.close();
});

const get = async (path: string) => {
  const r = await fetch(`${server.urls.ledger}${path}`);
  return { status: r.status, type: r.headers.get('content-type') ?? '', text: await r.text() };
};

describe('malformed URLs', () => {
  it.each(['/v2/users/%zz', '/v2/users/%E0%A4%A', '/v2/parties/%'])('ledger %s: 400 text/plain', async (path) => {
    const x = await get(path);
    expect(x.status).toBe(400);
    expect(x.type).toMatch(/^text\/plain/);
    expect(x.text.length).toBeGreaterThan(0);
  });

  // a URL the HTTP framework cannot decode is rejected before any handler: text/plain, as Splice's servers answer
  it.each(['/api/scan/v0/ans-entries/%zz', '/api/scan/v0/events/%E0%A4%A', '/api/validator/v0/entry/%zz', '/api/registry/registry/transfer-instruction/v1/%zz/choice-contexts/withdraw'])(
    '%s: 400 text/plain',
    async (path) => {
      const x = await get(path);
      expect(x.status).toBe(400);
      expect(x.type).toMatch(/^text\/plain/);
      expect(x.text.length).toBeGreaterThan(0);
    },
  );

  it('a well-formed escape still routes', async () => {
    const x = await get('/api/scan/v0/ans-entries?page_size=1&name_prefix=%61');
    expect(x.status).toBe(200);
  });
});

describe('request bodies of the scan, validator and registry scopes', () => {
  // POST /v0/events takes a JSON body whose fields are all optional but page_size
  const post = async (type: string | undefined, body: string) => {
    const r = await fetch(`${server.urls.scan}/v0/events`, { method: 'POST', body, headers: type === undefined ? {} : { 'content-type': type } });
    return { status: r.status, text: await r.text() };
  };

  it('decodes JSON alike whatever the content type says', async () => {
    const body = JSON.stringify({ page_size: 1 });
    const statuses = await Promise.all([post('application/json', body), post('text/plain', body), post('application/x-anything', body), post(undefined, body)]);
    expect(statuses.map((s) => s.status)).toEqual([200, 200, 200, 200]);
  });

  it('answers malformed JSON with a text/plain 400 (a body that does not decode) under every content type', async () => {
    for (const type of ['application/json', 'text/plain']) {
      const r = await fetch(`${server.urls.scan}/v0/events`, { method: 'POST', body: '{"page_size": ', headers: { 'content-type': type } });
      expect(r.status).toBe(400);
      expect(r.headers.get('content-type') ?? '').toMatch(/^text\/plain/);
      expect((await r.text()).length).toBeGreaterThan(0);
    }
  });

  it('answers a decoded body a handler refuses with 400 {error}', async () => {
    const x = await post('application/json', JSON.stringify({ page_size: 1001 }));
    expect(x.status).toBe(400);
    expect(typeof (JSON.parse(x.text) as { error?: unknown }).error).toBe('string');
  });
});
