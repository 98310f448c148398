/**
 * Requests derived from the OpenAPI documents: for one operation and a request that is valid on the target (its ids
 * come from fixtures or discovery), the sites where one mutation makes it invalid, each with a fast-check arbitrary of
 * the mutated value, and the mutation applied to a copy of the request.
 *
 * Built on fast-check's own combinators, walking the request schema of specs/<api>.yaml (resolving `$ref`s) along the
 * valid request: no library fitted (json-schema-fast-check 0.0.6 needs fast-check 1, declares no engines and generates
 * only valid values, never one mutation of a valid request).
 *
 * Six kinds of mutation, each generated only where the schema says for certain that the result is invalid:
 * - required-removed: a required body field or query parameter left out. With `lenient` (the ledger decodes missing
 *   fields as their empty default, FACTS.md) only where that empty default ("" / 0 / [] / {}) is itself invalid by the
 *   schema (minLength, minimum, minItems, required properties, a pattern or enum that refuses it);
 * - wrong-type: a body value of scalar type (or a list of scalars) given another JSON type (never null, which counts as
 *   absent), or a boolean query parameter that is not a boolean. Never a non-object where an object is expected: a
 *   real participant reads that as the empty message and goes on (FACTS.md);
 * - out-of-range: an integer below `minimum`, above `maximum`, or beyond int32;
 * - pattern: a string breaking its `pattern`, `minLength` or `maxLength`;
 * - enum: a string not in its `enum`;
 * - non-integer: a number with a fraction where an integer is required, or a query or path value that is not an integer
 *   (`page_size=abc`, `after=1.5`).
 * Unions (oneOf/anyOf), maps and schemas without one `type` are too loose to know a mutation is invalid: not mutated.
 * An absent optional field gets the invalid values only (wrong type, out of range, ...), never a removal. A path
 * parameter is never emptied (the request would route nowhere), and a field the document dates after the target's
 * version (`x-since`) is not mutated at all (an earlier version ignores it).
 */
import fc from 'fast-check';
import { outOfRange as versionOutOfRange } from '../harness/judging/versions.js';

export const MUTATION_KINDS = ['required-removed', 'wrong-type', 'out-of-range', 'pattern', 'enum', 'non-integer'] as const;
export type MutationKind = (typeof MUTATION_KINDS)[number];

type Json = Record<string, unknown>;
const isObj = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

/** A request as the check sends it: path and query parameters as strings, a JSON body. */
export interface DerivedRequest {
  params: Record<string, string>;
  query: Record<string, string>;
  json?: unknown;
}

export type Location = 'body' | 'query' | 'path';

export interface Mutation {
  kind: MutationKind;
  loc: Location;
  /** property names (and array indices) under the body, or [name] of a parameter */
  path: Array<string | number>;
  /** the field is left out */
  removed?: true;
  /** the value put there */
  value?: unknown;
}

export interface MutationSite {
  kind: MutationKind;
  loc: Location;
  path: Array<string | number>;
  arb: fc.Arbitrary<Mutation>;
}

/** The request side of one operation: its parameters and JSON body schema, `$ref`s unresolved. */
export interface RequestShape {
  parameters: Array<{ name: string; in: string; required?: boolean; schema?: unknown }>;
  body?: unknown;
}

/** `body.publicKey.format = 5`, `query page_size=abc`, `body.offset removed` */
export function describeMutation(m: Mutation): string {
  const where = m.loc === 'body' ? ['body', ...m.path].join('.').replace(/\.(\d+)(?=\.|$)/g, '[$1]') : `${m.loc} parameter ${String(m.path[0])}`;
  return m.removed ? `${where} removed` : `${where} = ${JSON.stringify(m.value)}`;
}

const clone = <T>(v: T): T => (v === undefined ? v : (JSON.parse(JSON.stringify(v)) as T));

/** A copy of the request with the mutation applied. */
export function applyMutation(req: DerivedRequest, m: Mutation): DerivedRequest {
  const out: DerivedRequest = { params: { ...req.params }, query: { ...req.query }, ...(req.json !== undefined ? { json: clone(req.json) } : {}) };
  if (m.loc !== 'body') {
    const bag = m.loc === 'query' ? out.query : out.params;
    const name = String(m.path[0]);
    if (m.removed) delete bag[name];
    else bag[name] = String(m.value);
    return out;
  }
  let parent = out.json as Record<string | number, unknown>;
  for (const k of m.path.slice(0, -1)) parent = parent[k] as Record<string | number, unknown>;
  const last = m.path[m.path.length - 1]!;
  if (m.removed) delete parent[last];
  else parent[last] = m.value;
  return out;
}

/** Resolves local `$ref`s (and `allOf` of a single schema) against the document. */
export function resolver(doc: Json): (s: unknown) => Json | undefined {
  return (s) => {
    let cur = s;
    for (let i = 0; i < 20 && isObj(cur); i++) {
      if (typeof cur.$ref === 'string') {
        cur = cur.$ref
          .slice(2)
          .split('/')
          .map((p) => p.replace(/~1/g, '/').replace(/~0/g, '~'))
          .reduce<unknown>((o, k) => (isObj(o) ? o[k] : undefined), doc);
        continue;
      }
      if (Array.isArray(cur.allOf) && cur.allOf.length === 1 && Object.keys(cur).length === 1) {
        cur = cur.allOf[0];
        continue;
      }
      return cur;
    }
    return undefined;
  };
}

/** The parameters and JSON request body schema of an operation in an OpenAPI document. */
export function requestShape(doc: Json, operationId: string): RequestShape {
  const resolve = resolver(doc);
  for (const item of Object.values((doc.paths ?? {}) as Record<string, Json>)) {
    for (const op of Object.values(item)) {
      if (!isObj(op) || op.operationId !== operationId) continue;
      const parameters = [...((item.parameters as unknown[]) ?? []), ...((op.parameters as unknown[]) ?? [])].map((p) => resolve(p) as RequestShape['parameters'][number]);
      const body = resolve(op.requestBody);
      const json = isObj(body?.content) ? (body.content as Json)['application/json'] : undefined;
      return { parameters, ...(isObj(json) && json.schema !== undefined ? { body: json.schema } : {}) };
    }
  }
  throw new Error(`no operation ${operationId} in the document`);
}

const INT32_MIN = -(2 ** 31);
const INT32_MAX = 2 ** 31 - 1;
/** characters outside every id pattern of the documents, none of which changes a URL's path or query when encoded */
const BAD_CHARS = [' ', '*', '=', ',', ';', '<', '>', '[', ']', '{', '}', '"', '&'];
const WORDS = ['abc', 'ten', 'x'];

const typeOf = (s: Json): string | undefined => (typeof s.type === 'string' ? s.type : undefined);

const SCALARS = new Set(['string', 'integer', 'number', 'boolean']);
/** A field of scalar type, or a list of scalars: the only fields a wrong JSON type is certain to be refused in. */
function scalarOrScalarList(s: Json, resolve: (s: unknown) => Json | undefined): boolean {
  const type = typeOf(s);
  if (type === 'array') {
    const items = resolve(s.items);
    return items !== undefined && SCALARS.has(typeOf(items) ?? '');
  }
  return SCALARS.has(type ?? '');
}

/**
 * Whether a field exists at the target's version: a field added in a later version (`x-since`) is unknown to an earlier
 * one and ignored there (FACTS.md), so no mutation of it can be refused; `x-until` likewise.
 */
export function fieldAt(s: Json, version: string | undefined): boolean {
  if (version === undefined) return true;
  return versionOutOfRange(version, typeof s['x-since'] === 'string' ? s['x-since'] : undefined, typeof s['x-until'] === 'string' ? s['x-until'] : undefined) === undefined;
}

/** Whether the empty default a lenient decoder puts in place of a missing field is itself invalid by the schema. */
export function emptyDefaultInvalid(s: Json, resolve: (s: unknown) => Json | undefined): boolean {
  switch (typeOf(s)) {
    case 'string':
      return (
        (typeof s.minLength === 'number' && s.minLength > 0) ||
        (typeof s.pattern === 'string' && !new RegExp(s.pattern, 'u').test('')) ||
        (Array.isArray(s.enum) && !s.enum.includes(''))
      );
    case 'integer':
    case 'number':
      return (typeof s.minimum === 'number' && s.minimum > 0) || (typeof s.maximum === 'number' && s.maximum < 0) || (Array.isArray(s.enum) && !s.enum.includes(0));
    case 'array':
      return typeof s.minItems === 'number' && s.minItems > 0;
    case 'object':
      return Array.isArray(s.required) && s.required.length > 0 && isObj(s.properties) && s.required.every((r) => resolve((s.properties as Json)[r as string]) !== undefined);
    default:
      return false;
  }
}

/** Values of another JSON type than `type` (never null: a decoder takes null for absent). */
function otherTypes(type: string): fc.Arbitrary<unknown> {
  const word = fc.constantFrom(...WORDS);
  switch (type) {
    case 'string':
      return fc.oneof(fc.integer({ min: 0, max: 1000 }), fc.boolean(), fc.constant({}), fc.constant([]));
    case 'integer':
    case 'number':
      return fc.oneof(word, fc.boolean(), fc.constant({}), fc.constant([]));
    case 'boolean':
      return fc.oneof(fc.constantFrom('yes', 'maybe'), fc.integer({ min: 2, max: 9 }), fc.constant({}));
    case 'object':
      return fc.oneof(word, fc.integer({ min: 0, max: 1000 }), fc.boolean(), fc.constant([]));
    case 'array':
      return fc.oneof(word, fc.integer({ min: 0, max: 1000 }), fc.boolean(), fc.constant({}));
    default:
      return fc.constant(undefined);
  }
}

/** Integers outside the schema's range (minimum, maximum, int32), each side shrinking to the nearest bound. */
function outOfRange(s: Json): Array<fc.Arbitrary<number>> {
  const int32 = s.format === 'int32';
  const sides: Array<fc.Arbitrary<number>> = [];
  const min = typeof s.minimum === 'number' ? s.minimum : int32 ? INT32_MIN : undefined;
  const max = typeof s.maximum === 'number' ? s.maximum : int32 ? INT32_MAX : undefined;
  if (min !== undefined) sides.push(fc.nat(1000).map((n) => min - 1 - n));
  if (max !== undefined) sides.push(fc.nat(1000).map((n) => max + 1 + n));
  if (int32 && max !== undefined && max < INT32_MAX) sides.push(fc.nat(1000).map((n) => INT32_MAX + 1 + n));
  return sides;
}

/** Strings breaking minLength, maxLength or pattern; `current` is the valid value the breaking one starts from. */
function breakingStrings(s: Json, current: unknown, nonEmpty: boolean): Array<fc.Arbitrary<string>> {
  const out: Array<fc.Arbitrary<string>> = [];
  const pattern = typeof s.pattern === 'string' ? new RegExp(s.pattern, 'u') : undefined;
  const base = typeof current === 'string' && current !== '' ? current : 'a';
  if (typeof s.minLength === 'number' && s.minLength > (nonEmpty ? 1 : 0)) out.push(fc.constant(base.slice(0, s.minLength - 1)));
  if (typeof s.maxLength === 'number') {
    const fill = pattern === undefined || pattern.test('a') ? 'a' : base[0]!;
    out.push(fc.nat(16).map((n) => (base + fill.repeat(s.maxLength as number)).slice(0, (s.maxLength as number) + 1 + n)));
  }
  if (pattern !== undefined) {
    const bad = BAD_CHARS.filter((c) => !pattern.test(`${base}${c}`) && !pattern.test(`${c}${base}`));
    if (bad.length > 0) out.push(fc.tuple(fc.nat(base.length), fc.constantFrom(...bad)).map(([i, c]) => base.slice(0, i) + c + base.slice(i)));
  }
  return out;
}

/** Strings not in the enum, nor any listed value in another case. */
function unlisted(values: unknown[]): fc.Arbitrary<string> {
  const listed = new Set(values.map((v) => String(v).toLowerCase()));
  const candidates = ['NOT_A_LISTED_VALUE', 'unknown-value', 'X'].filter((c) => !listed.has(c.toLowerCase()));
  return fc.constantFrom(...candidates);
}

const mutation = (kind: MutationKind, loc: Location, path: Array<string | number>) => (value: unknown): Mutation => ({ kind, loc, path, value });

/** Sites of the value mutations of one value (present, or an absent optional field). */
function valueSites(s: Json, current: unknown, loc: Location, path: Array<string | number>, resolve: (s: unknown) => Json | undefined): MutationSite[] {
  const type = typeOf(s);
  if (type === undefined) return [];
  const sites: MutationSite[] = [];
  const add = (kind: MutationKind, arb: fc.Arbitrary<unknown>) => sites.push({ kind, loc, path, arb: arb.map(mutation(kind, loc, path)) });
  const param = loc !== 'body';
  // FACTS.md: a non-object where a message is expected is read as the empty message, so only a scalar (or a list of
  // scalars) given another JSON type is certain to be refused
  if (!param && scalarOrScalarList(s, resolve)) add('wrong-type', otherTypes(type));
  else if (type === 'boolean') add('wrong-type', fc.constantFrom('maybe', '1x', 'nope'));
  if (type === 'integer') {
    const ranges = outOfRange(s);
    if (ranges.length > 0) add('out-of-range', fc.oneof(...ranges).map((n) => (param ? String(n) : n)));
    // a fraction above the minimum, so that only the fraction is wrong
    const from = typeof s.minimum === 'number' ? s.minimum : 0;
    const fraction = fc.nat(100).map((n) => from + n + 0.5);
    add('non-integer', param ? fc.oneof(fc.constantFrom(...WORDS), fraction.map(String)) : fraction);
  }
  if (type === 'string') {
    // a path parameter is never emptied: `/v2/users//rights` routes nowhere (FACTS.md: the framework's 404, no verdict)
    const breaking = breakingStrings(s, current, loc === 'path');
    if (breaking.length > 0) add('pattern', fc.oneof(...breaking));
    if (Array.isArray(s.enum) && s.enum.length > 0) add('enum', unlisted(s.enum));
  }
  return sites;
}

/** Walks an object schema along a valid value: every site below it. */
function objectSites(s: Json, value: unknown, path: Array<string | number>, resolve: (s: unknown) => Json | undefined, o: SiteOptions, depth: number): MutationSite[] {
  if (depth > 8 || typeOf(s) !== 'object' || !isObj(s.properties) || !isObj(value)) return [];
  const required = new Set(Array.isArray(s.required) ? (s.required as string[]) : []);
  const sites: MutationSite[] = [];
  for (const [name, raw] of Object.entries(s.properties)) {
    const p = resolve(raw);
    if (p === undefined || !fieldAt(p, o.version) || (isObj(raw) && !fieldAt(raw, o.version))) continue;
    const at = [...path, name];
    const present = value[name] !== undefined && value[name] !== null;
    if (!present) {
      if (!required.has(name)) sites.push(...valueSites(p, undefined, 'body', at, resolve));
      continue;
    }
    if (required.has(name) && (!o.lenient || emptyDefaultInvalid(p, resolve))) {
      sites.push({ kind: 'required-removed', loc: 'body', path: at, arb: fc.constant<Mutation>({ kind: 'required-removed', loc: 'body', path: at, removed: true }) });
    }
    sites.push(...valueSites(p, value[name], 'body', at, resolve));
    sites.push(...objectSites(p, value[name], at, resolve, o, depth + 1));
    const items = typeOf(p) === 'array' ? resolve(p.items) : undefined;
    const first = (value[name] as unknown[])[0];
    if (items !== undefined && Array.isArray(value[name]) && first !== undefined && first !== null) {
      sites.push(...valueSites(items, first, 'body', [...at, 0], resolve));
      sites.push(...objectSites(items, first, [...at, 0], resolve, o, depth + 1));
    }
  }
  return sites;
}

export interface SiteOptions {
  /** the target decodes a missing body field as its empty default (the ledger, FACTS.md) */
  lenient: boolean;
  /** the target's version: fields the document dates after it (x-since) or before it (x-until) are not mutated */
  version?: string;
}

/**
 * Every site where one mutation makes the valid request `req` of the operation invalid, by the document `doc`.
 * Path parameters are never removed (the request would go to another route).
 */
export function mutationSites(doc: Json, operationId: string, req: DerivedRequest, o: SiteOptions): MutationSite[] {
  const resolve = resolver(doc);
  const shape = requestShape(doc, operationId);
  const sites: MutationSite[] = [];
  for (const p of shape.parameters) {
    if (p.in !== 'query' && p.in !== 'path') continue;
    const s = resolve(p.schema);
    if (s === undefined) continue;
    const bag = p.in === 'query' ? req.query : req.params;
    const loc: Location = p.in;
    if (p.in === 'query' && p.required === true && bag[p.name] !== undefined) {
      sites.push({ kind: 'required-removed', loc, path: [p.name], arb: fc.constant<Mutation>({ kind: 'required-removed', loc, path: [p.name], removed: true }) });
    }
    sites.push(...valueSites(s, bag[p.name], loc, [p.name], resolve));
  }
  const body = resolve(shape.body);
  if (body !== undefined && req.json !== undefined) sites.push(...objectSites(body, req.json, [], resolve, o, 0));
  return sites;
}

/** The sites of one kind as one arbitrary (fast-check shrinks towards the first site and its simplest value). */
export function mutationsOfKind(sites: readonly MutationSite[], kind: MutationKind): fc.Arbitrary<Mutation> | undefined {
  const of = sites.filter((s) => s.kind === kind);
  return of.length === 0 ? undefined : fc.oneof(...of.map((s) => s.arb));
}

/**
 * The kinds of violation the document finds in a request (an independent judge of a mutation: ajv's errors on the body
 * by keyword, and the parameters by their schemas). `validateBody` validates the JSON body against the operation's
 * request schema and returns ajv's errors.
 */
export function violationKinds(
  doc: Json,
  operationId: string,
  req: DerivedRequest,
  validateBody: (json: unknown) => Array<{ keyword: string; instancePath: string; data?: unknown; params?: unknown }>,
): Set<MutationKind> {
  const resolve = resolver(doc);
  const shape = requestShape(doc, operationId);
  const kinds = new Set<MutationKind>();
  for (const p of shape.parameters) {
    if (p.in !== 'query' && p.in !== 'path') continue;
    const s = resolve(p.schema) ?? {};
    const v = (p.in === 'query' ? req.query : req.params)[p.name];
    if (v === undefined) {
      if (p.required === true) kinds.add('required-removed');
      continue;
    }
    if (s.type === 'integer') {
      if (!/^-?\d+$/.test(v)) kinds.add('non-integer');
      else {
        const n = Number(v);
        const int32 = s.format === 'int32';
        if ((typeof s.minimum === 'number' && n < s.minimum) || (typeof s.maximum === 'number' && n > s.maximum) || (int32 && (n < INT32_MIN || n > INT32_MAX))) kinds.add('out-of-range');
      }
    } else if (s.type === 'boolean') {
      if (v !== 'true' && v !== 'false') kinds.add('wrong-type');
    } else if (s.type === 'string') {
      if (Array.isArray(s.enum) && !s.enum.includes(v)) kinds.add('enum');
      if ((typeof s.pattern === 'string' && !new RegExp(s.pattern, 'u').test(v)) || (typeof s.minLength === 'number' && v.length < s.minLength) || (typeof s.maxLength === 'number' && v.length > s.maxLength)) kinds.add('pattern');
    }
  }
  if (shape.body !== undefined && req.json !== undefined) {
    const errors = validateBody(req.json);
    // a value of the wrong type also fails its enum or format: the type error alone says what is wrong there
    const typed = new Set(errors.filter((e) => e.keyword === 'type').map((e) => e.instancePath));
    for (const e of errors) {
      if (e.keyword !== 'type' && typed.has(e.instancePath)) continue;
      const k = keywordKind(e);
      if (k !== undefined) kinds.add(k);
    }
  }
  return kinds;
}

function keywordKind(e: { keyword: string; data?: unknown; params?: unknown }): MutationKind | undefined {
  switch (e.keyword) {
    case 'required':
      return 'required-removed';
    case 'type': {
      const want = ([] as unknown[]).concat((e.params as { type?: unknown } | undefined)?.type);
      return want.includes('integer') && typeof e.data === 'number' ? 'non-integer' : 'wrong-type';
    }
    case 'minimum':
    case 'maximum':
      return 'out-of-range';
    case 'format':
      // int32 beyond its range; a fraction is the type error beside it
      return typeof e.data === 'number' && Number.isInteger(e.data) ? 'out-of-range' : undefined;
    case 'pattern':
    case 'minLength':
    case 'maxLength':
      return 'pattern';
    case 'enum':
      return 'enum';
    default:
      return undefined;
  }
}
