/**
 * The parts of a report that are sums over its checks and the run's settings (read-only mode, the footprint, the
 * response times per operation, the target's own API description): built the same way for a run and for a merge of
 * its shards.
 */
import { READ_ONLY_REASON } from '../transport/http.js';
import type { CheckResultMeta } from '../types.js';
import type { Config } from '../config.js';
import { summarizeOwnDescription } from '../spec-diff/own-report.js';
import { footprintOf } from './footprint.js';
import { latencyOf } from './latency.js';
import type { RunReport } from './model.js';

/** a check read-only mode skipped: it needed a request that changes state */
export const skippedForWrite = (c: CheckResultMeta): boolean => c.verdict === 'skipped' && c.reason?.startsWith(READ_ONLY_REASON) === true;

export function checkSums(checks: readonly CheckResultMeta[], readOnly: boolean, alsoValidate: Config['alsoValidate']): Pick<RunReport, 'readOnly' | 'footprint' | 'ownDescription' | 'latency'> {
  return {
    ...(readOnly ? { readOnly: { skippedChecks: checks.filter(skippedForWrite).length } } : {}),
    footprint: footprintOf(checks),
    latency: latencyOf(checks),
    ...(alsoValidate !== undefined ? { ownDescription: summarizeOwnDescription(alsoValidate, checks) } : {}),
  };
}
