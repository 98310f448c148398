/** The ANS entry listing, shared by scan's /v0/ans-entries and the validator's /v0/scan-proxy/ans-entries. */
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { AnsStore } from './ans.js';
import { intParam, queryParam } from './http.js';

export const MAX_PAGE_SIZE = 1000;

export function listAnsEntriesHandler(ans: AnsStore) {
  return async (req: FastifyRequest, reply: FastifyReply) => {
    const pageSize = intParam(req.query, 'page_size', { min: 1, max: MAX_PAGE_SIZE, required: true })!;
    const prefix = queryParam(req.query, 'name_prefix') ?? '';
    return reply.send({ entries: ans.list(prefix, pageSize, Date.now()) });
  };
}
