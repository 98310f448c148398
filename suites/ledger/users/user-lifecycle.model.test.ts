/**
 * Model-based check of one user's life: updates with random masks and annotation edits, grants, deactivation and
 * reactivation, reads and stale writes, against a deliberately simple model. A failure reports the shrunk command
 * sequence.
 */
import { describe } from 'vitest';
import fc from 'fast-check';
import { ConformanceFailure, conformance, type CheckContext } from '../../../harness/conformance.js';
import { annotationsOf, createAdminUser, grantRights, hasPpa, needUserTokens, newlyGranted, readUser, right, rightKey, rightKeys, updateUser, userOf, versionOf, type JsonRight } from '../../../harness/fixtures/ledger-users.js';

interface Model {
  annotations: Record<string, string>;
  deactivated: boolean;
  ppa: boolean;
  rights: Set<string>;
  rv: string;
  oldRvs: string[];
}
interface Real {
  t: CheckContext;
  id: string;
}
type Cmd = fc.AsyncCommand<Model, Real>;

const R = {
  persisted: 'ledger.update-user.update-persisted',
  changes: 'ledger.users.resource-version-changes',
  merges: 'ledger.annotations.update-merges',
  stale: 'ledger.update-user.stale-resource-version-fails',
  grantRv: 'ledger.grant-user-rights.resource-version-unchanged',
  newly: 'ledger.grant-user-rights.newly-granted',
  deactivated: 'ledger.auth.deactivated-user-refused',
  reactivated: 'ledger.auth.reactivated-user-accepted',
};

const sorted = (o: Record<string, string>) => JSON.stringify(Object.entries(o).sort(([a], [b]) => (a < b ? -1 : 1)));

class Update implements Cmd {
  constructor(
    readonly paths: string[],
    readonly edits: Record<string, string>,
    readonly ppa: boolean,
    readonly withVersion: boolean,
  ) {}
  check = () => true;
  async run(m: Model, r: Real): Promise<void> {
    const { t } = r;
    const x = await updateUser(t, r.id, { primaryPartyAuthentication: this.ppa, metadata: { resourceVersion: this.withVersion ? m.rv : '', annotations: this.edits } }, this.paths);
    t.expectStatus(x, 200, { requirement: R.persisted, what: `${this}` });
    if (this.paths.includes('metadata.annotations')) {
      for (const [k, v] of Object.entries(this.edits)) if (v === '') delete m.annotations[k];
      else m.annotations[k] = v;
    }
    if (this.paths.includes('primary_party_authentication')) m.ppa = this.ppa;
    const got = annotationsOf(userOf(x));
    t.expect(sorted(got) === sorted(m.annotations), `${this}: the response's annotations are ${sorted(got)}, model ${sorted(m.annotations)}`, { requirement: R.merges, exchange: x });
    const rv = versionOf(userOf(x)) ?? '';
    t.expect(rv !== m.rv && !m.oldRvs.includes(rv), `${this}: resourceVersion ${JSON.stringify(rv)} is not new`, { requirement: R.changes, exchange: x });
    m.oldRvs.push(m.rv);
    m.rv = rv;
  }
  toString = () => `update(${JSON.stringify(this.paths)}, ${JSON.stringify(this.edits)}, ppa=${this.ppa}${this.withVersion ? ', current rv' : ''})`;
}

class Grant implements Cmd {
  constructor(readonly right: JsonRight) {}
  check = () => true;
  async run(m: Model, r: Real): Promise<void> {
    const x = await grantRights(r.t, r.id, [this.right]);
    r.t.expectStatus(x, 200, { requirement: R.newly, what: `${this}` });
    const k = rightKey(this.right);
    const want = m.rights.has(k) ? [] : [k];
    r.t.expect(JSON.stringify(rightKeys(newlyGranted(x))) === JSON.stringify(want), `${this}: newlyGrantedRights ${JSON.stringify(rightKeys(newlyGranted(x)))}, expected ${JSON.stringify(want)}`, { requirement: R.newly, exchange: x });
    m.rights.add(k);
  }
  toString = () => `grant(${rightKey(this.right)})`;
}

class SetActive implements Cmd {
  constructor(readonly active: boolean) {}
  check = () => true;
  async run(m: Model, r: Real): Promise<void> {
    const { t } = r;
    const x = await updateUser(t, r.id, { isDeactivated: !this.active }, ['is_deactivated']);
    t.expectStatus(x, 200, { requirement: R.persisted, what: `${this}` });
    m.oldRvs.push(m.rv);
    m.rv = versionOf(userOf(x)) ?? '';
    m.deactivated = !this.active;
    // the user holds ParticipantAdmin from its creation, so reading a user is within its rights once active
    const own = await t.call('getUser', { params: { 'user-id': r.id }, auth: { user: r.id } });
    if (this.active) t.expectStatus(own, 200, { requirement: R.reactivated, what: `${this}: reading itself` });
    // the MUST is a refusal (a 4xx); which 4xx (401 or 403, FACTS.md) is ledger.auth.refused-user-401-or-403's
    else t.expect(own.status >= 400 && own.status < 500, `${this}: reading itself answered ${own.status}`, { requirement: R.deactivated, exchange: own });
  }
  toString = () => (this.active ? 'reactivate' : 'deactivate');
}

class Read implements Cmd {
  check = () => true;
  async run(m: Model, r: Real): Promise<void> {
    const u = await readUser(r.t, r.id);
    const problems: string[] = [];
    if (sorted(annotationsOf(u)) !== sorted(m.annotations)) problems.push(`annotations ${sorted(annotationsOf(u))}, model ${sorted(m.annotations)}`);
    if ((u.isDeactivated ?? false) !== m.deactivated) problems.push(`isDeactivated ${u.isDeactivated}, model ${m.deactivated}`);
    if (u.primaryPartyAuthentication !== undefined && u.primaryPartyAuthentication !== null && u.primaryPartyAuthentication !== m.ppa) problems.push(`primaryPartyAuthentication ${u.primaryPartyAuthentication}, model ${m.ppa}`);
    if (versionOf(u) !== m.rv) problems.push(`resourceVersion ${versionOf(u)}, last returned ${m.rv}`);
    r.t.expect(problems.length === 0, `read: ${problems.join('; ')}`, { requirement: problems.every((p) => p.startsWith('annotations')) ? R.merges : problems.some((p) => p.startsWith('resourceVersion')) && m.rights.size > 0 ? R.grantRv : R.persisted });
  }
  toString = () => 'read';
}

class StaleWrite implements Cmd {
  check = (m: Readonly<Model>) => m.oldRvs.length > 0;
  async run(m: Model, r: Real): Promise<void> {
    const stale = m.oldRvs[m.oldRvs.length - 1]!;
    const x = await updateUser(r.t, r.id, { metadata: { resourceVersion: stale, annotations: { stale: 'write' } } }, ['metadata.annotations']);
    r.t.expect(x.status >= 400 && x.status < 500, `${this}: answered ${x.status}`, { requirement: R.stale, exchange: x });
  }
  toString = () => 'stale-write';
}

const key = fc.constantFrom('a', 'b', 'x.io/c', 'd');
/** The commands; primary_party_authentication only where the target has the field (3.5 on). */
const commands = (ppa: boolean) => fc.commands(
  [
    fc
      .record({
        paths: fc.subarray(['metadata.annotations', ...(ppa ? ['primary_party_authentication'] : []), 'id', 'metadata.resource_version'], { minLength: 1 }),
        edits: fc.dictionary(key, fc.constantFrom('', '1', '2', 'é'), { maxKeys: 3, noNullPrototype: true }),
        ppa: fc.boolean(),
        withVersion: fc.boolean(),
      })
      .map((u) => new Update(u.paths, u.edits, u.ppa, u.withVersion)),
    fc.constantFrom(right.readAsAnyParty(), right.executeAsAnyParty(), right.identityProviderAdmin()).map((g) => new Grant(g)),
    fc.boolean().map((a) => new SetActive(a)),
    fc.constant(new Read()),
    fc.constant(new StaleWrite()),
  ],
  { maxCommands: 15, size: 'medium' },
);

describe('user lifecycle (model)', () => {
  conformance(
    {
      id: 'ledger.users.lifecycle-model',
      title: 'a user (a ParticipantAdmin) behaves like the model through updates, grants, deactivation, reads and stale writes',
      api: 'ledger',
      operations: ['createUser', 'updateUser', 'getUser', 'grantUserRights'],
      requirements: Object.values(R),
    },
    async (t) => {
      needUserTokens(t);
      await t.property(
        commands(hasPpa(t)),
        async (cmds) => {
          // ParticipantAdmin lets the user read users: what it may do once reactivated (a user without rights may not
          // read even itself by SPEC.md); the grants the model draws never include it
          const u = await createAdminUser(t);
          const model: Model = { annotations: {}, deactivated: false, ppa: false, rights: new Set(), rv: u.resourceVersion, oldRvs: [] };
          try {
            await fc.asyncModelRun(() => ({ model, real: { t, id: u.id } }), cmds);
            await new Read().run(model, { t, id: u.id }); // the final state, whatever the sequence ended with
          } catch (e) {
            if (e instanceof ConformanceFailure) throw new ConformanceFailure(e.failures.map((f) => ({ ...f, message: `${f.message} [commands: ${cmds.toString()}]` })));
            throw e;
          } finally {
            await t.clientFor('ledger').call('deleteUser', { params: { 'user-id': u.id }, conform: false });
          }
        },
        { runs: t.scaledRuns(20), concurrent: true },
      );
    },
  );
});
