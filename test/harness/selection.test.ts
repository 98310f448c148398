import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadCatalogue } from '../../harness/judging/catalogue.js';
import { loadConfig } from '../../harness/config.js';
import { orderFilesOf, saveFileWeights } from '../../harness/run/file-order.js';
import { PACKAGE_ROOT } from '../../harness/paths.js';
import { checkSelected, closest, describeSelection, reportedRequirements, selectionApis, selectionProblems } from '../../harness/run/selection.js';

const bin = join(PACKAGE_ROOT, 'bin', 'canton-conformance.mjs');
const tmp = mkdtempSync(join(tmpdir(), 'cc-selection-'));

function cli(args: string[], env: Record<string, string> = {}) {
  const r = spawnSync(process.execPath, [bin, ...args], { encoding: 'utf8', timeout: 120_000, cwd: tmp, env: { ...process.env, NO_COLOR: '1', ...env } });
  return { code: r.status, out: r.stdout, err: r.stderr, all: r.stdout + r.stderr };
}

const decl = { id: 'ledger.create-user.id-too-long', operations: ['createUser', 'updateUser'], requirements: ['ledger.users.id-too-long-rejected', 'ledger.users.other'] };
const none = { requirements: [] as string[] };

describe('selection of checks', () => {
  it('keeps a check only when it passes every filter given', () => {
    expect(checkSelected(decl, none)).toBe(true);
    expect(checkSelected(decl, { ...none, checks: ['ledger.create-user.id-too-long'] })).toBe(true);
    expect(checkSelected(decl, { ...none, checks: ['ledger.create-user.id-empty'] })).toBe(false);
    expect(checkSelected(decl, { ...none, operations: ['updateUser'] })).toBe(true);
    expect(checkSelected(decl, { ...none, operations: ['getUser'] })).toBe(false);
    // a check with one requirement still selected runs (for that one); one with all of them left out does not
    expect(checkSelected(decl, { ...none, excludeRequirements: ['ledger.users.other'] })).toBe(true);
    expect(checkSelected(decl, { ...none, excludeRequirements: ['ledger.users.other', 'ledger.users.id-too-long-rejected'] })).toBe(false);
    expect(checkSelected(decl, { requirements: ['ledger.users.other'], operations: ['getUser'] })).toBe(false);
  });

  it('reports the requirements of the checks that ran, without those left out', () => {
    const catalogue = loadCatalogue();
    const ran = [{ requirements: ['ledger.users.id-too-long-rejected'] }];
    expect(reportedRequirements({ requirements: [], checks: ['x'] }, catalogue, ['ledger'], ran)).toEqual(['ledger.users.id-too-long-rejected']);
    expect(reportedRequirements({ requirements: ['ledger.users.id-empty-rejected'] }, catalogue, ['ledger'], ran)).toEqual(['ledger.users.id-empty-rejected']);
    const excluded = reportedRequirements({ requirements: [], excludeRequirements: ['ledger.users.id-too-long-rejected'] }, catalogue, ['ledger'], ran);
    expect(excluded).not.toContain('ledger.users.id-too-long-rejected');
    expect(excluded.length).toBe(catalogue.requirements.filter((r) => r.api === 'ledger').length - 1);
    // by operation: the catalogue's requirements about it too, so that an uncovered one shows as untested
    const byOp = reportedRequirements({ requirements: [], operations: ['createUser'] }, catalogue, ['ledger'], ran);
    expect(byOp).toEqual(expect.arrayContaining(catalogue.requirements.filter((r) => r.operations.includes('createUser')).map((r) => r.id)));
  });

  it('suggests the id meant: a near spelling, or the requirement a check id is about', () => {
    const ids = [...loadCatalogue().byId.keys()];
    expect(closest('ledger.users.id-to-long-rejected', ids)[0]).toBe('ledger.users.id-too-long-rejected');
    expect(closest('ledger.create-user.id-too-long', ids)).toContain('ledger.users.id-too-long-rejected');
    expect(closest('zzz', ids)).toEqual([]);
  });

  it('names every problem of a selection at once, a check id given as a requirement and the reverse with the flag to use', async () => {
    const checks = [{ id: 'ledger.create-user.id-too-long', api: 'ledger' as const, operations: ['createUser'], requirements: ['ledger.users.id-too-long-rejected'] }];
    const problems = await selectionProblems(
      { requirements: ['ledger.create-user.id-too-long', 'ledger.users.nope'], checks: ['ledger.users.id-too-long-rejected', 'ledger.create-user.id-to-long'], operations: ['createUsr'], excludeRequirements: ['scan.nope'] },
      ['ledger'],
      loadCatalogue(),
      () => [{ api: 'ledger', operationId: 'createUser' }],
      async () => checks,
    );
    expect(problems).toHaveLength(6);
    expect(problems[0]).toContain('is a check id, not a requirement id: select the check with --check ledger.create-user.id-too-long');
    expect(problems[0]).toContain('--requirement ledger.users.id-too-long-rejected');
    expect(problems.join('\n')).toContain('is a requirement id, not a check id: select it with --requirement ledger.users.id-too-long-rejected');
    expect(problems.join('\n')).toContain('unknown check id ledger.create-user.id-to-long (did you mean ledger.create-user.id-too-long?)');
    expect(problems.join('\n')).toContain('unknown operationId createUsr (did you mean createUser?)');
    expect(problems.join('\n')).toContain('--exclude-requirement: unknown requirement id scan.nope');
  });

  it('names only the interfaces a selection reaches', () => {
    const catalogue = loadCatalogue();
    const ops = () => [{ api: 'scan' as const, operationId: 'getDsoInfo' }, { api: 'ledger' as const, operationId: 'createUser' }];
    const all = ['ledger', 'scan', 'validator', 'registry'] as const;
    expect(selectionApis(none, all, catalogue, ops)).toEqual([...all]);
    expect(selectionApis({ requirements: ['ledger.users.id-too-long-rejected'] }, all, catalogue, ops)).toEqual(['ledger']);
    expect(selectionApis({ ...none, checks: ['scan.x', 'ledger.y'] }, all, catalogue, ops)).toEqual(['ledger', 'scan']);
    // a check id of a checks folder could be of any interface
    expect(selectionApis({ ...none, checks: ['acme.x'] }, all, catalogue, ops)).toEqual([...all]);
    expect(selectionApis({ ...none, operations: ['getDsoInfo'] }, all, catalogue, ops)).toEqual(['scan']);
  });

  it('keeps no file times of a narrowed run for the order of the next whole run', () => {
    const url = `http://127.0.0.1:1/selection-test-${process.pid}-${Date.now()}`;
    const config = { ...loadConfig({ env: {}, flags: { ledgerUrl: url } }), internal: undefined };
    config.run.checks = ['ledger.create-user.id-empty'];
    const checks = [{ id: 'ledger.create-user.id-empty', title: 't', api: 'ledger' as const, operations: [], requirements: [], file: 'suites/ledger/users/create-user.test.ts', firstRequestAt: '2026-01-01T00:00:00.000Z', lastResponseAt: '2026-01-01T00:00:01.000Z' }];
    saveFileWeights(config, checks);
    expect(existsSync(join(PACKAGE_ROOT, 'node_modules', '.cache', 'canton-conformance', 'file-order', orderFilesOf(config)[0]!))).toBe(false);
  });

  it('describes the selection for the start line', () => {
    expect(describeSelection(none)).toBe('');
    expect(describeSelection({ requirements: ['a', 'b'], checks: ['c'], excludeRequirements: ['d'] })).toBe('check c; the checks of 2 requirements a, b; without requirement d');
  });
});

describe('selection on the command line', () => {
  it('runs only the checks given with --check, names them at the start, and reports their requirements; a planted fault fails it', () => {
    const r = cli(['run', '--no-html', '--no-compare', '--reports-dir', 'r1', '--check', 'ledger.create-user.id-too-long', '--fault', 'ledger-users-id-129-accepted']);
    expect(r.code, r.all).toBe(1);
    // only the interface the check is of, not every one the run could reach
    expect(r.err).toContain('running check ledger.create-user.id-too-long of ledger against the embedded reference server');
    const report = JSON.parse(readFileSync(join(tmp, 'r1', 'latest', 'conformance.json'), 'utf8')) as { checks: Array<{ id: string }>; requirements: Array<{ id: string; verdict: string }> };
    expect(report.checks.map((c) => c.id)).toEqual(['ledger.create-user.id-too-long']);
    expect(report.requirements.map((x) => [x.id, x.verdict])).toEqual([['ledger.users.id-too-long-rejected', 'fail']]);
  });

  it('reads run.checks, run.operations and run.excludeRequirements from the configuration file', () => {
    writeFileSync(join(tmp, 'sel.yaml'), 'reference: {}\nrun:\n  operations: [createUser]\n  excludeRequirements: [ledger.users.id-too-long-rejected]\n  only: [ledger]\n');
    const r = cli(['run', '--config', 'sel.yaml', '--no-html', '--no-compare', '--reports-dir', 'r2', '--fault', 'ledger-users-id-129-accepted']);
    // the fault breaks only the requirement left out: the run passes
    expect(r.code, r.all).toBe(0);
    const report = JSON.parse(readFileSync(join(tmp, 'r2', 'latest', 'conformance.json'), 'utf8')) as { checks: Array<{ id: string; operations: string[] }>; requirements: Array<{ id: string }> };
    expect(report.checks.length).toBeGreaterThan(0);
    expect(report.checks.every((c) => c.operations.includes('createUser'))).toBe(true);
    expect(report.checks.map((c) => c.id)).not.toContain('ledger.create-user.id-too-long');
    expect(report.requirements.map((x) => x.id)).not.toContain('ledger.users.id-too-long-rejected');
  });

  it('merges the shards of a narrowed run into the requirements of the whole, and summary.md names the selection by its flags', () => {
    const args = ['run', '--no-html', '--no-compare', '--only', 'ledger', '--operation', 'createUser'];
    const whole = cli([...args, '--reports-dir', 'whole']);
    expect(whole.code, whole.all).toBe(0);
    for (const shard of ['1/2', '2/2']) expect(cli([...args, '--reports-dir', `part-${shard[0]}`, '--shard', shard]).code).toBe(0);
    const merged = cli(['merge', '--no-html', '--no-compare', '--reports-dir', 'joined', 'part-1', 'part-2']);
    expect(merged.code, merged.all).toBe(0);
    const ids = (dir: string) => (JSON.parse(readFileSync(join(tmp, dir, 'latest', 'conformance.json'), 'utf8')) as { requirements: Array<{ id: string }> }).requirements.map((r) => r.id).sort();
    expect(ids('joined')).toEqual(ids('whole'));
    const summary = readFileSync(join(tmp, 'whole', 'latest', 'summary.md'), 'utf8');
    expect(summary).toContain(`- selection: --operation createUser (${ids('whole').length} requirements)`);
  });

  it('refuses a check id given as a requirement, naming --check, and every other problem with it (exit 2)', () => {
    const r = cli(['run', '--no-html', '--requirement', 'ledger.create-user.id-too-long', '--operation', 'createUsr']);
    expect(r.code).toBe(2);
    expect(r.err).toContain('the selection has 2 problems');
    expect(r.err).toContain('--check ledger.create-user.id-too-long');
    expect(r.err).toContain('did you mean createUser?');
    expect(r.all).not.toMatch(/\n\s+at /);
  });

  it('refuses a random seed with a shard at once (exit 2), from the flag or the environment', () => {
    const r = cli(['run', '--no-html', '--shard', '1/2', '--seed', 'random']);
    expect(r.code).toBe(2);
    expect(r.err).toContain('"random" cannot be used with a shard');
    expect(r.err).toContain('merge');
    const e = cli(['run', '--no-html', '--shard', '2/2'], { CONFORMANCE_SEED: 'random' });
    expect(e.code).toBe(2);
    expect(e.err).toContain('environment variable CONFORMANCE_SEED: "random" cannot be used with a shard');
  });
});
