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
  try {
    const { payload } = await jwtVerify(token, keyFor(secret), { algorithms: ['HS256'] });
    return typeof payload.sub === 'string' && payload.sub.length > 0 ? payload.sub : undefined;
  } catch {
    return undefined;
  }
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
