/**
 * canton-conformance: run the suite (against the embedded reference server when no target is configured), list the
 * requirement catalogue with the checks that cover it, or serve the reference server alone.
 * Exit codes: 0 no MUST requirement failed; 1 a MUST requirement failed; 2 bad usage or configuration;
 * 3 no MUST failure, but errors (harness, network) left requirements undecided.
 */
import { Command, CommanderError, Option } from 'commander';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { ConfigError, checkRunFiles, loadConfig, parseVariantSeed, type Config, type ConfigFlags } from './config.js';
import { redactText, registerSecretNames } from './transport/redact.js';
import { APIS, type Api } from './types.js';
import { LEDGER_VERSIONS, type LedgerVersion } from './judging/versions.js';
import type { RunReport } from './reporting/model.js';
import { judgeCommand, observeCommand } from './observe/commands.js';

export const EXIT = { ok: 0, mustFailed: 1, usage: 2, incomplete: 3 } as const;

class UsageError extends Error {}

/** A repeatable flag whose values may hold commas (header values, tokens): one value per flag. */
function each(value: string, previous: string[] = []): string[] {
  return [...previous, value];
}

const HEADER_HELP = 'a header sent with every request, "[api:]NAME=VALUE" (e.g. ledger:X-Api-Key=$KEY; without "api:", to every configured target); the value is a secret, redacted in every report and log (targets.<api>.headers; repeatable)';
const TOKEN_HELP = 'a static bearer token of a role, "[api:]ROLE=TOKEN" (e.g. ledger:admin=$TOKEN; without "api:", for every configured target); a secret, redacted in every report and log (targets.<api>.auth kind static; repeatable)';

function collect(value: string, previous: string[] = []): string[] {
  return [...previous, ...value.split(',').map((s) => s.trim()).filter(Boolean)];
}

const EXIT_HELP = `
Exit codes:
  0  no MUST requirement failed (with --fail-on should: no SHOULD requirement either), and the run decided
     something of every interface it checked
  1  a MUST requirement failed (with --fail-on should, or run.failOn: should, a SHOULD requirement too)
  2  bad usage or configuration, a selection that tests nothing (a configuration naming no target, --only of
     an interface with no target, filters selecting no check), or a set-up problem the preflight found before
     any check ran (connection, TLS, base URL, credentials, version, fixture files: every one named; no report)
  3  no MUST requirement failed, but requirements were left undecided: errors (harness or network), an
     interface whose MUST requirements were all skipped or in error, fewer decided than --min-decided PERCENT
     (run.minDecided) of the selected MUST requirements, or the run was stopped early (SIGINT, SIGTERM) and
     the reports cover what ran
A stopped run always writes its reports: a further SIGINT/SIGTERM during a stop only shortens its wait.`;

type Done = <A extends unknown[]>(action: (...args: A) => Promise<number>) => (...args: A) => Promise<void>;

function runCommand(program: Command, done: Done, out: (s: string) => void, err: (s: string) => void): Command {
  return program
    .command('run')
    .description('run the conformance suites; with no target configured, against the embedded reference server')
    .option('-c, --config <file>', 'configuration file (YAML or JSON); see conformance.config.example.yaml')
    .option('--ledger-url <url>', 'base URL of the JSON Ledger API v2 (e.g. http://localhost:7575)')
    .option('--scan-url <url>', 'base URL of the Scan API (e.g. http://localhost:5012/api/scan)')
    .option('--validator-url <url>', 'base URL of the Validator API (e.g. http://localhost:5003/api/validator)')
    .option('--registry-url <url>', 'base URL of the token registry API')
    .option('--header <[api:]name=value>', HEADER_HELP, each)
    .option('--token <[api:]role=token>', TOKEN_HELP, each)
    .option('--only <apis>', `run only these interfaces, comma-separated (${APIS.join(', ')})`)
    .option('--requirement <id>', 'run only the checks of this requirement id (repeatable, or comma-separated) (run.requirements)', collect)
    .option('--check <id>', 'run only this check, by the check id the console and reports print (repeatable, or comma-separated) (run.checks)', collect)
    .option('--operation <operationId>', 'run only the checks that call this operation, by its OpenAPI operationId, e.g. createUser (repeatable, or comma-separated) (run.operations)', collect)
    .option('--checks-dir <dir>', 'also run your own checks: the *.check.ts files of this folder, with its requirements.yaml of your own requirement ids (run.checksDir; see docs/writing-checks.md)')
    .option('--exclude-requirement <id>', 'leave this requirement out: its checks run only for the other requirements they cite, and the reports leave it out (repeatable, or comma-separated) (run.excludeRequirements)', collect)
    .option('--seed <n>', 'fast-check seed (an integer, or "random"); the same seed gives the same inputs')
    .option('--runs <n>', 'fast-check runs per property')
    .option('--timeout-ms <n>', 'per-request timeout in milliseconds')
    .option('--concurrency <n>', 'the most requests in flight at once (default 32); 1 runs every check one after another')
    .option('--reports-dir <dir>', 'where reports/<run-id>/ and reports/latest are written (default: reports)')
    .option('--no-html', 'skip rendering the single-file Allure HTML report')
    .option('--verbose', 'also print the seed of every property at the end (summary.md lists them all the same)')
    .option('--baseline <file>', 'known failures of this target (YAML "expectations:" list); they do not fail the run')
    .option('--compare <file>', 'an earlier conformance.json to diff against (default: the reports dir\'s latest run)')
    .option('--no-compare', 'do not diff against an earlier run')
    .addOption(new Option('--fail-on <level>', 'which failures fail the run (exit 1): "must" (default) or "should" (SHOULD failures too) (run.failOn)').choices(['must', 'should']))
    .option('--no-preflight', 'send no preflight read before the checks (run.preflight: false): every target then needs its version configured; the fixture files are still checked')
    .option('--min-decided <percent>', 'exit 3 (INCOMPLETE) when fewer than this share of the selected MUST requirements a check covers were decided, pass or fail (run.minDecided)')
    .option('--read-only', 'read-only mode: send only GETs and the operations marked x-read-only (safe for a production node); checks that need a write are skipped')
    .option('--workers <n>', 'worker threads running the suite files (run.workers; default one per core, 2 to 4); each runs its checks side by side and costs 30 to 45 MB')
    .option('--max-requests-per-second <n>', 'the most requests a second the run sends, all checks together (run.maxRequestsPerSecond)')
    .option('--shard <i/n>', 'run only shard i of n of the checks (a check\'s shard depends only on its id and n), e.g. one CI machine of three; "merge" joins the shards\' reports')
    .option('--also-validate-against <[api=]url|file>', 'also judge every response against the target\'s own OpenAPI document (ledger unless "scan=", "validator=" or "registry=" comes first; "served" for the ledger\'s GET /docs/openapi), for a report section "where the target disagrees with its own API description" that changes no verdict nor the exit code (repeatable)', collect)
    .option('--record <file.har>', 'write every exchange of the run to this HAR 1.2 file, redacted like every report ("judge FILE" judges it offline)')
    .option('--fault <name>', 'embedded reference only: switch on a planted fault (repeatable)', collect)
    .option('--reference-variant <seed>', 'embedded reference only: a variant that makes every choice the specification leaves open at random from this seed (an integer, or "random")')
    .addOption(new Option('--ledger-version <v>', 'embedded reference only: the ledger API version it claims (3.6 no longer serves transaction-by-offset nor GET /v2/package-vetting)').choices([...LEDGER_VERSIONS]))
    .option('--scan-version <v>', 'embedded reference only: the Splice release its scan and validator claim (default 0.8.0; before 0.6.8 POST /v0/activities is served)')
    .option('--registry-version <v>', 'embedded reference only: the token-standard registry release it claims (default 0.6.11; before 0.6.11 the allocation-instruction endpoints are not served)')
    .addHelpText('after', EXIT_HELP)
    .action(done(async ({ record, verbose, ...opts }: ConfigFlags & { html: boolean; compare?: string | boolean; record?: string; verbose?: boolean }) => {
      await loadConsole();
      // commander sets negatable flags to true when absent: only an explicit --no-x overrides the config file
      const flags = { ...opts, html: opts.html === false ? false : undefined, compare: opts.compare === true ? undefined : opts.compare, preflight: opts.preflight === false ? false : undefined } as ConfigFlags;
      if (record !== undefined) (await import('./observe/har-record.js')).checkRecordFile(record);
      for (const [flag, v] of [['--scan-version', opts.scanVersion], ['--registry-version', opts.registryVersion]] as const) {
        if (v !== undefined && !/^\d+(\.\d+){0,2}$/.test(v)) throw new UsageError(`${flag}: "${v}" is not a version like 0.8.0`);
      }
      const config = loadConfig({ flags });
      // run.redactNames: names whose values the recorded exchanges of this thread hide (the workers: har-setup.ts)
      registerSecretNames((config.run as { redactNames?: string[] }).redactNames);
      checkRunFiles(config, flags);
      if (!config.useReference && config.reference.faults.length > 0) {
        throw new UsageError('--fault applies only to the embedded reference server, but a target URL is configured');
      }
      if (!config.useReference && opts.referenceVariant !== undefined) {
        throw new UsageError('--reference-variant applies only to the embedded reference server, but a target URL is configured');
      }
      if (!config.useReference && opts.ledgerVersion !== undefined) {
        throw new UsageError('--ledger-version applies only to the embedded reference server (a target names its version in targets.ledger.version), but a target URL is configured');
      }
      for (const [flag, v, api] of [['--scan-version', opts.scanVersion, 'scan'], ['--registry-version', opts.registryVersion, 'registry']] as const) {
        if (!config.useReference && v !== undefined) throw new UsageError(`${flag} applies only to the embedded reference server (a target names its version in targets.${api}.version), but a target URL is configured`);
      }
      await validateSelection(config.run.requirements, config.reference.faults, config.run.only, config.run);
      await validateDisabled(config);
      const { checkReportsDir } = await import('./reporting/write.js');
      // before the run and before its signal handlers: a reports directory that cannot take the reports is exit 2 now
      checkReportsDir(config.run.reportsDir);
      if (config.useReference) checkTempDir();
      // set-up is settled before any verdict (harness/setup/preflight.ts): each target's connection, base URL, credentials,
      // version and fixture files; a problem is exit 2 with every one named, before any check runs or report is written
      const { preflightOrStop, preflightSummary } = await import('./setup/preflight.js');
      if (!config.useReference) err(preflightSummary(await preflightOrStop(config)));
      const { runConformance, FINAL_GRACE_S } = await import('./run/runner.js');
      const interactive = process.stderr.isTTY === true;
      const share = config.run.shard !== undefined ? `shard ${config.run.shard.index}/${config.run.shard.count} of the checks of ` : '';
      const where = config.useReference ? `the embedded reference server${config.reference.variant !== undefined ? ` (variant ${config.reference.variant})` : ''}` : Object.entries(config.targets).filter(([a]) => config.run.only.includes(a as Api)).map(([a, t]) => `${a} ${redactText(t.url)}`).join(', ');
      // a first SIGINT lets the running checks finish (and clean up); SIGTERM (CI runners, docker stop) and a second
      // SIGINT stop them at once; a further signal (coreutils `timeout` sends SIGTERM twice: to the command and to its
      // process group) shortens what is left of the wait to a final grace. Every stop writes the reports of what ran,
      // marked INTERRUPTED, and exits 3 (1 when a MUST requirement failed among the checks that ran); a signal once the
      // reports are written ends the process at once with that code.
      const interrupt = new AbortController();
      const stopNow = new AbortController();
      const hurry = new AbortController();
      // the reports once written (the HTML report may still be rendering), and whether they were printed
      let written: { report: RunReport; dir: string; files: string[] } | undefined;
      let printed = false;
      const onSignal = (name: NodeJS.Signals) => {
        if (written !== undefined) {
          err(`\n${name}: the reports are written; exiting${printed ? '' : ' (the HTML report is not rendered)'}\n`);
          if (!printed) printReport(written, out, verbose);
          process.exit(written.report.exitCode);
        }
        if (hurry.signal.aborted) {
          err(`\n${name} again: the run is ending; the reports of what ran are being written\n`);
          return;
        }
        if (stopNow.signal.aborted) {
          err(`\n${name} again: what still runs is abandoned within ${FINAL_GRACE_S} s; the reports of what ran are written then\n`);
          hurry.abort(name);
          return;
        }
        if (name === 'SIGINT' && !interrupt.signal.aborted) {
          err('\ninterrupted (SIGINT): no further check starts; the running ones finish, then the reports of what ran are written (SIGINT again stops at once)\n');
          interrupt.abort(name);
          return;
        }
        err(`\n${name === 'SIGINT' ? 'SIGINT again' : name}: stopping the running checks at once; writing the reports of what ran\n`);
        stopNow.abort(name);
      };
      process.on('SIGINT', onSignal);
      process.on('SIGTERM', onSignal);
      // printed once the handlers are in place: from this line on a signal stops the run with its reports
      // the start line names what will run: the selection's filters, and only the interfaces its checks can reach
      const selection = await import('./run/selection.js');
      const filters = selection.describeSelection(config.run);
      const registry = filters === '' ? undefined : (await import('./judging/schemas.js')).schemaRegistry();
      const reached = registry === undefined ? config.run.only : selection.selectionApis(config.run, config.run.only, (await import('./judging/catalogue.js')).loadCatalogue(undefined, config.run.checksDir), () => registry.operations());
      err(`canton-conformance: running ${share}${filters !== '' ? `${filters} of ` : ''}${reached.join(', ')} against ${where} (seed ${config.run.seed}, ${config.run.runs} runs per property)${config.run.readOnly ? ', read-only: only GETs and x-read-only operations are sent' : ''}\n`);
      try {
        const result = await runConformance(config, {
          write: err,
          interactive,
          signal: interrupt.signal,
          stopNow: stopNow.signal,
          hurry: hurry.signal,
          onReportsWritten: (w) => void (written = w),
          ...(record !== undefined ? { record } : {}),
          // the embedded reference passes the same preflight (a planted fault may break what it reads: not then)
          ...(config.useReference && config.reference.faults.length === 0 ? { beforeChecks: async (c: Config) => void (await preflightOrStop(c)) } : {}),
        });
        const r = result.report;
        written = result;
        printReport(result, out, verbose);
        printed = true;
        // checks abandoned by a stop at once may still hold worker threads: the process ends soon after the reports
        if (stopNow.signal.aborted) setTimeout(() => process.exit(r.exitCode), 1000).unref();
        return r.exitCode;
      } catch (e) {
        process.off('SIGINT', onSignal);
        process.off('SIGTERM', onSignal);
        throw e;
      }
    }));
}

/** What a run or a merge prints at its end (reporting/console.ts): loaded before the run, so a signal's handler prints it at once. */
let consoleModule: typeof import('./reporting/console.js') | undefined;
async function loadConsole(): Promise<void> {
  consoleModule ??= await import('./reporting/console.js');
}

/** The failed requirements with a curl each and the commonest cause of errors, then the verdict last (where a CI log is read). */
function printReport(result: { report: RunReport; dir: string; files: string[] }, out: (s: string) => void, verbose = false): void {
  for (const line of consoleModule!.consoleLines(result, { verbose })) out(`${line}\n`);
}

function mergeCommand(program: Command, done: Done, out: (s: string) => void): Command {
  return program
    .command('merge')
    .description('merge the reports of the shards of one run (run --shard i/n) into one report in every format, judged as an unsharded run')
    .argument('<dir...>', 'each shard\'s run directory (reports/<run-id>), its reports directory (reports, using latest) or its conformance.json')
    .option('--reports-dir <dir>', 'where reports/<run-id>/ and reports/latest of the merged report are written (default: reports)')
    .option('--no-html', 'skip rendering the single-file Allure HTML report from the shards\' Allure results')
    .option('--verbose', 'also print the seed of every property at the end')
    .option('--baseline <file>', 'known failures of this target (YAML "expectations:" list); they do not fail the merged run')
    .option('--compare <file>', 'an earlier conformance.json to diff against (default: the reports dir\'s latest run, unless that is a shard\'s report)')
    .option('--no-compare', 'do not diff against an earlier run')
    .addHelpText('after', `
The shards must come from one run: the same seed, configuration (but for the shard and the report settings), suite
version and shard count; otherwise the merge is refused (exit 2). A missing shard is named: its checks are reported
as errors (they did not run) and the merged run is INCOMPLETE (exit 3), or FAILED (exit 1) when a MUST requirement
failed among the checks that ran.

Exit codes (as for run):
  0  no MUST requirement failed
  1  a MUST requirement failed
  2  bad usage, or shards that are not the shards of one run
  3  no MUST requirement failed, but errors left some requirements undecided, a shard is missing,
     or a shard was stopped early`)
    .action(done(async (dirs: string[], opts: { reportsDir?: string; html: boolean; baseline?: string; compare?: string | boolean; verbose?: boolean }) => {
      const { mergeShards } = await import('./reporting/merge.js');
      await loadConsole();
      const pkg = (await import('../package.json', { with: { type: 'json' } })).default;
      checkRunFiles({ run: { baseline: opts.baseline, compare: opts.compare ?? true } } as Config, opts);
      (await import('./reporting/write.js')).checkReportsDir(opts.reportsDir ?? 'reports', '--reports-dir');
      const result = await mergeShards(dirs, {
        reportsDir: opts.reportsDir ?? 'reports',
        html: opts.html,
        compare: opts.compare ?? true,
        suiteVersion: pkg.version,
        ...(opts.baseline !== undefined ? { baseline: opts.baseline } : {}),
      });
      printReport(result, out, opts.verbose);
      return result.report.exitCode;
    }));
}

/**
 * Unknown requirement ids or fault names are usage errors, named with the closest known ones; so is a requirement of
 * an interface the selection (`apis`) leaves out, which no check of the run could decide.
 */
async function validateSelection(requirements: string[], faults: string[], apis?: readonly Api[], run?: Config['run']): Promise<void> {
  if (run !== undefined) {
    // every problem of the selection at once, each with the closest known ids (harness/run/selection.ts)
    const { selectionProblems } = await import('./run/selection.js');
    const { loadCatalogue } = await import('./judging/catalogue.js');
    const { schemaRegistry } = await import('./judging/schemas.js');
    const problems = await selectionProblems(run, apis, loadCatalogue(undefined, run.checksDir), () => schemaRegistry().operations(), async () => (await import('./run/discover.js')).collectChecks(APIS, run.checksDir));
    if (problems.length > 0) throw new UsageError(problems.length === 1 ? problems[0]! : `the selection has ${problems.length} problems:\n  ${problems.join('\n  ')}`);
  } else if (requirements.length > 0) {
    const { loadCatalogue } = await import('./judging/catalogue.js');
    const known = loadCatalogue().byId;
    const unknown = requirements.filter((r) => !known.has(r));
    if (unknown.length > 0) {
      const near = [...known.keys()].filter((k) => unknown.some((u) => k.startsWith(u.split('.').slice(0, 2).join('.')))).slice(0, 5);
      throw new UsageError(`unknown requirement id ${unknown.join(', ')}${near.length > 0 ? ` (did you mean ${near.join(', ')}?)` : ''}; "canton-conformance list" shows them all`);
    }
    const outside = apis === undefined ? [] : requirements.filter((r) => !apis.includes(known.get(r)!.api));
    if (outside.length > 0) {
      const of = [...new Set(outside.map((r) => known.get(r)!.api))];
      throw new UsageError(`--requirement ${outside.join(', ')} ${outside.length === 1 ? 'is a requirement' : 'are requirements'} of ${of.join(', ')}, but the run selects only ${apis!.join(', ')} (--only, or the configured targets): no check of it would run, so nothing would be tested; select ${of.join(', ')} too, or drop the requirement`);
    }
  }
  if (faults.length > 0) {
    const { FAULTS } = await import('../reference/faults.js');
    await import('../reference/index.js');
    const unknown = faults.filter((f) => !FAULTS.some((d) => d.name === f));
    if (unknown.length > 0) throw new UsageError(`unknown fault ${unknown.join(', ')}; "canton-conformance faults" lists them`);
  }
}

/** A target may switch off SHOULD and MAY requirements of the catalogue, never a MUST. */
async function validateDisabled(config: Config): Promise<void> {
  const { loadCatalogue } = await import('./judging/catalogue.js');
  const byId = loadCatalogue(undefined, config.run.checksDir).byId;
  for (const [api, t] of Object.entries(config.targets)) {
    for (const id of t.disabledRequirements) {
      const r = byId.get(id);
      if (r === undefined) throw new UsageError(`targets.${api}.disabledRequirements: ${id} is not a requirement id of the catalogue`);
      if (r.level === 'MUST') throw new UsageError(`targets.${api}.disabledRequirements: ${id} is a MUST requirement; only SHOULD and MAY requirements can be switched off`);
    }
  }
}

function doctorCommand(program: Command, done: Done, out: (s: string) => void): Command {
  return program
    .command('doctor')
    .description("run the preflight of \"run\" and print what it finds per target: connection, base URL, each role's credentials, version, fixture files, and what a run would skip")
    .option('-c, --config <file>', 'configuration file (YAML or JSON)')
    .option('--ledger-url <url>', 'base URL of the JSON Ledger API v2')
    .option('--scan-url <url>', 'base URL of the Scan API')
    .option('--validator-url <url>', 'base URL of the Validator API')
    .option('--registry-url <url>', 'base URL of the token registry API')
    .option('--header <[api:]name=value>', HEADER_HELP, each)
    .option('--token <[api:]role=token>', TOKEN_HELP, each)
    .option('--only <apis>', 'only these interfaces, comma-separated')
    .option('--timeout-ms <n>', 'per-request timeout in milliseconds')
    .addHelpText('after', '\nExit codes:\n  0  no set-up problem (what a run would skip for want of a setting is named)\n  2  bad usage or configuration, or a set-up problem: "run" would stop with it (exit 2) before any check')
    .action(done(async (opts: ConfigFlags) => {
      const config = loadConfig({ flags: opts });
      if (config.useReference) {
        out('no target configured: "run" would use the embedded reference server, which needs no check\n');
        return EXIT.ok;
      }
      const { doctor } = await import('./setup/doctor.js');
      const lines = await doctor(config);
      for (const l of lines) {
        out(`${{ ok: 'ok     ', skip: 'skip   ', problem: 'PROBLEM' }[l.status]} ${l.api.padEnd(9)} ${redactText(l.url)}\n`);
        for (const f of l.findings) out(`    ${f.kind === 'problem' ? 'problem: ' : f.kind === 'skip' ? 'skipped: ' : ''}${redactText(f.text)}\n`);
      }
      // the exit code of run's preflight: a set-up problem is exit 2, as "run" would stop with it
      return lines.some((l) => l.status === 'problem') ? EXIT.usage : EXIT.ok;
    }));
}

function listCommand(program: Command, done: Done, out: (s: string) => void): Command {
  return program
    .command('list')
    .description('list every catalogue requirement with the checks that cover it')
    .option('--only <apis>', 'only these interfaces, comma-separated')
    .option('--json', 'print JSON instead of text')
    .option('--untested', 'only requirements no check covers')
    .option('--checks-dir <dir>', 'also list the requirements and checks of this folder of your own (as run --checks-dir)')
    .action(done(async (opts: { only?: string; json?: boolean; untested?: boolean; checksDir?: string }) => {
      const listed = loadConfig({ flags: { ...(opts.only !== undefined ? { only: opts.only } : {}), ...(opts.checksDir !== undefined ? { checksDir: opts.checksDir } : {}) }, env: {} });
      const only = opts.only === undefined ? [...APIS] : (listed.run.only as Api[]);
      const checksDir = listed.run.checksDir;
      const { collectChecks } = await import('./run/discover.js');
      const { loadCatalogue } = await import('./judging/catalogue.js');
      const { genericCoverage } = await import('./judging/checks.js');
      const { schemaRegistry } = await import('./judging/schemas.js');
      const checks = await collectChecks(only, checksDir);
      // the generic checks run on every response, so they cover the requirements they judge
      const generic = genericCoverage(schemaRegistry());
      const all = loadCatalogue(undefined, checksDir)
        .requirements.filter((r) => only.includes(r.api))
        .map((r) => ({
          ...r,
          checks: [
            ...checks.filter((c) => c.requirements.includes(r.id)).map((c) => ({ id: c.id, title: c.title, file: c.file })),
            ...(generic.get(r.id) ?? []).map((g) => ({ id: `generic:${g.name}`, title: g.description, file: 'harness/judging/checks.ts (every response)' })),
          ],
        }));
      const rows = all.filter((r) => !opts.untested || r.checks.length === 0);
      if (opts.json) {
        out(`${JSON.stringify({ requirements: rows, checks }, null, 2)}\n`);
        return EXIT.ok;
      }
      for (const api of only) {
        const mine = rows.filter((r) => r.api === api);
        const ofApi = all.filter((r) => r.api === api);
        const covered = ofApi.filter((r) => r.checks.length > 0).length;
        out(`\n${api}: ${ofApi.length} requirements, ${covered} covered by a check${opts.untested ? `, ${mine.length} untested` : ''}\n`);
        for (const r of mine) {
          out(`  ${r.id} [${r.level}]${r.observable ? '' : ' (not observable)'}\n      ${r.statement}\n      source: ${r.source}${r.quote !== '' ? `: "${r.quote}"` : ''}\n`);
          if (!r.observable && r.whyNotObservable !== undefined) out(`      not observable: ${r.whyNotObservable}\n`);
          if (r.checks.length === 0) out('      checks: none (untested)\n');
          for (const c of r.checks) out(`      check: ${c.id} - ${c.title} (${c.file})\n`);
        }
      }
      const orphans = checks.flatMap((c) => c.requirements.filter((id) => !all.some((r) => r.id === id) && only.includes(c.api)).map((id) => `${c.id} cites unknown requirement ${id}`));
      for (const o of orphans) out(`warning: ${o}\n`);
      return EXIT.ok;
    }));
}

/**
 * The embedded reference server writes its DAR files under the system's temporary directory: one that cannot take them
 * (TMPDIR naming a missing or read-only directory) is a configuration error now, with the setting named, rather than an
 * internal error once the run has started.
 */
function checkTempDir(): void {
  const dir = tmpdir();
  try {
    rmSync(mkdtempSync(join(dir, 'cc-check-')), { recursive: true, force: true });
  } catch (e) {
    const code = (e as { code?: string }).code;
    const why = code === 'ENOENT' ? 'it does not exist' : code === 'EACCES' || code === 'EPERM' || code === 'EROFS' ? `it is not writable (${code})` : (code ?? (e as Error).message);
    throw new ConfigError(`the temporary directory ${dir} (TMPDIR) cannot be used: ${why}; the embedded reference server writes its DAR files there`);
  }
}

function serveCommand(program: Command, done: Done, out: (s: string) => void): Command {
  return program
    .command('serve')
    .description('start the embedded reference server alone on loopback and print its URLs and tokens')
    .option('--port <n>', 'port to listen on (0 picks a free one)', '7575')
    .addOption(new Option('--host <address>', 'loopback address to listen on').default('127.0.0.1'))
    .option('--fault <name>', 'switch on a planted fault (repeatable)', collect)
    .addOption(new Option('--ledger-version <v>', 'ledger API version to claim').choices([...LEDGER_VERSIONS]).default('3.5'))
    .option('--scan-version <v>', 'scan and validator version to claim (before 0.6.8 the activities endpoint answers)', '0.8.0')
    .option('--no-traffic-enforcement', 'run the participant without traffic enforcement (no traffic accounts endpoint)')
    .option('--transfer-legs <n>', 'transfer legs the allocation factory supports', '25')
    .option('--ans-entries <n>', 'number of seeded ANS entries')
    .option('--validator-licenses <n>', 'number of seeded validator licenses')
    .option('--write-config <file>', 'write a configuration file (YAML, or JSON for a .json name) whose targets point at this server, for "run --config FILE"')
    .option('--print-config', 'print that configuration (YAML) before serving')
    .option('--reference-variant <seed>', 'serve a variant that makes every choice the specification leaves open at random from this seed (an integer, or "random")')
    .action(done(async (o: { port: string; host: string; fault?: string[]; ledgerVersion: LedgerVersion; scanVersion: string; trafficEnforcement: boolean; transferLegs: string; ansEntries?: string; validatorLicenses?: string; writeConfig?: string; printConfig?: boolean; referenceVariant?: string }) => {
      const int = (v: string, name: string) => {
        if (!/^\d+$/.test(v)) throw new UsageError(`${name}: "${v}" is not a non-negative integer`);
        return Number(v);
      };
      if (!/^(127\.\d+\.\d+\.\d+|localhost|::1|\[::1\])$/.test(o.host)) throw new UsageError(`--host: ${o.host} is not a loopback address; the reference server only listens on loopback`);
      if (!/^\d+(\.\d+){0,2}$/.test(o.scanVersion)) throw new UsageError(`--scan-version: "${o.scanVersion}" is not a version like 0.8.0`);
      checkTempDir();
      const { startReference } = await import('../reference/index.js');
      const { TokenProvider } = await import('./transport/auth.js');
      const variant = o.referenceVariant !== undefined ? parseVariantSeed(o.referenceVariant, '--reference-variant') : undefined;
      let server;
      try {
        server = await startReference({
          host: o.host.replace(/^\[|\]$/g, ''),
          port: int(o.port, '--port'),
          faults: o.fault ?? [],
          ledgerVersion: o.ledgerVersion,
          scanVersion: o.scanVersion,
          trafficEnforcement: o.trafficEnforcement,
          transferLegs: int(o.transferLegs, '--transfer-legs'),
          ...(variant !== undefined ? { variant } : {}),
          size: {
            ...(o.ansEntries !== undefined ? { ansEntries: int(o.ansEntries, '--ans-entries') } : {}),
            ...(o.validatorLicenses !== undefined ? { validatorLicenses: int(o.validatorLicenses, '--validator-licenses') } : {}),
          },
        });
      } catch (e) {
        throw new UsageError(`cannot start the reference server: ${(e as Error).message}`);
      }
      const tokens = new TokenProvider({ kind: 'hs256', secret: server.auth.hs256Secret, users: { admin: server.auth.adminUser, user: server.auth.validatorUser }, expiresInSeconds: 86400 });
      out('canton-conformance reference server (in memory; Ctrl-C stops it)\n');
      for (const [api, url] of Object.entries(server.urls)) out(`  ${api.padEnd(9)} ${url}\n`);
      out(`  HS256 secret: ${server.auth.hs256Secret} (test-only, for minting tokens with sub = a ledger user id)\n`);
      out(`  admin token (sub ${server.auth.adminUser}):\n    ${await tokens.tokenFor('admin')}\n`);
      out(`  validator user token (sub ${server.auth.validatorUser}):\n    ${await tokens.tokenFor('user')}\n`);
      if (server.options.faults.length > 0) out(`  planted faults on: ${server.options.faults.join(', ')}\n`);
      if (server.variant !== undefined) {
        out(`  reference variant ${server.variant.seed}: ${Object.entries(server.variant.choices).map(([k, v]) => `${k} ${v}`).join('; ') || 'the default choices'}\n`);
      }
      const targetConfig = { targets: server.targetConfig() };
      if (o.writeConfig !== undefined) {
        const { copyFileSync, mkdirSync, writeFileSync } = await import('node:fs');
        const { basename, dirname, extname, resolve } = await import('node:path');
        const { stringify } = await import('yaml');
        // the ledger fixtures' DAR files live in a temporary folder that goes when serve stops: the configuration names
        // copies beside it (<name>.dars/), which outlive serve (a serve started again with the same settings serves
        // the same targets)
        const darDir = resolve(dirname(o.writeConfig), `${basename(o.writeConfig, extname(o.writeConfig))}.dars`);
        const fixtures = targetConfig.targets.ledger.fixtures ?? {};
        const note = `written by "canton-conformance serve": its targets answer while that serve runs (${server.urls.ledger}); the DAR files it names are kept in ${darDir}`;
        try {
          for (const [key, file] of Object.entries(fixtures)) {
            if (!/File\d*$/.test(key) || typeof file !== 'string') continue;
            mkdirSync(darDir, { recursive: true });
            const copy = join(darDir, basename(file));
            copyFileSync(file, copy);
            fixtures[key] = copy;
          }
          const text = o.writeConfig.endsWith('.json') ? `${JSON.stringify(targetConfig, null, 2)}\n` : `# ${note}\n${stringify(targetConfig)}`;
          writeFileSync(o.writeConfig, text);
        } catch (e) {
          await server.close();
          throw new UsageError(`--write-config: cannot write ${o.writeConfig} (and its DAR files in ${darDir}): ${(e as Error).message}`);
        }
        out(`  target configuration written to ${o.writeConfig} (DAR files in ${darDir}): canton-conformance run --config ${o.writeConfig}\n`);
      }
      if (o.printConfig === true) out(`target configuration (for run --config):\n${(await import('yaml')).stringify(targetConfig)}`);
      out(`try: curl -s -H "Authorization: Bearer $TOKEN" ${server.urls.ledger}/v2/version\n`);
      await new Promise<void>((resolve) => {
        const stop = () => resolve();
        process.once('SIGINT', stop);
        process.once('SIGTERM', stop);
      });
      await server.close();
      return EXIT.ok;
    }));
}

function faultsCommand(program: Command, done: Done, out: (s: string) => void): Command {
  return program
    .command('faults')
    .description('list every planted fault of the reference server: name, the requirement it breaks, what it does')
    .option('--json', 'print JSON instead of text')
    .action(done(async (opts: { json?: boolean }) => {
      const { plantedFaults, loadKnownGaps } = await import('./run/selftest.js');
      const faults = await plantedFaults();
      const gaps = new Map(loadKnownGaps().gaps.map((g) => [g.fault, g.reason]));
      if (opts.json) {
        out(`${JSON.stringify({ faults: faults.map((f) => ({ ...f, ...(gaps.has(f.name) ? { knownGap: gaps.get(f.name) } : {}) })) }, null, 2)}\n`);
        return EXIT.ok;
      }
      out(`${faults.length} planted faults (switch one on with: run --fault NAME, serve --fault NAME)\n`);
      for (const f of faults) {
        out(`  ${f.name}\n      breaks ${f.requirement}${f.verdict === 'unsupported' ? ' (its checks report unsupported)' : ''}: ${f.description}\n`);
        if (gaps.has(f.name)) out(`      known gap: ${gaps.get(f.name)}\n`);
      }
      return EXIT.ok;
    }));
}

function selftestCommand(program: Command, done: Done, out: (s: string) => void): Command {
  return program
    .command('selftest')
    .description('run the suite against the clean reference server and against each planted fault; print and write the mutation score')
    .option('--fault <name>', 'only this planted fault (repeatable, or comma-separated); the clean run always runs', collect)
    .option('--reports-dir <dir>', 'mutation.json and mutation.md go to <dir>/selftest/ (default: reports)')
    .option('--reference-variant <seed>', 'run the clean suite against these reference variants (repeatable, or comma-separated) instead of the built-in ones', collect)
    .addHelpText('after', '\nExit codes:\n  0  the clean run is clean and every fault is detected or a known gap\n  1  otherwise\n  2  bad usage')
    .action(done(async (opts: { fault?: string[]; reportsDir?: string; referenceVariant?: string[] }) => {
      const { runSelfTest } = await import('./run/selftest.js');
      await validateSelection([], opts.fault ?? []);
      let variants: number[] | undefined;
      try {
        variants = opts.referenceVariant?.map((v) => parseVariantSeed(v, '--reference-variant'));
      } catch (e) {
        throw new UsageError((e as Error).message);
      }
      const result = await runSelfTest({
        write: out,
        ...(variants !== undefined ? { variants } : {}),
        ...(opts.fault !== undefined ? { faults: opts.fault } : {}),
        ...(opts.reportsDir !== undefined ? { reportsDir: opts.reportsDir } : {}),
      });
      if (result.files.length > 0) out(`reports: ${result.files.map((f) => relative(process.cwd(), f)).join(', ')}\n`);
      return result.ok ? EXIT.ok : EXIT.mustFailed;
    }));
}

const SPEC_DIFF_HELP = `
The target's document is matched with the suite's (specs/<api>.yaml) by method and path, never by operationId.
Each difference is classified from the target's side: "target stricter" (a request or response valid under the
suite's document may be invalid under the target's), "target looser" (the reverse) or "incompatible" (both).
Without --target-spec, a configured ledger target's GET /docs/openapi is read; with no target configured, the
embedded reference server's.
The version the suite's version ranges are judged at: --target-version, else the configured target's version
(targets.<api>.version), else for the ledger its served document's info.version; a Splice document's info.version
(0.0.1, or a token-standard API version) is never read as a release. The report says which was used.

Exit codes:
  0  the comparison ran (differences are information, not a verdict)
  2  bad usage, or the target's document cannot be read`;

function specDiffCommand(program: Command, done: Done, out: (s: string) => void, err: (s: string) => void): Command {
  return program
    .command('spec-diff')
    .description("compare a target's own OpenAPI document with the suite's: missing and extra operations, parameters, required sets, types, formats, enums, statuses")
    .addOption(new Option('--api <api>', 'the interface whose documents are compared').choices([...APIS]).makeOptionMandatory())
    .option('--target-spec <url|file>', "the target's OpenAPI 3.0 or 3.1 document (JSON or YAML; relative external $refs are bundled)")
    .option('-c, --config <file>', 'configuration file: its ledger target (url, auth, headers, version) is used without --target-spec')
    .option('--ledger-url <url>', 'base URL of the JSON Ledger API v2, whose GET /docs/openapi is read without --target-spec')
    .option('--target-version <v>', "the target's version, for the operations the suite's version ranges expect (default: the configured target's version; for the ledger, else its served document's info.version; a Splice document's info.version is never a release)")
    .addOption(new Option('--format <format>', 'output format (default: from the --output file name, else md)').choices(['md', 'json']))
    .option('--output <file>', 'write the report to this file instead of stdout')
    .option('--timeout-ms <n>', 'timeout of each request for the document', '10000')
    .addOption(new Option('--ledger-version <v>', 'embedded reference only: the ledger version whose served document is read').choices([...LEDGER_VERSIONS]))
    .addHelpText('after', SPEC_DIFF_HELP)
    .action(done(async (o: { api: Api; targetSpec?: string; config?: string; ledgerUrl?: string; targetVersion?: string; format?: 'md' | 'json'; output?: string; timeoutMs: string; ledgerVersion?: LedgerVersion }) => {
      if (!/^\d+$/.test(o.timeoutMs)) throw new UsageError(`--timeout-ms: "${o.timeoutMs}" is not a non-negative integer`);
      const sd = await import('./spec-diff/index.js');
      const fetchOptions = { timeoutMs: Number(o.timeoutMs) };
      let source = o.targetSpec;
      let version = o.targetVersion;
      let versionFrom = version !== undefined ? '--target-version' : undefined;
      const embeddedOnly = () => {
        if (o.ledgerVersion !== undefined) throw new UsageError('--ledger-version applies only to the embedded reference server, which is read when no --target-spec and no target is given');
      };
      if (source !== undefined) embeddedOnly();
      // a document given as a file or URL: the configured target's version still judges it, when a configuration names one
      if (source !== undefined && version === undefined && (o.config !== undefined || (process.env.CONFORMANCE_CONFIG ?? '') !== '')) {
        const configured = loadConfig({ flags: o.config !== undefined ? { config: o.config } : {} }).targets[o.api]?.version;
        if (configured !== undefined) [version, versionFrom] = [configured, `targets.${o.api}.version of the configuration`];
      }
      let headers: Record<string, string> | undefined;
      let close: (() => Promise<void>) | undefined;
      if (source === undefined) {
        const config = loadConfig({ flags: { ...(o.config !== undefined ? { config: o.config } : {}), ...(o.ledgerUrl !== undefined ? { ledgerUrl: o.ledgerUrl } : {}) } });
        const target = config.targets[o.api];
        if (o.api !== 'ledger') throw new UsageError(`--target-spec is needed for ${o.api}: only a participant serves its own document (FACTS.md); Splice publishes its documents with each release`);
        if (target !== undefined) {
          embeddedOnly();
          source = sd.servedDocumentUrl(o.api, target.url)!;
          if (version === undefined && target.version !== undefined) [version, versionFrom] = [target.version, `targets.${o.api}.version of the configuration`];
          headers = await sd.servedDocumentHeaders(target, { ...config.run, timeoutMs: fetchOptions.timeoutMs });
        } else if (config.useReference) {
          const { startReference } = await import('../reference/index.js');
          const server = await startReference(o.ledgerVersion !== undefined ? { ledgerVersion: o.ledgerVersion } : {});
          close = () => server.close();
          source = sd.servedDocumentUrl('ledger', server.urls.ledger)!;
          err(`spec-diff: no target configured: reading the embedded reference server's document (ledger ${server.options.ledgerVersion})\n`);
        } else throw new UsageError('--target-spec is needed: no ledger target is configured');
      }
      let result;
      try {
        result = await sd.specDiff({ api: o.api, targetSpec: source, ...fetchOptions, ...(headers !== undefined ? { headers } : {}), ...(version !== undefined ? { version, ...(versionFrom !== undefined ? { versionFrom } : {}) } : {}) });
      } catch (e) {
        if (e instanceof sd.DocumentError) throw new UsageError(redactText(e.message));
        throw e;
      } finally {
        await close?.();
      }
      const format = o.format ?? (o.output?.endsWith('.json') ? 'json' : 'md');
      const text = format === 'json' ? sd.renderSpecDiffJson(result) : sd.renderSpecDiffMarkdown(result);
      if (o.output === undefined) out(text);
      else {
        const { writeFileSync } = await import('node:fs');
        try {
          writeFileSync(o.output, text);
        } catch (e) {
          throw new UsageError(`--output: cannot write ${o.output}: ${(e as NodeJS.ErrnoException).code ?? String(e)}`);
        }
        const c = result.counts;
        err(`spec-diff: ${c.differences} difference(s) (${c.stricter} target stricter, ${c.looser} target looser, ${c.incompatible} incompatible), ${c.expected} expected; written to ${o.output}\n`);
      }
      return EXIT.ok;
    }));
}

type Io = { out: (s: string) => void; err: (s: string) => void };

/**
 * The command tree: every command with its flags (also read by the tests of the CI examples, which check that each
 * command they run exists with the flags it uses). `code()` is the exit code the last action returned.
 */
export async function commandLine(io: Io): Promise<{ program: Command; code: () => number }> {
  const program = new Command('canton-conformance')
    .description('Conformance suite for the Canton JSON Ledger API v2, Splice Scan and Validator APIs and the token registry API')
    .version(`${(await import('../package.json', { with: { type: 'json' } })).default.version}`)
    .exitOverride()
    .configureOutput({ writeOut: io.out, writeErr: io.err })
    .showHelpAfterError('(run with --help for usage)')
    .addHelpText('after', `\nWith no target configured, "run" starts the embedded reference server and checks it.\n${EXIT_HELP}`);
  let code: number = EXIT.ok;
  const done: Done = (action) => async (...args) => {
    code = await action(...args);
  };
  runCommand(program, done, io.out, io.err);
  mergeCommand(program, done, io.out);
  doctorCommand(program, done, io.out);
  listCommand(program, done, io.out);
  serveCommand(program, done, io.out);
  faultsCommand(program, done, io.out);
  selftestCommand(program, done, io.out);
  specDiffCommand(program, done, io.out, io.err);
  observeCommand(program, done, io.out, io.err);
  judgeCommand(program, done, io.out);
  for (const cmd of program.commands) cmd.exitOverride().configureOutput({ writeOut: io.out, writeErr: io.err });
  return { program, code: () => code };
}

/**
 * What a first run would otherwise do, done at install (bin/build.mjs, right after the bundle): the response validators
 * compiled once into their cached module (harness/judging/precompiled-validators.ts), so that the first run after `npm ci`
 * neither spends the time nor carries the compiler's memory into its peak (about 30 MiB). False when nothing was
 * written (no writable cache).
 */
export async function prepareCaches(): Promise<boolean> {
  const { schemaRegistry } = await import('./judging/schemas.js');
  return schemaRegistry().precompileResponses();
}

export async function main(argv: string[], io: Io = { out: (s: string) => void process.stdout.write(s), err: (s: string) => void process.stderr.write(s) }): Promise<number> {
  const { program, code } = await commandLine(io);
  if (argv.length === 0) {
    program.outputHelp();
    return EXIT.usage;
  }
  try {
    await program.parseAsync(argv, { from: 'user' });
    return code();
  } catch (e) {
    if (e instanceof CommanderError) {
      if (e.code === 'commander.helpDisplayed' || e.code === 'commander.version' || e.code === 'commander.help') return EXIT.ok;
      return EXIT.usage;
    }
    if (e instanceof ConfigError || e instanceof UsageError) {
      io.err(`canton-conformance: ${e.message}\n`);
      return EXIT.usage;
    }
    io.err(`canton-conformance: internal error: ${(e as Error).message}\n`);
    return EXIT.incomplete;
  }
}
