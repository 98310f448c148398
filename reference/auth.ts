import { decodeJwt, jwtVerify } from 'jose';
import type { FastifyRequest } from 'fastify';

const keys = new Map<string, Uint8Array>();
function keyFor(secret: string): Uint8Array {
  let k = keys.get(secret);
  if (k === undefined) {
    k = new TextEncoder().encode(secret);
    keys.set(secret, k);
  }
  return k;
}

/**
 * The subject of the request's bearer token (HS256, signed with the server's secret), or undefined when the request
 * has no token or a token that does not verify. The ledger also accepts the token in the websocket form
 * (`Sec-WebSocket-Protocol: jwt.token.<JWT>`, as the JSON Ledger API does).
 */
export async function bearerSubject(req: FastifyRequest, secret: string): Promise<string | undefined> {
  const token = bearerToken(req);
  if (token === undefined) return undefined;
  const key = `${secret}\0${token}`;
  const known = verified.get(key);
  if (known !== undefined) return stillValid(known) ? known.sub : undefined;
  try {
    const { payload } = await jwtVerify(token, keyFor(secret), { algorithms: ['HS256'] });
    const sub = typeof payload.sub === 'string' && payload.sub.length > 0 ? payload.sub : undefined;
    if (verified.size >= MAX_VERIFIED) verified.clear();
    verified.set(key, { sub, ...(typeof payload.exp === 'number' ? { exp: payload.exp } : {}), ...(typeof payload.nbf === 'number' ? { nbf: payload.nbf } : {}) });
    return sub;
  } catch {
    return undefined;
  }
}

/**
 * Tokens whose signature verified, with the claims that decide their validity over time. A run sends each token many
 * times, and the HMAC verification through WebCrypto was a sixth of the reference's CPU time in the default run; a
 * known token's time claims are checked again at each use, as jose checks them (exp passed once now >= exp, nbf not
 * yet reached while nbf > now, in whole seconds, no tolerance). Tokens that fail are not kept.
 */
interface Verified {
  sub: string | undefined;
  exp?: number;
  nbf?: number;
}
const verified = new Map<string, Verified>();
const MAX_VERIFIED = 4096;

function stillValid(v: Verified): boolean {
  const now = Math.floor(Date.now() / 1000);
  if (v.exp !== undefined && v.exp <= now) return false;
  if (v.nbf !== undefined && v.nbf > now) return false;
  return true;
}

/** The subject of the bearer token read WITHOUT verifying its signature: only planted faults use it. */
export function unverifiedSubject(req: FastifyRequest): string | undefined {
  const token = bearerToken(req);
  if (token === undefined) return undefined;
  try {
    const sub = decodeJwt(token).sub;
    return typeof sub === 'string' && sub !== '' ? sub : undefined;
  } catch {
    return undefined;
  }
}

export function bearerToken(req: FastifyRequest): string | undefined {
  const h = req.headers.authorization;
  if (typeof h === 'string') {
    const m = /^Bearer\s+(\S+)\s*$/i.exec(h);
    return m?.[1];
  }
  const ws = req.headers['sec-websocket-protocol'];
  if (typeof ws === 'string') {
    for (const part of ws.split(',')) {
      const p = part.trim();
      if (p.startsWith('jwt.token.')) return p.slice('jwt.token.'.length);
    }
  }
  return undefined;
}
