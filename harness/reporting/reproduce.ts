/**
 * What reproduces a failure, shared by the console, summary.md and the HTML report: the command that reruns exactly one
 * requirement with the run's seed and settings, a curl line per exchange (a binary upload sends its file), failures
 * with the same exchange told once, and the commonest cause of the run's errors.
 */
import { curlFor } from '../transport/http.js';
import type { ExchangeRecord, FailureRecord } from '../types.js';
import type { RunReport } from './model.js';

type Requirement = RunReport['requirements'][number];
type Failure = Requirement['failures'][number];

/** The run's default property depth and embedded ledger version: left out of a rerun command when they were used. */
const DEFAULT_RUNS = 25;
const DEFAULT_LEDGER_VERSION = '3.5';
const DEFAULT_SCAN_VERSION = '0.8.0';
const DEFAULT_REGISTRY_VERSION = '0.6.11';

/** A shell word: left bare when it is plain, else single-quoted. */
export function shellWord(s: string): string {
  return /^[A-Za-z0-9_./:=@,+-]+$/.test(s) ? s : `'${s.replace(/'/g, `'\\''`)}'`;
}

interface ConfigView {
  sources?: string[];
  run?: { readOnly?: boolean; runs?: number; checksDir?: string };
}

/** The configuration file the run read, from the report's redacted configuration (`sources: ["file X", ...]`). */
export function configFileOf(report: Pick<RunReport, 'config'>): string | undefined {
  const sources = (report.config as ConfigView | undefined)?.sources ?? [];
  for (const s of sources) if (s.startsWith('file ')) return s.slice(5);
  return undefined;
}

/**
 * `canton-conformance run --seed S --requirement ID ...` with the run's other settings that change what the checks of
 * the requirement send: its interface (--only), the configuration file or the target's URL, the property depth,
 * read-only mode, and for the embedded reference server its planted faults, variant and ledger version.
 */
export function rerunCommand(report: Pick<RunReport, 'seed' | 'runs' | 'config' | 'reference' | 'targets'>, requirement: { id: string; api: string }): string {
  const parts = ['canton-conformance', 'run', '--seed', String(report.seed), '--requirement', requirement.id, '--only', requirement.api];
  const file = configFileOf(report);
  if (file !== undefined) parts.push('--config', shellWord(file));
  const target = report.targets?.[requirement.api as keyof RunReport['targets']];
  if (file === undefined && target !== undefined && !target.reference) parts.push(`--${requirement.api}-url`, shellWord(target.url));
  if (report.runs !== DEFAULT_RUNS) parts.push('--runs', String(report.runs));
  if ((report.config as ConfigView | undefined)?.run?.readOnly === true) parts.push('--read-only');
  // the checks folder's own checks (run.checksDir), which the configuration file names when one was given
  const checksDir = (report.config as ConfigView | undefined)?.run?.checksDir;
  if (file === undefined && checksDir !== undefined) parts.push('--checks-dir', shellWord(checksDir));
  const ref = report.reference;
  if (ref !== undefined && (target === undefined || target.reference)) {
    for (const f of ref.faults) parts.push('--fault', f);
    if (ref.variant !== undefined) parts.push('--reference-variant', String(ref.variant.seed));
    if (ref.ledgerVersion !== DEFAULT_LEDGER_VERSION && requirement.api === 'ledger') parts.push('--ledger-version', ref.ledgerVersion);
    // the reference's scan and validator claim the same Splice release
    if (ref.scanVersion !== DEFAULT_SCAN_VERSION && (requirement.api === 'scan' || requirement.api === 'validator')) parts.push('--scan-version', ref.scanVersion);
    if (ref.registryVersion !== undefined && ref.registryVersion !== DEFAULT_REGISTRY_VERSION && requirement.api === 'registry') parts.push('--registry-version', ref.registryVersion);
  }
  return parts.join(' ');
}

/** `<N bytes of binary data, sha256 X>`: how the recorder describes a binary request body (harness/transport/http.ts). */
const BINARY_BODY = /^<(\d+) bytes of binary data, sha256 ([0-9a-f]+)>$/;

/** The size and digest prefix of a binary request body, when the exchange sent one. */
export function binaryBodyOf(x: ExchangeRecord): { bytes: number; sha256: string } | undefined {
  const m = BINARY_BODY.exec(x.request.body ?? '');
  return m === null ? undefined : { bytes: Number(m[1]), sha256: m[2]! };
}

/** The file name a binary request body is saved under beside a report (its digest prefix names it). */
export const bodyFileName = (sha256: string) => `request-body-${sha256.slice(0, 16)}.bin`;

/**
 * A curl line that repeats the exchange. A binary body is sent from a file (`--data-binary @FILE`), never as the
 * recorder's text description: `bodyFile` where the report keeps the bytes, else the file name the body would have.
 */
export function curlLine(x: ExchangeRecord, bodyFile?: string): string {
  const binary = binaryBodyOf(x);
  if (binary === undefined) return curlFor(x);
  const { body: _body, ...request } = x.request;
  return `${curlFor({ ...x, request })} --data-binary ${shellWord(`@${bodyFile ?? bodyFileName(binary.sha256)}`)}`;
}

/** What identifies an exchange: two failures about the same request and answer show it once. */
export function exchangeKey(x: ExchangeRecord): string {
  return JSON.stringify([x.request.method, x.request.url, x.request.body ?? null, x.response?.status ?? null, x.response?.body ?? null, x.transportError ?? null]);
}

/** Failures of one requirement with the same message and exchange, told once with the checks that found them. */
export interface FailureGroup {
  failure: Failure;
  /** how many failures it stands for */
  count: number;
  /** the checks that found it, in order, each once */
  checks: string[];
}

export function groupFailures(failures: readonly Failure[]): FailureGroup[] {
  const groups = new Map<string, FailureGroup>();
  const add = (key: string, f: Failure) => {
    const g = groups.get(key);
    if (g === undefined) groups.set(key, { failure: f, count: 1, checks: [f.checkId] });
    else {
      g.count++;
      if (!g.checks.includes(f.checkId)) g.checks.push(f.checkId);
    }
  };
  for (const f of failures) if (f.exchange !== undefined) add(JSON.stringify([f.message, exchangeKey(f.exchange)]), f);
  // a failure kept without its exchange (past the first few of a check) joins a group of the same message
  for (const f of failures) {
    if (f.exchange !== undefined) continue;
    const same = [...groups].find(([, g]) => g.failure.message === f.message);
    add(same?.[0] ?? JSON.stringify([f.message, null]), f);
  }
  return [...groups.values()];
}

/** The first exchange of a requirement's failures, for a curl line. */
export function firstExchange(q: Pick<Requirement, 'failures'>): (FailureRecord & { exchange: ExchangeRecord }) | undefined {
  return q.failures.find((f): f is Failure & { exchange: ExchangeRecord } => f.exchange !== undefined);
}

/** One line of a message: its first line, cut to `max` characters. */
export function oneLine(s: string, max = 200): string {
  const line = s.replace(/\s*\n[\s\S]*$/, '').replace(/\s+/g, ' ').trim();
  return line.length > max ? `${line.slice(0, max - 3)}...` : line;
}

const URL_IN_TEXT = /\bhttps?:\/\/[^\s'"<>]+/g;

/** An error message with every URL cut to its origin (path and query dropped) and the error class's name left out. */
function normalizedError(message: string): string {
  return message
    .replace(/^(?:[A-Z][A-Za-z]*Error|Error): /, '')
    .replace(URL_IN_TEXT, (u) => {
      // the punctuation after a URL ("refused by http://host/path: is ...") stays
      const trail = /[.,;:)]+$/.exec(u)?.[0] ?? '';
      try {
        return new URL(u.slice(0, u.length - trail.length)).origin + trail;
      } catch {
        return u;
      }
    });
}

/** The run's errors by cause, commonest first: the cause as a person reads it and how many checks it broke. */
export function errorCauses(report: Pick<RunReport, 'checks' | 'targets'>): Array<{ cause: string; checks: number }> {
  const counts = new Map<string, number>();
  for (const c of report.checks) {
    if (c.verdict !== 'error') continue;
    let cause = normalizedError(oneLine(c.error ?? c.reason ?? 'unknown error', 400));
    const url = report.targets[c.api]?.url;
    if (url !== undefined) {
      let origin: string | undefined;
      try {
        origin = new URL(url).origin;
      } catch {
        // a target URL that does not parse is named as it is
      }
      // "connection refused by http://host:port" reads "connection refused by ledger at http://host:port"
      if (origin !== undefined) cause = cause.replace(new RegExp(`\\bby ${origin.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`), `by ${c.api} at ${origin}`);
    }
    counts.set(cause, (counts.get(cause) ?? 0) + 1);
  }
  return [...counts].map(([cause, checks]) => ({ cause, checks })).sort((a, b) => b.checks - a.checks || (a.cause < b.cause ? -1 : 1));
}
