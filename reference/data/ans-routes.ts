/** The ANS entry listing, shared by scan's /v0/ans-entries and the validator's /v0/scan-proxy/ans-entries. */
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { AnsStore } from './ans.js';
import { intParam, queryParam } from './http.js';

export const MAX_PAGE_SIZE = 1000;

/** Planted faults of the listing (scan's reference/scan/faults-thin.ts); the validator's scan proxy passes none. */
export interface ListAnsEntriesFaults {
  pageSizeExceeded?: boolean;
  prefixIgnored?: boolean;
  userMissing?: boolean;
}

export function listAnsEntriesHandler(ans: AnsStore, faults: ListAnsEntriesFaults = {}) {
  return async (req: FastifyRequest, reply: FastifyReply) => {
    const pageSize = intParam(req.query, 'page_size', { min: 1, max: MAX_PAGE_SIZE, required: true })!;
    const prefix = queryParam(req.query, 'name_prefix') ?? '';
    const entries = ans.list(faults.prefixIgnored ? '' : prefix, pageSize + (faults.pageSizeExceeded ? 1 : 0), Date.now());
    if (faults.userMissing) return reply.send({ entries: entries.map(({ user: _user, ...rest }) => rest) });
    return reply.send({ entries });
  };
}
