/** The content of every report of a run, built once and rendered by each writer. */
import type { Aggregate, RunTraffic } from './aggregate.js';
import type { BaselineOutcome } from './baseline.js';
import type { RunConcurrency } from './collector.js';
import type { RunFootprint } from './footprint.js';
import type { RunDiff } from './diff.js';
import type { OperationLatency } from './latency.js';
import type { Api, CheckResultMeta } from '../types.js';
import type { Shard } from '../run/shard.js';
import type { OwnDescriptionReport } from '../spec-diff/own-report.js';

export interface RunReport {
  schemaVersion: 1;
  suite: { name: string; version: string };
  runId: string;
  startedAt: string;
  finishedAt: string;
  durationMs: number;
  seed: number;
  runs: number;
  targets: Partial<Record<Api, { url: string; version?: string; reference: boolean }>>;
  /** the effective configuration with every secret redacted */
  config: unknown;
  reference?: { faults: string[]; ledgerVersion: string; scanVersion: string; registryVersion?: string; variant?: { seed: number; choices: Record<string, string> } };
  /**
   * apis: the interfaces run; requirements: the requirement ids reported (empty: all of those interfaces); filters: the
   * selection as its flags when more than requirement ids narrowed it (`--check a --exclude-requirement b`)
   */
  selection: { apis: Api[]; requirements: string[]; filters?: string };
  /** a sharded run (--shard i/n): the report covers only this share of the checks */
  shard?: Shard;
  /**
   * a report merged from the shards of one run (`canton-conformance merge`): the shard count, the shards merged (with
   * their run ids) and those missing (their checks are reported as errors: they did not run)
   */
  merged?: { count: number; shards: Array<Shard & { runId: string; startedAt: string; source: string }>; missing: number[] };
  outcome: string;
  exitCode: number;
  /**
   * Present when the run was stopped before every check ran (a signal): what stopped it, and whether the running checks
   * were abandoned (SIGTERM, a second SIGINT) rather than let finish (a first SIGINT). The reports cover what ran.
   */
  interrupted?: { by?: string; atOnce: boolean };
  /**
   * what the run's requests met: answers, overload refusals (429, 503), redirects, transport errors; mostlyRefused when
   * most answers were refusals or redirects (the target was overloaded or the URL misrouted, not judged)
   */
  traffic?: RunTraffic;
  /**
   * the run's one limit of requests in flight: run.concurrency, where it ended, and how often it came down because the
   * target refused (429, 503) or answered slowly (harness/transport/in-flight.ts)
   */
  concurrency?: RunConcurrency;
  /**
   * Present when the run was read-only (run.readOnly): only GETs and the operations marked x-read-only were sent;
   * `skippedChecks` needed another request (refused before it was sent) and were skipped.
   */
  readOnly?: { skippedChecks: number };
  /**
   * what the run left on its targets: accepted party allocations and package uploads (a participant deletes neither),
   * users created and not removed, and the clean-up steps that failed after their retries
   */
  footprint?: RunFootprint;
  /**
   * response times per operation over the run's requests (from each check's bounded histograms, no exchange kept):
   * requests, p50, p95 and max; information only, never a verdict
   */
  latency?: OperationLatency[];
  counts: Aggregate['counts'];
  checkCounts: Aggregate['checkCounts'];
  requirements: Aggregate['requirements'];
  checks: CheckResultMeta[];
  runErrors: string[];
  /** the target's known failures and the expectations that no longer hold */
  baseline?: BaselineOutcome & { file: string };
  /** what changed since the earlier run */
  diff?: RunDiff;
  /**
   * run --also-validate-against: where the target's responses disagree with its own API description; information
   * only, never a verdict nor the exit code
   */
  ownDescription?: OwnDescriptionReport;
  /** notes about the reports themselves (e.g. the HTML renderer failed) */
  notes: string[];
  /**
   * the binary request bodies of the failures' exchanges saved beside the reports: the digest prefix the recorder
   * gives a binary body ("<N bytes of binary data, sha256 X>") -> the file, relative to the run's directory; the
   * curl lines send these files (--data-binary @FILE)
   */
  bodies?: Record<string, string>;
}
