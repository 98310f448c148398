/**
 * The reference server's target configuration: the `targets` block of a conformance configuration file (URLs, auth,
 * features, fixtures) that points the suite at a running reference server. The embedded reference reaches the suite
 * through it exactly as a vendor's node does through its configuration file: the harness never reads the reference's
 * internals. `serve --write-config FILE` writes it, so `run --config FILE` checks a served reference.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { strToU8, zipSync } from 'fflate';
import type { ReferenceContext } from './types.js';
import { allocationFactoryRequest } from './data/fixtures.js';
import { party } from './data/seed.js';
import { hashHex } from './data/seed.js';
import { advertisedTransferLegs } from './registry/faults-allocation-factory.js';
import { registryKnownDifferences } from './registry/faults-choice-context.js';
import { registryState } from './registry/routes.js';
import { sharedScanData } from './data/shared.js';
import { isExpiredIndex } from './data/ans.js';
import { scanFixtureIds } from './scan/history.js';
import { seedActivities } from './scan/activities.js';
import { compareVersions } from './data/seed.js';
import { REASSIGNMENT_INSTRUMENT_ID } from './registry/state.js';

/** One target as a configuration file writes it (harness/config.schema.json, `targets.<api>`). */
export interface TargetJson {
  url: string;
  version?: string;
  auth:
    | { kind: 'none' }
    | { kind: 'hs256'; secret: string; users: Record<string, string> };
  features?: Record<string, boolean>;
  fixtures?: Record<string, unknown>;
  /** SHOULD rules this target knowingly does not keep, as a vendor's configuration records them */
  disabledRequirements?: string[];
}

export interface ReferenceTargets {
  ledger: TargetJson;
  scan: TargetJson;
  validator: TargetJson;
  registry: TargetJson;
}

/** A minimal DAR whose manifest names the package `name-version` with the given 64-hex main package id. */
export function referenceDarArchive(name: string, version: string, packageId: string): Buffer {
  const dalf = `${name}-${version}-${packageId}/${name}-${version}-${packageId}.dalf`;
  const manifest = `Manifest-Version: 1.0\r\nCreated-By: damlc\r\nName: ${name}-${version}\r\nMain-Dalf: ${dalf}\r\nFormat: daml-lf\r\n`;
  const files = { 'META-INF/MANIFEST.MF': manifest, [dalf]: 'dalf-bytes' };
  return Buffer.from(zipSync(Object.fromEntries(Object.entries(files).map(([n, text]) => [n, strToU8(text)])), { level: 0 }));
}

type DarFixtures = { darFile: string; darPackageId: string; darFile2: string; darPackageId2: string };
let darFixture: DarFixtures | undefined;

/**
 * Two tiny DARs, written once per process to a temporary directory removed at exit. Their package ids are fresh per
 * process: every reference server is fresh, and a served one lives as long as the process that writes them.
 */
function referenceDars(): DarFixtures {
  if (darFixture !== undefined) return darFixture;
  const dir = mkdtempSync(join(tmpdir(), 'cc-dar-'));
  process.once('exit', () => rmSync(dir, { recursive: true, force: true }));
  const nonce = `${process.pid}:${Date.now()}:${Math.random()}`;
  const darPackageId = hashHex(`dar-1:${nonce}`);
  const darFile = join(dir, 'conformance-test.dar');
  writeFileSync(darFile, referenceDarArchive('conformance-test', '1.0.0', darPackageId));
  // a second, unrelated DAR: the synchronizer-targeted upload needs a package not vetted yet
  const darPackageId2 = hashHex(`dar-2:${nonce}`);
  const darFile2 = join(dir, 'conformance-test-other.dar');
  writeFileSync(darFile2, referenceDarArchive('conformance-test-other', '1.0.0', darPackageId2));
  darFixture = { darFile, darPackageId, darFile2, darPackageId2 };
  return darFixture;
}

/** Ledger fixtures: the reference's Iou template, an interface it implements and two tiny DARs. */
function ledgerFixtures(): Record<string, unknown> {
  return {
    templateId: '#reference-iou:Iou:Iou',
    createArguments: { issuer: '{{party}}', owner: '{{party}}', amount: '1.0000000000', currency: 'USD', observers: [] },
    choice: 'Archive',
    choiceArgument: {},
    interfaceId: '#reference-iou:Iou:Asset',
    // an identity provider besides the default one (reference/ledger/state.ts)
    otherIdentityProviderId: 'reference-idp',
    syntheticDars: true,
    ...referenceDars(),
  };
}

/** Registry fixtures: the seeded instruction ids, a valid factory request and the users that may reassign them. */
function registryFixtures(ctx: ReferenceContext): Record<string, unknown> {
  const reg = registryState(ctx);
  const request = allocationFactoryRequest(reg.instrumentId, party(ctx.world, 'alice'), party(ctx.world, 'bob'), party(ctx.world, 'trading-venue'), 1) as {
    choiceArguments: { allocation: { transferLegs: Record<string, { sender: string; instrumentId: { admin: string; id: string } }> } };
  };
  // the same allocation of the second instrument, whose factory no other check's context discloses
  const drill = structuredClone(request.choiceArguments);
  for (const leg of Object.values(drill.allocation.transferLegs)) leg.instrumentId = { ...leg.instrumentId, id: REASSIGNMENT_INSTRUMENT_ID };
  return {
    transferLegs: advertisedTransferLegs(ctx.options),
    allocationInstructionIds: reg.allocationInstructions,
    transferInstructionIds: reg.transferInstructions,
    allocationFactoryChoiceArguments: request.choiceArguments,
    // the seeded instructions' sender (alice) is a stakeholder, and alice_user can act as her
    reassignmentUser: 'alice_user',
    // the instructions seeded mid-reassignment (unassigned, never assigned while the server runs): withdraw answers 409
    midReassignmentAllocationInstructionId: reg.reassigningAllocationInstruction,
    midReassignmentTransferInstructionId: reg.reassigningTransferInstruction,
    reassignmentSubmitter: Object.values(request.choiceArguments.allocation.transferLegs)[0]!.sender,
    // the factory's contracts have the registry admin (DSO) as their only stakeholder, and dso_user can act as it
    factoryReassignmentUser: 'dso_user',
    factoryReassignmentSubmitter: reg.admin,
    factoryReassignmentChoiceArguments: drill,
    // every choice context discloses the rules and the open mining round (and the factory its own contract too)
    disclosedContractsMin: 2,
  };
}

/**
 * Scan fixtures that anchor rules no black-box walk can: ANS entries named in creation order (AnsEntry carries no
 * creation time; names of several owners, so that name order and creation order differ), and the update whose first
 * ingested verdict the seed knows (a later, REJECTED duplicate of it was dropped at ingestion).
 */
function scanFixtures(ctx: ReferenceContext): Record<string, unknown> {
  const data = sharedScanData(ctx);
  const ans = data.ans;
  const oldestFirst = Array.from({ length: Math.min(ans.size, 16) }, (_, i) => i).filter((i) => !isExpiredIndex(i)).map((i) => ans.name(i));
  // the validators of the newest, a middle and the oldest license: a walk of the listing must meet each
  const n = data.licenses.size;
  const licensed = [...new Set([n, Math.ceil(n / 2), 1])].filter((seq) => seq >= 1).map((seq) => (data.licenses.license(seq).payload as { validator: string }).validator);
  return {
    ansEntriesOldestFirst: oldestFirst,
    firstVerdict: { updateId: scanFixtureIds().duplicateVerdictAttempt, verdict: { verdict_result: 'VERDICT_RESULT_ACCEPTED' } },
    updateIds: Object.values(scanFixtureIds()),
    licensedValidators: licensed,
    ...activityFixtures(ctx),
    ...dsoFixtures(ctx),
    maxPageSize: ctx.world.variant.scanMaxPageSize,
  };
}

/**
 * Before 0.6.8 (POST /v0/activities served): the event ids of the newest, a middle and the oldest seeded activity,
 * which a walk of the listing must meet.
 */
function activityFixtures(ctx: ReferenceContext): { activityIds?: string[] } {
  if (compareVersions(ctx.options.scanVersion, '0.6.8') >= 0) return {};
  const all = seedActivities(ctx.world);
  const ids = [...new Set([0, Math.floor(all.length / 2), all.length - 1])].filter((k) => k >= 0 && k < all.length).map((k) => all[k]!.event_id);
  return ids.length > 0 ? { activityIds: ids } : {};
}

/** The DSO party and the SVs, whose ANS entries may come without contract id and expiry (the licenses' sponsors). */
function dsoFixtures(ctx: ReferenceContext): { dsoParty: string; svParties: string[] } {
  return { dsoParty: sharedScanData(ctx).dso, svParties: ['sv-1', 'sv-2', 'sv-3', 'sv-4'].map((n) => party(ctx.world, n)) };
}

/**
 * The mining rounds the reference's network always has, at the least: an open round (transfers need one) and an
 * issuing round (reference/data/contracts.ts seeds rounds 100..102 open and 98..99 issuing, for the whole run).
 */
const REFERENCE_ROUNDS_MIN = { open: 1, issuing: 1 } as const;

/** Validator fixtures: the validator user's party, a provider with a featured app right, the scan's page maximum. */
function validatorFixtures(ctx: ReferenceContext): Record<string, unknown> {
  const data = sharedScanData(ctx);
  const featured = [...data.featuredApps.keys()][0];
  return {
    // a second validator user (alice_user, acting for alice) and its party: whose entries a token lists
    secondUserParty: party(ctx.world, 'alice'),
    validatorParty: data.validatorParty,
    ...dsoFixtures(ctx),
    ...(featured !== undefined ? { featuredProvider: featured } : {}),
    maxPageSize: ctx.world.variant.scanMaxPageSize,
    // the rounds the network always has, which the scan-proxy must list: stated as an operator knows them of the
    // network (REFERENCE_ROUNDS_MIN), not read from the rounds the server holds, so that a server losing its rounds
    // also falls short of the configuration
    openMiningRoundsMin: REFERENCE_ROUNDS_MIN.open,
    issuingMiningRoundsMin: REFERENCE_ROUNDS_MIN.issuing,
  };
}

/** The `targets` block for a reference server listening at `base` (e.g. http://127.0.0.1:7575). */
export function referenceTargets(ctx: ReferenceContext, base: string, auth: { adminUser: string; validatorUser: string }): ReferenceTargets {
  const o = ctx.options;
  const hs256 = (users: Record<string, string>) => ({ kind: 'hs256' as const, secret: o.jwtSecret, users });
  return {
    ledger: {
      url: base,
      version: o.ledgerVersion,
      auth: hs256({ admin: auth.adminUser }),
      features: { trafficEnforcement: o.trafficEnforcement },
      fixtures: ledgerFixtures(),
    },
    scan: { url: `${base}/api/scan`, version: o.scanVersion, auth: { kind: 'none' }, fixtures: scanFixtures(ctx) },
    validator: {
      url: `${base}/api/validator`,
      version: o.scanVersion,
      // notOnboardedUser and deactivatedUser (reference/world.ts): users GET /v0/entry/all must list nothing for
      auth: hs256({ user: auth.validatorUser, secondUser: 'alice_user', notOnboardedUser: 'unonboarded_user', deactivatedUser: 'deactivated_user' }),
      fixtures: validatorFixtures(ctx),
    },
    registry: { url: `${base}/api/registry`, version: o.registryVersion, auth: { kind: 'none' }, fixtures: registryFixtures(ctx), disabledRequirements: registryKnownDifferences(o) },
  };
}
