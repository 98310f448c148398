import './faults-derived.js';
import type { FastifyInstance } from 'fastify';
import type { ReferenceContext } from '../types.js';
import type { ContractRecord } from '../world.js';
import { HttpError, installJsonErrors, routeNotFound, isPlainObject, objectBody, undecodable, wildcardSegment } from '../data/http.js';
import { REASSIGNMENT_INSTRUMENT_ID, seedRegistry, type RegistryState } from './state.js';
import { TEMPLATES } from '../data/templates.js';
import { REGISTRY_TRANSFER_INSTRUCTION_WITHDRAW_UNKNOWN_ID_CONFLICT, REGISTRY_TRANSFER_INSTRUCTION_WITHDRAW_UNKNOWN_ID_EMPTY_CONTEXT } from './faults-thin.js';
import * as CC from './faults-choice-context.js';
import * as AI from './faults-allocation-instruction.js';
import * as AF from './faults-allocation-factory.js';
import * as TI from './faults-transfer-instruction.js';
import { installHttpFaults } from './faults-http.js';
import { compareVersions } from '../../harness/judging/versions.js';

export interface DisclosedContract {
  templateId: string;
  contractId: string;
  createdEventBlob: string;
  synchronizerId: string;
  debugPackageName?: string | null;
  debugPayload?: Record<string, unknown> | null;
  debugCreatedAt?: string | null;
}

const states = new WeakMap<ReferenceContext['world'], RegistryState>();

/** the registry's seeded contracts of a server (seeded once per world) */
export function registryState(ctx: ReferenceContext): RegistryState {
  let s = states.get(ctx.world);
  if (s === undefined) {
    s = seedRegistry(ctx.world);
    states.set(ctx.world, s);
  }
  return s;
}

interface CommonBody {
  excludeDebugFields: boolean;
  body: Record<string, unknown>;
}

/**
 * The fields every choice-context request shares, decoded as Splice's registry decodes them: a body that is not an
 * object, an excludeDebugFields that is not a boolean or a meta that is not a map from string to string does not decode
 * (FACTS.md: a framework 400, text/plain). `allowAbsent`: the body may be missing; `lenient` and `absentExcludes` are
 * planted faults (malformed-body-accepted, debug-excluded-by-default).
 */
function commonBody(raw: unknown, o: { allowAbsent: boolean; lenient?: boolean; absentExcludes?: boolean; flagRequired?: boolean }): CommonBody {
  const { allowAbsent, lenient = false, absentExcludes = false } = o;
  // planted fault (malformed-body-accepted): anything that parsed as JSON is taken, wrong types ignored
  if (lenient) return { excludeDebugFields: isPlainObject(raw) && raw.excludeDebugFields === true, body: isPlainObject(raw) ? raw : {} };
  const body = objectBody(raw, allowAbsent);
  const x = body.excludeDebugFields;
  if (x !== undefined && x !== null && typeof x !== 'boolean') throw undecodable('excludeDebugFields', 'is not a boolean');
  const meta = body.meta;
  if (meta !== undefined && meta !== null && !(isPlainObject(meta) && Object.values(meta).every((v) => typeof v === 'string'))) {
    throw undecodable('meta', 'is not a map from string to string');
  }
  // planted fault (exclude-debug-fields-required): a valid request without the flag is refused
  if (o.flagRequired === true && (x === undefined || x === null)) throw new HttpError(400, 'excludeDebugFields is required');
  // planted fault (debug-excluded-by-default): an absent flag counts as true
  return { excludeDebugFields: x === true || (absentExcludes && x === undefined), body };
}

/** the contracts a context involves, all present and assigned, or the error to answer (`servedMoving`: a planted fault) */
function involved(ctx: ReferenceContext, cids: string[], servedMoving = false): ContractRecord[] {
  const recs: ContractRecord[] = [];
  for (const cid of cids) {
    const r = ctx.world.contracts.get(cid);
    if (r === undefined) throw new HttpError(404, `contract ${cid} not found`);
    recs.push(r);
  }
  const moving = recs.find((r) => r.synchronizerId === null);
  if (moving !== undefined && servedMoving) return recs;
  if (moving !== undefined) throw new HttpError(409, `contract ${moving.contractId} is being reassigned; retry once it is assigned`);
  return recs;
}

function disclose(ctx: ReferenceContext, r: ContractRecord, excludeDebugFields: boolean): Omit<DisclosedContract, 'synchronizerId'> & { synchronizerId: string | null } {
  const f = ctx.faults;
  const d: Omit<DisclosedContract, 'synchronizerId'> & { synchronizerId: string | null } = {
    templateId: f.has(CC.CC_UNQUALIFIED_TEMPLATE_ID) ? r.templateId.split(':').slice(1).join(':') : r.templateId,
    contractId: r.contractId,
    createdEventBlob: f.has(CC.CC_EMPTY_CREATED_EVENT_BLOB) ? '' : f.has(CC.CC_CREATED_EVENT_BLOB_REENCODED) ? Buffer.from(r.createdEventBlob, 'base64').toString('hex') : r.createdEventBlob,
    // null only under the served-during-reassignment faults: the contract is then reported on its last synchronizer
    synchronizerId: f.has(CC.CC_UNKNOWN_SYNCHRONIZER_ID)
      ? CC.STALE_SYNCHRONIZER_ID
      : f.has(CC.CC_SYNCHRONIZER_OF_CREATION)
        ? ctx.world.synchronizers[0]! // every registry contract is seeded on the first synchronizer
        : (r.synchronizerId ?? ctx.world.synchronizers[0]!),
  };
  if (f.has(CC.CC_SYNCHRONIZER_ID_NULL)) d.synchronizerId = null;
  if (!excludeDebugFields || f.has(CC.CC_DEBUG_FIELDS_KEPT)) {
    // a registry that does not know a package by name sends debugPackageName null (FACTS.md): the open mining round's
    d.debugPackageName = r.templateId === TEMPLATES.openMiningRound ? null : r.packageName;
    d.debugPayload = structuredClone(r.createArgument);
    d.debugCreatedAt = f.has(CC.CC_DEBUG_CREATED_AT_NOT_DATE_TIME) ? String(Date.parse(r.createdAt)) : r.createdAt;
  } else {
    // excluded: sent as null, as real registries do (FACTS.md); SPEC.md's "omitted" is a SHOULD this reference, like
    // them, does not keep (registryKnownDifferences)
    d.debugPackageName = null;
    d.debugPayload = null;
    d.debugCreatedAt = null;
  }
  return d;
}

function contextData(s: RegistryState, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    values: {
      'amulet-rules': { tag: 'AV_ContractId', value: s.amuletRules },
      'open-round': { tag: 'AV_ContractId', value: s.openRound },
      ...extra,
    },
  };
}

/** number of transfer legs of choiceArguments.allocation (transferLegs as an object or an array, or one transferLeg) */
function countTransferLegs(choiceArguments: Record<string, unknown>): number {
  const allocation = choiceArguments.allocation;
  if (!isPlainObject(allocation)) throw new HttpError(400, 'choiceArguments.allocation must be an object');
  const legs = allocation.transferLegs;
  let list: unknown[];
  if (Array.isArray(legs)) list = legs;
  else if (isPlainObject(legs)) list = Object.values(legs);
  else if (legs === undefined && isPlainObject(allocation.transferLeg)) list = [allocation.transferLeg];
  else throw new HttpError(400, 'choiceArguments.allocation.transferLegs must be an object or an array of transfer legs');
  if (!list.every(isPlainObject)) throw new HttpError(400, 'every transfer leg must be an object');
  return list.length;
}

/** the instrument id of the first transfer leg of choiceArguments.allocation, if any */
function instrumentOf(choiceArguments: Record<string, unknown>): unknown {
  const legs = isPlainObject(choiceArguments.allocation) ? choiceArguments.allocation.transferLegs : undefined;
  const first = Array.isArray(legs) ? legs[0] : isPlainObject(legs) ? Object.values(legs)[0] : undefined;
  return isPlainObject(first) && isPlainObject(first.instrumentId) ? first.instrumentId.id : undefined;
}

/** Registry API routes of the reference server (paths relative to its base address). */
export async function registryRoutes(app: FastifyInstance, ctx: ReferenceContext): Promise<void> {
  installJsonErrors(app);
  installHttpFaults(app, ctx);
  const s = registryState(ctx);

  const f = ctx.faults;
  // SPEC.md Versioning: the allocation endpoints were added in 0.6.11
  const allocationServed = !f.has(AI.AI_NOT_SERVED) && (compareVersions(ctx.options.registryVersion, '0.6.11') >= 0 || f.has(AI.AI_SERVED_EARLY));
  const withdrawContext = (templateId: string, kind: string) =>
    async (req: { params: unknown; body: unknown; url: string; method: string }) => {
      const id = wildcardSegment(req.params, '/choice-contexts/withdraw');
      if (id === undefined) throw routeNotFound(req);
      const allocation = templateId === TEMPLATES.allocationInstruction;
      if (allocation ? !allocationServed : f.has(AI.TI_UNDER_V2)) throw routeNotFound(req);
      if (allocation && f.has(AI.AI_UNSUPPORTED)) throw new HttpError(400, 'this registry does not support allocation instructions');
      const lenient = f.has(allocation ? AI.AI_MALFORMED_BODY_ACCEPTED : TI.TI_MALFORMED_BODY_ACCEPTED);
      const { excludeDebugFields, body } = commonBody(req.body, { allowAbsent: true, lenient, absentExcludes: f.has(CC.CC_DEBUG_EXCLUDED_BY_DEFAULT), flagRequired: f.has(CC.CC_EXCLUDE_DEBUG_FIELDS_REQUIRED) });
      const instr = ctx.world.contracts.get(id);
      if (instr === undefined || instr.templateId !== templateId) {
        if (f.has(allocation ? AI.AI_UNKNOWN_ID_EMPTY_CONTEXT : REGISTRY_TRANSFER_INSTRUCTION_WITHDRAW_UNKNOWN_ID_EMPTY_CONTEXT)) return { choiceContextData: { values: {} }, disclosedContracts: [] };
        const conflict = templateId === TEMPLATES.transferInstruction && ctx.faults.has(REGISTRY_TRANSFER_INSTRUCTION_WITHDRAW_UNKNOWN_ID_CONFLICT);
        throw new HttpError(conflict ? 409 : 404, `${kind} ${id} not found`);
      }
      if (f.has(CC.CC_META_REQUIRED) && !isPlainObject(body.meta)) throw new HttpError(400, 'meta is required');
      // planted faults (served-during-reassignment; long-unassigned-served: only the instruction seeded unassigned)
      const servedMoving =
        f.has(allocation ? AI.AI_SERVED_DURING_REASSIGNMENT : TI.TI_SERVED_DURING_REASSIGNMENT) ||
        (f.has(allocation ? AI.AI_SEEDED_MOVING_SERVED : TI.TI_SEEDED_MOVING_SERVED) && (id === s.reassigningAllocationInstruction || id === s.reassigningTransferInstruction));
      // planted fault (served-while-disclosed-contract-moves): the instruction is checked, the contracts disclosed are not
      const disclosedMoving = allocation && f.has(AI.AI_SERVED_WHILE_DISCLOSED_MOVES);
      if (!servedMoving) involved(ctx, [id]);
      const [rules, round] = involved(ctx, [s.amuletRules, s.openRound], disclosedMoving);
      const context = {
        choiceContextData: contextData(s),
        disclosedContracts: [disclose(ctx, rules!, excludeDebugFields), disclose(ctx, round!, excludeDebugFields)],
      };
      // planted fault (empty-listings): every list answered empty
      if (f.has(CC.CC_EMPTY_LISTINGS)) return { choiceContextData: { values: {} }, disclosedContracts: [] };
      if (allocation && f.has(AI.AI_MISSING_CHOICE_CONTEXT_DATA)) return { disclosedContracts: context.disclosedContracts };
      if (!allocation && f.has(TI.TI_MISSING_DISCLOSED_CONTRACTS)) return { choiceContextData: context.choiceContextData };
      return context;
    };

  // wildcards, not :id, so that a contract id longer than fastify's maxParamLength is still routed (see wildcardSegment)
  app.post('/registry/allocation-instruction/v2/*', withdrawContext(TEMPLATES.allocationInstruction, 'allocation instruction'));
  app.post('/registry/transfer-instruction/v1/*', withdrawContext(TEMPLATES.transferInstruction, 'transfer instruction'));

  app.post('/registry/allocation-instruction/v2/allocation-factory', async (req) => {
    if (!allocationServed) throw routeNotFound(req);
    if (f.has(AI.AI_UNSUPPORTED)) throw new HttpError(400, 'this registry does not support allocation instructions');
    // planted fault (null-body-server-error): a field of the JSON null is read
    if (f.has(AF.AF_NULL_BODY_SERVER_ERROR) && req.body === null) throw new HttpError(500, "Cannot read properties of null (reading 'choiceArguments')");
    const { excludeDebugFields, body } = commonBody(req.body, { allowAbsent: false, absentExcludes: f.has(CC.CC_DEBUG_EXCLUDED_BY_DEFAULT), flagRequired: f.has(CC.CC_EXCLUDE_DEBUG_FIELDS_REQUIRED) });
    let choiceArguments = body.choiceArguments;
    if (choiceArguments === undefined && f.has(AF.AF_MISSING_CHOICE_ARGUMENTS_ACCEPTED)) choiceArguments = { allocation: { transferLegs: {} } };
    if (!isPlainObject(choiceArguments)) throw undecodable('choiceArguments', 'is missing or not an object');
    // planted fault (invalid-allocation-accepted): an allocation without a map of transfer legs counts as none
    const legs = f.has(AF.AF_INVALID_ALLOCATION_ACCEPTED) && !(isPlainObject(choiceArguments.allocation) && isPlainObject(choiceArguments.allocation.transferLegs)) ? 0 : countTransferLegs(choiceArguments);
    const limit = f.has(AF.AF_AT_MOST_20_LEGS) ? Math.min(20, ctx.options.transferLegs) : ctx.options.transferLegs;
    if (legs > limit) {
      throw new HttpError(f.has(AF.AF_OVERSIZED_CONFLICT) ? 409 : 400, `allocation has ${legs} transfer legs; this registry supports at most ${limit}`);
    }
    // The context depends only on the instrument, never on contract ids in the choice arguments.
    const factoryCid = instrumentOf(choiceArguments) === REASSIGNMENT_INSTRUMENT_ID ? s.reassignmentFactory : s.factory;
    const [factory, rules, round] = involved(ctx, [factoryCid, s.amuletRules, s.openRound], f.has(AF.AF_SERVED_DURING_REASSIGNMENT));
    const holdings = Array.isArray(choiceArguments.inputHoldingCids) ? choiceArguments.inputHoldingCids : [];
    const extra = f.has(CC.CC_DEPENDS_ON_CONTRACT_IDS) && holdings.length > 0 ? { 'input-holdings': { tag: 'AV_List', value: holdings } } : {};
    const choiceContext = {
      choiceContextData: contextData(s, extra),
      disclosedContracts: [factory!, rules!, round!].map((r) => disclose(ctx, r, excludeDebugFields)),
    };
    if (f.has(CC.CC_EMPTY_LISTINGS)) return { factoryId: factory!.contractId, choiceContext: { choiceContextData: { values: {} }, disclosedContracts: [] } };
    if (f.has(AF.AF_MISSING_FACTORY_ID)) return { choiceContext };
    return { factoryId: factory!.contractId, choiceContext };
  });
}
