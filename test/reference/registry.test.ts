import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import Fastify, { type FastifyInstance } from 'fastify';
import { resolveReferenceOptions, startReference, type ReferenceContext, type ReferenceServer } from '../../reference/index.js';
import { FaultSet } from '../../reference/faults.js';
import { createWorld } from '../../reference/world.js';
import { registryRoutes } from '../../reference/registry/routes.js';
import { referenceFixtures } from '../../reference/data/fixtures.js';

type Json = any; // eslint-disable-line @typescript-eslint/no-explicit-any

const fx = referenceFixtures();
const ALLOC = (id: string) => `/registry/allocation-instruction/v2/${encodeURIComponent(id)}/choice-contexts/withdraw`;
const TRANSFER = (id: string) => `/registry/transfer-instruction/v1/${encodeURIComponent(id)}/choice-contexts/withdraw`;
const FACTORY = '/registry/allocation-instruction/v2/allocation-factory';
const SYNCHRONIZERS = createWorld().synchronizers;

let server: ReferenceServer;

async function post(path: string, body?: unknown, raw?: string, base = server.urls.registry): Promise<{ status: number; body: Json }> {
  const init: RequestInit = { method: 'POST' };
  if (raw !== undefined) init.body = raw;
  else if (body !== undefined) init.body = JSON.stringify(body);
  if (init.body !== undefined) init.headers = { 'content-type': 'application/json' };
  const r = await fetch(`${base}${path}`, init);
  const text = await r.text();
  // a text/plain body (a framework rejection) is kept as {text}
  return { status: r.status, body: (r.headers.get('content-type') ?? '').startsWith('text/plain') ? { text } : JSON.parse(text) };
}

/** an error body: {error}, or a text/plain 400 of the HTTP framework (a body that does not decode) */
function expectError(res: { status: number; body: Json }, status: number): void {
  expect(res.status).toBe(status);
  if (status === 400 && typeof res.body.text === 'string') expect(res.body.text.length).toBeGreaterThan(0);
  else expect(typeof res.body.error).toBe('string');
}

function expectContext(ctx: Json, withDebug: boolean): void {
  expect(typeof ctx.choiceContextData).toBe('object');
  expect(Array.isArray(ctx.disclosedContracts)).toBe(true);
  expect(ctx.disclosedContracts.length).toBeGreaterThan(0);
  for (const d of ctx.disclosedContracts) {
    for (const f of ['templateId', 'contractId', 'createdEventBlob', 'synchronizerId']) expect(typeof d[f]).toBe('string');
    expect(SYNCHRONIZERS).toContain(d.synchronizerId);
    const debug = Object.keys(d).filter((k) => k.startsWith('debug'));
    if (withDebug) {
      // null for a package the registry does not know by name (FACTS.md): the open mining round's
      if (d.templateId.endsWith(':Splice.Round:OpenMiningRound')) expect(d.debugPackageName).toBeNull();
      else expect(typeof d.debugPackageName).toBe('string');
      expect(typeof d.debugPayload).toBe('object');
      expect(Number.isNaN(Date.parse(d.debugCreatedAt))).toBe(false);
    } else {
      // excluded: sent as null, as real registries do (FACTS.md)
      expect(debug.sort()).toEqual(['debugCreatedAt', 'debugPackageName', 'debugPayload']);
      for (const k of debug) expect(d[k]).toBeNull();
    }
  }
}

beforeAll(async () => {
  server = await startReference();
});
afterAll(async () => server.close());

describe('registry withdraw contexts', () => {
  for (const [name, path, ids, reassigning, other] of [
    ['allocation instruction', ALLOC, fx.registry.allocationInstructionIds, fx.registry.reassigningAllocationInstructionId, fx.registry.transferInstructionIds[0]!],
    ['transfer instruction', TRANSFER, fx.registry.transferInstructionIds, fx.registry.reassigningTransferInstructionId, fx.registry.allocationInstructionIds[0]!],
  ] as const) {
    it(`returns the ${name} withdraw context, with and without debug fields`, async () => {
      for (const id of ids) {
        const plain = await post(path(id), {});
        expect(plain.status).toBe(200);
        expectContext(plain.body, true);
        const noDebug = await post(path(id), { excludeDebugFields: true, meta: { a: 'b' } });
        expect(noDebug.status).toBe(200);
        expectContext(noDebug.body, false);
        expect(noDebug.body.choiceContextData).toEqual(plain.body.choiceContextData);
        const explicitFalse = await post(path(id), { excludeDebugFields: false });
        expect(explicitFalse.body).toEqual(plain.body);
      }
      expect((await post(path(ids[0]!))).status).toBe(200); // no body at all
    });

    it(`rejects bad ${name} requests`, async () => {
      expectError(await post(path('00unknown'), {}), 404);
      expectError(await post(path(other), {}), 404);
      expectError(await post(path(ids[0]!), { excludeDebugFields: 'yes' }), 400);
      expectError(await post(path(ids[0]!), { meta: 5 }), 400);
      expectError(await post(path(ids[0]!), { meta: [] }), 400);
      // meta is a map from string to string (FACTS.md): the token standard's {values: {}} does not decode
      expectError(await post(path(ids[0]!), { meta: { values: {} } }), 400);
      expectError(await post(path(ids[0]!), [1, 2]), 400);
      expectError(await post(path(ids[0]!), undefined, '{"meta":'), 400);
      expectError(await post(path(reassigning), {}), 409);
    });
  }
});

describe('registry allocation factory', () => {
  it('returns the factory and its context', async () => {
    const res = await post(FACTORY, fx.registry.factoryRequest(3));
    expect(res.status).toBe(200);
    expect(res.body.factoryId).toBe(fx.registry.factoryId);
    expectContext(res.body.choiceContext, true);
    expect(res.body.choiceContext.disclosedContracts.map((d: Json) => d.contractId)).toContain(fx.registry.factoryId);
    const noDebug = await post(FACTORY, { ...fx.registry.factoryRequest(3), excludeDebugFields: true });
    expectContext(noDebug.body.choiceContext, false);
  });

  it('does not make the context depend on contract ids in the choice arguments', async () => {
    const a = await post(FACTORY, fx.registry.factoryRequest(2, []));
    const b = await post(FACTORY, fx.registry.factoryRequest(2, ['00aa', '00bb', fx.registry.allocationInstructionIds[0]!]));
    expect(b.status).toBe(200);
    expect(b.body).toEqual(a.body);
  });

  it('supports up to the configured number of transfer legs', async () => {
    expect((await post(FACTORY, fx.registry.factoryRequest(25))).status).toBe(200);
    expectError(await post(FACTORY, fx.registry.factoryRequest(26)), 400);
    const req = fx.registry.factoryRequest(25) as Json;
    req.choiceArguments.allocation.transferLegs = Object.values(req.choiceArguments.allocation.transferLegs);
    expect((await post(FACTORY, req)).status).toBe(200);
    req.choiceArguments.allocation.transferLegs.push(req.choiceArguments.allocation.transferLegs[0]);
    expectError(await post(FACTORY, req), 400);
    const big = await startReference({ transferLegs: 100 });
    try {
      expect((await post(FACTORY, fx.registry.factoryRequest(100), undefined, big.urls.registry)).status).toBe(200);
      expectError(await post(FACTORY, fx.registry.factoryRequest(101), undefined, big.urls.registry), 400);
    } finally {
      await big.close();
    }
  });

  it('rejects missing or malformed choice arguments', async () => {
    const bad = [
      {},
      { choiceArguments: null },
      { choiceArguments: [] },
      { choiceArguments: 'x' },
      { choiceArguments: {} },
      { choiceArguments: { allocation: 5 } },
      { choiceArguments: { allocation: { transferLegs: 'x' } } },
      { choiceArguments: { allocation: { transferLegs: [1] } } },
      { ...fx.registry.factoryRequest(1), excludeDebugFields: 1 },
    ];
    for (const b of bad) expectError(await post(FACTORY, b), 400);
    expectError(await post(FACTORY), 400);
    expectError(await post(FACTORY, undefined, 'nope'), 400);
  });
});

describe('registry against contracts being reassigned', () => {
  let app: FastifyInstance;
  let ctx: ReferenceContext;
  beforeAll(async () => {
    ctx = { options: resolveReferenceOptions(), faults: new FaultSet(), world: createWorld() };
    app = Fastify();
    await app.register(async (scope) => registryRoutes(scope, ctx), { prefix: '/api/registry' });
    await app.ready();
  });
  afterAll(async () => app.close());

  const call = async (url: string, payload: unknown) => {
    const r = await app.inject({ method: 'POST', url: `/api/registry${url}`, payload: payload as Record<string, unknown> });
    return { status: r.statusCode, body: r.json() as Json };
  };

  it('answers 409 while an involved contract is unassigned and follows its new synchronizer', async () => {
    const id = fx.registry.allocationInstructionIds[0]!;
    const tid = fx.registry.transferInstructionIds[0]!;
    const ok = await call(ALLOC(id), {});
    expect(ok.status).toBe(200);
    const disclosed = ok.body.disclosedContracts[0].contractId as string;
    const rec = ctx.world.contracts.get(disclosed)!;
    rec.synchronizerId = null;
    expectError(await call(ALLOC(id), {}), 409);
    expectError(await call(TRANSFER(tid), {}), 409);
    expectError(await call(FACTORY, fx.registry.factoryRequest(1)), 409);
    rec.synchronizerId = SYNCHRONIZERS[1]!;
    const moved = await call(ALLOC(id), {});
    expect(moved.status).toBe(200);
    expect(moved.body.disclosedContracts[0].synchronizerId).toBe(SYNCHRONIZERS[1]);
    const instr = ctx.world.contracts.get(id)!;
    instr.synchronizerId = null;
    expectError(await call(ALLOC(id), {}), 409);
    instr.synchronizerId = SYNCHRONIZERS[0]!;
    expect((await call(ALLOC(id), {})).status).toBe(200);
    ctx.world.contracts.delete(id);
    expectError(await call(ALLOC(id), {}), 404);
  });
});

describe('registry with the ledger moving an instruction', () => {
  it('answers 409 between the ledger unassign and assign, and 200 again once assigned', async () => {
    const { SignJWT } = await import('jose');
    const alice = fx.registry.factoryRequest(1) as Json;
    const sender: string = Object.values<Json>(alice.choiceArguments.allocation.transferLegs)[0].sender;
    const tok = await new SignJWT({}).setProtectedHeader({ alg: 'HS256' }).setSubject('alice_user').sign(new TextEncoder().encode(server.auth.hs256Secret));
    const [src, dst] = SYNCHRONIZERS as [string, string];
    const id = fx.registry.allocationInstructionIds[2]!;
    const reassign = async (commandId: string, command: Json) => {
      const r = await fetch(`${server.urls.ledger}/v2/commands/submit-and-wait-for-reassignment`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${tok}` },
        body: JSON.stringify({
          reassignmentCommands: { commandId, submitter: sender, commands: [{ command }] },
          eventFormat: { filtersByParty: { [sender]: { cumulative: [] } }, verbose: false },
        }),
      });
      return { status: r.status, body: (await r.json()) as Json };
    };
    const un = await reassign('registry-test-unassign', { UnassignCommand: { value: { contractId: id, source: src, target: dst } } });
    expect(un.status).toBe(200);
    const reassignmentId = un.body.reassignment.events[0].JsUnassignedEvent.value.reassignmentId as string;
    expectError(await post(ALLOC(id), {}), 409);
    const as = await reassign('registry-test-assign', { AssignCommand: { value: { reassignmentId, source: src, target: dst } } });
    expect(as.status).toBe(200);
    const ok = await post(ALLOC(id), {});
    expect(ok.status).toBe(200);
  });
});
