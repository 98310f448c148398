/**
 * The one installer of the scan and validator HTTP faults (reference/http-faults.ts): only switched-on faults act, in
 * table order; the first that answers a request answers it, and a rewrite that gives no payload leaves the answer to
 * the next.
 */
import Fastify from 'fastify';
import { describe, expect, it } from 'vitest';
import { FaultSet } from '../../reference/faults.js';
import { installHttpFaultTable, type HttpFault } from '../../reference/http-faults.js';

const TABLE: HttpFault[] = [
  { name: 'gone', requirement: 'r', description: 'd', answer: (r) => (r.path.endsWith('/gone') ? { status: 404, type: 'application/json', body: { error: 'not found' } } : undefined) },
  { name: 'long', requirement: 'r', description: 'd', answer: (r) => (typeof r.query.q === 'string' && r.query.q.length > 3 ? { status: 500, type: 'application/json', body: { error: 'internal' } } : undefined) },
  {
    name: 'unchallenged',
    requirement: 'r',
    description: 'd',
    rewrite: (_r, reply) => {
      if (reply.statusCode === 401) reply.removeHeader('www-authenticate');
      return undefined;
    },
  },
  { name: 'html', requirement: 'r', description: 'd', rewrite: (_r, reply) => (reply.statusCode === 401 ? (reply.type('text/html'), '<html></html>') : undefined) },
];

async function app(on: string[]) {
  const a = Fastify();
  installHttpFaultTable(a, new FaultSet(on), TABLE);
  a.get('/gone', async () => ({ ok: true }));
  a.get('/locked', async (_req, reply) => reply.code(401).header('www-authenticate', 'Bearer').type('application/json').send({ error: 'no token' }));
  await a.ready();
  return a;
}

describe('HTTP fault table', () => {
  it('acts only for the faults switched on', async () => {
    const a = await app([]);
    expect((await a.inject('/gone?q=longer')).statusCode).toBe(200);
    const locked = await a.inject('/locked');
    expect(locked.headers['www-authenticate']).toBe('Bearer');
    expect(locked.json()).toEqual({ error: 'no token' });
    await a.close();
  });

  it('answers with the first switched-on fault that matches, in table order', async () => {
    const both = await app(['long', 'gone']);
    expect((await both.inject('/gone?q=longer')).statusCode).toBe(404);
    const onlyLong = await app(['long']);
    const r = await onlyLong.inject('/gone?q=longer');
    expect(r.statusCode).toBe(500);
    expect(r.json()).toEqual({ error: 'internal' });
    expect((await onlyLong.inject('/gone?q=ab')).statusCode).toBe(200);
    await both.close();
    await onlyLong.close();
  });

  it('passes an answer on through rewrites that give no payload, and sends the first payload given', async () => {
    const a = await app(['unchallenged', 'html']);
    const r = await a.inject('/locked');
    expect(r.statusCode).toBe(401);
    expect(r.headers['www-authenticate']).toBeUndefined();
    expect(r.headers['content-type']).toMatch(/^text\/html/);
    expect(r.body).toBe('<html></html>');
    await a.close();
  });
});
