/**
 * The reference keeps the tokens whose signature it verified (reference/auth.ts): a kept token is still refused once
 * its exp passes, or while its nbf is ahead, and a token that failed is never kept.
 */
import type { FastifyRequest } from 'fastify';
import { SignJWT } from 'jose';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { bearerSubject } from '../../reference/auth.js';

const SECRET = 'auth-cache-test-secret';
const req = (token: string) => ({ headers: { authorization: `Bearer ${token}` } }) as unknown as FastifyRequest;
const sign = (claims: { exp?: number; nbf?: number }, secret = SECRET) => {
  const jwt = new SignJWT({}).setProtectedHeader({ alg: 'HS256' }).setSubject('alice');
  if (claims.exp !== undefined) jwt.setExpirationTime(claims.exp);
  if (claims.nbf !== undefined) jwt.setNotBefore(claims.nbf);
  return jwt.sign(new TextEncoder().encode(secret));
};

describe('verified tokens kept by the reference', () => {
  afterEach(() => vi.useRealTimers());

  it('refuses a kept token once its exp has passed', async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    const t0 = Date.UTC(2026, 0, 1, 12, 0, 0);
    vi.setSystemTime(t0);
    const token = await sign({ exp: t0 / 1000 + 10 });
    expect(await bearerSubject(req(token), SECRET)).toBe('alice');
    expect(await bearerSubject(req(token), SECRET)).toBe('alice');
    vi.setSystemTime(t0 + 10_000);
    expect(await bearerSubject(req(token), SECRET)).toBeUndefined();
  });

  it('refuses a kept token while its nbf is ahead', async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    const t0 = Date.UTC(2026, 0, 2, 12, 0, 0);
    vi.setSystemTime(t0);
    const token = await sign({ nbf: t0 / 1000 });
    expect(await bearerSubject(req(token), SECRET)).toBe('alice');
    vi.setSystemTime(t0 - 5_000);
    expect(await bearerSubject(req(token), SECRET)).toBeUndefined();
  });

  it('never takes a token signed with another secret, nor one verified under another secret', async () => {
    const token = await sign({}, 'another-secret');
    expect(await bearerSubject(req(token), SECRET)).toBeUndefined();
    expect(await bearerSubject(req(token), SECRET)).toBeUndefined();
    expect(await bearerSubject(req(token), 'another-secret')).toBe('alice');
    expect(await bearerSubject(req(token), SECRET)).toBeUndefined();
  });
});
