/**
 * A target's known failures (the baseline): requirements expected to fail, each with a reason, kept outside the
 * checks. A known failure does not fail the gate; an expectation that no longer holds is reported, so it gets removed.
 */
import { readFileSync } from 'node:fs';
import { parseYaml } from '../setup/lazy-yaml.js';
import { ConfigError } from '../config.js';
import type { Catalogue } from '../judging/catalogue.js';
import type { RequirementVerdict } from '../types.js';

export interface Expectation {
  requirement: string;
  verdict: 'fail' | 'error';
  reason: string;
}

export function loadBaseline(file: string, catalogue: Catalogue): Expectation[] {
  let data: unknown;
  try {
    data = parseYaml(readFileSync(file, 'utf8'));
  } catch (e) {
    throw new ConfigError(`baseline ${file}: ${(e as NodeJS.ErrnoException).code === 'ENOENT' ? 'file does not exist' : (e as Error).message.split('\n')[0]}`);
  }
  const list = (data as { expectations?: unknown } | null)?.expectations;
  if (!Array.isArray(list)) throw new ConfigError(`baseline ${file}: expected a top-level "expectations:" list`);
  const seen = new Set<string>();
  return list.map((raw, i) => {
    const e = raw as Partial<Expectation>;
    const at = `baseline ${file}: expectations[${i}]`;
    if (typeof e.requirement !== 'string' || !catalogue.byId.has(e.requirement)) {
      throw new ConfigError(`${at}.requirement: ${JSON.stringify(e.requirement)} is not a requirement id of the catalogue`);
    }
    if (seen.has(e.requirement)) throw new ConfigError(`${at}: ${e.requirement} is listed twice`);
    seen.add(e.requirement);
    const verdict = e.verdict ?? 'fail';
    if (verdict !== 'fail' && verdict !== 'error') throw new ConfigError(`${at}.verdict: must be "fail" or "error"`);
    if (typeof e.reason !== 'string' || e.reason.trim() === '') throw new ConfigError(`${at}.reason: say why this failure is expected`);
    return { requirement: e.requirement, verdict, reason: e.reason };
  });
}

export interface BaselineOutcome {
  /** requirements whose verdict is the expected one */
  known: Array<Expectation>;
  /** expectations that no longer hold: the requirement now has another verdict */
  stale: Array<Expectation & { actual: RequirementVerdict }>;
}

export function applyBaseline(expectations: Expectation[], verdicts: Map<string, RequirementVerdict>): BaselineOutcome {
  const out: BaselineOutcome = { known: [], stale: [] };
  for (const e of expectations) {
    const actual = verdicts.get(e.requirement);
    if (actual === undefined) continue; // not selected in this run
    if (actual === e.verdict) out.known.push(e);
    else out.stale.push({ ...e, actual });
  }
  return out;
}
