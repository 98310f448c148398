import type { FastifyInstance } from 'fastify';
import type { ReferenceContext } from '../index.js';

/** Registry API routes of the reference server (paths relative to its base address). */
export async function registryRoutes(app: FastifyInstance, ctx: ReferenceContext): Promise<void> {
  void app;
  void ctx;
}
