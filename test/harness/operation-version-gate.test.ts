/**
 * A check none of whose operations the target's version serves (the API description's x-since and x-until) is skipped
 * with that reason instead of meeting "no such route", unless a rule it judges is itself bound to versions (such a rule
 * is about what a version serves, as "absent before 0.6.11" is).
 */
import { describe, expect, it } from 'vitest';
import { gate } from '../../harness/conformance.js';
import { loadCatalogue } from '../../harness/judging/catalogue.js';
import type { Config } from '../../harness/config.js';
import type { CheckDeclaration } from '../../harness/types.js';

const catalogue = loadCatalogue();
const requirementsOf = (ids: string[]) => ids.map((id) => catalogue.byId.get(id)!);

function configAt(version: string): Config {
  return { targets: { registry: { url: 'http://127.0.0.1:1', version, features: {}, disabledRequirements: [] } } } as unknown as Config;
}

function decl(operations: string[], requirements: string[]): CheckDeclaration {
  return { id: 'registry.test.gate', title: 'a test declaration', api: 'registry', operations, requirements } as CheckDeclaration;
}

describe('gate by the operations a version serves', () => {
  const debug = ['registry.choice-context.debug-fields-excluded'];

  it('skips a check of allocation-factory rules that hold for every version on a registry before 0.6.11', () => {
    const reason = gate(decl(['getAllocationFactory'], debug), configAt('0.6.10'), requirementsOf(debug));
    expect(reason).toMatch(/^version: not served at the target's version \(getAllocationFactory applies from version 0\.6\.11; the target is 0\.6\.10\)$/);
  });

  it('runs the same check from 0.6.11 on', () => {
    expect(gate(decl(['getAllocationFactory'], debug), configAt('0.6.11'), requirementsOf(debug))).toBeUndefined();
  });

  it('runs a check one of whose operations the version serves', () => {
    const ops = ['getTransferInstructionWithdrawContext', 'getAllocationFactory'];
    expect(gate(decl(ops, debug), configAt('0.6.10'), requirementsOf(debug))).toBeUndefined();
  });

  it('runs a check of a rule bound to versions, which asks the operations whatever the version', () => {
    const absent = ['registry.versioning.allocation-endpoints-absent-before'];
    expect(gate(decl(['getAllocationInstructionWithdrawContext', 'getAllocationFactory'], absent), configAt('0.6.10'), requirementsOf(absent))).toBeUndefined();
  });
});
