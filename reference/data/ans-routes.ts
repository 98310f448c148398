/** The ANS entry listing, shared by scan's /v0/ans-entries and the validator's /v0/scan-proxy/ans-entries. */
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { AnsEntry, AnsStore } from './ans.js';
import { readPageSizeAsAnyNumber } from './faults-query.js';
import { intParam, queryParam } from './http.js';

export const MAX_PAGE_SIZE = 1000;

/**
 * Planted faults of the listing (scan's reference/scan/faults-thin.ts and faults-ans.ts, the validator's
 * reference/validator/faults-scan-proxy.ts); each route passes the ones switched on for it.
 */
export interface ListAnsEntriesFaults {
  pageSizeExceeded?: boolean;
  prefixIgnored?: boolean;
  userMissing?: boolean;
  /** a missing page_size lists 100 entries */
  pageSizeOptional?: boolean;
  /** accepted page_size range, instead of 1..1000 */
  minPageSize?: number;
  maxPageSize?: number;
  /** an explicitly empty name_prefix lists no regular entry */
  emptyPrefixMatchesNothing?: boolean;
  /** the newest page_size matching entries (a tail instead of a head), oldest of them first */
  newestPage?: boolean;
  /** newest entries first (the head of the listing in reverse creation order) */
  newestFirst?: boolean;
  expiredIncluded?: boolean;
  /** DSO-provided entries come first and push regular entries out of the page */
  dsoFirst?: boolean;
  /** the first regular entry of a page has no contract_id */
  dropContractId?: boolean;
  /** the first regular entry of a page has expires_at null */
  dropExpiry?: boolean;
  /** non-empty urls are ftp:// urls */
  ftpUrls?: boolean;
  /** descriptions come from a stale copy */
  staleDescriptions?: boolean;
  /** every listing is empty */
  empty?: boolean;
  /** a listing with a non-empty name_prefix leaves out its second matching entry */
  prefixDropsMatching?: boolean;
  /** page_size written as 1e3 or 0x10 is read as the number it spells instead of refused */
  pageSizeAnyNumber?: boolean;
}

export function listAnsEntriesHandler(ans: AnsStore, faults: ListAnsEntriesFaults = {}) {
  return async (req: FastifyRequest, reply: FastifyReply) => {
    if (faults.pageSizeAnyNumber) readPageSizeAsAnyNumber(req.query);
    const pageSize = faults.pageSizeOptional && queryParam(req.query, 'page_size') === undefined
      ? 100
      : intParam(req.query, 'page_size', { min: faults.minPageSize ?? 1, max: faults.maxPageSize ?? MAX_PAGE_SIZE, required: true })!;
    const rawPrefix = queryParam(req.query, 'name_prefix');
    const prefix = rawPrefix ?? '';
    const now = faults.expiredIncluded ? 0 : Date.now();
    const size = Math.max(0, pageSize + (faults.pageSizeExceeded ? 1 : 0));
    let entries: AnsEntry[];
    if (faults.emptyPrefixMatchesNothing && rawPrefix === '') {
      entries = ans.list('\u{10FFFF}', size, now).filter((e) => e.contract_id == null);
      entries.push(...ans.dsoEntries.slice(0, size).map((d) => ({ ...d })));
    } else if (faults.newestPage) {
      const all = ans.list(prefix, ans.size + ans.dsoEntries.length, now);
      const regular = all.filter((e) => e.contract_id != null);
      entries = [...regular.slice(Math.max(0, regular.length - size)), ...all.filter((e) => e.contract_id == null)].slice(0, size);
    } else if (faults.newestFirst) {
      const all = ans.list(prefix, ans.size + ans.dsoEntries.length, now);
      entries = [...all.filter((e) => e.contract_id != null).reverse(), ...all.filter((e) => e.contract_id == null)].slice(0, size);
    } else if (faults.dsoFirst) {
      const dso = ans.dsoEntries.filter((d) => d.name.startsWith(prefix)).map((d) => ({ ...d }));
      entries = [...dso, ...ans.list(prefix, size, now).filter((e) => e.contract_id != null)].slice(0, size);
    } else {
      entries = ans.list(faults.prefixIgnored ? '' : prefix, size, now);
    }
    if (faults.empty) entries = [];
    if (faults.prefixDropsMatching && prefix !== '' && entries.length >= 2) entries.splice(1, 1);
    const firstRegular = entries.find((e) => e.contract_id != null);
    if (faults.dropContractId && firstRegular !== undefined) delete firstRegular.contract_id;
    if (faults.dropExpiry && firstRegular !== undefined) firstRegular.expires_at = null;
    if (faults.ftpUrls) for (const e of entries) if (e.url !== '') e.url = e.url.replace(/^https?:/, 'ftp:');
    if (faults.staleDescriptions) for (const e of entries) e.description = `${e.description} (stale)`;
    if (faults.userMissing) return reply.send({ entries: entries.map(({ user: _user, ...rest }) => rest) });
    return reply.send({ entries });
  };
}
