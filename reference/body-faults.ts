/**
 * Planted faults that break the shape of a successful JSON answer (a required field left out or sent as null), applied
 * in an onSend hook of the API's scope, so the route handlers and event builders stay as they are.
 */
import type { FastifyInstance } from 'fastify';
import type { FaultSet } from './faults.js';

type Json = Record<string, unknown>;

export interface BodyFault {
  fault: string;
  method: 'GET' | 'POST' | 'PATCH';
  /** matched against the request path (no query) */
  path: RegExp;
  /** rewrites the parsed 200 body; returns the body to send */
  apply(body: Json): unknown;
}

const pathOnly = (url: string) => url.split('?')[0] ?? url;
export const isObj = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Installs the hook when one of the faults is on (nothing otherwise). */
export function installBodyFaults(app: FastifyInstance, faults: FaultSet, rules: readonly BodyFault[]): void {
  const on = rules.filter((r) => faults.has(r.fault));
  if (on.length === 0) return;
  app.addHook('onSend', async (req, reply, payload) => {
    if (reply.statusCode !== 200 || typeof payload !== 'string') return payload;
    const rule = on.find((r) => r.method === req.method && r.path.test(pathOnly(req.url)));
    if (rule === undefined) return payload;
    let body: unknown;
    try {
      body = JSON.parse(payload);
    } catch {
      return payload;
    }
    return isObj(body) ? JSON.stringify(rule.apply(body)) : payload;
  });
}
