/**
 * Bodies of POST /registry/allocation-instruction/v2/allocation-factory (SPEC.md): `choiceArguments` of the allocate
 * choice, built from a template the target provides (fixture `allocationFactoryChoiceArguments`), with a chosen number
 * of transfer legs or with other contract ids in the places that hold contract ids (`inputHoldingCids`, a
 * `settlementRef.cid` that is set). The template's first transfer leg is the model of every generated leg.
 */
import fc from 'fast-check';

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => v !== null && typeof v === 'object' && !Array.isArray(v);

/** A contract-id-like string: `00`, 64 lowercase hex digits, then up to 34 bytes of suffix in hex. */
export function contractIdLike(): fc.Arbitrary<string> {
  const hex = (n: number) => fc.string({ unit: fc.constantFrom(...'0123456789abcdef'), minLength: n, maxLength: n });
  const suffix = fc.integer({ min: 0, max: 34 }).chain((n) => hex(2 * n));
  return fc.tuple(hex(64), suffix).map(([h, s]) => `00${h}${s}`);
}

/** The legs of a template's allocation, as a list (transferLegs may be a map of leg id to leg, or a list). */
function legsOf(choiceArguments: Obj): Obj[] {
  const alloc = choiceArguments.allocation;
  if (!isObj(alloc)) return [];
  const legs = alloc.transferLegs;
  const list = Array.isArray(legs) ? legs : isObj(legs) ? Object.values(legs) : isObj(alloc.transferLeg) ? [alloc.transferLeg] : [];
  return list.filter(isObj);
}

/** Whether a template has an allocation with at least one transfer leg (what `withTransferLegs` needs). */
export function hasTransferLegs(choiceArguments: Obj): boolean {
  return legsOf(choiceArguments).length > 0;
}

/** The template's choice arguments with exactly `n` transfer legs (copies of its first leg, amounts 1, 2, ...). */
export function withTransferLegs(choiceArguments: Obj, n: number): Obj {
  const out = structuredClone(choiceArguments);
  const alloc = out.allocation as Obj;
  const model = legsOf(choiceArguments)[0] ?? {};
  const leg = (k: number): Obj => ({ ...structuredClone(model), amount: `${k + 1}.0000000000` });
  if (Array.isArray(alloc.transferLegs)) alloc.transferLegs = Array.from({ length: n }, (_, k) => leg(k));
  else {
    const map: Obj = {};
    for (let k = 0; k < n; k++) map[`leg-${k}`] = leg(k);
    alloc.transferLegs = map;
    delete alloc.transferLeg;
  }
  return out;
}

/** A factory request with `n` legs. */
export function factoryRequest(choiceArguments: Obj, n: number, excludeDebugFields = true): Obj {
  return { choiceArguments: withTransferLegs(choiceArguments, n), excludeDebugFields };
}

/** Valid factory requests whose allocation has between `min` and `max` transfer legs; also yields the count. */
export function factoryRequestWithLegs(choiceArguments: Obj, min: number, max: number): fc.Arbitrary<{ legs: number; body: Obj }> {
  return fc.integer({ min, max }).map((legs) => ({ legs, body: factoryRequest(choiceArguments, legs) }));
}

/** The template with its contract ids replaced: `inputHoldingCids` becomes `cids`, a set `settlementRef.cid` `settlementCid`. */
export function withContractIds(choiceArguments: Obj, cids: string[], settlementCid: string): Obj {
  const out = structuredClone(choiceArguments);
  out.inputHoldingCids = [...cids];
  const ref = isObj(out.allocation) && isObj(out.allocation.settlement) ? out.allocation.settlement.settlementRef : undefined;
  if (isObj(ref) && typeof ref.cid === 'string') ref.cid = settlementCid;
  return out;
}

/** Factory requests that differ from the template only in the contract ids they pass. */
export function factoryRequestWithContractIds(choiceArguments: Obj): fc.Arbitrary<{ cids: string[]; body: Obj }> {
  return fc
    .tuple(fc.array(contractIdLike(), { minLength: 0, maxLength: 5 }), contractIdLike())
    .map(([cids, s]) => ({ cids, body: { choiceArguments: withContractIds(choiceArguments, cids, s), excludeDebugFields: true } }));
}
