/**
 * Planted faults of an interface's HTTP behaviour as a whole (status codes, content types, error bodies, path prefix,
 * authentication challenge), given as a table per interface and installed as hooks of the interface's scope by one
 * installer, so the route handlers stay as they are.
 */
import type { FastifyInstance, FastifyReply } from 'fastify';
import { registerFaults, type FaultSet } from './faults.js';
import { pathOf } from './data/http.js';

/** The request a fault looks at: its method, its path (no query) and its query parameters. */
export interface FaultRequest {
  method: string;
  path: string;
  query: Record<string, unknown>;
}

export interface HttpFault {
  name: string;
  /** the catalogue requirement the fault breaks */
  requirement: string;
  /** what the server does wrong when the fault is on */
  description: string;
  /**
   * answers the request in place of its route (onRequest): the status, content type and body; undefined leaves it to
   * the next fault of the table and then to the route
   */
  answer?: (req: FaultRequest) => { status: number; type: string; body: unknown } | undefined;
  /**
   * rewrites an answer before it is sent (onSend): the payload to send instead, which ends the rewriting; undefined
   * leaves the payload to the next fault of the table (after any change to the reply's headers)
   */
  rewrite?: (req: FaultRequest, reply: FastifyReply, payload: unknown) => unknown;
}

/** Adds the table's faults to the registry of planted faults; returns the table. */
export function registerHttpFaults(table: readonly HttpFault[]): readonly HttpFault[] {
  registerFaults(table.map(({ name, requirement, description }) => ({ name, requirement, description })));
  return table;
}

const requestOf = (req: { method: string; url: string; query?: unknown }): FaultRequest => ({
  method: req.method,
  path: pathOf(req.url),
  query: (req.query ?? {}) as Record<string, unknown>,
});

/**
 * Installs the hooks of the switched-on faults of the table (nothing when none is on), in table order: the first
 * fault that answers a request answers it, and the first that rewrites an answer's payload gives the payload sent.
 */
export function installHttpFaultTable(app: FastifyInstance, faults: FaultSet, table: readonly HttpFault[]): void {
  const on = table.filter((f) => faults.has(f.name));
  const answering = on.filter((f) => f.answer !== undefined);
  const rewriting = on.filter((f) => f.rewrite !== undefined);
  if (answering.length > 0) {
    app.addHook('onRequest', async (req, reply) => {
      const r = requestOf(req);
      for (const f of answering) {
        const a = f.answer!(r);
        if (a !== undefined) return reply.code(a.status).type(a.type).send(a.body);
      }
      return undefined;
    });
  }
  if (rewriting.length > 0) {
    app.addHook('onSend', async (req, reply, payload) => {
      const r = requestOf(req);
      for (const f of rewriting) {
        const p = f.rewrite!(r, reply, payload);
        if (p !== undefined) return p;
      }
      return payload;
    });
  }
}
