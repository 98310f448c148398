/**
 * spec-diff: the suite's OpenAPI document of an interface against a target's own, operation by operation (matched by
 * method and path shape, never by operationId). Each difference is classified from the target's side:
 * - stricter: a message (request or response) valid under the suite's document may be invalid under the target's;
 * - looser: a message valid under the target's document may be invalid under the suite's;
 * - incompatible: both.
 * What a document leaves undeclared (a property) is taken as unconstrained, as JSON Schema reads it. An optional
 * parameter only one document declares is a note, not a difference: a request without it is valid under both, and one
 * with it is too (OpenAPI leaves an undeclared parameter undescribed, not forbidden nor constrained: the document
 * that lacks it says nothing of how the server treats it). A union (`oneOf`, `anyOf`) against another union or a single
 * schema is judged by containment: the target is stricter where every value its schema accepts the suite's accepts
 * (each of its variants inside one of the suite's), looser the other way round, incompatible when neither holds.
 * A target version the suite cannot read ("unknown") judges no version range: the report says so, and every missing
 * operation is a difference.
 * Compared: operations, parameters (path parameters by position), request bodies, required sets, properties, types,
 * formats, enums, statuses (a `default` or `4XX` response is the fallback for any status it covers) and media types.
 * Not compared: lengths, patterns, bounds, descriptions, security. The nullability of an optional response property
 * is not compared either: real servers send unset optional fields as null (FACTS.md), and the suite's documents leave
 * that null implicit.
 */
import { deref, indexOperations, isObject, responseKeyFor, type Json, type LoadedDocument, type Operation } from './document.js';

export type Classification = 'stricter' | 'looser' | 'incompatible';

export interface Difference {
  kind: 'operation' | 'parameter' | 'request-body' | 'media-type' | 'status' | 'required' | 'properties' | 'type' | 'format' | 'enum' | 'variants';
  where: 'request' | 'response';
  /** where in the operation, e.g. "response 200 application/json: body.user.id" */
  at: string;
  suite: string;
  target: string;
  classification: Classification;
}

export interface OperationDiff {
  method: string;
  /** the suite's path, or the target's for an operation only the target has */
  path: string;
  targetPath?: string;
  operationId?: string;
  targetOperationId?: string;
  status: 'matched' | 'missing' | 'extra';
  /** catalogue requirements that name this operation (the suite's own ids) */
  requirements: string[];
  /** why a missing operation is expected (version range, not in a served document): not counted as a difference */
  expected?: string;
  differences: Difference[];
  /** what parts from the suite's document without being a difference (an optional parameter only the target declares) */
  notes?: string[];
}

export interface SpecDiff {
  api: string;
  suite: { source: string; openapi: string; version?: string };
  target: { source: string; openapi: string; title?: string; version?: string };
  /** the target version the expected differences were judged for */
  judgedAtVersion?: string;
  /** where that version came from: --target-version, the target's configuration, or the document's info.version */
  versionSource?: string;
  /** what the reader must know to read the rows (the target's version unknown: no operation missing as expected) */
  notes?: string[];
  counts: { operations: number; matched: number; missing: number; extra: number; differences: number; stricter: number; looser: number; incompatible: number; expected: number };
  operations: OperationDiff[];
}

export interface DiffOptions {
  api: string;
  /** the target's version (--target-version, else its configured one) */
  version?: string;
  /** where `version` came from, for the report (default "the target version given") */
  versionFrom?: string;
  /**
   * whether the target document's info.version names the target's release, to judge by when no version is given (true
   * by default; a participant's served document does; a Splice document does not: they all carry 0.0.1, and the
   * token-standard ones their API versions)
   */
  documentVersionIsRelease?: boolean;
  /** operationId -> catalogue requirement ids */
  requirementsOf?: (operationId: string) => string[];
  /** why a missing suite operation is expected at the target's version (undefined: it is a difference) */
  expectedMissing?: (op: Operation, version: string | undefined) => string | undefined;
}

type Side = { doc: Json };
const MAX_DEPTH = 48;

interface View {
  /** undefined: any type */
  types?: Set<string>;
  /** the types were read from the values of an `enum` or `const` written without a `type` */
  typesFromValues?: boolean;
  format?: string;
  enum?: unknown[];
  properties: Map<string, unknown>;
  required: Set<string>;
  items?: unknown;
  additional?: unknown;
  variants?: Array<{ schema: unknown; ref?: string; label?: string }>;
  /** the keyword of the union the variants come from */
  union?: 'oneOf' | 'anyOf';
}

/** The JSON type of a value, as a `type` keyword names it. */
function jsonType(x: unknown): string {
  if (x === null) return 'null';
  if (Array.isArray(x)) return 'array';
  if (typeof x === 'number') return Number.isInteger(x) ? 'integer' : 'number';
  return typeof x === 'object' ? 'object' : typeof x; // string, boolean
}

/**
 * Schemas made by the comparison itself, each with a key that names it by what it was made from (so that a recursive
 * schema is compared once per pair, as a `$ref` is): the definitions of one property in several `allOf` branches, and
 * a `oneOf` branch with its parent's `type`.
 */
const synthetic = new WeakMap<object, string>();
const inlineIds = new WeakMap<object, number>();
let nextInlineId = 0;
function partKey(s: unknown): string {
  if (!isObject(s)) return JSON.stringify(s) ?? 'undefined';
  const k = synthetic.get(s);
  if (k !== undefined) return k;
  if (typeof s.$ref === 'string') return s.$ref;
  let id = inlineIds.get(s);
  if (id === undefined) inlineIds.set(s, (id = nextInlineId++));
  return `inline#${id}`;
}
/** The identity a comparison of two schemas is remembered by: the `$ref` it names, or a made schema's key. */
const schemaKey = (side: Side, s: unknown): string | undefined => (isObject(s) && synthetic.has(s) ? synthetic.get(s) : deref(side.doc, s).ref);

const ANNOTATIONS = new Set(['title', 'description', 'example', 'examples', 'default', 'deprecated', 'readOnly', 'writeOnly', '$comment', 'externalDocs', 'xml']);
/** A definition that only describes (`{description: ...}` beside a branch's `$ref`): it constrains nothing. */
const annotationOnly = (s: unknown) => isObject(s) && Object.keys(s).every((k) => ANNOTATIONS.has(k) || k.startsWith('x-'));

/** Both of two definitions of one place (a property two `allOf` branches define): every constraint of each applies. */
function both(a: unknown, b: unknown): unknown {
  if (a === undefined || annotationOnly(a)) return b ?? a;
  if (b === undefined || annotationOnly(b)) return a;
  const parts = (x: unknown) => (isObject(x) && synthetic.has(x) && Array.isArray(x.allOf) && !('type' in x) ? x.allOf : [x]);
  const out: unknown[] = [];
  for (const p of [...parts(a), ...parts(b)]) if (!out.some((q) => q === p || partKey(q) === partKey(p))) out.push(p);
  if (out.length === 1) return out[0];
  const s = { allOf: out };
  synthetic.set(s, `allOf(${out.map(partKey).join(',')})`);
  return s;
}

/** A `oneOf` branch without a type of its own has its parent schema's (`{type: object, oneOf: [{required: [a]}]}`). */
function withType(branch: unknown, types: Set<string>): unknown {
  const s = { type: [...types], allOf: [branch] };
  synthetic.set(s, `type(${[...types].join(',')})+${partKey(branch)}`);
  return s;
}

/** The types both of two sets allow (an integer is a number). */
const intersectTypes = (a: Set<string>, b: Set<string>) => new Set([...[...a].filter((t) => covers(b, t)), ...[...b].filter((t) => covers(a, t))]);

/**
 * A schema's comparable content: `$ref`s followed, every `allOf` branch merged (a property two branches define has
 * both definitions), a `[X, null]` union read as a nullable X, the type of a `oneOf`/`anyOf` without one of its own
 * read from its branches, of an `enum`/`const` without one from its values; `format: binary` is any string (any bytes).
 */
function view(side: Side, schema: unknown, depth = 0): View {
  const { node } = deref(side.doc, schema);
  const v: View = { properties: new Map(), required: new Set() };
  if (!isObject(node) || depth > MAX_DEPTH) return v;
  if (typeof node.type === 'string') v.types = new Set([node.type]);
  else if (Array.isArray(node.type)) v.types = new Set(node.type as string[]);
  // OpenAPI's `format: binary` is a string of any bytes (3.1 writes it contentMediaType): no constraint
  if (typeof node.format === 'string' && node.format !== 'binary') v.format = node.format;
  if (Array.isArray(node.enum)) v.enum = node.enum;
  if ('const' in node) v.enum = [node.const];
  if (v.types === undefined && v.enum !== undefined && v.enum.length > 0) {
    v.types = new Set(v.enum.map(jsonType));
    v.typesFromValues = true;
  }
  if (isObject(node.properties)) for (const [k, s] of Object.entries(node.properties)) v.properties.set(k, s);
  if (Array.isArray(node.required)) for (const r of node.required) v.required.add(String(r));
  if ('items' in node) v.items = node.items;
  if (isObject(node.additionalProperties)) v.additional = node.additionalProperties;
  for (const part of Array.isArray(node.allOf) ? node.allOf : []) {
    const p = view(side, part, depth + 1);
    if (p.types !== undefined) {
      v.typesFromValues = v.types === undefined ? p.typesFromValues : v.typesFromValues === true && p.typesFromValues === true;
      v.types = v.types === undefined ? p.types : intersectTypes(v.types, p.types);
    }
    v.format ??= p.format;
    if (p.enum !== undefined) {
      const keys = new Set(p.enum.map((x) => JSON.stringify(x)));
      v.enum = v.enum === undefined ? p.enum : v.enum.filter((x) => keys.has(JSON.stringify(x)));
    }
    for (const [k, s] of p.properties) v.properties.set(k, both(v.properties.get(k), s));
    for (const r of p.required) v.required.add(r);
    v.items = both(v.items, p.items);
    v.additional = both(v.additional, p.additional);
    v.variants ??= p.variants;
    v.union ??= p.union;
  }
  const union = Array.isArray(node.oneOf) ? node.oneOf : Array.isArray(node.anyOf) ? node.anyOf : undefined;
  if (union !== undefined) {
    const isNull = (b: unknown) => isObject(b) && b.type === 'null' && Object.keys(b).length === 1;
    const rest = union.filter((b) => !isNull(b));
    const nullable = rest.length < union.length;
    if (rest.length === 1 && v.types === undefined && v.properties.size === 0) {
      const inner = view(side, rest[0], depth + 1);
      Object.assign(v, inner);
    } else {
      const parent = v.types;
      const branches = rest.map((b) => view(side, b, depth + 1));
      // a union without a type of its own has its branches' (all objects: an object), when every branch has one
      if (parent === undefined && branches.length > 0 && branches.every((b) => b.types !== undefined)) {
        v.types = new Set(branches.flatMap((b) => [...b.types!]));
        v.typesFromValues = branches.every((b) => b.typesFromValues === true);
      }
      v.union = Array.isArray(node.oneOf) ? 'oneOf' : 'anyOf';
      v.variants = rest.map((b, i) => {
        const ref = deref(side.doc, b).ref;
        const label = variantLabel(side, b, branches[i]!);
        return { schema: parent !== undefined && branches[i]!.types === undefined ? withType(b, parent) : b, ...(ref !== undefined ? { ref } : {}), ...(label !== undefined ? { label } : {}) };
      });
    }
    if (nullable && v.types !== undefined) v.types = new Set([...v.types, 'null']);
    if (nullable && v.enum !== undefined && !v.enum.includes(null)) v.enum = [...v.enum, null];
  }
  return v;
}

/**
 * What names a variant of a union for a reader: its title, the schema it refers to, the one key it requires (a
 * single-key object such as `{CanActAs: ...}`), a required property with a single value (a discriminator), its
 * description's first words; undefined when it has none of them (it is then named by its place).
 */
function variantLabel(side: Side, schema: unknown, v: View): string | undefined {
  const { node, ref } = deref(side.doc, schema);
  // a title first: generated documents number their schema names (CanActAs1) where the title is the kind's own
  if (isObject(node) && typeof node.title === 'string' && node.title !== '') return node.title;
  if (ref !== undefined) return ref.split('/').pop();
  if (!isObject(node)) return undefined;
  if (v.required.size === 1) return [...v.required][0];
  for (const key of v.required) {
    const p = view(side, v.properties.get(key));
    if (p.enum?.length === 1) return `${key}: ${JSON.stringify(p.enum[0])}`;
  }
  if (typeof node.description === 'string' && node.description.trim() !== '') {
    const d = node.description.trim().replace(/\s+/g, ' ').replace(/\.$/, '');
    return d.length > 60 ? `${d.slice(0, 57)}...` : d;
  }
  // a bare type (`{type: string}` beside `{type: integer}`) is named by it
  if (v.types !== undefined && v.properties.size === 0 && v.enum === undefined) return [...v.types].join(' or ');
  return undefined;
}

const unionName = (v: View) => `${v.union ?? 'oneOf'} of ${v.variants!.length}`;

const covers = (set: Set<string>, t: string) => set.has(t) || (t === 'integer' && set.has('number'));
const show = (s: Iterable<unknown>) => [...s].map((x) => (typeof x === 'string' ? x : JSON.stringify(x))).join(', ');

/** stricter when the target's set is inside the suite's, looser when it holds it, incompatible when neither. */
function classifySets(suiteHolds: boolean, targetHolds: boolean): Classification | undefined {
  if (suiteHolds && targetHolds) return undefined;
  if (suiteHolds) return 'stricter';
  if (targetHolds) return 'looser';
  return 'incompatible';
}

const ORDERED_FORMATS: Record<string, string[]> = { int32: ['int64'] };

class Comparer {
  readonly seen = new Set<string>();
  constructor(
    readonly suite: Side,
    readonly target: Side,
    readonly out: Difference[],
    readonly notes: string[] = [],
  ) {}

  add(d: Difference): void {
    this.out.push(d);
  }

  /** Names only one document lists at a place; `suiteOnlyMakes`: what a name only the suite lists makes the target. */
  onlyIn(kind: Difference['kind'], where: Difference['where'], at: string, onlySuite: string[], onlyTarget: string[], suiteOnlyMakes: 'stricter' | 'looser'): void {
    const classification: Classification = onlySuite.length > 0 && onlyTarget.length > 0 ? 'incompatible' : onlySuite.length > 0 ? suiteOnlyMakes : suiteOnlyMakes === 'looser' ? 'stricter' : 'looser';
    this.add({ kind, where, at, suite: onlySuite.length > 0 ? `also ${onlySuite.join(', ')}` : '-', target: onlyTarget.length > 0 ? `also ${onlyTarget.join(', ')}` : '-', classification });
  }

  /**
   * Compares two schemas at one place. `ignoreNull`: the place is an optional response property, whose null the
   * comparison leaves aside.
   */
  schema(a: unknown, b: unknown, where: Difference['where'], at: string, ignoreNull: boolean, depth = 0): void {
    if (depth > MAX_DEPTH) return;
    const ra = schemaKey(this.suite, a);
    const rb = schemaKey(this.target, b);
    if (ra !== undefined && rb !== undefined) {
      const key = `${ra}|${rb}|${where}|${ignoreNull}`;
      if (this.seen.has(key)) return;
      this.seen.add(key);
    }
    const va = view(this.suite, a);
    const vb = view(this.target, b);
    const strip = (s: Set<string> | undefined) => (s === undefined || !ignoreNull ? s : new Set([...s].filter((t) => t !== 'null')));
    const ta = strip(va.types);
    const tb = strip(vb.types);
    // types read from an enum's values say nothing the comparison of the two enums does not say better
    const valuesOnly = (va.typesFromValues === true || vb.typesFromValues === true) && va.enum !== undefined && vb.enum !== undefined;
    if ((ta !== undefined || tb !== undefined) && !valuesOnly) {
      const c = classifySets(ta === undefined || (tb !== undefined && [...tb].every((t) => covers(ta, t))), tb === undefined || (ta !== undefined && [...ta].every((t) => covers(tb, t))));
      if (c !== undefined) this.add({ kind: 'type', where, at, suite: ta === undefined ? 'any type' : show(ta), target: tb === undefined ? 'any type' : show(tb), classification: c });
    }
    // a format of another type than the other side's says nothing more than the type difference already does
    const disjoint = ta !== undefined && tb !== undefined && ![...tb].some((t) => covers(ta, t)) && ![...ta].some((t) => covers(tb, t));
    if (va.format !== vb.format && !disjoint) {
      const c =
        va.format === undefined ? 'stricter' : vb.format === undefined ? 'looser' : ORDERED_FORMATS[vb.format]?.includes(va.format) ? 'stricter' : ORDERED_FORMATS[va.format]?.includes(vb.format) ? 'looser' : 'incompatible';
      this.add({ kind: 'format', where, at, suite: va.format ?? 'none', target: vb.format ?? 'none', classification: c });
    }
    if (va.enum !== undefined || vb.enum !== undefined) {
      const key = (x: unknown) => JSON.stringify(x);
      const keep = (e: unknown[]) => (ignoreNull ? e.filter((x) => x !== null) : e);
      const ea = va.enum === undefined ? undefined : new Set(keep(va.enum).map(key));
      const eb = vb.enum === undefined ? undefined : new Set(keep(vb.enum).map(key));
      const c = classifySets(ea === undefined || (eb !== undefined && [...eb].every((x) => ea.has(x))), eb === undefined || (ea !== undefined && [...ea].every((x) => eb.has(x))));
      if (c !== undefined) this.add({ kind: 'enum', where, at, suite: ea === undefined ? 'any value' : [...ea].join(', '), target: eb === undefined ? 'any value' : [...eb].join(', '), classification: c });
    }
    const added = [...vb.required].filter((r) => !va.required.has(r));
    const removed = [...va.required].filter((r) => !vb.required.has(r));
    if (added.length + removed.length > 0) {
      this.add({
        kind: 'required',
        where,
        at,
        suite: [...va.required].join(', ') || 'none',
        target: [...vb.required].join(', ') || 'none',
        classification: classifySets(removed.length === 0, added.length === 0) ?? 'incompatible',
      });
    }
    const missing = [...va.properties.keys()].filter((k) => !vb.properties.has(k));
    const extra = [...vb.properties.keys()].filter((k) => !va.properties.has(k));
    if (missing.length + extra.length > 0 && va.properties.size > 0 && vb.properties.size > 0) {
      // a property only the suite declares is unconstrained in the target's document: looser there
      this.onlyIn('properties', where, at, missing, extra, 'looser');
    }
    for (const [name, sa] of va.properties) {
      const sb = vb.properties.get(name);
      if (sb === undefined) continue;
      const optional = !va.required.has(name) && !vb.required.has(name);
      this.schema(sa, sb, where, `${at}.${name}`, where === 'response' && optional, depth + 1);
    }
    if (va.items !== undefined && vb.items !== undefined) this.schema(va.items, vb.items, where, `${at}[]`, false, depth + 1);
    if (va.additional !== undefined && vb.additional !== undefined) this.schema(va.additional, vb.additional, where, `${at}{}`, false, depth + 1);
    this.variants(va, vb, a, b, where, at, depth);
  }

  /** The differences of one schema against another on their own (a comparison of its own, nothing recorded here). */
  private trial(a: unknown, b: unknown, where: Difference['where'], depth: number): Difference[] {
    const out: Difference[] = [];
    new Comparer(this.suite, this.target, out).schema(a, b, where, '', false, depth + 1);
    return out;
  }

  /** Every value the target's schema `b` accepts the suite's `a` accepts: their differences are all "target stricter". */
  private within(a: unknown, b: unknown, where: Difference['where'], depth: number): boolean {
    return this.trial(a, b, where, depth).every((d) => d.classification === 'stricter');
  }

  private variants(va: View, vb: View, a: unknown, b: unknown, where: Difference['where'], at: string, depth: number): void {
    if (va.variants === undefined && vb.variants === undefined) return;
    const label = (x: { ref?: string; label?: string }, i: number) => x.label ?? `variant ${i + 1}`;
    if (va.variants === undefined || vb.variants === undefined) {
      // a union against a single schema, by containment: the single schema inside one variant, or every variant inside
      // the single schema
      const looserOnly = (ds: Difference[]) => ds.every((d) => d.classification === 'looser');
      let classification: Classification;
      let like: string | undefined;
      if (va.variants !== undefined) {
        const union = va.variants;
        const i = union.findIndex((x) => this.within(x.schema, b, where, depth));
        classification = i >= 0 ? 'stricter' : union.every((x) => looserOnly(this.trial(x.schema, b, where, depth))) ? 'looser' : 'incompatible';
        if (i >= 0) like = `inside the suite's ${label(union[i]!, i)}`;
      } else {
        const union = vb.variants!;
        const i = union.findIndex((y) => looserOnly(this.trial(a, y.schema, where, depth)));
        classification = union.every((y) => this.within(a, y.schema, where, depth)) ? 'stricter' : i >= 0 ? 'looser' : 'incompatible';
        if (i >= 0 && classification === 'looser') like = `inside the target's ${label(union[i]!, i)}`;
      }
      const single = `a single schema${like !== undefined ? ` (${like})` : ''}`;
      this.add({ kind: 'variants', where, at, suite: va.variants === undefined ? single : unionName(va), target: vb.variants === undefined ? single : unionName(vb), classification });
      return;
    }
    // variants pair up by the name of the schema they refer to, else by the properties they require, else by label
    const name = (ref?: string) => ref?.split('/').pop();
    const signature = (side: Side, s: unknown) => [...view(side, s).required].sort().join(',');
    const used = new Set<number>();
    const paired = new Set<number>();
    const pair = (i: number, j: number) => {
      used.add(j);
      paired.add(i);
      this.schema(va.variants![i]!.schema, vb.variants![j]!.schema, where, `${at}(${label(va.variants![i]!, i)})`, false, depth + 1);
    };
    const match = (find: (x: NonNullable<View['variants']>[number], y: NonNullable<View['variants']>[number]) => boolean) =>
      va.variants!.forEach((x, i) => {
        if (paired.has(i)) return;
        const j = vb.variants!.findIndex((y, k) => !used.has(k) && find(x, y));
        if (j >= 0) pair(i, j);
      });
    match((x, y) => x.ref !== undefined && name(y.ref) === name(x.ref));
    match((x, y) => signature(this.suite, x.schema) !== '' && signature(this.target, y.schema) === signature(this.suite, x.schema));
    match((x, y) => x.label !== undefined && x.label === y.label);
    // what is left: a target variant inside a suite variant (the suite's open variant holds a kind the target names)
    // accepts nothing the suite rejects; a suite variant inside a target variant, nothing the target rejects
    const restA = va.variants.flatMap((x, i) => (paired.has(i) ? [] : [i]));
    const restB = vb.variants.flatMap((y, k) => (used.has(k) ? [] : [k]));
    const heldB = new Map<number, number>();
    for (const k of restB) {
      const i = va.variants.findIndex((x) => this.within(x.schema, vb.variants![k]!.schema, where, depth));
      if (i >= 0) heldB.set(k, i);
    }
    const heldA = new Set(restA.filter((i) => vb.variants!.some((y) => this.trial(va.variants![i]!.schema, y.schema, where, depth).every((d) => d.classification === 'looser'))));
    let onlyA = restA.filter((i) => !heldA.has(i));
    let onlyB = restB.filter((k) => !heldB.has(k));
    // two unions of as many variants left, none named: compared in order
    if (onlyA.length === onlyB.length && onlyA.every((i) => va.variants![i]!.label === undefined) && onlyB.every((k) => vb.variants![k]!.label === undefined)) {
      onlyA.forEach((i, n) => pair(i, onlyB[n]!));
      onlyA = [];
      onlyB = [];
    }
    if (onlyA.length + onlyB.length === 0) return;
    const inside = (k: number) => (heldB.has(k) ? ` (inside the suite's ${label(va.variants![heldB.get(k)!]!, heldB.get(k)!)})` : '');
    const suiteText = onlyA.length > 0 ? `also ${onlyA.map((i) => label(va.variants![i]!, i)).join(', ')}` : '-';
    const held = restB.filter((k) => heldB.has(k));
    const targetText = onlyB.length > 0 ? `also ${onlyB.map((k) => label(vb.variants![k]!, k)).join(', ')}` : held.length > 0 ? held.map((k) => `${label(vb.variants![k]!, k)}${inside(k)}`).join(', ') : '-';
    // a variant only the suite allows is one alternative fewer in the target's document: stricter there
    const classification: Classification = onlyA.length > 0 && onlyB.length > 0 ? 'incompatible' : onlyA.length > 0 ? 'stricter' : 'looser';
    this.add({ kind: 'variants', where, at, suite: `${unionName(va)}: ${suiteText}`, target: `${unionName(vb)}: ${targetText}`, classification });
  }

  content(a: Record<string, unknown>, b: Record<string, unknown>, where: Difference['where'], at: string): void {
    for (const mt of Object.keys(a)) {
      if (!(mt in b)) this.add({ kind: 'media-type', where, at, suite: mt, target: `no ${mt}`, classification: 'stricter' });
      else if (a[mt] !== undefined && b[mt] !== undefined) this.schema(a[mt], b[mt], where, `${at} ${mt}: body`, false);
    }
    for (const mt of Object.keys(b)) if (!(mt in a)) this.add({ kind: 'media-type', where, at, suite: `no ${mt}`, target: mt, classification: 'looser' });
  }

  operation(a: Operation, b: Operation): void {
    const key = (p: Operation['parameters'][number], i: number) => (p.in === 'path' ? `path#${i}` : `${p.in}:${p.name}`);
    const pa = new Map(a.parameters.map((p, i) => [key(p, i), p]));
    const pb = new Map(b.parameters.map((p, i) => [key(p, i), p]));
    for (const [k, p] of pa) {
      const q = pb.get(k);
      const at = `${p.in} parameter ${p.name}${q !== undefined && q.name !== p.name ? ` (target: ${q.name})` : ''}`;
      if (q === undefined) {
        // a required parameter only the suite declares: a request without it is valid under the target's document only;
        // an optional one: a request is valid under both with it or without it (the target's document does not
        // describe it, so says nothing of how the server treats it): a note, not a difference
        if (p.required) this.add({ kind: 'parameter', where: 'request', at, suite: 'required', target: 'not declared', classification: 'looser' });
        else this.notes.push(`only the suite declares the optional ${p.in} parameter ${p.name} (a request with or without it is valid under both documents; the target's document does not say how the server treats it)`);
        continue;
      }
      if (p.required !== q.required) this.add({ kind: 'parameter', where: 'request', at, suite: p.required ? 'required' : 'optional', target: q.required ? 'required' : 'optional', classification: q.required ? 'stricter' : 'looser' });
      this.schema(p.schema, q.schema, 'request', at, false);
    }
    for (const [k, q] of pb) {
      if (pa.has(k)) continue;
      // a required parameter only the target declares fails every request the suite's document describes; an
      // optional one accepts every such request (which never sends it): a note, not a difference
      if (q.required) this.add({ kind: 'parameter', where: 'request', at: `${q.in} parameter ${q.name}`, suite: 'not declared', target: 'required', classification: 'stricter' });
      else this.notes.push(`the target also declares the optional ${q.in} parameter ${q.name} (a request without it is valid under both documents)`);
    }
    const ba = a.requestBody;
    const bb = b.requestBody;
    if (ba !== undefined || bb !== undefined) {
      const state = (x: Operation['requestBody']) => (x === undefined ? 'not declared' : x.required ? 'required' : 'optional');
      if (state(ba) !== state(bb)) {
        const c = bb === undefined ? 'looser' : ba === undefined ? 'stricter' : bb.required ? 'stricter' : 'looser';
        this.add({ kind: 'request-body', where: 'request', at: 'request body', suite: state(ba), target: state(bb), classification: c });
      }
      if (ba !== undefined && bb !== undefined) this.content(ba.content, bb.content, 'request', 'request body');
    }
    this.responses(a.responses, b.responses);
  }

  private responses(a: Operation['responses'], b: Operation['responses']): void {
    const compared = new Set<string>();
    for (const status of Object.keys(a)) {
      const tk = status === 'default' ? ('default' in b ? 'default' : undefined) : responseKeyFor(b, status);
      if (tk === undefined) {
        this.add({ kind: 'status', where: 'response', at: `response ${status}`, suite: status === 'default' ? 'default (any status)' : 'documented', target: 'not documented, no default', classification: 'stricter' });
        continue;
      }
      compared.add(`${status}|${tk}`);
      this.content(a[status]!, b[tk]!, 'response', `response ${status}${tk !== status ? ` (target: ${tk})` : ''}`);
    }
    for (const status of Object.keys(b)) {
      if (status in a) continue;
      if (status === 'default') {
        this.add({ kind: 'status', where: 'response', at: 'response default', suite: 'no default', target: 'default (any status)', classification: 'looser' });
        continue;
      }
      const sk = responseKeyFor(a, status);
      if (sk === undefined) {
        this.add({ kind: 'status', where: 'response', at: `response ${status}`, suite: 'not documented, no default', target: 'documented', classification: 'looser' });
      } else if (!compared.has(`${sk}|${status}`)) this.content(a[sk]!, b[status]!, 'response', `response ${status} (suite: ${sk})`);
    }
  }
}

/** A version the suite's ranges can be compared with (compareVersions): a number first ("3.6.0", "0.6.8-snapshot"). */
const readableVersion = (v: string) => /^\d/.test(v);

/** Compares the suite's document of an interface with a target's. Both documents in the 3.1 form, bundled. */
export function diffDocuments(suite: LoadedDocument, target: LoadedDocument, o: DiffOptions): SpecDiff {
  const sa = indexOperations(suite.doc);
  const sb = indexOperations(target.doc);
  const info = (d: LoadedDocument) => (isObject(d.doc.info) ? d.doc.info : {});
  const documentVersion = typeof info(target).version === 'string' ? (info(target).version as string) : undefined;
  const fromDocument = o.version === undefined && o.documentVersionIsRelease !== false ? documentVersion : undefined;
  const written = o.version ?? fromDocument;
  const source = o.version !== undefined ? (o.versionFrom ?? 'the target version given') : "the target document's info.version";
  // a version the suite cannot read ("unknown", "latest", none at all) judges no range: every missing operation is
  // reported as missing, and the report says why, instead of its version ranges hiding them as expected
  const version = written !== undefined && readableVersion(written) ? written : undefined;
  const notes: string[] = [];
  if (version === undefined) {
    const ignored = o.version === undefined && o.documentVersionIsRelease === false && documentVersion !== undefined ? ` (its document's info.version ${JSON.stringify(documentVersion)} is not a release: Splice documents all carry 0.0.1, the token-standard ones their API versions)` : '';
    const what = written === undefined ? `neither a target version (--target-version, a configured one)${ignored !== '' ? ignored : ' nor an info.version in its document'}` : `${JSON.stringify(written)} (${o.version !== undefined ? source : "its document's info.version"}) is no version the suite can read`;
    notes.push(`version unknown: ${what}; the suite's version ranges are not applied, and operations missing are reported as missing`);
  }
  const operations: OperationDiff[] = [];
  const reqs = (id: string | undefined) => (id !== undefined ? (o.requirementsOf?.(id) ?? []) : []);
  for (const [key, a] of sa) {
    const b = sb.get(key);
    const base = { method: a.method, path: a.path, ...(a.operationId !== undefined ? { operationId: a.operationId } : {}), requirements: reqs(a.operationId) };
    if (b === undefined) {
      const expected = o.expectedMissing?.(a, version);
      const differences: Difference[] = expected !== undefined ? [] : [{ kind: 'operation', where: 'request', at: `${a.method} ${a.path}`, suite: 'documented', target: 'not documented', classification: 'stricter' }];
      operations.push({ ...base, status: 'missing', ...(expected !== undefined ? { expected } : {}), differences });
      continue;
    }
    const differences: Difference[] = [];
    const opNotes: string[] = [];
    new Comparer({ doc: suite.doc }, { doc: target.doc }, differences, opNotes).operation(a, b);
    operations.push({ ...base, targetPath: b.path, ...(b.operationId !== undefined ? { targetOperationId: b.operationId } : {}), status: 'matched', differences, ...(opNotes.length > 0 ? { notes: opNotes } : {}) });
  }
  for (const [key, b] of sb) {
    if (sa.has(key)) continue;
    operations.push({
      method: b.method,
      path: b.path,
      ...(b.operationId !== undefined ? { targetOperationId: b.operationId } : {}),
      status: 'extra',
      requirements: [],
      differences: [{ kind: 'operation', where: 'request', at: `${b.method} ${b.path}`, suite: 'not documented', target: 'documented', classification: 'looser' }],
    });
  }
  const all = operations.flatMap((op) => op.differences);
  const count = (c: Classification) => all.filter((d) => d.classification === c).length;
  return {
    api: o.api,
    suite: { source: suite.source, openapi: suite.openapi, ...(typeof info(suite).version === 'string' ? { version: info(suite).version as string } : {}) },
    target: {
      source: target.source,
      openapi: target.openapi,
      ...(typeof info(target).title === 'string' ? { title: info(target).title as string } : {}),
      ...(typeof info(target).version === 'string' ? { version: info(target).version as string } : {}),
    },
    ...(version !== undefined ? { judgedAtVersion: version, versionSource: source } : {}),
    ...(notes.length > 0 ? { notes } : {}),
    counts: {
      operations: operations.length,
      matched: operations.filter((op) => op.status === 'matched').length,
      missing: operations.filter((op) => op.status === 'missing' && op.expected === undefined).length,
      extra: operations.filter((op) => op.status === 'extra').length,
      differences: all.length,
      stricter: count('stricter'),
      looser: count('looser'),
      incompatible: count('incompatible'),
      expected: operations.filter((op) => op.expected !== undefined).length,
    },
    operations,
  };
}
