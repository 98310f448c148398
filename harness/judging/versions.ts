/** Numeric comparison of dotted versions: "0.6.10" > "0.6.8"; missing parts count as 0. */
export function compareVersions(a: string, b: string): number {
  const pa = a.split('.').map((n) => Number.parseInt(n, 10) || 0);
  const pb = b.split('.').map((n) => Number.parseInt(n, 10) || 0);
  for (let i = 0; i < Math.max(pa.length, pb.length); i++) {
    const d = (pa[i] ?? 0) - (pb[i] ?? 0);
    if (d !== 0) return d;
  }
  return 0;
}

/** Why a rule bound to [since, until) does not apply to `version`, or undefined when it applies. */
export function outOfRange(version: string | undefined, since?: string, until?: string): string | undefined {
  if (version === undefined) return undefined;
  if (since !== undefined && compareVersions(version, since) < 0) return `applies from version ${since}; the target is ${version}`;
  if (until !== undefined && compareVersions(version, until) >= 0) return `applies before version ${until}; the target is ${version}`;
  return undefined;
}

/**
 * Ledger API release lines a target (and the embedded reference) may name. FACTS.md: transaction-by-offset is served
 * by 3.4 and 3.5 and gone in 3.6; GET /v2/package-vetting is gone in 3.6; the tree submission is still served by 3.6.
 */
export const LEDGER_VERSIONS = ['3.4', '3.5', '3.6'] as const;
export type LedgerVersion = (typeof LEDGER_VERSIONS)[number];

/** Deprecated ledger operations and the release that no longer serves them (FACTS.md). */
export const LEDGER_REMOVED_IN: Readonly<Record<string, string>> = { getTransactionByOffset: '3.6', getPackageVetting: '3.6' };

/**
 * Why a ledger operation is not served at `version` (FACTS.md removals), or undefined when it is or the version is
 * unknown. A run's targets have a version: the preflight (harness/setup/preflight.ts) reads it from the target or requires it
 * in the configuration; only a caller of the runner that names none gets a target taken to serve everything it answers.
 */
export function ledgerOperationGone(version: string | undefined, operationId: string): string | undefined {
  const gone = LEDGER_REMOVED_IN[operationId];
  if (gone === undefined || version === undefined || compareVersions(version, gone) < 0) return undefined;
  return `${operationId} is not served from ${gone} on (FACTS.md); the target is ${version}`;
}
