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
