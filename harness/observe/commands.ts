/**
 * `canton-conformance observe` and `canton-conformance judge`: the passive rules (harness/observe/passive.ts) on a
 * live node's exchanges through a reverse proxy, or on a HAR capture; the usual reports. Neither sends a request of
 * its own.
 */
import type { Command } from 'commander';
import { relative } from 'node:path';
import { ConfigError, loadConfig, type Config, type ConfigFlags } from '../config.js';
import { redactText, registerSecret, registerSecretNames, registerUrlCredentials } from '../transport/redact.js';
import { APIS, type Api } from '../types.js';
import type { ObservedReport } from './report.js';

type Done = <A extends unknown[]>(action: (...args: A) => Promise<number>) => (...args: A) => Promise<void>;
type Out = (s: string) => void;

const URL_FLAGS: Array<[string, string]> = [
  ['--ledger-url <url>', 'base URL of the JSON Ledger API v2 (e.g. http://localhost:7575)'],
  ['--scan-url <url>', 'base URL of the Scan API (e.g. http://localhost:5012/api/scan)'],
  ['--validator-url <url>', 'base URL of the Validator API'],
  ['--registry-url <url>', 'base URL of the token registry API'],
];

/** `HOST:PORT`, `[::1]:PORT` or a port alone (on 127.0.0.1). */
export function parseListen(value: string, flag: string): { host: string; port: number } {
  const m = /^(?:(\[[^\]]+\]|[^:]+):)?(\d+)$/.exec(value.trim());
  const port = m === null ? Number.NaN : Number(m[2]);
  if (m === null || port > 65535) throw new ConfigError(`${flag}: "${value}" is not HOST:PORT (e.g. 127.0.0.1:7000; port 0 picks a free one)`);
  return { host: (m[1] ?? '127.0.0.1').replace(/^\[|\]$/g, ''), port };
}

function seconds(value: string | undefined, flag: string): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (value.trim() === '' || !Number.isFinite(n) || n <= 0) throw new ConfigError(`${flag}: "${value}" is not a positive number of seconds`);
  return n;
}

function positiveInt(value: string | undefined, flag: string, fallback: number): number {
  if (value === undefined) return fallback;
  if (!/^\d+$/.test(value) || Number(value) < 1) throw new ConfigError(`${flag}: "${value}" is not a positive integer`);
  return Number(value);
}

/** The configuration's secrets, registered in this thread: the passive judge records here. */
function registerSecrets(config: Config): void {
  registerSecretNames((config.run as { redactNames?: string[] }).redactNames);
  for (const s of config.secrets ?? []) registerSecret(s);
  for (const t of Object.values(config.targets)) {
    registerUrlCredentials(t.url);
    for (const v of Object.values(t.headers)) registerSecret(v);
    if (t.auth.kind === 'static') for (const v of Object.values(t.auth.tokens)) registerSecret(v);
    if (t.auth.kind === 'hs256') registerSecret(t.auth.secret);
    if (t.auth.kind === 'oauth2') for (const c of Object.values(t.auth.clients)) registerSecret(c.clientSecret);
  }
}

async function passiveParts(config: Config, maxKeptFailures: number) {
  const [{ schemaRegistry }, { loadCatalogue }, { PassiveJudge }] = await Promise.all([import('../judging/schemas.js'), import('../judging/catalogue.js'), import('./passive.js')]);
  const schemas = schemaRegistry();
  const catalogue = loadCatalogue();
  const judge = new PassiveJudge({ schemas, catalogue, targets: config.targets, maxResponseBytes: config.run.maxResponseBytes, maxJsonDepth: config.run.maxJsonDepth, maxKeptFailures });
  return { schemas, catalogue, judge };
}

function printObserved(r: ObservedReport, dir: string, out: Out): void {
  out(`${r.outcome}\n`);
  for (const api of r.selection.apis) {
    const mine = r.observed.requirements.filter((q) => q.api === api);
    const n = (v: string) => mine.filter((q) => q.verdict === v).length;
    const notPassive = mine.filter((q) => q.verdict === 'not observed' && q.reason?.startsWith('not observed: this rule needs') === true).length;
    out(`  ${api.padEnd(9)} ${n('observed pass')} observed pass, ${n('observed fail')} observed fail, ${n('not observed') - notPassive} not observed of the single-exchange rules; ${notPassive} need requests of the suite's own\n`);
  }
  if (r.observed.notInSpecification.total > 0) out(`  ${r.observed.notInSpecification.total} exchange(s) of requests not in the specification (not judged)\n`);
  // a reason may say "not judged" itself (the report lists them under that heading): said once here
  for (const n of r.observed.notJudged) out(`  ${n.reason.startsWith('body not judged: ') ? n.reason : `not judged: ${n.reason.replace(/^not judged: /, '')}`}: ${n.count}\n`);
  out(`reports: ${relative(process.cwd(), dir) || '.'}/ (conformance.json, junit.xml, summary.md)\n`);
}

const OBSERVE_HELP = `
observe forwards every request and response unchanged (streaming, any size; hop-by-hop headers are not forwarded and
Host names the target) and judges each exchange on the side: the operation it is (or "not in the specification"),
the documented status and content type, the body against the schema of its status, no 5xx, the ledger's status by
gRPC code. Rules that need more than one exchange are "not observed". It never sends a request of its own.

Reports (reports/<run-id>/: conformance.json, junit.xml, summary.md) are written on SIGINT or SIGTERM, at --duration,
and every --report-every seconds. A further SIGINT or SIGTERM during the stop cuts the exchanges in flight off at once;
the reports are still written. Verdicts: observed pass, observed fail (each kept failure with its redacted exchange),
not observed. Credentials are redacted by name and shape whether configured or not (run.redactNames lists more).

Whatever the target answers, the client gets an answer: a status outside 100-599, an unasked 101 or an answer that
does not parse is a 502 naming the cause. CONNECT is refused with 405. Clients are bounded by run.observe settings:
headerTimeoutMs (30 s), bodyTimeoutMs (300 s), idleTimeoutMs (60 s), maxConnections (1000 per listener), and the stop
waits stopGraceMs (2 s) for the exchanges in flight.

Exit codes:
  0  no MUST requirement broken by an observed exchange
  1  a MUST requirement broken by an observed exchange
  2  bad usage or configuration (a listener that cannot listen included)`;

const JUDGE_HELP = `
Each entry's URL is matched to an interface by the configured base URLs (--ledger-url, ..., or --config), else by its
path (/v2/... ledger, /api/scan/v0/... scan, and so on); the same passive rules as observe judge it. An entry that is
not valid HAR, or past the bounds of a response (run.maxResponseBytes, run.maxJsonDepth, run.maxHeaderBytes), is
counted and skipped; a body the capture left out (no content.text, Playwright "omit"/"attach", a content comment) is
not judged for the body rules, and counted.

Exit codes:
  0  no MUST requirement broken by an exchange of the capture
  1  a MUST requirement broken by an exchange of the capture
  2  bad usage; the file is not a HAR, is cut short, or holds no entry that could be read`;

export function observeCommand(program: Command, done: Done, out: Out, err: Out): Command {
  let cmd = program
    .command('observe')
    .description('a reverse proxy in front of the configured targets that judges every real exchange on the side (sends no request of its own)')
    .option('-c, --config <file>', 'configuration file: its targets (url, version, disabledRequirements) and run settings (maxResponseBytes, maxHeaderBytes, maxJsonDepth, reportsDir)');
  for (const [flag, help] of URL_FLAGS) cmd = cmd.option(flag, help);
  return cmd
    .option('--listen <host:port>', 'one port for every configured interface, routed by their base paths (as the targets serve them)')
    .option('--ledger-listen <host:port>', 'a port standing for the ledger target\'s base URL')
    .option('--scan-listen <host:port>', 'a port standing for the scan target\'s base URL')
    .option('--validator-listen <host:port>', 'a port standing for the validator target\'s base URL')
    .option('--registry-listen <host:port>', 'a port standing for the registry target\'s base URL')
    .option('--duration <seconds>', 'stop after this long (default: until SIGINT or SIGTERM)')
    .option('--report-every <seconds>', 'also write the reports this often while observing')
    .option('--reports-dir <dir>', 'where reports/<run-id>/ and reports/latest are written (default: reports)')
    .option('--max-kept-failures <n>', 'failures kept with their exchange per requirement (the ones beyond are counted)', '20')
    .addHelpText('after', OBSERVE_HELP)
    .action(done(async (o: ConfigFlags & { listen?: string; ledgerListen?: string; scanListen?: string; validatorListen?: string; registryListen?: string; duration?: string; reportEvery?: string; maxKeptFailures: string }) => {
      const config = loadConfig({ flags: { ...(o.config !== undefined ? { config: o.config } : {}), ...pickUrls(o), ...(o.reportsDir !== undefined ? { reportsDir: o.reportsDir } : {}) } });
      if (config.useReference) throw new ConfigError('observe needs a target to stand in front of: --ledger-url, --scan-url, --validator-url, --registry-url or a --config with targets (serve --write-config writes one for the embedded reference)');
      const listeners: Array<{ api?: Api; host: string; port: number }> = [];
      if (o.listen !== undefined) listeners.push(parseListen(o.listen, '--listen'));
      for (const api of APIS) {
        const v = o[`${api}Listen` as const];
        if (v === undefined) continue;
        if (config.targets[api] === undefined) throw new ConfigError(`--${api}-listen: no ${api} target is configured`);
        listeners.push({ api, ...parseListen(v, `--${api}-listen`) });
      }
      if (listeners.length === 0) throw new ConfigError('observe needs a listener: --listen HOST:PORT (every interface on one port) or --ledger-listen, --scan-listen, ... HOST:PORT');
      const duration = seconds(o.duration, '--duration');
      const every = seconds(o.reportEvery, '--report-every');
      const maxKept = positiveInt(o.maxKeptFailures, '--max-kept-failures', 20);
      const { checkReportsDir, newRunId } = await import('../reporting/write.js');
      checkReportsDir(config.run.reportsDir);
      registerSecrets(config);
      const parts = await passiveParts(config, maxKept);
      const { startObserver, OBSERVE_DEFAULTS } = await import('./proxy.js');
      const { observedReport, writeObservedReports } = await import('./report.js');
      const limits = { ...OBSERVE_DEFAULTS, ...(config.run as { observe?: Partial<typeof OBSERVE_DEFAULTS> }).observe };
      let observer;
      try {
        observer = await startObserver({
          targets: config.targets,
          listeners,
          maxBodyBytes: config.run.maxResponseBytes,
          maxHeaderBytes: config.run.maxHeaderBytes,
          headerTimeoutMs: limits.headerTimeoutMs,
          bodyTimeoutMs: limits.bodyTimeoutMs,
          idleTimeoutMs: limits.idleTimeoutMs,
          maxConnections: limits.maxConnections,
          onExchange: (x) => {
            try {
              parts.judge.judge(x);
            } catch (e) {
              parts.judge.notJudged(`not judged: the judge failed (${redactText((e as Error).message)})`);
            }
          },
          onNotJudged: (reason) => parts.judge.notJudged(reason),
        });
      } catch (e) {
        throw new ConfigError(`observe cannot listen: ${(e as Error).message}`);
      }
      const apis = config.run.only.filter((a) => config.targets[a] !== undefined);
      const runId = newRunId();
      const startedAt = new Date();
      const source = observer.listening.map((l) => `${l.url} -> ${l.api !== undefined ? `${l.api} ${config.targets[l.api]!.url}` : apis.map((a) => `${a} ${config.targets[a]!.url}`).join(', ')}`).join('; ');
      const write = (notes: string[] = []) => {
        const report = observedReport({ tally: parts.judge.tally, catalogue: parts.catalogue, schemas: parts.schemas, config, apis, mode: 'observe', source, runId, startedAt, finishedAt: new Date(), maxKeptFailures: maxKept, notes });
        return { report, ...writeObservedReports(config.run.reportsDir, report) };
      };
      out('canton-conformance observe: judging every exchange on the side; no request of its own is sent\n');
      for (const l of observer.listening) {
        out(`  listening ${l.url} -> ${redactText(l.api !== undefined ? `${l.api} ${config.targets[l.api]!.url}` : apis.map((a) => `${a} ${config.targets[a]!.url}`).join(', '))}\n`);
      }
      out(`  reports: ${relative(process.cwd(), `${config.run.reportsDir}/${runId}`)}/ (on SIGINT or SIGTERM${duration !== undefined ? `, after ${duration} s` : ''}${every !== undefined ? `, every ${every} s` : ''})\n`);
      const timer = every !== undefined ? setInterval(() => {
        try {
          write(['periodic report: observation goes on']);
        } catch (e) {
          err(`observe: the periodic report could not be written: ${(e as Error).message}\n`);
        }
      }, every * 1000) : undefined;
      // The first signal (or --duration) stops: the exchanges in flight get stopGraceMs to end, then the reports are
      // written. A further signal (coreutils `timeout` sends SIGTERM twice: to the command and to its process group)
      // only cuts that wait short; once the reports are written, a signal ends the process with their exit code.
      const cut = new AbortController();
      let stopped: ((why: string) => void) | undefined;
      let exitCode: number | undefined;
      const onSignal = (name: NodeJS.Signals) => {
        if (exitCode !== undefined) process.exit(exitCode);
        if (stopped !== undefined) {
          const stop = stopped;
          stopped = undefined;
          return stop(name);
        }
        if (!cut.signal.aborted) {
          err(`\nobserve: ${name} again: the exchanges in flight are cut off now; the reports are written\n`);
          cut.abort();
        }
      };
      process.on('SIGINT', onSignal);
      process.on('SIGTERM', onSignal);
      try {
        const stoppedBy = await new Promise<string>((resolve) => {
          stopped = resolve;
          if (duration !== undefined) {
            setTimeout(() => {
              stopped = undefined;
              resolve(`--duration ${duration} s`);
            }, duration * 1000).unref();
          }
        });
        stopped = undefined;
        if (timer !== undefined) clearInterval(timer);
        err(`\nobserve: stopping (${stoppedBy}): the exchanges in flight get ${limits.stopGraceMs / 1000} s to end (a further SIGINT or SIGTERM cuts them off); then the reports are written\n`);
        await observer.close(limits.stopGraceMs, cut.signal);
        const { report, dir } = write([`observation ended by ${stoppedBy}${cut.signal.aborted ? ' (the exchanges in flight were cut off by a further signal)' : ''}`]);
        exitCode = report.exitCode;
        printObserved(report, dir, out);
        return report.exitCode;
      } finally {
        // a signal while the process ends is the same stop, not the default action (exit without the reports)
        if (exitCode === undefined) {
          process.off('SIGINT', onSignal);
          process.off('SIGTERM', onSignal);
        }
      }
    }));
}

function pickUrls(o: ConfigFlags): ConfigFlags {
  return {
    ...(o.ledgerUrl !== undefined ? { ledgerUrl: o.ledgerUrl } : {}),
    ...(o.scanUrl !== undefined ? { scanUrl: o.scanUrl } : {}),
    ...(o.validatorUrl !== undefined ? { validatorUrl: o.validatorUrl } : {}),
    ...(o.registryUrl !== undefined ? { registryUrl: o.registryUrl } : {}),
  };
}

/** Judges a HAR file with the passive rules; the reports as observe writes them. */
export async function judgeHar(file: string, config: Config, maxKept: number): Promise<{ report: ObservedReport; dir: string }> {
  const { existsSync, statSync } = await import('node:fs');
  if (!existsSync(file) || !statSync(file).isFile()) throw new ConfigError(`judge: ${file} is not a file`);
  const { checkReportsDir, newRunId } = await import('../reporting/write.js');
  checkReportsDir(config.run.reportsDir);
  registerSecrets(config);
  const parts = await passiveParts(config, maxKept);
  const { readHarEntries, observedFromHar } = await import('./har.js');
  const { interfaceBases, interfaceOf } = await import('./match.js');
  const { observedReport, writeObservedReports } = await import('./report.js');
  const bases = interfaceBases(config.targets);
  const startedAt = new Date();
  const max = config.run.maxResponseBytes;
  let read = 0;
  let skipped = 0;
  const skip = (why: string) => {
    skipped++;
    parts.judge.notJudged(`not judged: ${why}`);
  };
  try {
    // an entry holds its response body (at most maxResponseBytes, base64 a third more) and its request; nested no
    // deeper than a response may be (run.maxJsonDepth); its fields but the bodies within the bound of a response's and a
    // request's headers and 1 MiB more (the URL, cookies, query list, timings)
    for await (const e of readHarEntries(file, 2 * max + 1024 * 1024, skip, config.run.maxJsonDepth, 4 * config.run.maxHeaderBytes + 1024 * 1024)) {
      // one entry the judge cannot read is reported and skipped: the others are judged
      try {
        const x = observedFromHar(e, (url) => interfaceOf(bases, url), max);
        if ('invalid' in x) skip(x.invalid);
        else {
          parts.judge.judge(x);
          read++;
        }
      } catch (err) {
        skip(`an entry the judge could not read (${redactText((err as Error).message)})`);
      }
    }
  } catch (e) {
    throw new ConfigError(`judge: ${redactText((e as Error).message)}`);
  }
  // a capture of which nothing could be read judged nothing: never a pass
  if (read === 0) throw new ConfigError(`judge: ${file} holds no entry that could be read${skipped > 0 ? ` (${skipped} skipped: ${[...parts.judge.tally.notJudged.keys()].map((k) => k.replace(/^not judged: /, '')).join('; ')})` : ' (its log.entries list is empty)'}`);
  const configured = config.run.only.filter((a) => config.targets[a] !== undefined);
  const seen = APIS.filter((a) => parts.judge.tally.byApi[a] !== undefined);
  const apis = configured.length > 0 ? configured : seen.length > 0 ? seen : [...APIS];
  const report = observedReport({ tally: parts.judge.tally, catalogue: parts.catalogue, schemas: parts.schemas, config, apis, mode: 'judge', source: file, runId: newRunId(startedAt), startedAt, finishedAt: new Date(), maxKeptFailures: maxKept });
  return { report, ...writeObservedReports(config.run.reportsDir, report) };
}

export function judgeCommand(program: Command, done: Done, out: Out): Command {
  let cmd = program
    .command('judge')
    .description('judge a HAR capture offline with the passive rules of observe (sends no request)')
    .argument('<file>', 'a HAR 1.2 file (run --record writes one; browsers and proxies export them)')
    .option('-c, --config <file>', 'configuration file: its targets name the interfaces (url) and what is judged on them (version, disabledRequirements)');
  for (const [flag, help] of URL_FLAGS) cmd = cmd.option(flag, help);
  return cmd
    .option('--reports-dir <dir>', 'where reports/<run-id>/ and reports/latest are written (default: reports)')
    .option('--max-kept-failures <n>', 'failures kept with their exchange per requirement (the ones beyond are counted)', '20')
    .addHelpText('after', JUDGE_HELP)
    .action(done(async (file: string, o: ConfigFlags & { maxKeptFailures: string }) => {
      const config = loadConfig({ flags: { ...(o.config !== undefined ? { config: o.config } : {}), ...pickUrls(o), ...(o.reportsDir !== undefined ? { reportsDir: o.reportsDir } : {}) } });
      const { report, dir } = await judgeHar(file, config, positiveInt(o.maxKeptFailures, '--max-kept-failures', 20));
      printObserved(report, dir, out);
      return report.exitCode;
    }));
}
