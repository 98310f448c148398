import type { FastifyInstance } from 'fastify';
import type { ReferenceContext } from '../index.js';
import type { ContractRecord } from '../world.js';
import { HttpError, installJsonErrors, isPlainObject, objectBody, wildcardSegment } from '../data/http.js';
import { seedRegistry, type RegistryState } from './state.js';
import { TEMPLATES } from '../data/templates.js';
import { REGISTRY_TRANSFER_INSTRUCTION_WITHDRAW_UNKNOWN_ID_CONFLICT } from './faults-thin.js';

export interface DisclosedContract {
  templateId: string;
  contractId: string;
  createdEventBlob: string;
  synchronizerId: string;
  debugPackageName?: string;
  debugPayload?: Record<string, unknown>;
  debugCreatedAt?: string;
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

function commonBody(raw: unknown, allowAbsent: boolean): CommonBody {
  const body = objectBody(raw, allowAbsent);
  const x = body.excludeDebugFields;
  if (x !== undefined && x !== null && typeof x !== 'boolean') throw new HttpError(400, 'excludeDebugFields must be a boolean');
  const meta = body.meta;
  if (meta !== undefined && meta !== null && !isPlainObject(meta)) throw new HttpError(400, 'meta must be an object');
  return { excludeDebugFields: x === true, body };
}

/** the contracts a context involves, all present and assigned, or the error to answer */
function involved(ctx: ReferenceContext, cids: string[]): ContractRecord[] {
  const recs: ContractRecord[] = [];
  for (const cid of cids) {
    const r = ctx.world.contracts.get(cid);
    if (r === undefined) throw new HttpError(404, `contract ${cid} not found`);
    recs.push(r);
  }
  const moving = recs.find((r) => r.synchronizerId === null);
  if (moving !== undefined) throw new HttpError(409, `contract ${moving.contractId} is being reassigned; retry once it is assigned`);
  return recs;
}

function disclose(r: ContractRecord, excludeDebugFields: boolean): DisclosedContract {
  const d: DisclosedContract = {
    templateId: r.templateId,
    contractId: r.contractId,
    createdEventBlob: r.createdEventBlob,
    synchronizerId: r.synchronizerId!,
  };
  if (!excludeDebugFields) {
    d.debugPackageName = r.packageName;
    d.debugPayload = structuredClone(r.createArgument);
    d.debugCreatedAt = r.createdAt;
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

/** Registry API routes of the reference server (paths relative to its base address). */
export async function registryRoutes(app: FastifyInstance, ctx: ReferenceContext): Promise<void> {
  installJsonErrors(app);
  const s = registryState(ctx);

  const withdrawContext = (templateId: string, kind: string) =>
    async (req: { params: unknown; body: unknown; url: string }) => {
      const id = wildcardSegment(req.params, '/choice-contexts/withdraw');
      if (id === undefined) throw new HttpError(404, `no route for POST ${req.url.split('?')[0]}`);
      const { excludeDebugFields } = commonBody(req.body, true);
      const instr = ctx.world.contracts.get(id);
      if (instr === undefined || instr.templateId !== templateId) {
        const conflict = templateId === TEMPLATES.transferInstruction && ctx.faults.has(REGISTRY_TRANSFER_INSTRUCTION_WITHDRAW_UNKNOWN_ID_CONFLICT);
        throw new HttpError(conflict ? 409 : 404, `${kind} ${id} not found`);
      }
      const [, rules, round] = involved(ctx, [id, s.amuletRules, s.openRound]);
      return {
        choiceContextData: contextData(s),
        disclosedContracts: [disclose(rules!, excludeDebugFields), disclose(round!, excludeDebugFields)],
      };
    };

  // wildcards, not :id, so that a contract id longer than fastify's maxParamLength is still routed (see wildcardSegment)
  app.post('/registry/allocation-instruction/v2/*', withdrawContext(TEMPLATES.allocationInstruction, 'allocation instruction'));
  app.post('/registry/transfer-instruction/v1/*', withdrawContext(TEMPLATES.transferInstruction, 'transfer instruction'));

  app.post('/registry/allocation-instruction/v2/allocation-factory', async (req) => {
    const { excludeDebugFields, body } = commonBody(req.body, false);
    const choiceArguments = body.choiceArguments;
    if (!isPlainObject(choiceArguments)) throw new HttpError(400, 'choiceArguments is required and must be an object');
    const legs = countTransferLegs(choiceArguments);
    if (legs > ctx.options.transferLegs) {
      throw new HttpError(400, `allocation has ${legs} transfer legs; this registry supports at most ${ctx.options.transferLegs}`);
    }
    // The context depends only on the instrument (its admin), never on contract ids in the choice arguments.
    const [factory, rules, round] = involved(ctx, [s.factory, s.amuletRules, s.openRound]);
    return {
      factoryId: factory!.contractId,
      choiceContext: {
        choiceContextData: contextData(s),
        disclosedContracts: [factory!, rules!, round!].map((r) => disclose(r, excludeDebugFields)),
      },
    };
  });
}
