/**
 * `canton-conformance doctor`: what the preflight of a run finds (harness/setup/preflight.ts), per target: the connection,
 * the base path, each role's credential, the version, the fixture files, and what the run would skip. It judges no
 * requirement.
 */
import type { Config } from '../config.js';
import { preflight } from './preflight.js';
import { certificateChainLine } from '../transport/tls.js';
import type { Api } from '../types.js';

export interface DoctorLine {
  api: Api;
  url: string;
  /** nothing in the way: no problem, nothing the run would skip for want of a setting */
  ok: boolean;
  /** problem: the run stops before any check (exit 2); skip: the checks that need a missing setting are skipped */
  status: 'ok' | 'skip' | 'problem';
  /** every finding, joined */
  detail: string;
  findings: Array<{ kind: 'ok' | 'skip' | 'problem'; text: string }>;
}

/** The preflight of `run`, with its informative extras, one line per configured interface. */
export async function doctor(config: Config): Promise<DoctorLine[]> {
  const result = await preflight(config, { details: true });
  // an https target's certificate chain as its server sends it (subjects, expiry): informative, judged by the preflight
  for (const t of result.targets) {
    const chain = await certificateChainLine(config, t.api);
    if (chain !== undefined) t.findings.push({ kind: 'ok', text: chain });
  }
  return result.targets.map((t) => {
    const status = t.findings.some((f) => f.kind === 'problem') ? 'problem' : t.findings.some((f) => f.kind === 'skip') ? 'skip' : 'ok';
    return { api: t.api, url: t.url, ok: status === 'ok', status, detail: t.findings.map((f) => f.text).join('; '), findings: t.findings };
  });
}
