/**
 * Package vetting requests: filters drawn from what the target lists (package ids, name prefixes, participants,
 * synchronizers), page sizes for pagination walks, and invalid page sizes and tokens.
 */
import fc from 'fast-check';

/** What the unfiltered listing shows: the ids and names filters are drawn from. */
export interface VettingUniverse {
  packageIds: string[];
  packageNames: string[];
  participantIds: string[];
  synchronizerIds: string[];
}

export interface VettingFilter {
  packageMetadataFilter?: { packageIds: string[]; packageNamePrefixes: string[] };
  topologyStateFilter?: { participantIds: string[]; synchronizerIds: string[] };
}

const some = (xs: string[], max: number) => (xs.length === 0 ? fc.constant<string[]>([]) : fc.uniqueArray(fc.constantFrom(...xs), { maxLength: max }));

/** A name prefix: a leading part of a known name (possibly the whole name), or a prefix nothing starts with. */
export const namePrefix = (names: string[]) =>
  names.length === 0
    ? fc.constant('zz-no-such-package-')
    : fc.oneof(
        fc.tuple(fc.constantFrom(...names), fc.nat({ max: 40 })).map(([n, k]) => n.slice(0, Math.max(1, Math.min(n.length, k)))),
        fc.constant('zz-no-such-package-'),
      );

/** Filters over the universe; either part may be absent, and each list may be empty. */
export function vettingFilter(u: VettingUniverse): fc.Arbitrary<VettingFilter> {
  return fc.record(
    {
      packageMetadataFilter: fc.record({ packageIds: some(u.packageIds, 3), packageNamePrefixes: fc.uniqueArray(namePrefix(u.packageNames), { maxLength: 2 }) }),
      topologyStateFilter: fc.record({ participantIds: some(u.participantIds, 2), synchronizerIds: some(u.synchronizerIds, 2) }),
    },
    { requiredKeys: [] },
  );
}

/** Page sizes for a pagination walk: small enough to need several pages. */
export const walkPageSize = (max = 5) => fc.integer({ min: 1, max });

/** A pageSize the server must reject: negative. */
export const invalidNegativePageSize = () => fc.integer({ min: -1000, max: -1 });

/** A page token no server issued. */
export const invalidPageToken = () => fc.constantFrom('not-a-page-token', '%%%', 'AAAA', 'eyJ4IjoxfQ');
