import type { FastifyInstance } from 'fastify';
import type { ReferenceContext } from '../index.js';

/** Ledger API routes of the reference server (paths relative to its base address). */
export async function ledgerRoutes(app: FastifyInstance, ctx: ReferenceContext): Promise<void> {
  void app;
  void ctx;
}
