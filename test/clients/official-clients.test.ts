/**
 * The reference server read by the official TypeScript clients of the Canton Network, as published on the npm
 * registry (pinned in package.json): @canton-network/core-ledger-client, @canton-network/core-splice-client and
 * @canton-network/core-token-standard. Every SPEC.md endpoint a client exposes is called through the client, and the
 * answer is checked against the type the client declares for it (client-shapes.ts): a call the reference answers in a
 * shape the client cannot read fails here. Where a client has a method that reads the answer itself (the ledger
 * client's version negotiation, user creation, rights grants and topology generation, the scan proxy's active mining
 * round, the token standard's Daml encoders and decoders), the test calls that method too.
 *
 * Endpoints a client does not type are still sent through the client's own transport: the traffic accounts (not in
 * the participant's OpenAPI document the ledger client is generated from), the validator's /v0/entry/all (the splice
 * client has the validator's internal API only) and the registry's allocation-instruction v2 paths (the token standard
 * client has v1). Their answers are read as the nearest type the client has (the v1 registry types, whose schemas the
 * v2 answers share) or, where it has none, checked for the fields SPEC.md lists.
 *
 * The same calls run against the default reference and the self-test's reference variants (reference/variant.ts):
 * the clients must read every allowed form of answer the variants give. A last block plants faults that break a
 * field the clients need and shows the check fails on each.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { SignJWT } from 'jose';
import { LedgerClient } from '@canton-network/core-ledger-client';
import { ScanClient, ScanProxyClient, ValidatorInternalClient } from '@canton-network/core-splice-client';
import { AllocationInstructionV1, MetadataV1, TokenStandardClient } from '@canton-network/core-token-standard';
import { startReference, type ReferenceOptions, type ReferenceServer } from '../../reference/index.js';
import { referenceFixtures } from '../../reference/data/fixtures.js';
import { FEATURED_PROVIDER_NAMES } from '../../reference/data/contracts.js';
import { compareVersions, party } from '../../reference/data/seed.js';
import { createWorld } from '../../reference/world.js';
import { chooseVariant, DEFAULT_VARIANT } from '../../reference/variant.js';
import { clientShapes, type ClientShapes } from './client-shapes.js';

type Json = any; // eslint-disable-line @typescript-eslint/no-explicit-any

/** The client types the answers are read as: each the type a client method declares it returns. */
const HEADER = `
import type { JsCantonError, LedgerClient, PostResponse } from '@canton-network/core-ledger-client';
import type { ScanClient, ScanProxyClient, ScanTypes } from '@canton-network/core-splice-client';
import type { TokenStandardClient, allocationInstructionRegistryTypes, transferInstructionRegistryTypes } from '@canton-network/core-token-standard';
declare const ledger: LedgerClient;
declare const scan: ScanClient;
declare const proxy: ScanProxyClient;
declare const registry: TokenStandardClient;
type R<F extends (...a: never[]) => unknown> = Awaited<ReturnType<F>>;
`;
const TYPES = {
  version: `R<typeof ledger.get<'/v2/version'>>`,
  getUser: `R<typeof ledger.get<'/v2/users/{user-id}'>>`,
  createUser: `R<LedgerClient['createUser']>`,
  updateUser: `R<typeof ledger.patch<'/v2/users/{user-id}'>>`,
  grantRights: `R<LedgerClient['grantRights']>`,
  listRights: `R<typeof ledger.get<'/v2/users/{user-id}/rights'>>`,
  packageVetting: `R<typeof ledger.get<'/v2/package-vetting'>>`,
  generateTopology: `R<LedgerClient['generateTopology']>`,
  connectedSynchronizers: `R<typeof ledger.get<'/v2/state/connected-synchronizers'>>`,
  transactionByOffset: `R<typeof ledger.post<'/v2/updates/transaction-by-offset'>>`,
  transactionTree: `R<typeof ledger.post<'/v2/commands/submit-and-wait-for-transaction-tree'>>`,
  reassignment: `R<typeof ledger.post<'/v2/commands/submit-and-wait-for-reassignment'>>`,
  // the method's instantiated type is any for this octet-stream request: the response type the client exports
  upload: `PostResponse<'/v2/packages'>`,
  // the rejection of postWithRetry, getWithRetry and patchWithRetry (asJsCantonError)
  cantonError: `JsCantonError`,
  event: `R<typeof scan.get<'/v0/events/{update_id}'>>`,
  activities: `R<typeof scan.post<'/v0/activities'>>`,
  scanError: `ScanTypes['ErrorResponse']`,
  ansEntries: `R<typeof scan.get<'/v0/ans-entries'>>`,
  licenses: `R<typeof scan.get<'/v0/admin/validator/licenses'>>`,
  proxyRounds: `R<typeof proxy.get<'/v0/scan-proxy/open-and-issuing-mining-rounds'>>`,
  proxyActiveRound: `R<ScanProxyClient['getActiveOpenMiningRound']>`,
  proxyFeaturedApp: `R<typeof proxy.get<'/v0/scan-proxy/featured-apps/{provider_party_id}'>>`,
  proxyAnsEntries: `R<typeof proxy.get<'/v0/scan-proxy/ans-entries'>>`,
  transferInstructionWithdraw: `R<typeof registry.post<'/registry/transfer-instruction/v1/{transferInstructionId}/choice-contexts/withdraw'>>`,
  // the clients know the allocation-instruction API in version 1 only: SPEC.md's v2 answers have the same schemas
  allocationFactory: `allocationInstructionRegistryTypes['schemas']['FactoryWithChoiceContext']`,
  choiceContext: `allocationInstructionRegistryTypes['schemas']['ChoiceContext']`,
  registryError: `transferInstructionRegistryTypes['schemas']['ErrorResponse']`,
} as const;
type TypeName = keyof typeof TYPES;

let shapes: ClientShapes;
beforeAll(() => {
  shapes = clientShapes(HEADER, TYPES);
}, 60_000);

/** a logger the clients accept (pino's interface, silent) */
const logger: Json = { debug() {}, info() {}, warn() {}, error() {}, trace() {}, fatal() {}, child: () => logger };

/** the answer, read as the client's type: no problem may remain */
function readable<T>(name: TypeName, value: T, what: string = name): T {
  const problems = shapes.problems(name, value);
  expect(problems, `${what} as the client reads it (${shapes.describe(name).slice(0, 300)})`).toEqual([]);
  return value;
}

/** a call through a client that must succeed: the client rejects with the error body otherwise */
async function call<T>(p: Promise<T>): Promise<unknown extends T ? Json : T> {
  try {
    return (await p) as unknown extends T ? Json : T;
  } catch (e) {
    throw new Error(`the client's call failed: ${JSON.stringify(e) ?? String(e)}${e instanceof Error ? ` ${e.stack}` : ''}`);
  }
}

/** a call through a client that must fail: what the client rejects with */
async function rejection(p: Promise<unknown>): Promise<Json> {
  try {
    await p;
  } catch (e) {
    return e;
  }
  throw new Error('the call succeeded');
}

/** A started reference with the clients' credentials and the fixtures of its variant. */
class Target {
  private readonly tokens = new Map<string, string>();
  constructor(readonly server: ReferenceServer) {}

  static async start(o: ReferenceOptions): Promise<Target> {
    return new Target(await startReference(o));
  }

  private async token(sub: string): Promise<string> {
    let t = this.tokens.get(sub);
    if (t === undefined) {
      const secret = new TextEncoder().encode(this.server.auth.hs256Secret);
      t = await new SignJWT({}).setProtectedHeader({ alg: 'HS256' }).setSubject(sub).setIssuedAt().setExpirationTime('1h').sign(secret);
      this.tokens.set(sub, t);
    }
    return t;
  }

  /** the clients' AccessTokenProvider for a user (null: no token) */
  tokenProvider(sub: string | null): Json {
    return {
      getAccessToken: async () => (sub === null ? '' : this.token(sub)),
      getAuthContext: async () => {
        throw new Error('not used by the clients under test');
      },
    };
  }

  /** the seeded data this server has (its variant's parties, its data sizes) */
  fixtures() {
    const s = this.server;
    const world = createWorld(s.options.variant === undefined ? DEFAULT_VARIANT : chooseVariant(s.options.variant));
    const base = referenceFixtures({ size: s.options.size });
    const config = s.targetConfig();
    const registry = config.registry.fixtures as { transferInstructionIds: string[]; allocationInstructionIds: string[]; allocationFactoryChoiceArguments: Json };
    return {
      updateIds: base.scan.updateIds,
      /** the scan's page maximum (a variant may serve a smaller one than the default 1000) */
      maxPageSize: String(world.variant.scanMaxPageSize),
      activeEntryNames: base.validator.activeEntryNames,
      featuredProviders: FEATURED_PROVIDER_NAMES.map((n) => party(world, n)),
      unfeaturedProvider: party(world, 'alice'),
      factoryId: base.registry.factoryId,
      transferInstructionId: registry.transferInstructionIds[0]!,
      reassigningTransferInstructionId: base.registry.reassigningTransferInstructionId,
      allocationInstructionId: registry.allocationInstructionIds[0]!,
      factoryChoiceArguments: registry.allocationFactoryChoiceArguments,
      darFile: (config.ledger.fixtures as { darFile: string }).darFile,
    };
  }
}

const IOU = '#reference-iou:Iou:Iou';

/** Every client against one reference. */
function clientsAgainst(label: string, options: ReferenceOptions): void {
  const activitiesServed = options.scanVersion !== undefined && compareVersions(options.scanVersion, '0.6.8') < 0;
  describe(label, () => {
    let target: Target;
    let fx: ReturnType<Target['fixtures']>;
    let urls: ReferenceServer['urls'];
    beforeAll(async () => {
      target = await Target.start(options);
      fx = target.fixtures();
      urls = target.server.urls;
    });
    afterAll(async () => target?.server.close());

    describe('@canton-network/core-ledger-client (LedgerClient)', () => {
      let admin: LedgerClient;
      let alice: LedgerClient;
      let aliceParty: string;
      let syncs: string[];
      // the generic methods, called with paths the types do not all know (the traffic accounts)
      const adminApi = () => admin as Json;
      const aliceApi = () => alice as Json;

      beforeAll(async () => {
        const client = (user: string) => new LedgerClient({ baseUrl: new URL(urls.ledger), logger, accessTokenProvider: target.tokenProvider(user) });
        admin = client(target.server.auth.adminUser);
        alice = client('alice_user');
        // init() reads GET /v2/version and picks the client's API version from it
        await call(admin.init());
        await call(alice.init());
        syncs = readable('connectedSynchronizers', await call(adminApi().get('/v2/state/connected-synchronizers'))).connectedSynchronizers.map((s: Json) => s.synchronizerId);
        aliceParty = readable('getUser', await call(aliceApi().get('/v2/users/{user-id}', { path: { 'user-id': 'alice_user' } }))).user.primaryParty;
      });

      it('negotiates the API version from GET /v2/version and finds a synchronizer', async () => {
        expect(admin.getCurrentClientVersion()).toBe(options.ledgerVersion ?? '3.5');
        readable('version', await call(adminApi().get('/v2/version')));
        expect(await call(admin.getSynchronizerId())).toBe(syncs[0]);
      });

      it('creates a user, updates it (PATCH /v2/users/{user-id}) and reads it back', async () => {
        const id = `client-user-${process.pid}`;
        const created = readable('createUser', await call(admin.createUser(id, aliceParty)));
        expect(created.id).toBe(id);
        const rv = readable('getUser', await call(adminApi().get('/v2/users/{user-id}', { path: { 'user-id': id } }))).user.metadata?.resourceVersion;
        const updated = readable(
          'updateUser',
          await call(
            adminApi().patch(
              '/v2/users/{user-id}',
              {
                user: { id, isDeactivated: false, primaryParty: aliceParty, identityProviderId: '', metadata: { resourceVersion: rv, annotations: { 'clients.example.com/checked': 'yes' } } },
                updateMask: { paths: ['metadata.annotations'] },
              },
              { path: { 'user-id': id } },
            ),
          ),
        );
        expect(updated.user.metadata.annotations['clients.example.com/checked']).toBe('yes');
        // createUser finds an existing user and returns it
        expect(readable('createUser', await call(admin.createUser(id, aliceParty))).id).toBe(id);
      });

      it('grants rights (POST /v2/users/{user-id}/rights) and reads them', async () => {
        const id = `client-rights-${process.pid}`;
        await call(admin.createUser(id, aliceParty));
        const granted = readable('grantRights', await call(admin.grantRights(id, { readAs: [aliceParty], actAs: [aliceParty], canReadAsAnyParty: true })));
        expect(granted.newlyGrantedRights?.length).toBeGreaterThan(0);
        // re-granting held rights: the client requires newlyGrantedRights present, even empty
        await call(admin.grantMasterUserRights(id, true, false));
        readable('listRights', await call(adminApi().get('/v2/users/{user-id}/rights', { path: { 'user-id': id } })));
      });

      it('lists vetted packages (GET /v2/package-vetting, sent without a body)', async () => {
        expect(readable('packageVetting', await call(adminApi().get('/v2/package-vetting'))).vettedPackages.length).toBeGreaterThan(0);
      });

      it('generates the topology of an external party', async () => {
        const key = Buffer.alloc(32, 7).toString('base64');
        const t = readable('generateTopology', await call(admin.generateTopology(syncs[0]!, key, `client-ext-${process.pid}`)));
        expect(t.topologyTransactions.length).toBeGreaterThan(0);
        expect(t.partyId.startsWith('client-ext-')).toBe(true);
      });

      it('submits a transaction tree, reads the transaction by offset and reassigns its contract', async () => {
        const tree = readable(
          'transactionTree',
          await call(
            aliceApi().post('/v2/commands/submit-and-wait-for-transaction-tree', {
              commands: [{ CreateCommand: { templateId: IOU, createArguments: { issuer: aliceParty, owner: aliceParty, amount: '2.0000000000', currency: 'USD', observers: [] } } }],
              commandId: `client-cmd-${process.pid}`,
              userId: 'alice_user',
              actAs: [aliceParty],
              synchronizerId: syncs[0],
            }),
          ),
        );
        const created = (Object.values(tree.transactionTree.eventsById)[0] as Json).CreatedTreeEvent.value;
        const wildcard = { filtersByParty: { [aliceParty]: { cumulative: [{ identifierFilter: { WildcardFilter: { value: { includeCreatedEventBlob: true } } } }] } }, verbose: true };
        for (const transactionShape of ['TRANSACTION_SHAPE_ACS_DELTA', 'TRANSACTION_SHAPE_LEDGER_EFFECTS']) {
          const tx = readable('transactionByOffset', await call(aliceApi().post('/v2/updates/transaction-by-offset', { offset: tree.transactionTree.offset, transactionFormat: { eventFormat: wildcard, transactionShape } })), `transactionByOffset (${transactionShape})`);
          expect(tx.transaction.events[0].CreatedEvent.contractId).toBe(created.contractId);
        }
        const reassign = (command: Json, n: number) =>
          aliceApi().post('/v2/commands/submit-and-wait-for-reassignment', {
            reassignmentCommands: { commandId: `client-re-${process.pid}-${n}`, submitter: aliceParty, userId: 'alice_user', commands: [{ command }] },
            eventFormat: wildcard,
          });
        const un = readable('reassignment', await call(reassign({ UnassignCommand: { value: { contractId: created.contractId, source: syncs[0], target: syncs[1] } } }, 1)), 'unassignment');
        const reassignmentId = un.reassignment.events[0].JsUnassignedEvent.value.reassignmentId;
        const as = readable('reassignment', await call(reassign({ AssignCommand: { value: { reassignmentId, source: syncs[0], target: syncs[1] } } }, 2)), 'assignment');
        expect(as.reassignment.events[0].JsAssignmentEvent.createdEvent.contractId).toBe(created.contractId);
      });

      it('reads a JsCantonError as the retrying methods do', async () => {
        const e = await rejection(admin.getWithRetry('/v2/users/{user-id}', { retries: 1, delayMs: 0, cantonErrorKeys: [] }, { path: { 'user-id': `nobody-${process.pid}` } }));
        expect(readable('cantonError', e).code).toBe('USER_NOT_FOUND');
      });

      it.skipIf(options.ledgerVersion === '3.4')('updates a traffic account (3.5; no client type: the fields SPEC.md lists)', async () => {
        const r = await call(adminApi().post('/v2/traffic/accounts', { accountId: aliceParty, balanceDelta: 5, deduplicationId: `client-${process.pid}` }));
        expect(typeof r.response.accountId).toBe('string');
        expect(typeof r.response.balance).toBe('number');
      });

      it('uploads a DAR (POST /v2/packages; the client sends no Content-Type)', async () => {
        const dar = readFileSync(fx.darFile);
        const octets = { bodySerializer: (b: unknown) => b, headers: { 'Content-Type': 'application/octet-stream' } };
        readable('upload', await call(adminApi().post('/v2/packages', dar, { query: { vetAllPackages: true, synchronizerId: syncs[0] } }, octets)));
      });
    });

    describe('@canton-network/core-splice-client (ScanClient)', () => {
      let scan: Json;
      beforeAll(() => {
        scan = new ScanClient(new URL(urls.scan), logger, target.tokenProvider(null));
      });

      it('reads every seeded event by update id, in both value encodings', async () => {
        for (const [name, id] of Object.entries(fx.updateIds)) {
          for (const enc of ['compact_json', 'protobuf_json']) {
            readable('event', await call(scan.get('/v0/events/{update_id}', { path: { update_id: id }, query: { daml_value_encoding: enc } })), `event ${name} (${enc})`);
          }
        }
      });

      it('lists ANS entries', async () => {
        expect(readable('ansEntries', await call(scan.get('/v0/ans-entries', { query: { page_size: fx.maxPageSize } }))).entries.length).toBeGreaterThan(0);
        readable('ansEntries', await call(scan.get('/v0/ans-entries', { query: { page_size: '5', name_prefix: 'alice' } })));
      });

      it('answers an unknown update id with an error the client reads', async () => {
        readable('scanError', await rejection(scan.get('/v0/events/{update_id}', { path: { update_id: `1220${'0'.repeat(64)}` } })));
      });

      it.skipIf(!activitiesServed)('lists activities (POST /v0/activities, removed in 0.6.8)', async () => {
        const first = readable('activities', await call(scan.post('/v0/activities', { page_size: 10 })));
        expect(first.activities.length).toBe(10);
        readable('activities', await call(scan.post('/v0/activities', { page_size: 100, begin_after_id: first.activities.at(-1).event_id })));
      });

      it('lists validator licenses page by page', async () => {
        const first = readable('licenses', await call(scan.get('/v0/admin/validator/licenses', { query: { limit: '10' } })));
        expect(first.validator_licenses).toHaveLength(10);
        const rest = readable('licenses', await call(scan.get('/v0/admin/validator/licenses', { query: { limit: fx.maxPageSize, after: String(first.next_page_token) } })));
        expect(rest.validator_licenses.length).toBeGreaterThan(0);
      });
    });

    describe('@canton-network/core-splice-client (ScanProxyClient, ValidatorInternalClient)', () => {
      let proxy: ScanProxyClient;
      let validator: Json;
      beforeAll(() => {
        proxy = new ScanProxyClient(new URL(urls.validator), logger, target.tokenProvider(target.server.auth.validatorUser));
        validator = new ValidatorInternalClient(new URL(urls.validator), logger, target.tokenProvider(target.server.auth.validatorUser));
      });

      it('reads the open and issuing mining rounds and finds the round open now', async () => {
        const rounds = readable('proxyRounds', await call(proxy.get('/v0/scan-proxy/open-and-issuing-mining-rounds')));
        expect(rounds.open_mining_rounds.length).toBeGreaterThan(0);
        const active = readable('proxyActiveRound', await call(proxy.getActiveOpenMiningRound()));
        expect(active, 'the client finds a round with opensAt <= now < targetClosesAt').not.toBeNull();
        expect(Date.parse(String(active!.payload.opensAt))).toBeLessThanOrEqual(Date.now());
      });

      it('reads featured app rights, present and absent', async () => {
        for (const p of fx.featuredProviders) {
          const r = readable('proxyFeaturedApp', await call(proxy.get('/v0/scan-proxy/featured-apps/{provider_party_id}', { path: { provider_party_id: p } })));
          expect(r.featured_app_right?.payload.provider).toBe(p);
        }
        readable('proxyFeaturedApp', await call(proxy.get('/v0/scan-proxy/featured-apps/{provider_party_id}', { path: { provider_party_id: fx.unfeaturedProvider } })));
      });

      it('lists ANS entries through the scan proxy', async () => {
        expect(readable('proxyAnsEntries', await call(proxy.get('/v0/scan-proxy/ans-entries', { query: { page_size: '20', name_prefix: '' } }))).entries.length).toBeGreaterThan(0);
      });

      it("lists the user's own ANS entries (GET /v0/entry/all; no client type: the fields SPEC.md lists)", async () => {
        const r = await call(validator.get('/v0/entry/all'));
        expect([...r.entries.map((e: Json) => e.name)].sort()).toEqual([...fx.activeEntryNames].sort());
        for (const e of r.entries) for (const f of ['contractId', 'name', 'amount', 'unit', 'expiresAt', 'paymentInterval', 'paymentDuration']) expect(typeof e[f], f).toBe('string');
      });
    });

    describe('@canton-network/core-token-standard (TokenStandardClient)', () => {
      let registry: Json;
      beforeAll(() => {
        registry = new TokenStandardClient(urls.registry, logger, target.tokenProvider(null));
      });

      /** the choice context as the token standard's Daml decoder reads it */
      const decodeContext = (ctx: Json) => MetadataV1.ChoiceContext.decoder.runWithException(ctx.choiceContextData);

      it('gets the withdraw context of a transfer instruction, with and without debug fields', async () => {
        for (const excludeDebugFields of [false, true]) {
          const ctx = readable(
            'transferInstructionWithdraw',
            await call(registry.post('/registry/transfer-instruction/v1/{transferInstructionId}/choice-contexts/withdraw', { excludeDebugFields, meta: {} }, { path: { transferInstructionId: fx.transferInstructionId } })),
          );
          expect(ctx.disclosedContracts.length).toBeGreaterThan(0);
          decodeContext(ctx);
        }
      });

      it('answers an unknown or moving instruction with an error the client reads', async () => {
        const withdraw = (id: string) => registry.post('/registry/transfer-instruction/v1/{transferInstructionId}/choice-contexts/withdraw', { excludeDebugFields: false }, { path: { transferInstructionId: id } });
        readable('registryError', await rejection(withdraw(`00${'0'.repeat(64)}`)), 'unknown instruction');
        readable('registryError', await rejection(withdraw(fx.reassigningTransferInstructionId)), 'instruction being reassigned');
      });

      it('gets the withdraw context of an allocation instruction (v2)', async () => {
        const ctx = readable(
          'choiceContext',
          await call(registry.post('/registry/allocation-instruction/v2/{allocationInstructionId}/choice-contexts/withdraw', { excludeDebugFields: false }, { path: { allocationInstructionId: fx.allocationInstructionId } })),
        );
        decodeContext(ctx);
      });

      it('gets the allocation factory (v2) for choice arguments the Daml encoder wrote', async () => {
        const given = fx.factoryChoiceArguments;
        const leg = Object.values(given.allocation.transferLegs)[0] as Json;
        const { settlement } = given.allocation;
        const choiceArguments = AllocationInstructionV1.AllocationFactory_Allocate.encode({
          expectedAdmin: given.expectedAdmin,
          allocation: {
            settlement: { ...settlement, settlementRef: { id: 'client-settlement', cid: null } },
            transferLegId: 'leg-0',
            transferLeg: { sender: leg.sender, receiver: leg.receiver, amount: '1.0', instrumentId: leg.instrumentId, meta: { values: {} } },
          },
          requestedAt: given.requestedAt,
          inputHoldingCids: [],
          extraArgs: { context: { values: {} }, meta: { values: {} } },
        });
        const f = readable('allocationFactory', await call(registry.post('/registry/allocation-instruction/v2/allocation-factory', { choiceArguments, excludeDebugFields: false })));
        expect(f.factoryId).toBe(fx.factoryId);
        decodeContext(f.choiceContext);
      });
    });
  });
}

clientsAgainst('the default reference', {});
// the ledger client's other API version, and a scan that still serves the removed activities (with the names real
// scans use, amulet_* and devnet_tap: the client's type has those only, so SPEC.md's coin_* and tap, a form the variants'
// activity-names choice also serves and the suite accepts, is one the official scan client cannot read)
clientsAgainst('a 3.4 participant and a 0.6.7 scan', { ledgerVersion: '3.4', scanVersion: '0.6.7' });
// the self-test's variants (harness/run/selftest.ts DEFAULT_VARIANT_SEEDS): every allowed form of answer they give
for (const variant of [1, 2, 12, 28, 43]) clientsAgainst(`reference variant ${variant}`, { variant });

describe('a shape the clients cannot read fails the check', () => {
  const FAULTS = [
    'ledger-transaction-by-offset-record-time-missing',
    'ledger-generate-topology-fingerprint-missing',
    'scan-events-verdict-result-lowercase',
    'scan-licenses-created-event-blob-missing',
    'validator-rounds-issuing-missing',
    'registry-choice-context-synchronizer-id-null',
  ];
  let target: Target;
  beforeAll(async () => {
    target = await Target.start({ faults: FAULTS });
  });
  afterAll(async () => target?.server.close());

  /** the problems the client type finds: at least one naming the broken field */
  const unreadable = (name: TypeName, value: unknown, field: string) => {
    const problems = shapes.problems(name, value);
    expect(problems.join('\n'), `${name} with a planted fault`).toContain(field);
  };

  it('finds each planted fault', async () => {
    const { urls, auth } = target.server;
    const fx = target.fixtures();
    const ledger = new LedgerClient({ baseUrl: new URL(urls.ledger), logger, accessTokenProvider: target.tokenProvider('alice_user'), version: '3.5' }) as Json;
    const alice = (await call(ledger.get('/v2/users/{user-id}', { path: { 'user-id': 'alice_user' } }))).user.primaryParty;
    const eventFormat = { filtersByParty: { [alice]: { cumulative: [{ identifierFilter: { WildcardFilter: { value: { includeCreatedEventBlob: false } } } }] } } };
    unreadable('transactionByOffset', await call(ledger.post('/v2/updates/transaction-by-offset', { offset: 1, transactionFormat: { eventFormat, transactionShape: 'TRANSACTION_SHAPE_ACS_DELTA' } })), 'recordTime');
    const admin = new LedgerClient({ baseUrl: new URL(urls.ledger), logger, accessTokenProvider: target.tokenProvider(auth.adminUser), version: '3.5' });
    const sync = (await call((admin as Json).get('/v2/state/connected-synchronizers'))).connectedSynchronizers[0].synchronizerId;
    unreadable('generateTopology', await call(admin.generateTopology(sync, Buffer.alloc(32, 9).toString('base64'), 'client-fault')), 'publicKeyFingerprint');
    const scan = new ScanClient(new URL(urls.scan), logger, target.tokenProvider(null)) as Json;
    unreadable('event', await call(scan.get('/v0/events/{update_id}', { path: { update_id: fx.updateIds.transactionWithVerdict } })), 'verdict_result');
    unreadable('licenses', await call(scan.get('/v0/admin/validator/licenses', { query: { limit: '5' } })), 'created_event_blob');
    const proxy = new ScanProxyClient(new URL(urls.validator), logger, target.tokenProvider(auth.validatorUser)) as Json;
    unreadable('proxyRounds', await call(proxy.get('/v0/scan-proxy/open-and-issuing-mining-rounds')), 'issuing_mining_rounds');
    const registry = new TokenStandardClient(urls.registry, logger, target.tokenProvider(null)) as Json;
    const ctx = await call(registry.post('/registry/transfer-instruction/v1/{transferInstructionId}/choice-contexts/withdraw', { excludeDebugFields: false }, { path: { transferInstructionId: fx.transferInstructionId } }));
    unreadable('transferInstructionWithdraw', ctx, 'synchronizerId');
  });
});
